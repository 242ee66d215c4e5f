// RUN: mxc-opt %s | mxc-opt | FileCheck %s
// RUN: mxc-opt %s --mlir-print-op-generic | mxc-opt | FileCheck %s

// Round trip of every mx op with non-default attributes; the result types
// are hand-computed with MXNet 1.9.1's shape rules and checked by the
// verifier against the ops' inference.

// Tests that 2-D convolution with padding and bias round-trips.
// CHECK-LABEL: func.func @convolution_2d
// CHECK: %{{.*}} = mx.Convolution %{{.*}}, %{{.*}}, %{{.*}} {kernel = array<i64: 3, 3>, num_filter = 8 : i64, pad = array<i64: 1, 1>} : (tensor<1x3x32x32xf32>, tensor<8x3x3x3xf32>, tensor<8xf32>) -> tensor<1x8x32x32xf32>
func.func @convolution_2d(%x: tensor<1x3x32x32xf32>, %w: tensor<8x3x3x3xf32>, %b: tensor<8xf32>) -> tensor<1x8x32x32xf32> {
  %0 = mx.Convolution %x, %w, %b {kernel = array<i64: 3, 3>, num_filter = 8 : i64, pad = array<i64: 1, 1>} : (tensor<1x3x32x32xf32>, tensor<8x3x3x3xf32>, tensor<8xf32>) -> tensor<1x8x32x32xf32>
  return %0 : tensor<1x8x32x32xf32>
}

// Tests 1-D convolution with stride, dilation and no bias: (10 - 5) / 2 + 1 = 3.
// CHECK-LABEL: func.func @convolution_1d
// CHECK: %{{.*}} = mx.Convolution %{{.*}}, %{{.*}} {dilate = array<i64: 2>, kernel = array<i64: 3>, no_bias = true, num_filter = 6 : i64, stride = array<i64: 2>} : (tensor<2x4x10xf32>, tensor<6x4x3xf32>) -> tensor<2x6x3xf32>
func.func @convolution_1d(%x: tensor<2x4x10xf32>, %w: tensor<6x4x3xf32>) -> tensor<2x6x3xf32> {
  %0 = mx.Convolution %x, %w {dilate = array<i64: 2>, kernel = array<i64: 3>, no_bias = true, num_filter = 6 : i64, stride = array<i64: 2>} : (tensor<2x4x10xf32>, tensor<6x4x3xf32>) -> tensor<2x6x3xf32>
  return %0 : tensor<2x6x3xf32>
}

// Tests grouped 3-D convolution with every backend hint set.
// CHECK-LABEL: func.func @convolution_3d_groups
// CHECK: %{{.*}} = mx.Convolution %{{.*}}, %{{.*}}, %{{.*}} {cudnn_off = true, cudnn_tune = "fastest", kernel = array<i64: 1, 3, 3>, layout = "NCDHW", num_filter = 4 : i64, num_group = 2 : i64, pad = array<i64: 0, 1, 1>, workspace = 512 : i64} : (tensor<1x4x5x6x7xf64>, tensor<4x2x1x3x3xf64>, tensor<4xf64>) -> tensor<1x4x5x6x7xf64>
func.func @convolution_3d_groups(%x: tensor<1x4x5x6x7xf64>, %w: tensor<4x2x1x3x3xf64>, %b: tensor<4xf64>) -> tensor<1x4x5x6x7xf64> {
  %0 = mx.Convolution %x, %w, %b {cudnn_off = true, cudnn_tune = "fastest", kernel = array<i64: 1, 3, 3>, layout = "NCDHW", num_filter = 4 : i64, num_group = 2 : i64, pad = array<i64: 0, 1, 1>, workspace = 512 : i64} : (tensor<1x4x5x6x7xf64>, tensor<4x2x1x3x3xf64>, tensor<4xf64>) -> tensor<1x4x5x6x7xf64>
  return %0 : tensor<1x4x5x6x7xf64>
}

// Tests channel-last convolution: weight (num_filter, kh, kw, C).
// CHECK-LABEL: func.func @convolution_nhwc
// CHECK: %{{.*}} = mx.Convolution %{{.*}}, %{{.*}} {kernel = array<i64: 3, 3>, layout = "NHWC", no_bias = true, num_filter = 4 : i64, stride = array<i64: 2, 2>} : (tensor<1x8x8x2xf16>, tensor<4x3x3x2xf16>) -> tensor<1x3x3x4xf16>
func.func @convolution_nhwc(%x: tensor<1x8x8x2xf16>, %w: tensor<4x3x3x2xf16>) -> tensor<1x3x3x4xf16> {
  %0 = mx.Convolution %x, %w {kernel = array<i64: 3, 3>, layout = "NHWC", no_bias = true, num_filter = 4 : i64, stride = array<i64: 2, 2>} : (tensor<1x8x8x2xf16>, tensor<4x3x3x2xf16>) -> tensor<1x3x3x4xf16>
  return %0 : tensor<1x3x3x4xf16>
}

// Tests that dynamic batch and spatial extents propagate.
// CHECK-LABEL: func.func @convolution_dynamic
// CHECK: %{{.*}} = mx.Convolution %{{.*}}, %{{.*}} {kernel = array<i64: 3, 3>, no_bias = true, num_filter = 8 : i64} : (tensor<?x3x?x16xf32>, tensor<8x3x3x3xf32>) -> tensor<?x8x?x14xf32>
func.func @convolution_dynamic(%x: tensor<?x3x?x16xf32>, %w: tensor<8x3x3x3xf32>) -> tensor<?x8x?x14xf32> {
  %0 = mx.Convolution %x, %w {kernel = array<i64: 3, 3>, no_bias = true, num_filter = 8 : i64} : (tensor<?x3x?x16xf32>, tensor<8x3x3x3xf32>) -> tensor<?x8x?x14xf32>
  return %0 : tensor<?x8x?x14xf32>
}

// Tests Activation on bf16.
// CHECK-LABEL: func.func @activation
// CHECK: %{{.*}} = mx.Activation %{{.*}} {act_type = "softrelu"} : (tensor<2x3xbf16>) -> tensor<2x3xbf16>
func.func @activation(%x: tensor<2x3xbf16>) -> tensor<2x3xbf16> {
  %0 = mx.Activation %x {act_type = "softrelu"} : (tensor<2x3xbf16>) -> tensor<2x3xbf16>
  return %0 : tensor<2x3xbf16>
}

// Tests valid max pooling: (32 - 3) / 2 + 1 = 15.
// CHECK-LABEL: func.func @pooling_max
// CHECK: %{{.*}} = mx.Pooling %{{.*}} {kernel = array<i64: 3, 3>, stride = array<i64: 2, 2>} : (tensor<1x8x32x32xf32>) -> tensor<1x8x15x15xf32>
func.func @pooling_max(%x: tensor<1x8x32x32xf32>) -> tensor<1x8x15x15xf32> {
  %0 = mx.Pooling %x {kernel = array<i64: 3, 3>, stride = array<i64: 2, 2>} : (tensor<1x8x32x32xf32>) -> tensor<1x8x15x15xf32>
  return %0 : tensor<1x8x15x15xf32>
}

