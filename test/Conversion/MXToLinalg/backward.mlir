// RUN: mxc-opt %s --split-input-file --convert-mx-to-linalg --cse --verify-diagnostics | FileCheck %s
// RUN: mxc-opt %s --split-input-file --convert-mx-to-linalg --eliminate-empty-tensors --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" --mxrt-lower-kernel-calls --verify-diagnostics | FileCheck %s --check-prefix=BUF

// Tests that the data gradient of a grouped, strided, padded 2-D convolution
// calls the runtime kernel with (weight, out_grad), the data-shaped result and
// a workspace of C/G * kh*kw * oh*ow = 2 * 9 * 16 = 288 elements as
// destinations, and the geometry as for the forward kernel without has_bias:
// batch 2, channels 4, filters 6, groups 2, in 1x8x8, kernel 1x3x3, out 1x4x4,
// stride 1x2x2, pad 0x1x1, dilate 1x1x1. After bufferization the workspace
// is an ordinary buffer passed as the fourth kernel buffer.

// CHECK-LABEL: func.func @conv_data
// CHECK-SAME: (%[[DY:.*]]: tensor<2x6x4x4xf32>, %[[W:.*]]: tensor<6x2x3x3xf32>)
// CHECK-DAG: %[[OUT:.*]] = tensor.empty() : tensor<2x4x8x8xf32>
// CHECK-DAG: %[[WS:.*]] = bufferization.alloc_tensor() : tensor<288xf32>
// CHECK: %[[R:.*]]:2 = mxrt.kernel_call @mxc_kernel_conv_backward_data_f32(%[[W]], %[[DY]]) outs(%[[OUT]], %[[WS]]) args [2, 4, 6, 2, 1, 8, 8, 1, 3, 3, 1, 4, 4, 1, 2, 2, 0, 1, 1, 1, 1, 1]
// CHECK: return %[[R]]#0

// BUF-LABEL: func.func @conv_data
// BUF-DAG: %[[OUT:.*]] = memref.alloc() {{.*}} : memref<2x4x8x8xf32>
// BUF-DAG: %[[WS:.*]] = memref.alloc() {{.*}} : memref<288xf32>
// BUF: %[[WSV:.*]] = memref.cast %[[WS]] : memref<288xf32> to memref<?xf32, strided<[1], offset: ?>>
// BUF: call @mxc_kernel_conv_backward_data_f32(%{{.*}}, %{{.*}}, %{{.*}}, %[[WSV]],
func.func @conv_data(%dy: tensor<2x6x4x4xf32>, %w: tensor<6x2x3x3xf32>) -> tensor<2x4x8x8xf32> {
  %0 = mx.Convolution_backward_data %dy, %w {kernel = array<i64: 3, 3>, num_filter = 6 : i64, num_group = 2 : i64, pad = array<i64: 1, 1>, stride = array<i64: 2, 2>} : (tensor<2x6x4x4xf32>, tensor<6x2x3x3xf32>) -> tensor<2x4x8x8xf32>
  return %0 : tensor<2x4x8x8xf32>
}

// -----

// Tests that the f64 weight gradient of a 1-D dilated convolution passes
// (data, out_grad), leading unit extents (in 1x1x11, kernel 1x1x3, out 1x1x6,
// stride 1x1x2, pad 0x0x2, dilate 1x1x2) and a workspace of 3 * 3 * 6 = 54.

