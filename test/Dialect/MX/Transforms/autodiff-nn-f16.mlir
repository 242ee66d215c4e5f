// RUN: mxc-opt %s --mx-autodiff="wrt=data,conv_weight" | FileCheck %s

// Tests that float16 layers are differentiated in float32 (the library
// backward ops take float32 / float64): Pooling_backward and the two
// Convolution backward ops read float32 casts of their float16 operands,
// and their results are cast back to float16.

// CHECK-LABEL: func.func @main
// CHECK-SAME: %[[X:[a-z0-9]+]]: tensor<2x3x8x8xf16> {mx.kind = "data", mx.name = "data"}
// CHECK-SAME: %[[W:[a-z0-9]+]]: tensor<4x3x3x3xf16> {mx.kind = "param", mx.name = "conv_weight"}
// CHECK: %[[C:.*]] = mx.Convolution %[[X]], %[[W]]
// CHECK: %[[P:.*]] = mx.Pooling %[[C]]
// CHECK: mx.Pooling_backward {{.*}} : (tensor<2x4x4x4xf32>, tensor<2x4x8x8xf32>, tensor<2x4x4x4xf32>) -> tensor<2x4x8x8xf32>
// CHECK: %[[DC:.*]] = mx.Cast {{.*}} {dtype = "float16"} : (tensor<2x4x8x8xf32>) -> tensor<2x4x8x8xf16>
// CHECK-DAG: %[[DCW:.*]] = mx.Cast %[[DC]] {dtype = "float32"} : (tensor<2x4x8x8xf16>) -> tensor<2x4x8x8xf32>
// CHECK-DAG: %[[XW:.*]] = mx.Cast %[[X]] {dtype = "float32"} : (tensor<2x3x8x8xf16>) -> tensor<2x3x8x8xf32>
// CHECK-DAG: %[[WW:.*]] = mx.Cast %[[W]] {dtype = "float32"} : (tensor<4x3x3x3xf16>) -> tensor<4x3x3x3xf32>
// CHECK-DAG: %[[DX:.*]] = mx.Convolution_backward_data %[[DCW]], %[[WW]] {{.*}} -> tensor<2x3x8x8xf32>
// CHECK-DAG: %[[DW:.*]] = mx.Convolution_backward_weight %[[DCW]], %[[XW]] {{.*}} -> tensor<4x3x3x3xf32>
// CHECK-DAG: %[[DX16:.*]] = mx.Cast %[[DX]] {dtype = "float16"} : (tensor<2x3x8x8xf32>) -> tensor<2x3x8x8xf16>
// CHECK-DAG: %[[DW16:.*]] = mx.Cast %[[DW]] {dtype = "float16"} : (tensor<4x3x3x3xf32>) -> tensor<4x3x3x3xf16>
// CHECK: return %{{.*}}, %[[DX16]], %[[DW16]]
func.func @main(%data: tensor<2x3x8x8xf16> {mx.kind = "data", mx.name = "data"},
                %w: tensor<4x3x3x3xf16> {mx.kind = "param", mx.name = "conv_weight"})
    -> (tensor<2x4x4x4xf16> {mx.name = "pool_output"}) {
  %0 = mx.Convolution %data, %w {kernel = array<i64: 3, 3>, num_filter = 4 : i64, no_bias = true, pad = array<i64: 1, 1>} : (tensor<2x3x8x8xf16>, tensor<4x3x3x3xf16>) -> tensor<2x4x8x8xf16> loc("conv")
  %1 = mx.Pooling %0 {kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>, pool_type = "max"} : (tensor<2x4x8x8xf16>) -> tensor<2x4x4x4xf16> loc("pool")
  return %1 : tensor<2x4x4x4xf16>
}