// Tests full convention: 1 + ceil((7 + 2 - 3) / 2) = 4.
// CHECK-LABEL: func.func @pooling_avg_full
// CHECK: %{{.*}} = mx.Pooling %{{.*}} {count_include_pad = false, kernel = array<i64: 3, 3>, pad = array<i64: 1, 1>, pool_type = "avg", pooling_convention = "full", stride = array<i64: 2, 2>} : (tensor<1x4x7x7xf32>) -> tensor<1x4x4x4xf32>
func.func @pooling_avg_full(%x: tensor<1x4x7x7xf32>) -> tensor<1x4x4x4xf32> {
  %0 = mx.Pooling %x {count_include_pad = false, kernel = array<i64: 3, 3>, pad = array<i64: 1, 1>, pool_type = "avg", pooling_convention = "full", stride = array<i64: 2, 2>} : (tensor<1x4x7x7xf32>) -> tensor<1x4x4x4xf32>
  return %0 : tensor<1x4x4x4xf32>
}

// Tests global pooling: every spatial extent becomes 1.
// CHECK-LABEL: func.func @pooling_global
// CHECK: %{{.*}} = mx.Pooling %{{.*}} {global_pool = true, pool_type = "avg"} : (tensor<2x16x7x7xf32>) -> tensor<2x16x1x1xf32>
func.func @pooling_global(%x: tensor<2x16x7x7xf32>) -> tensor<2x16x1x1xf32> {
  %0 = mx.Pooling %x {global_pool = true, pool_type = "avg"} : (tensor<2x16x7x7xf32>) -> tensor<2x16x1x1xf32>
  return %0 : tensor<2x16x1x1xf32>
}

// Tests the 1-D same convention: ceil(10 / 2) = 5.
// CHECK-LABEL: func.func @pooling_same_1d
// CHECK: %{{.*}} = mx.Pooling %{{.*}} {kernel = array<i64: 3>, pooling_convention = "same", stride = array<i64: 2>} : (tensor<1x3x10xf32>) -> tensor<1x3x5xf32>
func.func @pooling_same_1d(%x: tensor<1x3x10xf32>) -> tensor<1x3x5xf32> {
  %0 = mx.Pooling %x {kernel = array<i64: 3>, pooling_convention = "same", stride = array<i64: 2>} : (tensor<1x3x10xf32>) -> tensor<1x3x5xf32>
  return %0 : tensor<1x3x5xf32>
}

// Tests 3-D Lp pooling, which needs p_value.
// CHECK-LABEL: func.func @pooling_lp_3d
// CHECK: %{{.*}} = mx.Pooling %{{.*}} {kernel = array<i64: 2, 2, 2>, p_value = 2 : i64, pool_type = "lp", stride = array<i64: 2, 2, 2>} : (tensor<1x2x4x4x4xf32>) -> tensor<1x2x2x2x2xf32>
func.func @pooling_lp_3d(%x: tensor<1x2x4x4x4xf32>) -> tensor<1x2x2x2x2xf32> {
  %0 = mx.Pooling %x {kernel = array<i64: 2, 2, 2>, p_value = 2 : i64, pool_type = "lp", stride = array<i64: 2, 2, 2>} : (tensor<1x2x4x4x4xf32>) -> tensor<1x2x2x2x2xf32>
  return %0 : tensor<1x2x2x2x2xf32>
}

// Tests channel-last (NHWC) sum pooling.
// CHECK-LABEL: func.func @pooling_sum_nhwc
// CHECK: %{{.*}} = mx.Pooling %{{.*}} {cudnn_off = true, kernel = array<i64: 2, 2>, layout = "NHWC", pool_type = "sum", stride = array<i64: 2, 2>} : (tensor<1x6x6x3xf32>) -> tensor<1x3x3x3xf32>
func.func @pooling_sum_nhwc(%x: tensor<1x6x6x3xf32>) -> tensor<1x3x3x3xf32> {
  %0 = mx.Pooling %x {cudnn_off = true, kernel = array<i64: 2, 2>, layout = "NHWC", pool_type = "sum", stride = array<i64: 2, 2>} : (tensor<1x6x6x3xf32>) -> tensor<1x3x3x3xf32>
  return %0 : tensor<1x3x3x3xf32>
}

// Tests FullyConnected with flatten: (4, 3*8*8) x (10, 192)^T.
// CHECK-LABEL: func.func @fully_connected
// CHECK: %{{.*}} = mx.FullyConnected %{{.*}}, %{{.*}}, %{{.*}} {num_hidden = 10 : i64} : (tensor<4x3x8x8xf32>, tensor<10x192xf32>, tensor<10xf32>) -> tensor<4x10xf32>
func.func @fully_connected(%x: tensor<4x3x8x8xf32>, %w: tensor<10x192xf32>, %b: tensor<10xf32>) -> tensor<4x10xf32> {
  %0 = mx.FullyConnected %x, %w, %b {num_hidden = 10 : i64} : (tensor<4x3x8x8xf32>, tensor<10x192xf32>, tensor<10xf32>) -> tensor<4x10xf32>
  return %0 : tensor<4x10xf32>
}

// Tests flatten = false: the last axis is contracted.
// CHECK-LABEL: func.func @fully_connected_no_flatten
// CHECK: %{{.*}} = mx.FullyConnected %{{.*}}, %{{.*}} {flatten = false, no_bias = true, num_hidden = 7 : i64} : (tensor<2x5x16xf32>, tensor<7x16xf32>) -> tensor<2x5x7xf32>
func.func @fully_connected_no_flatten(%x: tensor<2x5x16xf32>, %w: tensor<7x16xf32>) -> tensor<2x5x7xf32> {
  %0 = mx.FullyConnected %x, %w {flatten = false, no_bias = true, num_hidden = 7 : i64} : (tensor<2x5x16xf32>, tensor<7x16xf32>) -> tensor<2x5x7xf32>
  return %0 : tensor<2x5x7xf32>
}

// Tests that MXNet's (num_hidden, 1) bias is accepted.
// CHECK-LABEL: func.func @fully_connected_bias_2d
// CHECK: %{{.*}} = mx.FullyConnected %{{.*}}, %{{.*}}, %{{.*}} {num_hidden = 10 : i64} : (tensor<4x20xf32>, tensor<10x20xf32>, tensor<10x1xf32>) -> tensor<4x10xf32>
func.func @fully_connected_bias_2d(%x: tensor<4x20xf32>, %w: tensor<10x20xf32>, %b: tensor<10x1xf32>) -> tensor<4x10xf32> {
  %0 = mx.FullyConnected %x, %w, %b {num_hidden = 10 : i64} : (tensor<4x20xf32>, tensor<10x20xf32>, tensor<10x1xf32>) -> tensor<4x10xf32>
  return %0 : tensor<4x10xf32>
}

// Tests Flatten of a 3-D and a 1-D tensor.
// CHECK-LABEL: func.func @flatten
// CHECK: %{{.*}} = mx.Flatten %{{.*}} : (tensor<2x3x4xf32>) -> tensor<2x12xf32>
// CHECK: %{{.*}} = mx.Flatten %{{.*}} : (tensor<5xi32>) -> tensor<5x1xi32>
func.func @flatten(%x: tensor<2x3x4xf32>, %y: tensor<5xi32>) -> (tensor<2x12xf32>, tensor<5x1xi32>) {
  %0 = mx.Flatten %x : (tensor<2x3x4xf32>) -> tensor<2x12xf32>
  %1 = mx.Flatten %y : (tensor<5xi32>) -> tensor<5x1xi32>
  return %0, %1 : tensor<2x12xf32>, tensor<5x1xi32>
}