// CHECK-LABEL: func.func @conv1d_weight
// CHECK-SAME: (%[[DY:.*]]: tensor<2x4x6xf64>, %[[X:.*]]: tensor<2x3x11xf64>)
// CHECK: %[[WS:.*]] = bufferization.alloc_tensor() : tensor<54xf64>
// CHECK: mxrt.kernel_call @mxc_kernel_conv_backward_weight_f64(%[[X]], %[[DY]]) outs(%{{.*}}, %[[WS]]) args [2, 3, 4, 1, 1, 1, 11, 1, 1, 3, 1, 1, 6, 1, 1, 2, 0, 0, 2, 1, 1, 2] : (tensor<2x3x11xf64>, tensor<2x4x6xf64>, tensor<4x3x3xf64>, tensor<54xf64>) -> (tensor<4x3x3xf64>, tensor<54xf64>)
func.func @conv1d_weight(%dy: tensor<2x4x6xf64>, %x: tensor<2x3x11xf64>) -> tensor<4x3x3xf64> {
  %0 = mx.Convolution_backward_weight %dy, %x {kernel = array<i64: 3>, num_filter = 4 : i64, pad = array<i64: 2>, dilate = array<i64: 2>, stride = array<i64: 2>} : (tensor<2x4x6xf64>, tensor<2x3x11xf64>) -> tensor<4x3x3xf64>
  return %0 : tensor<4x3x3xf64>
}

// -----

// Tests that a pointwise (1x1x1, stride 1, no pad) 3-D convolution gets a
// one-element workspace: the kernel needs none.

// CHECK-LABEL: func.func @conv3d_pointwise
// CHECK: bufferization.alloc_tensor() : tensor<1xf32>
// CHECK: mxrt.kernel_call @mxc_kernel_conv_backward_weight_f32({{.*}}) args [1, 2, 3, 1, 2, 3, 4, 1, 1, 1, 2, 3, 4, 1, 1, 1, 0, 0, 0, 1, 1, 1]
func.func @conv3d_pointwise(%dy: tensor<1x3x2x3x4xf32>, %x: tensor<1x2x2x3x4xf32>) -> tensor<3x2x1x1x1xf32> {
  %0 = mx.Convolution_backward_weight %dy, %x {kernel = array<i64: 1, 1, 1>, num_filter = 3 : i64} : (tensor<1x3x2x3x4xf32>, tensor<1x2x2x3x4xf32>) -> tensor<3x2x1x1x1xf32>
  return %0 : tensor<3x2x1x1x1xf32>
}

// -----

// Tests that avg pooling's gradient passes (out_grad, data, output) and
// kind 1 (avg), p 1, count_include_pad 0, planes N*C = 3, then in, kernel,
// out, stride, pad as 3-D triples.

// CHECK-LABEL: func.func @pool_avg
// CHECK-SAME: (%[[DY:.*]]: tensor<1x3x4x4xf32>, %[[X:.*]]: tensor<1x3x8x8xf32>, %[[Y:.*]]: tensor<1x3x4x4xf32>)
// CHECK: mxrt.kernel_call @mxc_kernel_pooling_backward_f32(%[[DY]], %[[X]], %[[Y]]) outs(%{{.*}}) args [1, 1, 0, 3, 1, 8, 8, 1, 3, 3, 1, 4, 4, 1, 2, 2, 0, 1, 1] : (tensor<1x3x4x4xf32>, tensor<1x3x8x8xf32>, tensor<1x3x4x4xf32>, tensor<1x3x8x8xf32>) -> tensor<1x3x8x8xf32>
func.func @pool_avg(%dy: tensor<1x3x4x4xf32>, %x: tensor<1x3x8x8xf32>, %y: tensor<1x3x4x4xf32>) -> tensor<1x3x8x8xf32> {
  %0 = mx.Pooling_backward %dy, %x, %y {kernel = array<i64: 3, 3>, pool_type = "avg", stride = array<i64: 2, 2>, pad = array<i64: 1, 1>, count_include_pad = false} : (tensor<1x3x4x4xf32>, tensor<1x3x8x8xf32>, tensor<1x3x4x4xf32>) -> tensor<1x3x8x8xf32>
  return %0 : tensor<1x3x8x8xf32>
}

// -----

// Tests that global max pooling of 1-D f64 data uses the whole extent as the
// kernel (kind 0, count_include_pad defaults to 1, planes 2 * 5 = 10).

