// RUN: mxc-opt %s --mx-autodiff | FileCheck %s

// The gradients of softmax and log_softmax are mx.softmax_backward ops on the
// forward's output (one op, so that the CUDA target calls cuDNN's softmax
// gradient for it; the CPU lowers it to a sum and a map); a temperature's
// 1 / t scales the result.

// CHECK-LABEL: func.func @main
// CHECK-SAME: (%[[X:[^:]*]]: tensor<4x10xf32> {mx.kind = "param", mx.name = "x"}, %[[DY:[^:]*]]: tensor<4x10xf32> {mx.kind = "head_grad", mx.name = "out_grad"})
// CHECK: %[[S:.*]] = mx.softmax %[[X]] {axis = 1 : i64}
// CHECK: %[[L:.*]] = mx.log_softmax %[[S]]
// CHECK: %[[G1:.*]] = mx.softmax_backward %[[DY]], %[[L]] {axis = 0 : i64, log = true}
// CHECK: %[[G2:.*]] = mx._mul_scalar %[[G1]] {is_int = false, scalar = 5.000000e-01 : f64}
// CHECK: %[[G3:.*]] = mx.softmax_backward %[[G2]], %[[S]] {axis = 1 : i64}
// CHECK: return %[[L]], %[[G3]]
func.func @main(%x: tensor<4x10xf32> {mx.kind = "param", mx.name = "x"}) -> (tensor<4x10xf32> {mx.name = "out"}) {
  %0 = mx.softmax %x {axis = 1 : i64} : (tensor<4x10xf32>) -> tensor<4x10xf32>
  %1 = mx.log_softmax %0 {axis = 0 : i64, temperature = 2.0 : f64} : (tensor<4x10xf32>) -> tensor<4x10xf32>
  return %1 : tensor<4x10xf32>
}