// Tests SoftmaxOutput with a (N,) label and every gradient attribute set.
// CHECK-LABEL: func.func @softmax_output
// CHECK: %{{.*}} = mx.SoftmaxOutput %{{.*}}, %{{.*}} {grad_scale = 2.000000e+00 : f64, ignore_label = 0.000000e+00 : f64, normalization = "valid", out_grad = true, preserve_shape = true, smooth_alpha = 1.000000e-01 : f64, use_ignore = true} : (tensor<4x10xf32>, tensor<4xf32>) -> tensor<4x10xf32>
func.func @softmax_output(%x: tensor<4x10xf32>, %l: tensor<4xf32>) -> tensor<4x10xf32> {
  %0 = mx.SoftmaxOutput %x, %l {grad_scale = 2.0 : f64, ignore_label = 0.0 : f64, normalization = "valid", out_grad = true, preserve_shape = true, smooth_alpha = 0.1 : f64, use_ignore = true} : (tensor<4x10xf32>, tensor<4xf32>) -> tensor<4x10xf32>
  return %0 : tensor<4x10xf32>
}

// Tests multi_output labels (N, d2, d3).
// CHECK-LABEL: func.func @softmax_output_multi
// CHECK: %{{.*}} = mx.SoftmaxOutput %{{.*}}, %{{.*}} {multi_output = true} : (tensor<2x5x3x3xf32>, tensor<2x3x3xf32>) -> tensor<2x5x3x3xf32>
func.func @softmax_output_multi(%x: tensor<2x5x3x3xf32>, %l: tensor<2x3x3xf32>) -> tensor<2x5x3x3xf32> {
  %0 = mx.SoftmaxOutput %x, %l {multi_output = true} : (tensor<2x5x3x3xf32>, tensor<2x3x3xf32>) -> tensor<2x5x3x3xf32>
  return %0 : tensor<2x5x3x3xf32>
}

// Tests Cast to f16, bool (i1) and uint8 (ui8).
// CHECK-LABEL: func.func @cast
// CHECK: %{{.*}} = mx.Cast %{{.*}} {dtype = "float16"} : (tensor<2x3xf32>) -> tensor<2x3xf16>
// CHECK: %{{.*}} = mx.Cast %{{.*}} {dtype = "bool"} : (tensor<4xi32>) -> tensor<4xi1>
// CHECK: %{{.*}} = mx.Cast %{{.*}} {dtype = "uint8"} : (tensor<2x3xf32>) -> tensor<2x3xui8>
func.func @cast(%x: tensor<2x3xf32>, %y: tensor<4xi32>) -> (tensor<2x3xf16>, tensor<4xi1>, tensor<2x3xui8>) {
  %0 = mx.Cast %x {dtype = "float16"} : (tensor<2x3xf32>) -> tensor<2x3xf16>
  %1 = mx.Cast %y {dtype = "bool"} : (tensor<4xi32>) -> tensor<4xi1>
  %2 = mx.Cast %x {dtype = "uint8"} : (tensor<2x3xf32>) -> tensor<2x3xui8>
  return %0, %1, %2 : tensor<2x3xf16>, tensor<4xi1>, tensor<2x3xui8>
}