// CHECK-LABEL: func.func @pool_global_max_1d
// CHECK: mxrt.kernel_call @mxc_kernel_pooling_backward_f64({{.*}}) args [0, 1, 1, 10, 1, 1, 7, 1, 1, 7, 1, 1, 1, 1, 1, 1, 0, 0, 0]
func.func @pool_global_max_1d(%dy: tensor<2x5x1xf64>, %x: tensor<2x5x7xf64>, %y: tensor<2x5x1xf64>) -> tensor<2x5x7xf64> {
  %0 = mx.Pooling_backward %dy, %x, %y {global_pool = true, kernel = array<i64: 2>} : (tensor<2x5x1xf64>, tensor<2x5x7xf64>, tensor<2x5x1xf64>) -> tensor<2x5x7xf64>
  return %0 : tensor<2x5x7xf64>
}

// -----

// Tests that the LRN gradient passes (out_grad, data, tmp_norm), outer N = 1,
// channels 8, inner 16, nsize 5, and alpha = 1e-4, beta = 0.75 as the bit
// patterns of the doubles.

// CHECK-LABEL: func.func @lrn
// CHECK-SAME: (%[[DY:.*]]: tensor<1x8x4x4xf32>, %[[X:.*]]: tensor<1x8x4x4xf32>, %[[N:.*]]: tensor<1x8x4x4xf32>)
// CHECK: mxrt.kernel_call @mxc_kernel_lrn_backward_f32(%[[DY]], %[[X]], %[[N]], %[[X]]) outs(%{{.*}}) args [1, 8, 16, 5, 4547007122018943789, 4604930618986332160, 4611686018427387904]
func.func @lrn(%dy: tensor<1x8x4x4xf32>, %x: tensor<1x8x4x4xf32>, %n: tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32> {
  %0 = mx.LRN_backward %dy, %x, %n, %x {nsize = 5 : i64} : (tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  return %0 : tensor<1x8x4x4xf32>
}

// -----

// Tests that two gradient calls get a workspace each even after CSE (the
// workspaces are alloc_tensors, not tensor.empty, so each stays a buffer live
// for its own call only).

// CHECK-LABEL: func.func @two_calls
// CHECK: %[[WS1:.*]] = bufferization.alloc_tensor() : tensor<288xf32>
// CHECK: mxrt.kernel_call @mxc_kernel_conv_backward_data_f32({{.*}}) outs(%{{.*}}, %[[WS1]])
// CHECK: %[[WS2:.*]] = bufferization.alloc_tensor() : tensor<288xf32>
// CHECK: mxrt.kernel_call @mxc_kernel_conv_backward_data_f32({{.*}}) outs(%{{.*}}, %[[WS2]])
func.func @two_calls(%dy: tensor<2x6x4x4xf32>, %w: tensor<6x2x3x3xf32>, %w2: tensor<6x2x3x3xf32>) -> (tensor<2x4x8x8xf32>, tensor<2x4x8x8xf32>) {
  %0 = mx.Convolution_backward_data %dy, %w {kernel = array<i64: 3, 3>, num_filter = 6 : i64, num_group = 2 : i64, pad = array<i64: 1, 1>, stride = array<i64: 2, 2>} : (tensor<2x6x4x4xf32>, tensor<6x2x3x3xf32>) -> tensor<2x4x8x8xf32>
  %1 = mx.Convolution_backward_data %dy, %w2 {kernel = array<i64: 3, 3>, num_filter = 6 : i64, num_group = 2 : i64, pad = array<i64: 1, 1>, stride = array<i64: 2, 2>} : (tensor<2x6x4x4xf32>, tensor<6x2x3x3xf32>) -> tensor<2x4x8x8xf32>
  return %0, %1 : tensor<2x4x8x8xf32>, tensor<2x4x8x8xf32>
}

// -----

// Tests that f16 gradients are rejected with the reason.

func.func @conv_data_f16(%dy: tensor<1x2x4x4xf16>, %w: tensor<2x1x3x3xf16>) -> tensor<1x1x6x6xf16> {
  // expected-error @+1 {{cannot lower mx.Convolution_backward_data: only float32 and float64 gradients are supported}}
  %0 = mx.Convolution_backward_data %dy, %w {kernel = array<i64: 3, 3>, num_filter = 2 : i64} : (tensor<1x2x4x4xf16>, tensor<2x1x3x3xf16>) -> tensor<1x1x6x6xf16>
  return %0 : tensor<1x1x6x6xf16>
}

// -----

// Tests that a module without runtime kernels rejects the gradients.

module attributes {mxc.kernel_calls = false} {
  func.func @lrn_no_kernels(%dy: tensor<1x8x4x4xf32>, %x: tensor<1x8x4x4xf32>, %n: tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32> {
    // expected-error @+1 {{cannot lower mx.LRN_backward: needs the runtime's kernels (the module sets mxc.kernel_calls = false)}}
    %0 = mx.LRN_backward %dy, %x, %n, %x {nsize = 5 : i64} : (tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
    return %0 : tensor<1x8x4x4xf32>
  }
}

// -----

// Tests that channel-last pooling gradients are rejected.

func.func @pool_nhwc(%dy: tensor<1x4x4x3xf32>, %x: tensor<1x8x8x3xf32>, %y: tensor<1x4x4x3xf32>) -> tensor<1x8x8x3xf32> {
  // expected-error @+1 {{cannot lower mx.Pooling_backward: layout NHWC (channel-last) is not supported}}
  %0 = mx.Pooling_backward %dy, %x, %y {kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>, layout = "NHWC"} : (tensor<1x4x4x3xf32>, tensor<1x8x8x3xf32>, tensor<1x4x4x3xf32>) -> tensor<1x8x8x3xf32>
  return %0 : tensor<1x8x8x3xf32>
}

// -----

// Tests that BatchNorm's training forward calls its kernel with (x, gamma,
// beta), one destination a result (y, mean, var, invstd) and the channel-
// sized scratch, args (outer, channels, inner, eps's bits); its gradient
// with (dy, x, gamma, mean, invstd) into (dx, dgamma, dbeta). Channels at
// axis 2 of a rank-4 input: outer 2 * 3, inner 5. On buffers, every
// destination is its own allocation, passed after the inputs.

// CHECK-LABEL: func.func @batch_norm
// CHECK-SAME: (%[[X:[^:]*]]: tensor<2x3x4x5xf32>, %[[G:[^:]*]]: tensor<4xf32>, %[[B:[^:]*]]: tensor<4xf32>, %[[DY:[^:]*]]: tensor<2x3x4x5xf32>)
// CHECK: %[[F:.*]]:5 = mxrt.kernel_call @mxc_kernel_batch_norm_train_f32(%[[X]], %[[G]], %[[B]]) outs(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) args [6, 4, 5, 4532020583610935537]
// CHECK-SAME: -> (tensor<2x3x4x5xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
// CHECK: %[[D:.*]]:3 = mxrt.kernel_call @mxc_kernel_batch_norm_backward_f32(%[[DY]], %[[X]], %[[G]], %[[F]]#1, %[[F]]#3) outs(%{{.*}}, %{{.*}}, %{{.*}}) args [6, 4, 5, 4532020583610935537]
// CHECK: return %[[F]]#0, %[[F]]#2, %[[D]]#0, %[[D]]#1, %[[D]]#2
// BUF-LABEL: func.func @batch_norm
// BUF-COUNT-5: memref.alloc
// BUF: call @mxc_kernel_batch_norm_train_f32(
// BUF-COUNT-3: memref.alloc
// BUF: call @mxc_kernel_batch_norm_backward_f32(
func.func @batch_norm(%x: tensor<2x3x4x5xf32>, %g: tensor<4xf32>, %b: tensor<4xf32>, %dy: tensor<2x3x4x5xf32>) -> (tensor<2x3x4x5xf32>, tensor<4xf32>, tensor<2x3x4x5xf32>, tensor<4xf32>, tensor<4xf32>) {
  %0:4 = mx.BatchNorm_train %x, %g, %b {axis = 2 : i64, eps = 1.0e-5 : f64} : (tensor<2x3x4x5xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<2x3x4x5xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
  %1:3 = mx.BatchNorm_backward %dy, %x, %g, %0#1, %0#3 {axis = 2 : i64, eps = 1.0e-5 : f64} : (tensor<2x3x4x5xf32>, tensor<2x3x4x5xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<2x3x4x5xf32>, tensor<4xf32>, tensor<4xf32>)
  return %0#0, %0#2, %1#0, %1#1, %1#2 : tensor<2x3x4x5xf32>, tensor<4xf32>, tensor<2x3x4x5xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// Tests LRN on the CUDA target (a module with mxc.cuda_target), whose LRN
// kernels are cuDNN's: the forward calls mxc_kernel_lrn_f32 (its GPU twin is
// cuDNN's forward) when tmp_norm is read by the gradient alone, which then
// reads the output (cuDNN's gradient takes y; tmp_norm is an unwritten
// buffer there); knorm is passed to both.

// CHECK-LABEL: func.func @lrn_cuda
// CHECK-SAME: (%[[X:[^:]*]]: tensor<2x8x3x3xf32>, %[[DY:[^:]*]]: tensor<2x8x3x3xf32>)
// CHECK: %[[Y:.*]] = mxrt.kernel_call @mxc_kernel_lrn_f32(%[[X]]) outs(%{{.*}}) args [2, 8, 9, 5,
// CHECK: %[[N:.*]] = bufferization.alloc_tensor() : tensor<2x8x3x3xf32>
// CHECK: mxrt.kernel_call @mxc_kernel_lrn_backward_f32(%[[DY]], %[[X]], %[[N]], %[[Y]])
// CHECK-NOT: linalg.generic
module attributes {mxc.cuda_target} {
  func.func @lrn_cuda(%x: tensor<2x8x3x3xf32>, %dy: tensor<2x8x3x3xf32>) -> (tensor<2x8x3x3xf32>, tensor<2x8x3x3xf32>) {
    %y, %n = mx.LRN %x {nsize = 5 : i64} : (tensor<2x8x3x3xf32>) -> (tensor<2x8x3x3xf32>, tensor<2x8x3x3xf32>)
    %dx = mx.LRN_backward %dy, %x, %n, %y {nsize = 5 : i64} : (tensor<2x8x3x3xf32>, tensor<2x8x3x3xf32>, tensor<2x8x3x3xf32>, tensor<2x8x3x3xf32>) -> tensor<2x8x3x3xf32>
    return %y, %dx : tensor<2x8x3x3xf32>, tensor<2x8x3x3xf32>
  }
}

// -----

// Tests that on the CUDA target a tmp_norm read by anything but the
// gradient (here: returned) keeps the generated forward, which writes it.

// CHECK-LABEL: func.func @lrn_cuda_norm_out
// CHECK-NOT: mxc_kernel_lrn
// CHECK: linalg.generic
module attributes {mxc.cuda_target} {
  func.func @lrn_cuda_norm_out(%x: tensor<2x8x3x3xf32>) -> (tensor<2x8x3x3xf32>, tensor<2x8x3x3xf32>) {
    %y, %n = mx.LRN %x {nsize = 3 : i64} : (tensor<2x8x3x3xf32>) -> (tensor<2x8x3x3xf32>, tensor<2x8x3x3xf32>)
    return %y, %n : tensor<2x8x3x3xf32>, tensor<2x8x3x3xf32>
  }
}

// -----

// Tests that on the CUDA target an LRN whose window cuDNN does not take (17
// channels) keeps the generated forward, which writes tmp_norm, and its
// gradient calls the CPU kernel's host twin on (dy, x, tmp_norm, y).

// CHECK-LABEL: func.func @lrn_cuda_wide_train
// CHECK-NOT: mxc_kernel_lrn_f32
// CHECK: mxrt.kernel_call @mxc_kernel_lrn_backward_host_f32({{.*}}) outs(%{{.*}}) args [1, 20, 4, 17,
module attributes {mxc.cuda_target} {
  func.func @lrn_cuda_wide_train(%x: tensor<1x20x2x2xf32>, %dy: tensor<1x20x2x2xf32>) -> (tensor<1x20x2x2xf32>, tensor<1x20x2x2xf32>) {
    %y, %n = mx.LRN %x {nsize = 17 : i64} : (tensor<1x20x2x2xf32>) -> (tensor<1x20x2x2xf32>, tensor<1x20x2x2xf32>)
    %dx = mx.LRN_backward %dy, %x, %n, %y {nsize = 17 : i64} : (tensor<1x20x2x2xf32>, tensor<1x20x2x2xf32>, tensor<1x20x2x2xf32>, tensor<1x20x2x2xf32>) -> tensor<1x20x2x2xf32>
    return %y, %dx : tensor<1x20x2x2xf32>, tensor<1x20x2x2xf32>
  }
}

// -----

// Tests that a cuDNN-less LRN gradient alone (beta below cuDNN's 0.01) calls
// the host twin too.

// CHECK-LABEL: func.func @lrn_cuda_wide
// CHECK: mxrt.kernel_call @mxc_kernel_lrn_backward_host_f32(
module attributes {mxc.cuda_target} {
  func.func @lrn_cuda_wide(%x: tensor<1x20x2x2xf32>, %n: tensor<1x20x2x2xf32>) -> tensor<1x20x2x2xf32> {
    %0 = mx.LRN_backward %x, %x, %n, %x {nsize = 3 : i64, beta = 0.005 : f64} : (tensor<1x20x2x2xf32>, tensor<1x20x2x2xf32>, tensor<1x20x2x2xf32>, tensor<1x20x2x2xf32>) -> tensor<1x20x2x2xf32>
    return %0 : tensor<1x20x2x2xf32>
  }
}

// -----

// Tests the convolutions of the CUDA target (mxc.cuda_target): the forward
// is mxc_kernel_conv_workspace_f32 with a planned workspace, and the
// gradients' workspaces as large, one image's im2col (4 channels x 3x3 taps
// x 8x8 positions = 2304 elements; pointwise gradients too: cuDNN's
// algorithms may want one).

// CHECK-LABEL: func.func @conv_cuda
// CHECK: %[[WS:.*]] = bufferization.alloc_tensor() : tensor<2304xf32>
// CHECK: mxrt.kernel_call @mxc_kernel_conv_workspace_f32(%{{.*}}, %{{.*}}, %{{.*}}) outs(%{{.*}}, %[[WS]])
// CHECK: mxrt.kernel_call @mxc_kernel_conv_backward_data_f32({{.*}}) outs(%{{.*}}, %{{.*}}) {{.*}} -> (tensor<2x4x8x8xf32>, tensor<2304xf32>)
// CHECK: mxrt.kernel_call @mxc_kernel_conv_backward_weight_f32({{.*}}) outs(%{{.*}}, %{{.*}}) {{.*}} -> (tensor<6x4x3x3xf32>, tensor<2304xf32>)
module attributes {mxc.cuda_target} {
  func.func @conv_cuda(%x: tensor<2x4x8x8xf32>, %w: tensor<6x4x3x3xf32>, %dy: tensor<2x6x8x8xf32>) -> (tensor<2x6x8x8xf32>, tensor<2x4x8x8xf32>, tensor<6x4x3x3xf32>) {
    %y = mx.Convolution %x, %w {kernel = array<i64: 3, 3>, num_filter = 6 : i64, pad = array<i64: 1, 1>, no_bias = true} : (tensor<2x4x8x8xf32>, tensor<6x4x3x3xf32>) -> tensor<2x6x8x8xf32>
    %dx = mx.Convolution_backward_data %dy, %w {kernel = array<i64: 3, 3>, num_filter = 6 : i64, pad = array<i64: 1, 1>} : (tensor<2x6x8x8xf32>, tensor<6x4x3x3xf32>) -> tensor<2x4x8x8xf32>
    %dw = mx.Convolution_backward_weight %dy, %x {kernel = array<i64: 3, 3>, num_filter = 6 : i64, pad = array<i64: 1, 1>} : (tensor<2x6x8x8xf32>, tensor<2x4x8x8xf32>) -> tensor<6x4x3x3xf32>
    return %y, %dx, %dw : tensor<2x6x8x8xf32>, tensor<2x4x8x8xf32>, tensor<6x4x3x3xf32>
  }
}
