// RUN: mxc-opt %s --mx-autodiff | FileCheck %s

// Tests FullyConnected without flatten: the leading axes are the rows of the
// (M, K) views, and the bias gradient (shape (H, 1) here, which MXNet
// accepts) is the row sum reshaped to the bias.

// CHECK-LABEL: func.func @main
// CHECK: %[[DY:.*]] = mx.Reshape %{{.*}} {shape = array<i64: 6, 5>} : (tensor<2x3x5xf32>) -> tensor<6x5xf32>
// CHECK-DAG: mx.Reshape %{{.*}} {shape = array<i64: 6, 4>} : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
// CHECK-DAG: %[[S:.*]] = mx.sum %[[DY]] {axis = array<i64: 0>} : (tensor<6x5xf32>) -> tensor<5xf32>
// CHECK-DAG: mx.Reshape %[[S]] {shape = array<i64: 5, 1>} : (tensor<5xf32>) -> tensor<5x1xf32>
func.func @main(%data: tensor<2x3x4xf32> {mx.kind = "data", mx.name = "data"},
                %w: tensor<5x4xf32> {mx.kind = "param", mx.name = "fc_weight"},
                %b: tensor<5x1xf32> {mx.kind = "param", mx.name = "fc_bias"})
    -> (tensor<2x3x5xf32> {mx.name = "fc_output"}) {
  %0 = mx.FullyConnected %data, %w, %b {flatten = false, num_hidden = 5 : i64} : (tensor<2x3x4xf32>, tensor<5x4xf32>, tensor<5x1xf32>) -> tensor<2x3x5xf32> loc("fc")
  return %0 : tensor<2x3x5xf32>
}
