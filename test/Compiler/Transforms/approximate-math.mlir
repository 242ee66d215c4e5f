// mxc-approximate-math: f32 exp/log/tanh/erf (f16 through f32) become
// polynomial approximations; other math ops and f64 stay.
// RUN: mxc-opt %s -split-input-file -mxc-approximate-math | FileCheck %s

// Tests that f32 tanh, exp, log and erf become arithmetic.
func.func @f32(%x: f32) -> (f32, f32, f32, f32) {
  %0 = math.tanh %x : f32
  %1 = math.exp %x : f32
  %2 = math.log %x : f32
  %3 = math.erf %x : f32
  return %0, %1, %2, %3 : f32, f32, f32, f32
}
// CHECK-LABEL: func.func @f32(
// CHECK-NOT: math.tanh
// CHECK-NOT: math.exp
// CHECK-NOT: math.log
// CHECK-NOT: math.erf
// CHECK: arith.
// CHECK: return

// -----

// Tests that f16 is computed in f32 and f64, sqrt and sin stay.
func.func @others(%h: f16, %d: f64, %x: f32) -> (f16, f64, f32, f32) {
  %0 = math.exp %h : f16
  %1 = math.exp %d : f64
  %2 = math.sqrt %x : f32
  %3 = math.sin %x : f32
  return %0, %1, %2, %3 : f16, f64, f32, f32
}
// CHECK-LABEL: func.func @others(
// CHECK: arith.extf %{{.*}} : f16 to f32
// CHECK: arith.truncf %{{.*}} : f32 to f16
// CHECK: math.exp %{{.*}} : f64
// CHECK: math.sqrt %{{.*}} : f32
// CHECK: math.sin %{{.*}} : f32

// -----

// Tests that vectors are approximated lane-wise.
func.func @vector(%v: vector<8xf32>) -> vector<8xf32> {
  %0 = math.exp %v : vector<8xf32>
  return %0 : vector<8xf32>
}
// CHECK-LABEL: func.func @vector(
// CHECK-NOT: math.exp
// CHECK: return %{{.*}} : vector<8xf32>
