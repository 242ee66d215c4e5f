// RUN: mxc-opt %s --mx-autodiff="wrt=data,conv_weight,conv_bias,fc_weight" | FileCheck %s

// Tests the gradient rules of the layer ops (MXGradientsNN.cpp) in one
// chain Convolution -> LRN -> Pooling -> FullyConnected: FullyConnected's
// gradients are dot products on the (N, K) view of its data (dX = dY * W,
// dW = dY^T * X), Pooling and LRN become their backward ops on the forward's
// data and output (LRN: its hidden tmp_norm), and Convolution gives
// Convolution_backward_data / _weight with the forward's attributes and the
// bias gradient as a sum over every axis but the channel axis.

// CHECK-LABEL: func.func @main
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<2x3x8x8xf32> {mx.kind = "data", mx.name = "data"}
// CHECK-SAME: %[[W:[a-z0-9]+]]: tensor<4x3x3x3xf32> {mx.kind = "param", mx.name = "conv_weight"}
// CHECK-SAME: %[[FW:[a-z0-9]+]]: tensor<5x16xf32> {mx.kind = "param", mx.name = "fc_weight"}
// CHECK-SAME: %[[DY:[a-z0-9]+]]: tensor<2x5xf32> {mx.kind = "head_grad", mx.name = "fc_output_grad"}
// CHECK: %[[C:.*]] = mx.Convolution %[[X]], %[[W]]
// CHECK: %[[L:.*]], %[[NORM:.*]] = mx.LRN %[[C]]
// CHECK: %[[P:.*]] = mx.Pooling %[[L]]
// CHECK-DAG: %[[P2:.*]] = mx.Reshape %[[P]] {shape = array<i64: 2, 16>}
// CHECK-DAG: %[[DP2:.*]] = mx.dot %[[DY]], %[[FW]] : (tensor<2x5xf32>, tensor<5x16xf32>) -> tensor<2x16xf32>
// CHECK-DAG: %[[DFW:.*]] = mx.dot %[[DY]], %[[P2]] {transpose_a = true} : (tensor<2x5xf32>, tensor<2x16xf32>) -> tensor<5x16xf32>
// CHECK-DAG: %[[DP:.*]] = mx.Reshape %[[DP2]] {shape = array<i64: 2, 4, 2, 2>}
// CHECK: %[[DL:.*]] = mx.Pooling_backward %[[DP]], %[[L]], %[[P]] {kernel = array<i64: 2, 2>, pool_type = "avg", pooling_convention = "full", stride = array<i64: 2, 2>}
// CHECK: %[[DC:.*]] = mx.LRN_backward %[[DL]], %[[C]], %[[NORM]], %[[L]] {alpha = 2.500000e-01 : f64, nsize = 3 : i64}
// CHECK-DAG: %[[DX:.*]] = mx.Convolution_backward_data %[[DC]], %[[W]] {kernel = array<i64: 3, 3>, num_filter = 4 : i64, pad = array<i64: 1, 1>, stride = array<i64: 2, 2>} : (tensor<2x4x4x4xf32>, tensor<4x3x3x3xf32>) -> tensor<2x3x8x8xf32>
// CHECK-DAG: %[[DW:.*]] = mx.Convolution_backward_weight %[[DC]], %[[X]] {kernel = array<i64: 3, 3>, num_filter = 4 : i64, pad = array<i64: 1, 1>, stride = array<i64: 2, 2>} : (tensor<2x4x4x4xf32>, tensor<2x3x8x8xf32>) -> tensor<4x3x3x3xf32>
// CHECK-DAG: %[[DB:.*]] = mx.sum %[[DC]] {axis = array<i64: 0, 2, 3>} : (tensor<2x4x4x4xf32>) -> tensor<4xf32>
// CHECK: return %{{.*}}, %[[DX]], %[[DW]], %[[DB]], %[[DFW]]
func.func @main(%data: tensor<2x3x8x8xf32> {mx.kind = "data", mx.name = "data"},
                %w: tensor<4x3x3x3xf32> {mx.kind = "param", mx.name = "conv_weight"},
                %b: tensor<4xf32> {mx.kind = "param", mx.name = "conv_bias"},
                %fw: tensor<5x16xf32> {mx.kind = "param", mx.name = "fc_weight"})
    -> (tensor<2x5xf32> {mx.name = "fc_output"}) {
  %0 = mx.Convolution %data, %w, %b {kernel = array<i64: 3, 3>, num_filter = 4 : i64, pad = array<i64: 1, 1>, stride = array<i64: 2, 2>} : (tensor<2x3x8x8xf32>, tensor<4x3x3x3xf32>, tensor<4xf32>) -> tensor<2x4x4x4xf32> loc("conv")
  %out, %norm = mx.LRN %0 {nsize = 3 : i64, alpha = 0.25 : f64} : (tensor<2x4x4x4xf32>) -> (tensor<2x4x4x4xf32>, tensor<2x4x4x4xf32>) loc("lrn")
  %1 = mx.Pooling %out {kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>, pool_type = "avg", pooling_convention = "full"} : (tensor<2x4x4x4xf32>) -> tensor<2x4x2x2xf32> loc("pool")
  %2 = mx.FullyConnected %1, %fw {no_bias = true, num_hidden = 5 : i64} : (tensor<2x4x2x2xf32>, tensor<5x16xf32>) -> tensor<2x5xf32> loc("fc")
  return %2 : tensor<2x5xf32>
}
