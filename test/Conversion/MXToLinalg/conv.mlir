// RUN: mxc-opt %s --split-input-file --convert-mx-to-linalg --verify-diagnostics | FileCheck %s

// Tests that an f32 2-D convolution with groups, stride and padding becomes a
// kernel call of the runtime's im2col + OpenBLAS kernel with its geometry as 3-D (depth 1):
// batch 2, channels 4, filters 6, groups 2, has_bias 1, in 1x8x8, kernel
// 1x3x3, out 1x4x4, stride 1x2x2, pad 0x1x1, dilate 1x1x1.

// CHECK-LABEL: func.func @conv2d_groups
// CHECK-SAME: (%[[X:.*]]: tensor<2x4x8x8xf32>, %[[W:.*]]: tensor<6x2x3x3xf32>, %[[B:.*]]: tensor<6xf32>)
// CHECK: %[[OUT:.*]] = tensor.empty() : tensor<2x6x4x4xf32>
// CHECK: %[[R:.*]] = mxrt.kernel_call @mxc_kernel_conv_f32(%[[X]], %[[W]], %[[B]]) outs(%[[OUT]]) args [2, 4, 6, 2, 1, 1, 8, 8, 1, 3, 3, 1, 4, 4, 1, 2, 2, 0, 1, 1, 1, 1, 1] : (tensor<2x4x8x8xf32>, tensor<6x2x3x3xf32>, tensor<6xf32>, tensor<2x6x4x4xf32>) -> tensor<2x6x4x4xf32>
// CHECK: return %[[R]]
func.func @conv2d_groups(%x: tensor<2x4x8x8xf32>, %w: tensor<6x2x3x3xf32>, %b: tensor<6xf32>) -> tensor<2x6x4x4xf32> {
  %0 = mx.Convolution %x, %w, %b {kernel = array<i64: 3, 3>, num_filter = 6 : i64, num_group = 2 : i64, pad = array<i64: 1, 1>, stride = array<i64: 2, 2>} : (tensor<2x4x8x8xf32>, tensor<6x2x3x3xf32>, tensor<6xf32>) -> tensor<2x6x4x4xf32>
  return %0 : tensor<2x6x4x4xf32>
}

// -----

// Tests that a 1-D convolution without bias fills depth and height with 1
// (in 1x1x11, kernel 1x1x3, stride 1x1x2, pad 0x0x2, dilate 1x1x2) and passes
// has_bias = 0 with the weight as the ignored bias buffer.

// CHECK-LABEL: func.func @conv1d_no_bias
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x11xf32>, %[[W:.*]]: tensor<4x3x3xf32>)
// CHECK: mxrt.kernel_call @mxc_kernel_conv_f32(%[[X]], %[[W]], %[[W]]) outs(%{{.*}}) args [2, 3, 4, 1, 0, 1, 1, 11, 1, 1, 3, 1, 1, 6, 1, 1, 2, 0, 0, 2, 1, 1, 2]
func.func @conv1d_no_bias(%x: tensor<2x3x11xf32>, %w: tensor<4x3x3xf32>) -> tensor<2x4x6xf32> {
  %0 = mx.Convolution %x, %w {kernel = array<i64: 3>, num_filter = 4 : i64, no_bias = true, pad = array<i64: 2>, dilate = array<i64: 2>, stride = array<i64: 2>} : (tensor<2x3x11xf32>, tensor<4x3x3xf32>) -> tensor<2x4x6xf32>
  return %0 : tensor<2x4x6xf32>
}

// -----

// Tests that an f16 3-D convolution is generated: zero padding, grouped
// views (N, G, C/G, D, H, W) x (G, F/G, C/G, kD, kH, kW), the bias broadcast
// as the accumulator, and one linalg.generic with stride and dilation in the
// input map.

// CHECK-DAG: #[[IN:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8, d9) -> (d0, d1, d6, d3 + d7 * 2, d4 * 2 + d8, d5 * 2 + d9)>
// CHECK-DAG: #[[WT:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8, d9) -> (d1, d2, d6, d7, d8, d9)>
// CHECK-DAG: #[[OUT:.*]] = affine_map<(d0, d1, d2, d3, d4, d5, d6, d7, d8, d9) -> (d0, d1, d2, d3, d4, d5)>
// CHECK-LABEL: func.func @conv3d_f16
// CHECK-NOT: call
// CHECK: tensor.pad %{{.*}} low[0, 0, 1, 1, 1] high[0, 0, 1, 1, 1]
// CHECK: } : tensor<1x4x4x6x6xf16> to tensor<1x4x6x8x8xf16>
// CHECK: tensor.expand_shape %{{.*}} output_shape [1, 2, 2, 6, 8, 8]
// CHECK: tensor.expand_shape %{{.*}} output_shape [2, 2, 2, 2, 3, 3]
// CHECK: %[[ACC:.*]] = linalg.generic {{.*}} ins(%{{.*}} : tensor<2x2xf16>) outs(%{{.*}} : tensor<1x2x2x4x3x3xf16>)
// CHECK: %[[CONV:.*]] = linalg.generic {indexing_maps = [#[[IN]], #[[WT]], #[[OUT]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction", "reduction"]}
// CHECK-SAME: outs(%[[ACC]] : tensor<1x2x2x4x3x3xf16>)
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: tensor.expand_shape %{{.*}} output_shape [1, 4, 4, 3, 3] : tensor<144xf16> into tensor<1x4x4x3x3xf16>
func.func @conv3d_f16(%x: tensor<1x4x4x6x6xf16>, %w: tensor<4x2x2x3x3xf16>, %b: tensor<4xf16>) -> tensor<1x4x4x3x3xf16> {
  %0 = mx.Convolution %x, %w, %b {kernel = array<i64: 2, 3, 3>, num_filter = 4 : i64, num_group = 2 : i64, pad = array<i64: 1, 1, 1>, stride = array<i64: 1, 2, 2>, dilate = array<i64: 2, 1, 1>} : (tensor<1x4x4x6x6xf16>, tensor<4x2x2x3x3xf16>, tensor<4xf16>) -> tensor<1x4x4x3x3xf16>
  return %0 : tensor<1x4x4x3x3xf16>
}

