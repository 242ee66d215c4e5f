// mxc-gpu-expand-math (the CUDA target): math.trunc, which convert-gpu-to-nvvm
// leaves for LLVM translation to reject, becomes x < 0 ? ceil(x) : floor(x)
// (libdevice calls). Every kernel of test/gpu/models.py's graphs, whose
// unary graph has trunc and fix, goes through ptxas in
// test/python/gpu/test_gpu_target.py.
// RUN: mxc-opt %s --pass-pipeline="builtin.module(func.func(mxc-gpu-expand-math))" | FileCheck %s

// CHECK-LABEL: func.func @trunc
// CHECK-SAME:    (%[[X:.*]]: f32, %[[Y:.*]]: f64)
// CHECK-DAG:     %[[Z32:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-DAG:     %[[NEG:.*]] = arith.cmpf olt, %[[X]], %[[Z32]] : f32
// CHECK-DAG:     %[[UP:.*]] = math.ceil %[[X]] : f32
// CHECK-DAG:     %[[DOWN:.*]] = math.floor %[[X]] : f32
// CHECK:         %[[R:.*]] = arith.select %[[NEG]], %[[UP]], %[[DOWN]] : f32
// CHECK:         math.ceil %[[Y]] : f64
// CHECK:         math.floor %[[Y]] : f64
// CHECK-NOT:     math.trunc
// CHECK:         return %[[R]]
func.func @trunc(%x: f32, %y: f64) -> (f32, f64) {
  %a = math.trunc %x : f32
  %b = math.trunc %y : f64
  return %a, %b : f32, f64
}
