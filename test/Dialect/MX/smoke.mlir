// RUN: mxc-opt %s | FileCheck %s

// Tests that the mx dialect round-trips through mxc-opt.
// CHECK-LABEL: func.func @f
// CHECK: mx.identity %{{.*}} : (tensor<2xf32>) -> tensor<2xf32>
func.func @f(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = mx.identity %a : (tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}