// -----

// Tests that a channel-last convolution (a composite, see mx-decompose) is
// lowered as the NCHW convolution between transposes: data and weight
// (F, kh, kw, C) to channel-first, the result back.

// CHECK-LABEL: func.func @conv_nhwc
// CHECK: %[[X:.*]] = linalg.transpose ins(%{{.*}} : tensor<1x8x8x4xf32>) outs(%{{.*}} : tensor<1x4x8x8xf32>) permutation = [0, 3, 1, 2]
// CHECK: %[[W:.*]] = linalg.transpose ins(%{{.*}} : tensor<6x3x3x4xf32>) outs(%{{.*}} : tensor<6x4x3x3xf32>) permutation = [0, 3, 1, 2]
// CHECK: %[[Y:.*]] = mxrt.kernel_call @mxc_kernel_conv_f32(%[[X]], %[[W]], %[[W]])
// CHECK: %[[OUT:.*]] = linalg.transpose ins(%[[Y]] : tensor<1x6x6x6xf32>) outs(%{{.*}} : tensor<1x6x6x6xf32>) permutation = [0, 2, 3, 1]
// CHECK: return %[[OUT]]
func.func @conv_nhwc(%x: tensor<1x8x8x4xf32>, %w: tensor<6x3x3x4xf32>) -> tensor<1x6x6x6xf32> {
  %0 = mx.Convolution %x, %w {kernel = array<i64: 3, 3>, num_filter = 6 : i64, no_bias = true, layout = "NHWC"} : (tensor<1x8x8x4xf32>, tensor<6x3x3x4xf32>) -> tensor<1x6x6x6xf32>
  return %0 : tensor<1x6x6x6xf32>
}

// -----

// Tests that Deconvolution becomes Convolution's data gradient: the runtime's
// col2im kernel with (weight, data) and the geometry of the convolution it
// transposes (batch 1, channels 2 = num_filter, filters 4 = the data's
// channels, in 1x6x5, kernel 1x3x3, out 1x3x3, stride 1x2x2), with the pad
// MXNet's InferPad computes from target_shape (6, 5): 2 * 2 + 3 = 7 full
// extent, 1 and 2 too many, so pad 1x1 with adj 1x0; then a bias add.

// CHECK-LABEL: func.func @deconv_target_shape
// CHECK-SAME: (%[[X:.*]]: tensor<1x4x3x3xf32>, %[[W:.*]]: tensor<4x2x3x3xf32>, %[[B:.*]]: tensor<2xf32>)
// CHECK: %[[WS:.*]] = bufferization.alloc_tensor() : tensor<162xf32>
// CHECK: %[[R:.*]]:2 = mxrt.kernel_call @mxc_kernel_conv_backward_data_f32(%[[W]], %[[X]]) outs(%{{.*}}, %[[WS]]) args [1, 2, 4, 1, 1, 6, 5, 1, 3, 3, 1, 3, 3, 1, 2, 2, 0, 1, 1, 1, 1, 1]
// CHECK: %[[Y:.*]] = linalg.generic
// CHECK-SAME: ins(%[[R]]#0, %[[B]] : tensor<1x2x6x5xf32>, tensor<2xf32>)
// CHECK: arith.addf
// CHECK: return %[[Y]]
func.func @deconv_target_shape(%x: tensor<1x4x3x3xf32>, %w: tensor<4x2x3x3xf32>, %b: tensor<2xf32>) -> tensor<1x2x6x5xf32> {
  %0 = mx.Deconvolution %x, %w, %b {kernel = array<i64: 3, 3>, num_filter = 2 : i64, no_bias = false, stride = array<i64: 2, 2>, target_shape = array<i64: 6, 5>} : (tensor<1x4x3x3xf32>, tensor<4x2x3x3xf32>, tensor<2xf32>) -> tensor<1x2x6x5xf32>
  return %0 : tensor<1x2x6x5xf32>
}