// Tests LRN and its hidden tmp_norm result.
// CHECK-LABEL: func.func @lrn
// CHECK: %{{.*}}, %{{.*}} = mx.LRN %{{.*}} {alpha = 1.000000e-03 : f64, beta = 5.000000e-01 : f64, knorm = 1.000000e+00 : f64, nsize = 5 : i64} : (tensor<1x8x4x4xf32>) -> (tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>)
func.func @lrn(%x: tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32> {
  %0, %1 = mx.LRN %x {alpha = 1.0e-03 : f64, beta = 5.0e-01 : f64, knorm = 1.0 : f64, nsize = 5 : i64} : (tensor<1x8x4x4xf32>) -> (tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>)
  return %0 : tensor<1x8x4x4xf32>
}

// Tests variational dropout: the mask has extent 1 on the shared axes.
// CHECK-LABEL: func.func @dropout
// CHECK: %{{.*}}, %{{.*}} = mx.Dropout %{{.*}} {axes = array<i64: 1>, cudnn_off = true, mode = "always", p = 2.000000e-01 : f64} : (tensor<4x16xf32>) -> (tensor<4x16xf32>, tensor<4x1xf32>)
func.func @dropout(%x: tensor<4x16xf32>) -> (tensor<4x16xf32>, tensor<4x1xf32>) {
  %0, %1 = mx.Dropout %x {axes = array<i64: 1>, cudnn_off = true, mode = "always", p = 2.0e-01 : f64} : (tensor<4x16xf32>) -> (tensor<4x16xf32>, tensor<4x1xf32>)
  return %0, %1 : tensor<4x16xf32>, tensor<4x1xf32>
}

// Tests BatchNorm with every attribute set.
// CHECK-LABEL: func.func @batch_norm
// CHECK: %{{.*}}, %{{.*}}, %{{.*}} = mx.BatchNorm %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {cudnn_off = true, eps = 1.000000e-05 : f64, fix_gamma = false, max_calib_range = 6.000000e+00 : f64, min_calib_range = -6.000000e+00 : f64, momentum = 0.98999999999999999 : f64, output_mean_var = true, use_global_stats = true} : (tensor<2x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<2x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>)
func.func @batch_norm(%x: tensor<2x4x8x8xf32>, %g: tensor<4xf32>, %b: tensor<4xf32>, %mm: tensor<4xf32>, %mv: tensor<4xf32>) -> tensor<2x4x8x8xf32> {
  %0, %1, %2 = mx.BatchNorm %x, %g, %b, %mm, %mv {cudnn_off = true, eps = 1.0e-05 : f64, fix_gamma = false, max_calib_range = 6.0 : f64, min_calib_range = -6.0 : f64, momentum = 0.99 : f64, output_mean_var = true, use_global_stats = true} : (tensor<2x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<2x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>)
  return %0 : tensor<2x4x8x8xf32>
}

// Tests channel-last BatchNorm on f16 data: parameters and statistics are f32.
// CHECK-LABEL: func.func @batch_norm_f16_last_axis
// CHECK: %{{.*}}, %{{.*}}, %{{.*}} = mx.BatchNorm %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {axis = -1 : i64} : (tensor<2x8x8x3xf16>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x8x8x3xf16>, tensor<3xf32>, tensor<3xf32>)
func.func @batch_norm_f16_last_axis(%x: tensor<2x8x8x3xf16>, %g: tensor<3xf32>, %b: tensor<3xf32>, %mm: tensor<3xf32>, %mv: tensor<3xf32>) -> tensor<3xf32> {
  %0, %1, %2 = mx.BatchNorm %x, %g, %b, %mm, %mv {axis = -1 : i64} : (tensor<2x8x8x3xf16>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x8x8x3xf16>, tensor<3xf32>, tensor<3xf32>)
  return %1 : tensor<3xf32>
}

// Tests Concat along dim 1 and along a negative dim.
// CHECK-LABEL: func.func @concat
// CHECK: %{{.*}} = mx.Concat %{{.*}}, %{{.*}} {num_args = 2 : i64} : (tensor<2x3xf32>, tensor<2x5xf32>) -> tensor<2x8xf32>
// CHECK: %{{.*}} = mx.Concat %{{.*}}, %{{.*}}, %{{.*}} {dim = -1 : i64, num_args = 3 : i64} : (tensor<4x2xi32>, tensor<4x1xi32>, tensor<4x3xi32>) -> tensor<4x6xi32>
func.func @concat(%a: tensor<2x3xf32>, %b: tensor<2x5xf32>, %c: tensor<4x2xi32>, %d: tensor<4x1xi32>, %e: tensor<4x3xi32>) -> (tensor<2x8xf32>, tensor<4x6xi32>) {
  %0 = mx.Concat %a, %b {num_args = 2 : i64} : (tensor<2x3xf32>, tensor<2x5xf32>) -> tensor<2x8xf32>
  %1 = mx.Concat %c, %d, %e {dim = -1 : i64, num_args = 3 : i64} : (tensor<4x2xi32>, tensor<4x1xi32>, tensor<4x3xi32>) -> tensor<4x6xi32>
  return %0, %1 : tensor<2x8xf32>, tensor<4x6xi32>
}

// Tests that a dynamic extent on the concatenated axis makes the result dynamic.
// CHECK-LABEL: func.func @concat_dynamic
// CHECK: %{{.*}} = mx.Concat %{{.*}}, %{{.*}} {dim = 0 : i64, num_args = 2 : i64} : (tensor<?x3xf32>, tensor<2x3xf32>) -> tensor<?x3xf32>
func.func @concat_dynamic(%a: tensor<?x3xf32>, %b: tensor<2x3xf32>) -> tensor<?x3xf32> {
  %0 = mx.Concat %a, %b {dim = 0 : i64, num_args = 2 : i64} : (tensor<?x3xf32>, tensor<2x3xf32>) -> tensor<?x3xf32>
  return %0 : tensor<?x3xf32>
}

// Tests the elemwise_* ops; a dynamic extent merges with a static one.
// CHECK-LABEL: func.func @elemwise
// CHECK: %{{.*}} = mx.elemwise_add %{{.*}}, %{{.*}} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: %{{.*}} = mx.elemwise_sub %{{.*}}, %{{.*}} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: %{{.*}} = mx.elemwise_mul %{{.*}}, %{{.*}} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: %{{.*}} = mx.elemwise_div %{{.*}}, %{{.*}} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: %{{.*}} = mx.elemwise_add %{{.*}}, %{{.*}} : (tensor<?x3xi32>, tensor<2x3xi32>) -> tensor<2x3xi32>
func.func @elemwise(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>, %c: tensor<?x3xi32>, %d: tensor<2x3xi32>) -> tensor<2x3xi32> {
  %0 = mx.elemwise_add %a, %b : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = mx.elemwise_sub %0, %b : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %2 = mx.elemwise_mul %1, %b : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %3 = mx.elemwise_div %2, %b : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %4 = mx.elemwise_add %c, %d : (tensor<?x3xi32>, tensor<2x3xi32>) -> tensor<2x3xi32>
  return %4 : tensor<2x3xi32>
}

// Tests identity (MXNet _copy) and BlockGrad.
// CHECK-LABEL: func.func @identity_block_grad
// CHECK: %{{.*}} = mx.identity %{{.*}} : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: %{{.*}} = mx.BlockGrad %{{.*}} : (tensor<2x3xf32>) -> tensor<2x3xf32>
func.func @identity_block_grad(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = mx.identity %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = mx.BlockGrad %0 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %1 : tensor<2x3xf32>
}

// Tests NumPy broadcasting on every broadcast_* op.
// CHECK-LABEL: func.func @broadcast
// CHECK: %{{.*}} = mx.broadcast_add %{{.*}}, %{{.*}} : (tensor<2x1x4xf32>, tensor<3x1xf32>) -> tensor<2x3x4xf32>
// CHECK: %{{.*}} = mx.broadcast_sub %{{.*}}, %{{.*}} : (tensor<2x3x4xf32>, tensor<4xf32>) -> tensor<2x3x4xf32>
// CHECK: %{{.*}} = mx.broadcast_mul %{{.*}}, %{{.*}} : (tensor<4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
// CHECK: %{{.*}} = mx.broadcast_div %{{.*}}, %{{.*}} : (tensor<2x3x4xf32>, tensor<2x1x4xf32>) -> tensor<2x3x4xf32>
// CHECK: %{{.*}} = mx.broadcast_maximum %{{.*}}, %{{.*}} : (tensor<2x3x4xf32>, tensor<3x1xf32>) -> tensor<2x3x4xf32>
// CHECK: %{{.*}} = mx.broadcast_minimum %{{.*}}, %{{.*}} : (tensor<2x3x4xf32>, tensor<4xf32>) -> tensor<2x3x4xf32>
// CHECK: %{{.*}} = mx.broadcast_power %{{.*}}, %{{.*}} : (tensor<2x3x4xf32>, tensor<4xf32>) -> tensor<2x3x4xf32>
// CHECK: %{{.*}} = mx.broadcast_equal %{{.*}}, %{{.*}} : (tensor<2x3x4xf32>, tensor<4xf32>) -> tensor<2x3x4xf32>
// CHECK: %{{.*}} = mx.broadcast_not_equal %{{.*}}, %{{.*}} : (tensor<2x3xi64>, tensor<1xi64>) -> tensor<2x3xi64>
// CHECK: %{{.*}} = mx.broadcast_greater %{{.*}}, %{{.*}} : (tensor<2x3xi64>, tensor<1xi64>) -> tensor<2x3xi64>
// CHECK: %{{.*}} = mx.broadcast_greater_equal %{{.*}}, %{{.*}} : (tensor<2x3xi64>, tensor<2x3xi64>) -> tensor<2x3xi64>
// CHECK: %{{.*}} = mx.broadcast_lesser %{{.*}}, %{{.*}} : (tensor<1xi64>, tensor<2x3xi64>) -> tensor<2x3xi64>
// CHECK: %{{.*}} = mx.broadcast_lesser_equal %{{.*}}, %{{.*}} : (tensor<2x3xi64>, tensor<2x3xi64>) -> tensor<2x3xi64>
func.func @broadcast(%a: tensor<2x1x4xf32>, %b: tensor<3x1xf32>, %c: tensor<4xf32>, %i: tensor<2x3xi64>, %j: tensor<1xi64>) -> tensor<2x3xi64> {
  %0 = mx.broadcast_add %a, %b : (tensor<2x1x4xf32>, tensor<3x1xf32>) -> tensor<2x3x4xf32>
  %1 = mx.broadcast_sub %0, %c : (tensor<2x3x4xf32>, tensor<4xf32>) -> tensor<2x3x4xf32>
  %2 = mx.broadcast_mul %c, %1 : (tensor<4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %3 = mx.broadcast_div %2, %a : (tensor<2x3x4xf32>, tensor<2x1x4xf32>) -> tensor<2x3x4xf32>
  %4 = mx.broadcast_maximum %3, %b : (tensor<2x3x4xf32>, tensor<3x1xf32>) -> tensor<2x3x4xf32>
  %5 = mx.broadcast_minimum %4, %c : (tensor<2x3x4xf32>, tensor<4xf32>) -> tensor<2x3x4xf32>
  %6 = mx.broadcast_power %5, %c : (tensor<2x3x4xf32>, tensor<4xf32>) -> tensor<2x3x4xf32>
  %7 = mx.broadcast_equal %6, %c : (tensor<2x3x4xf32>, tensor<4xf32>) -> tensor<2x3x4xf32>
  %8 = mx.broadcast_not_equal %i, %j : (tensor<2x3xi64>, tensor<1xi64>) -> tensor<2x3xi64>
  %9 = mx.broadcast_greater %8, %j : (tensor<2x3xi64>, tensor<1xi64>) -> tensor<2x3xi64>
  %10 = mx.broadcast_greater_equal %9, %i : (tensor<2x3xi64>, tensor<2x3xi64>) -> tensor<2x3xi64>
  %11 = mx.broadcast_lesser %j, %10 : (tensor<1xi64>, tensor<2x3xi64>) -> tensor<2x3xi64>
  %12 = mx.broadcast_lesser_equal %11, %i : (tensor<2x3xi64>, tensor<2x3xi64>) -> tensor<2x3xi64>
  return %12 : tensor<2x3xi64>
}

// Tests that a static extent other than 1 decides a dynamic one.
// CHECK-LABEL: func.func @broadcast_dynamic
// CHECK: %{{.*}} = mx.broadcast_add %{{.*}}, %{{.*}} : (tensor<?x1xf32>, tensor<5x?xf32>) -> tensor<5x?xf32>
func.func @broadcast_dynamic(%a: tensor<?x1xf32>, %b: tensor<5x?xf32>) -> tensor<5x?xf32> {
  %0 = mx.broadcast_add %a, %b : (tensor<?x1xf32>, tensor<5x?xf32>) -> tensor<5x?xf32>
  return %0 : tensor<5x?xf32>
}

// Tests every tensor-scalar op.
// CHECK-LABEL: func.func @scalar
// CHECK: %{{.*}} = mx._plus_scalar %{{.*}} {is_int = false, scalar = 2.500000e+00 : f64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: %{{.*}} = mx._minus_scalar %{{.*}} : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: %{{.*}} = mx._rminus_scalar %{{.*}} {scalar = 3.000000e+00 : f64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: %{{.*}} = mx._mul_scalar %{{.*}} {scalar = 4.000000e+00 : f64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: %{{.*}} = mx._div_scalar %{{.*}} {scalar = 5.000000e+00 : f64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: %{{.*}} = mx._rdiv_scalar %{{.*}} {scalar = 6.000000e+00 : f64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: %{{.*}} = mx._power_scalar %{{.*}} {scalar = 2.000000e+00 : f64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: %{{.*}} = mx._rpower_scalar %{{.*}} {scalar = 2.000000e+00 : f64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: %{{.*}} = mx._maximum_scalar %{{.*}} {scalar = 0.000000e+00 : f64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: %{{.*}} = mx._minimum_scalar %{{.*}} {scalar = 6.000000e+00 : f64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: %{{.*}} = mx._equal_scalar %{{.*}} : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: %{{.*}} = mx._not_equal_scalar %{{.*}} : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: %{{.*}} = mx._greater_scalar %{{.*}} : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: %{{.*}} = mx._greater_equal_scalar %{{.*}} : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: %{{.*}} = mx._lesser_scalar %{{.*}} : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: %{{.*}} = mx._lesser_equal_scalar %{{.*}} : (tensor<2x3xf32>) -> tensor<2x3xf32>
func.func @scalar(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = mx._plus_scalar %x {scalar = 2.5 : f64, is_int = false} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = mx._minus_scalar %0 {scalar = 1.0 : f64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %2 = mx._rminus_scalar %1 {scalar = 3.0 : f64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %3 = mx._mul_scalar %2 {scalar = 4.0 : f64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %4 = mx._div_scalar %3 {scalar = 5.0 : f64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %5 = mx._rdiv_scalar %4 {scalar = 6.0 : f64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %6 = mx._power_scalar %5 {scalar = 2.0 : f64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %7 = mx._rpower_scalar %6 {scalar = 2.0 : f64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %8 = mx._maximum_scalar %7 {scalar = 0.0 : f64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %9 = mx._minimum_scalar %8 {scalar = 6.0 : f64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %10 = mx._equal_scalar %9 {scalar = 1.0 : f64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %11 = mx._not_equal_scalar %10 {scalar = 1.0 : f64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %12 = mx._greater_scalar %11 {scalar = 1.0 : f64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %13 = mx._greater_equal_scalar %12 {scalar = 1.0 : f64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %14 = mx._lesser_scalar %13 {scalar = 1.0 : f64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %15 = mx._lesser_equal_scalar %14 {scalar = 1.0 : f64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %15 : tensor<2x3xf32>
}

// Tests NumpyBinaryScalarType: int tensor with a float scalar gives f64,
// bool gives i64 (integer scalar) or f64, otherwise the type is kept.
// CHECK-LABEL: func.func @scalar_types
// CHECK: %{{.*}} = mx._mul_scalar %{{.*}} {is_int = false, scalar = 1.500000e+00 : f64} : (tensor<3xi32>) -> tensor<3xf64>
// CHECK: %{{.*}} = mx._mul_scalar %{{.*}} {scalar = 2.000000e+00 : f64} : (tensor<3xi32>) -> tensor<3xi32>
// CHECK: %{{.*}} = mx._plus_scalar %{{.*}} : (tensor<3xi1>) -> tensor<3xi64>
// CHECK: %{{.*}} = mx._plus_scalar %{{.*}} {is_int = false, scalar = 5.000000e-01 : f64} : (tensor<3xi1>) -> tensor<3xf64>
// CHECK: %{{.*}} = mx._plus_scalar %{{.*}} {is_int = false, scalar = 5.000000e-01 : f64} : (tensor<3xf16>) -> tensor<3xf16>
func.func @scalar_types(%i: tensor<3xi32>, %b: tensor<3xi1>, %h: tensor<3xf16>) -> (tensor<3xf64>, tensor<3xi32>, tensor<3xi64>, tensor<3xf64>, tensor<3xf16>) {
  %0 = mx._mul_scalar %i {is_int = false, scalar = 1.5 : f64} : (tensor<3xi32>) -> tensor<3xf64>
  %1 = mx._mul_scalar %i {scalar = 2.0 : f64} : (tensor<3xi32>) -> tensor<3xi32>
  %2 = mx._plus_scalar %b : (tensor<3xi1>) -> tensor<3xi64>
  %3 = mx._plus_scalar %b {is_int = false, scalar = 5.000000e-01 : f64} : (tensor<3xi1>) -> tensor<3xf64>
  %4 = mx._plus_scalar %h {is_int = false, scalar = 5.000000e-01 : f64} : (tensor<3xf16>) -> tensor<3xf16>
  return %0, %1, %2, %3, %4 : tensor<3xf64>, tensor<3xi32>, tensor<3xi64>, tensor<3xf64>, tensor<3xf16>
}

// Tests every unary op, and abs on integers.
// CHECK-LABEL: func.func @unary
// CHECK: %{{.*}} = mx.negative %{{.*}} : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: %{{.*}} = mx.abs %{{.*}} : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: %{{.*}} = mx.square %{{.*}} : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: %{{.*}} = mx.sqrt %{{.*}} : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: %{{.*}} = mx.exp %{{.*}} : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: %{{.*}} = mx.log %{{.*}} : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: %{{.*}} = mx.relu %{{.*}} : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: %{{.*}} = mx.sigmoid %{{.*}} : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: %{{.*}} = mx.tanh %{{.*}} : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: %{{.*}} = mx.abs %{{.*}} : (tensor<4xi8>) -> tensor<4xi8>
func.func @unary(%x: tensor<2x3xf32>, %i: tensor<4xi8>) -> (tensor<2x3xf32>, tensor<4xi8>) {
  %0 = mx.negative %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = mx.abs %0 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %2 = mx.square %1 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %3 = mx.sqrt %2 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %4 = mx.exp %3 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %5 = mx.log %4 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %6 = mx.relu %5 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %7 = mx.sigmoid %6 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %8 = mx.tanh %7 : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %9 = mx.abs %i : (tensor<4xi8>) -> tensor<4xi8>
  return %8, %9 : tensor<2x3xf32>, tensor<4xi8>
}

// Tests ReduceAxesShapeImpl: axis, keepdims, exclude, reduce-all.
// CHECK-LABEL: func.func @reduce
// CHECK: %{{.*}} = mx.sum %{{.*}} {axis = array<i64: 1>, keepdims = true} : (tensor<2x3x4xf32>) -> tensor<2x1x4xf32>
// CHECK: %{{.*}} = mx.mean %{{.*}} {axis = array<i64: 1>, exclude = true} : (tensor<2x3x4xf32>) -> tensor<3xf32>
// CHECK: %{{.*}} = mx.max %{{.*}} : (tensor<2x3x4xf32>) -> tensor<1xf32>
// CHECK: %{{.*}} = mx.min %{{.*}} {axis = array<i64: 0, -1>, keepdims = true} : (tensor<2x3x4xf32>) -> tensor<1x3x1xf32>
// CHECK: %{{.*}} = mx.sum %{{.*}} {axis = array<i64: -1>} : (tensor<2x3x4xf32>) -> tensor<2x3xf32>
// CHECK: %{{.*}} = mx.mean %{{.*}} {axis = array<i64>, exclude = true, keepdims = true} : (tensor<2x3x4xf32>) -> tensor<1x1x1xf32>
func.func @reduce(%x: tensor<2x3x4xf32>) -> (tensor<2x1x4xf32>, tensor<3xf32>, tensor<1xf32>, tensor<1x3x1xf32>, tensor<2x3xf32>, tensor<1x1x1xf32>) {
  %0 = mx.sum %x {axis = array<i64: 1>, keepdims = true} : (tensor<2x3x4xf32>) -> tensor<2x1x4xf32>
  %1 = mx.mean %x {axis = array<i64: 1>, exclude = true} : (tensor<2x3x4xf32>) -> tensor<3xf32>
  %2 = mx.max %x : (tensor<2x3x4xf32>) -> tensor<1xf32>
  %3 = mx.min %x {axis = array<i64: 0, -1>, keepdims = true} : (tensor<2x3x4xf32>) -> tensor<1x3x1xf32>
  %4 = mx.sum %x {axis = array<i64: -1>} : (tensor<2x3x4xf32>) -> tensor<2x3xf32>
  %5 = mx.mean %x {axis = array<i64>, exclude = true, keepdims = true} : (tensor<2x3x4xf32>) -> tensor<1x1x1xf32>
  return %0, %1, %2, %3, %4, %5 : tensor<2x1x4xf32>, tensor<3xf32>, tensor<1xf32>, tensor<1x3x1xf32>, tensor<2x3xf32>, tensor<1x1x1xf32>
}

// Tests ReduceAxisShapeImpl: the index has the input's element type.
// CHECK-LABEL: func.func @argmax
// CHECK: %{{.*}} = mx.argmax %{{.*}} {axis = 1 : i64} : (tensor<2x3x4xf32>) -> tensor<2x4xf32>
// CHECK: %{{.*}} = mx.argmax %{{.*}} : (tensor<2x3x4xf32>) -> tensor<1xf32>
// CHECK: %{{.*}} = mx.argmax %{{.*}} {axis = -1 : i64, keepdims = true} : (tensor<2x3x4xf32>) -> tensor<2x3x1xf32>
// CHECK: %{{.*}} = mx.argmax %{{.*}} {axis = 0 : i64} : (tensor<5xf16>) -> tensor<1xf16>
func.func @argmax(%x: tensor<2x3x4xf32>, %v: tensor<5xf16>) -> (tensor<2x4xf32>, tensor<1xf32>, tensor<2x3x1xf32>, tensor<1xf16>) {
  %0 = mx.argmax %x {axis = 1 : i64} : (tensor<2x3x4xf32>) -> tensor<2x4xf32>
  %1 = mx.argmax %x : (tensor<2x3x4xf32>) -> tensor<1xf32>
  %2 = mx.argmax %x {axis = -1 : i64, keepdims = true} : (tensor<2x3x4xf32>) -> tensor<2x3x1xf32>
  %3 = mx.argmax %v {axis = 0 : i64} : (tensor<5xf16>) -> tensor<1xf16>
  return %0, %1, %2, %3 : tensor<2x4xf32>, tensor<1xf32>, tensor<2x3x1xf32>, tensor<1xf16>
}

// Tests dot: transpose_b, two vectors, N-D x 2-D, transpose_a.
// CHECK-LABEL: func.func @dot
// CHECK: %{{.*}} = mx.dot %{{.*}}, %{{.*}} {transpose_b = true} : (tensor<2x3xf32>, tensor<4x3xf32>) -> tensor<2x4xf32>
// CHECK: %{{.*}} = mx.dot %{{.*}}, %{{.*}} : (tensor<3xf32>, tensor<3xf32>) -> tensor<1xf32>
// CHECK: %{{.*}} = mx.dot %{{.*}}, %{{.*}} {forward_stype = "default"} : (tensor<2x3x4xf32>, tensor<4x5xf32>) -> tensor<2x3x5xf32>
// CHECK: %{{.*}} = mx.dot %{{.*}}, %{{.*}} {transpose_a = true} : (tensor<2x3xf32>, tensor<2x4xf32>) -> tensor<3x4xf32>
func.func @dot(%a: tensor<2x3xf32>, %b: tensor<4x3xf32>, %u: tensor<3xf32>, %t: tensor<2x3x4xf32>, %m: tensor<4x5xf32>, %c: tensor<2x4xf32>) -> (tensor<2x4xf32>, tensor<1xf32>, tensor<2x3x5xf32>, tensor<3x4xf32>) {
  %0 = mx.dot %a, %b {transpose_b = true} : (tensor<2x3xf32>, tensor<4x3xf32>) -> tensor<2x4xf32>
  %1 = mx.dot %u, %u : (tensor<3xf32>, tensor<3xf32>) -> tensor<1xf32>
  %2 = mx.dot %t, %m {forward_stype = "default"} : (tensor<2x3x4xf32>, tensor<4x5xf32>) -> tensor<2x3x5xf32>
  %3 = mx.dot %a, %c {transpose_a = true} : (tensor<2x3xf32>, tensor<2x4xf32>) -> tensor<3x4xf32>
  return %0, %1, %2, %3 : tensor<2x4xf32>, tensor<1xf32>, tensor<2x3x5xf32>, tensor<3x4xf32>
}

// Tests batch_dot with and without transposes.
// CHECK-LABEL: func.func @batch_dot
// CHECK: %{{.*}} = mx.batch_dot %{{.*}}, %{{.*}} : (tensor<8x2x3xf32>, tensor<8x3x5xf32>) -> tensor<8x2x5xf32>
// CHECK: %{{.*}} = mx.batch_dot %{{.*}}, %{{.*}} {transpose_a = true, transpose_b = true} : (tensor<8x3x2xf32>, tensor<8x5x3xf32>) -> tensor<8x2x5xf32>
func.func @batch_dot(%a: tensor<8x2x3xf32>, %b: tensor<8x3x5xf32>, %c: tensor<8x3x2xf32>, %d: tensor<8x5x3xf32>) -> (tensor<8x2x5xf32>, tensor<8x2x5xf32>) {
  %0 = mx.batch_dot %a, %b : (tensor<8x2x3xf32>, tensor<8x3x5xf32>) -> tensor<8x2x5xf32>
  %1 = mx.batch_dot %c, %d {transpose_a = true, transpose_b = true} : (tensor<8x3x2xf32>, tensor<8x5x3xf32>) -> tensor<8x2x5xf32>
  return %0, %1 : tensor<8x2x5xf32>, tensor<8x2x5xf32>
}

// Tests MXNet's special reshape codes 0, -1, -2, -3, -4 and reverse.
// CHECK-LABEL: func.func @reshape
// CHECK: %{{.*}} = mx.Reshape %{{.*}} {shape = array<i64: 0, -1>} : (tensor<2x3x4xf32>) -> tensor<2x12xf32>
// CHECK: %{{.*}} = mx.Reshape %{{.*}} {shape = array<i64: -2>} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
// CHECK: %{{.*}} = mx.Reshape %{{.*}} {shape = array<i64: -3, -2>} : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
// CHECK: %{{.*}} = mx.Reshape %{{.*}} {shape = array<i64: -4, 2, -1, -2>} : (tensor<6x4xf32>) -> tensor<2x3x4xf32>
// CHECK: %{{.*}} = mx.Reshape %{{.*}} {reverse = true, shape = array<i64: -1, 0>} : (tensor<10x5x4xf32>) -> tensor<50x4xf32>
func.func @reshape(%x: tensor<2x3x4xf32>, %y: tensor<6x4xf32>, %z: tensor<10x5x4xf32>) -> (tensor<2x12xf32>, tensor<2x3x4xf32>, tensor<6x4xf32>, tensor<2x3x4xf32>, tensor<50x4xf32>) {
  %0 = mx.Reshape %x {shape = array<i64: 0, -1>} : (tensor<2x3x4xf32>) -> tensor<2x12xf32>
  %1 = mx.Reshape %x {shape = array<i64: -2>} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %2 = mx.Reshape %x {shape = array<i64: -3, -2>} : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
  %3 = mx.Reshape %y {shape = array<i64: -4, 2, -1, -2>} : (tensor<6x4xf32>) -> tensor<2x3x4xf32>
  %4 = mx.Reshape %z {reverse = true, shape = array<i64: -1, 0>} : (tensor<10x5x4xf32>) -> tensor<50x4xf32>
  return %0, %1, %2, %3, %4 : tensor<2x12xf32>, tensor<2x3x4xf32>, tensor<6x4xf32>, tensor<2x3x4xf32>, tensor<50x4xf32>
}

// Tests the deprecated target_shape / keep_highest path and a dynamic input.
// CHECK-LABEL: func.func @reshape_legacy
// CHECK: %{{.*}} = mx.Reshape %{{.*}} {target_shape = array<i64: 0, 4>} : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
// CHECK: %{{.*}} = mx.Reshape %{{.*}} {keep_highest = true, target_shape = array<i64: 1, 0>} : (tensor<2x3x4xf32>) -> tensor<2x12xf32>
// CHECK: %{{.*}} = mx.Reshape %{{.*}} {shape = array<i64: 0, -1>} : (tensor<?x3x4xf32>) -> tensor<?x?xf32>
func.func @reshape_legacy(%x: tensor<2x3x4xf32>, %d: tensor<?x3x4xf32>) -> (tensor<6x4xf32>, tensor<2x12xf32>, tensor<?x?xf32>) {
  %0 = mx.Reshape %x {target_shape = array<i64: 0, 4>} : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
  %1 = mx.Reshape %x {keep_highest = true, target_shape = array<i64: 1, 0>} : (tensor<2x3x4xf32>) -> tensor<2x12xf32>
  %2 = mx.Reshape %d {shape = array<i64: 0, -1>} : (tensor<?x3x4xf32>) -> tensor<?x?xf32>
  return %0, %1, %2 : tensor<6x4xf32>, tensor<2x12xf32>, tensor<?x?xf32>
}

// Tests transpose with default (reversed) and explicit axes.
// CHECK-LABEL: func.func @transpose
// CHECK: %{{.*}} = mx.transpose %{{.*}} : (tensor<2x3x4xf32>) -> tensor<4x3x2xf32>
// CHECK: %{{.*}} = mx.transpose %{{.*}} {axes = array<i64: 0, 2, 1>} : (tensor<2x3x4xf32>) -> tensor<2x4x3xf32>
func.func @transpose(%x: tensor<2x3x4xf32>) -> (tensor<4x3x2xf32>, tensor<2x4x3xf32>) {
  %0 = mx.transpose %x : (tensor<2x3x4xf32>) -> tensor<4x3x2xf32>
  %1 = mx.transpose %x {axes = array<i64: 0, 2, 1>} : (tensor<2x3x4xf32>) -> tensor<2x4x3xf32>
  return %0, %1 : tensor<4x3x2xf32>, tensor<2x4x3xf32>
}

// Tests expand_dims with a positive and a negative axis.
// CHECK-LABEL: func.func @expand_dims
// CHECK: %{{.*}} = mx.expand_dims %{{.*}} {axis = 1 : i64} : (tensor<2x3xf32>) -> tensor<2x1x3xf32>
// CHECK: %{{.*}} = mx.expand_dims %{{.*}} {axis = -1 : i64} : (tensor<2x3xf32>) -> tensor<2x3x1xf32>
func.func @expand_dims(%x: tensor<2x3xf32>) -> (tensor<2x1x3xf32>, tensor<2x3x1xf32>) {
  %0 = mx.expand_dims %x {axis = 1 : i64} : (tensor<2x3xf32>) -> tensor<2x1x3xf32>
  %1 = mx.expand_dims %x {axis = -1 : i64} : (tensor<2x3xf32>) -> tensor<2x3x1xf32>
  return %0, %1 : tensor<2x1x3xf32>, tensor<2x3x1xf32>
}

// Tests negative begin/end and an absent end (None).
// CHECK-LABEL: func.func @slice_axis
// CHECK: %{{.*}} = mx.slice_axis %{{.*}} {axis = 1 : i64, begin = 1 : i64, end = -1 : i64} : (tensor<2x5xf32>) -> tensor<2x3xf32>
// CHECK: %{{.*}} = mx.slice_axis %{{.*}} {axis = 0 : i64, begin = -1 : i64} : (tensor<2x5xf32>) -> tensor<1x5xf32>
func.func @slice_axis(%x: tensor<2x5xf32>) -> (tensor<2x3xf32>, tensor<1x5xf32>) {
  %0 = mx.slice_axis %x {axis = 1 : i64, begin = 1 : i64, end = -1 : i64} : (tensor<2x5xf32>) -> tensor<2x3xf32>
  %1 = mx.slice_axis %x {axis = 0 : i64, begin = -1 : i64} : (tensor<2x5xf32>) -> tensor<1x5xf32>
  return %0, %1 : tensor<2x3xf32>, tensor<1x5xf32>
}

// Tests softmax with temperature, a dtype override and use_length.
// CHECK-LABEL: func.func @softmax
// CHECK: %{{.*}} = mx.softmax %{{.*}} {axis = 0 : i64, temperature = 2.000000e+00 : f64} : (tensor<2x5xf32>) -> tensor<2x5xf32>
// CHECK: %{{.*}} = mx.softmax %{{.*}} {dtype = "float64"} : (tensor<2x5xf32>) -> tensor<2x5xf64>
// CHECK: %{{.*}} = mx.softmax %{{.*}}, %{{.*}} {use_length = true} : (tensor<2x5xf32>, tensor<2xi32>) -> tensor<2x5xf32>
func.func @softmax(%x: tensor<2x5xf32>, %len: tensor<2xi32>) -> (tensor<2x5xf32>, tensor<2x5xf64>, tensor<2x5xf32>) {
  %0 = mx.softmax %x {axis = 0 : i64, temperature = 2.0 : f64} : (tensor<2x5xf32>) -> tensor<2x5xf32>
  %1 = mx.softmax %x {dtype = "float64"} : (tensor<2x5xf32>) -> tensor<2x5xf64>
  %2 = mx.softmax %x, %len {use_length = true} : (tensor<2x5xf32>, tensor<2xi32>) -> tensor<2x5xf32>
  return %0, %1, %2 : tensor<2x5xf32>, tensor<2x5xf64>, tensor<2x5xf32>
}

// Tests log_softmax with a dtype override.
// CHECK-LABEL: func.func @log_softmax
// CHECK: %{{.*}} = mx.log_softmax %{{.*}} {axis = 1 : i64, dtype = "float16", temperature = 5.000000e-01 : f64} : (tensor<2x5xf32>) -> tensor<2x5xf16>
func.func @log_softmax(%x: tensor<2x5xf32>) -> tensor<2x5xf16> {
  %0 = mx.log_softmax %x {axis = 1 : i64, dtype = "float16", temperature = 5.0e-01 : f64} : (tensor<2x5xf32>) -> tensor<2x5xf16>
  return %0 : tensor<2x5xf16>
}

// Tests every act_type: gamma only for prelu, mask only for rrelu.
// CHECK-LABEL: func.func @leaky_relu
// CHECK: %{{.*}} = mx.LeakyReLU %{{.*}} {slope = 1.000000e-01 : f64} : (tensor<2x4x3x3xf32>) -> tensor<2x4x3x3xf32>
// CHECK: %{{.*}} = mx.LeakyReLU %{{.*}}, %{{.*}} {act_type = "prelu"} : (tensor<2x4x3x3xf32>, tensor<4xf32>) -> tensor<2x4x3x3xf32>
// CHECK: %{{.*}} = mx.LeakyReLU %{{.*}}, %{{.*}} {act_type = "prelu"} : (tensor<2x4x3x3xf32>, tensor<1xf32>) -> tensor<2x4x3x3xf32>
// CHECK: %{{.*}}, %{{.*}} = mx.LeakyReLU %{{.*}} {act_type = "rrelu", lower_bound = 1.000000e-01 : f64, upper_bound = 3.000000e-01 : f64} : (tensor<2x4x3x3xf32>) -> (tensor<2x4x3x3xf32>, tensor<2x4x3x3xf32>)
// CHECK: %{{.*}} = mx.LeakyReLU %{{.*}} {act_type = "elu"} : (tensor<2x4x3x3xf32>) -> tensor<2x4x3x3xf32>
// CHECK: %{{.*}} = mx.LeakyReLU %{{.*}} {act_type = "selu"} : (tensor<2x4x3x3xf32>) -> tensor<2x4x3x3xf32>
// CHECK: %{{.*}} = mx.LeakyReLU %{{.*}} {act_type = "gelu"} : (tensor<2x4x3x3xf32>) -> tensor<2x4x3x3xf32>
func.func @leaky_relu(%x: tensor<2x4x3x3xf32>, %g: tensor<4xf32>, %g1: tensor<1xf32>) -> tensor<2x4x3x3xf32> {
  %0 = mx.LeakyReLU %x {slope = 1.0e-01 : f64} : (tensor<2x4x3x3xf32>) -> tensor<2x4x3x3xf32>
  %1 = mx.LeakyReLU %0, %g {act_type = "prelu"} : (tensor<2x4x3x3xf32>, tensor<4xf32>) -> tensor<2x4x3x3xf32>
  %2 = mx.LeakyReLU %1, %g1 {act_type = "prelu"} : (tensor<2x4x3x3xf32>, tensor<1xf32>) -> tensor<2x4x3x3xf32>
  %3, %mask = mx.LeakyReLU %2 {act_type = "rrelu", lower_bound = 1.0e-01 : f64, upper_bound = 3.0e-01 : f64} : (tensor<2x4x3x3xf32>) -> (tensor<2x4x3x3xf32>, tensor<2x4x3x3xf32>)
  %4 = mx.LeakyReLU %3 {act_type = "elu"} : (tensor<2x4x3x3xf32>) -> tensor<2x4x3x3xf32>
  %5 = mx.LeakyReLU %4 {act_type = "selu"} : (tensor<2x4x3x3xf32>) -> tensor<2x4x3x3xf32>
  %6 = mx.LeakyReLU %5 {act_type = "gelu"} : (tensor<2x4x3x3xf32>) -> tensor<2x4x3x3xf32>
  return %6 : tensor<2x4x3x3xf32>
}

// Tests clip.
// CHECK-LABEL: func.func @clip
// CHECK: %{{.*}} = mx.clip %{{.*}} {a_max = 6.000000e+00 : f64, a_min = 0.000000e+00 : f64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
func.func @clip(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = mx.clip %x {a_max = 6.0 : f64, a_min = 0.0 : f64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// Tests a full-shape and a per-row (1-D) condition.
// CHECK-LABEL: func.func @where
// CHECK: %{{.*}} = mx.where %{{.*}}, %{{.*}}, %{{.*}} : (tensor<2x3xi1>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: %{{.*}} = mx.where %{{.*}}, %{{.*}}, %{{.*}} : (tensor<2xf32>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
func.func @where(%c: tensor<2x3xi1>, %r: tensor<2xf32>, %a: tensor<2x3xf32>, %b: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) {
  %0 = mx.where %c, %a, %b : (tensor<2x3xi1>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = mx.where %r, %a, %b : (tensor<2xf32>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0, %1 : tensor<2x3xf32>, tensor<2x3xf32>
}

// Tests zeros_like and ones_like.
// CHECK-LABEL: func.func @like
// CHECK: %{{.*}} = mx.zeros_like %{{.*}} : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: %{{.*}} = mx.ones_like %{{.*}} : (tensor<4xi64>) -> tensor<4xi64>
func.func @like(%x: tensor<2x3xf32>, %i: tensor<4xi64>) -> (tensor<2x3xf32>, tensor<4xi64>) {
  %0 = mx.zeros_like %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = mx.ones_like %i : (tensor<4xi64>) -> tensor<4xi64>
  return %0, %1 : tensor<2x3xf32>, tensor<4xi64>
}

// Tests one_hot with the default f32 result and with int32 / float indices.
// CHECK-LABEL: func.func @one_hot
// CHECK: %{{.*}} = mx.one_hot %{{.*}} {depth = 10 : i64} : (tensor<4xi32>) -> tensor<4x10xf32>
// CHECK: %{{.*}} = mx.one_hot %{{.*}} {depth = 3 : i64, dtype = "int32", off_value = -1.000000e+00 : f64, on_value = 5.000000e+00 : f64} : (tensor<2x2xf32>) -> tensor<2x2x3xi32>
func.func @one_hot(%i: tensor<4xi32>, %f: tensor<2x2xf32>) -> (tensor<4x10xf32>, tensor<2x2x3xi32>) {
  %0 = mx.one_hot %i {depth = 10 : i64} : (tensor<4xi32>) -> tensor<4x10xf32>
  %1 = mx.one_hot %f {depth = 3 : i64, dtype = "int32", off_value = -1.0 : f64, on_value = 5.0 : f64} : (tensor<2x2xf32>) -> tensor<2x2x3xi32>
  return %0, %1 : tensor<4x10xf32>, tensor<2x2x3xi32>
}
