// RUN: mxc-opt %s --split-input-file --mx-propagate-conv-layout | FileCheck %s
// RUN: mxc-opt %s --split-input-file --mx-propagate-conv-layout --convert-mx-to-linalg --canonicalize | FileCheck %s --check-prefix=LOWER

// Tests mx-propagate-conv-layout: a value is blocked when only fused
// convolutions read it (as data or sum), it is not returned, it has a
// multiple of 16 channels, and a sum shares its op's output layout.

// A residual block: %a feeds %b (data) and %c (sum); %c's output feeds %d,
// whose 24 channels stay NCHW. The function's argument stays NCHW.
// CHECK-LABEL: func.func @block
// CHECK: %[[A:.*]] = mx.Convolution_fused %arg0, %arg1 {act = "relu", blocked_output, kernel = array<i64: 1, 1>, num_filter = 32 : i64}
// CHECK: %[[B:.*]] = mx.Convolution_fused %[[A]], %arg2 {blocked_data, blocked_output, kernel = array<i64: 3, 3>, num_filter = 32 : i64, pad = array<i64: 1, 1>}
// CHECK: %[[C:.*]] = mx.Convolution_fused %[[B]], %arg3 sum %[[A]] {act = "relu", act_after_sum, blocked_data, blocked_output, kernel = array<i64: 1, 1>, num_filter = 32 : i64}
// CHECK: %[[D:.*]] = mx.Convolution_fused %[[C]], %arg4 {blocked_data, kernel = array<i64: 1, 1>, num_filter = 24 : i64}
// CHECK: return %[[D]]
// The flags of the kernel calls: 32 blocked x, 64 blocked y, 128 the
// activation after the sum (+ 8 the sum).
// LOWER-LABEL: func.func @block
// LOWER: mxrt.kernel_call @mxc_kernel_conv_fused_f32({{.*}}) outs({{.*}}) args [1, 16, 32, 1, 8, 8, 1, 1, 8, 8, 1, 1, 0, 0, 1, 1, 64, 1, 0, 0]
// LOWER: mxrt.kernel_call @mxc_kernel_conv_fused_f32({{.*}}) outs({{.*}}) args [1, 32, 32, 1, 8, 8, 3, 3, 8, 8, 1, 1, 1, 1, 1, 1, 96, 0, 0, 0]
// LOWER: mxrt.kernel_call @mxc_kernel_conv_fused_f32({{.*}}) outs({{.*}}) args [1, 32, 32, 1, 8, 8, 1, 1, 8, 8, 1, 1, 0, 0, 1, 1, 232, 1, 0, 0] {accumulate}
// LOWER: mxrt.kernel_call @mxc_kernel_conv_fused_f32({{.*}}) outs({{.*}}) args [1, 32, 24, 1, 8, 8, 1, 1, 8, 8, 1, 1, 0, 0, 1, 1, 32, 0, 0, 0]
func.func @block(%x: tensor<1x16x8x8xf32>, %w1: tensor<32x16x1x1xf32>, %w2: tensor<32x32x3x3xf32>, %w3: tensor<32x32x1x1xf32>, %w4: tensor<24x32x1x1xf32>) -> tensor<1x24x8x8xf32> {
  %a = mx.Convolution_fused %x, %w1 {act = "relu", kernel = array<i64: 1, 1>, num_filter = 32 : i64} : (tensor<1x16x8x8xf32>, tensor<32x16x1x1xf32>) -> tensor<1x32x8x8xf32>
  %b = mx.Convolution_fused %a, %w2 {kernel = array<i64: 3, 3>, num_filter = 32 : i64, pad = array<i64: 1, 1>} : (tensor<1x32x8x8xf32>, tensor<32x32x3x3xf32>) -> tensor<1x32x8x8xf32>
  %c = mx.Convolution_fused %b, %w3 sum %a {act = "relu", act_after_sum, kernel = array<i64: 1, 1>, num_filter = 32 : i64} : (tensor<1x32x8x8xf32>, tensor<32x32x1x1xf32>, tensor<1x32x8x8xf32>) -> tensor<1x32x8x8xf32>
  %d = mx.Convolution_fused %c, %w4 {kernel = array<i64: 1, 1>, num_filter = 24 : i64} : (tensor<1x32x8x8xf32>, tensor<24x32x1x1xf32>) -> tensor<1x24x8x8xf32>
  return %d : tensor<1x24x8x8xf32>
}

// -----

// Sums that are not blocked keep their ops' outputs NCHW, and the other way
// round, to a fixed point: %q adds an argument (so %q is NCHW, though only
// %r reads it), %p is added by %q (so it is NCHW too, though only
// convolutions read it); %r's output is returned.
// CHECK-LABEL: func.func @sums
// CHECK: %[[P:.*]] = mx.Convolution_fused %arg0, %arg1 {kernel
// CHECK: %[[Q:.*]] = mx.Convolution_fused %[[P]], %arg1 sum %arg2 {kernel
// CHECK: %[[R:.*]] = mx.Convolution_fused %[[Q]], %arg1 sum %[[P]] {kernel
// CHECK: return %[[R]]
func.func @sums(%x: tensor<1x16x4x4xf32>, %w: tensor<16x16x1x1xf32>, %s: tensor<1x16x4x4xf32>) -> tensor<1x16x4x4xf32> {
  %p = mx.Convolution_fused %x, %w {kernel = array<i64: 1, 1>, num_filter = 16 : i64} : (tensor<1x16x4x4xf32>, tensor<16x16x1x1xf32>) -> tensor<1x16x4x4xf32>
  %q = mx.Convolution_fused %p, %w sum %s {kernel = array<i64: 1, 1>, num_filter = 16 : i64} : (tensor<1x16x4x4xf32>, tensor<16x16x1x1xf32>, tensor<1x16x4x4xf32>) -> tensor<1x16x4x4xf32>
  %r = mx.Convolution_fused %q, %w sum %p {kernel = array<i64: 1, 1>, num_filter = 16 : i64} : (tensor<1x16x4x4xf32>, tensor<16x16x1x1xf32>, tensor<1x16x4x4xf32>) -> tensor<1x16x4x4xf32>
  return %r : tensor<1x16x4x4xf32>
}

// -----

// Not blocked: a value another op reads (%e: the exp), one with 8 channels
// (%f), one that is also a function result (%g); %f2 (read by %g alone) is.
// CHECK-LABEL: func.func @edges
// CHECK: %[[E:.*]] = mx.Convolution_fused %arg0, %arg1 {kernel
// CHECK: mx.Convolution_fused %[[E]], %arg1 {kernel
// CHECK: %[[F:.*]] = mx.Convolution_fused %arg0, %arg2 {kernel
// CHECK: %[[F2:.*]] = mx.Convolution_fused %[[F]], %arg3 {blocked_output, kernel
// CHECK: %[[G:.*]] = mx.Convolution_fused %[[F2]], %arg1 {blocked_data, kernel
// CHECK: mx.Convolution_fused %[[G]], %arg1 sum %{{.*}} {kernel
// CHECK: return
func.func @edges(%x: tensor<1x16x4x4xf32>, %w: tensor<16x16x1x1xf32>, %w8: tensor<8x16x1x1xf32>, %v8: tensor<16x8x1x1xf32>) -> (tensor<1x16x4x4xf32>, tensor<1x16x4x4xf32>, tensor<1x16x4x4xf32>) {
  %e = mx.Convolution_fused %x, %w {kernel = array<i64: 1, 1>, num_filter = 16 : i64} : (tensor<1x16x4x4xf32>, tensor<16x16x1x1xf32>) -> tensor<1x16x4x4xf32>
  %ex = mx.exp %e : (tensor<1x16x4x4xf32>) -> tensor<1x16x4x4xf32>
  %e2 = mx.Convolution_fused %e, %w {kernel = array<i64: 1, 1>, num_filter = 16 : i64} : (tensor<1x16x4x4xf32>, tensor<16x16x1x1xf32>) -> tensor<1x16x4x4xf32>
  %f = mx.Convolution_fused %x, %w8 {kernel = array<i64: 1, 1>, num_filter = 8 : i64} : (tensor<1x16x4x4xf32>, tensor<8x16x1x1xf32>) -> tensor<1x8x4x4xf32>
  %f2 = mx.Convolution_fused %f, %v8 {kernel = array<i64: 1, 1>, num_filter = 16 : i64} : (tensor<1x8x4x4xf32>, tensor<16x8x1x1xf32>) -> tensor<1x16x4x4xf32>
  %g = mx.Convolution_fused %f2, %w {kernel = array<i64: 1, 1>, num_filter = 16 : i64} : (tensor<1x16x4x4xf32>, tensor<16x16x1x1xf32>) -> tensor<1x16x4x4xf32>
  %g2 = mx.Convolution_fused %g, %w sum %ex {kernel = array<i64: 1, 1>, num_filter = 16 : i64} : (tensor<1x16x4x4xf32>, tensor<16x16x1x1xf32>, tensor<1x16x4x4xf32>) -> tensor<1x16x4x4xf32>
  %o = mx.elemwise_add %g2, %e2 : (tensor<1x16x4x4xf32>, tensor<1x16x4x4xf32>) -> tensor<1x16x4x4xf32>
  return %g, %o, %ex : tensor<1x16x4x4xf32>, tensor<1x16x4x4xf32>, tensor<1x16x4x4xf32>
}

// -----

// Poolings and channel concatenations carry the layout: a Concat (whose
// parts and result share one layout, a copy of the same bytes either way)
// of two convolutions, max-pooled (blocked in and out), a convolution, and
// a global average pooling whose NCHW result is returned (its input
// blocked). The poolings get discardable mx.blocked_* attributes and call
// the runtime's pooling kernel (flags 1 avg, 2 count_include_pad, 32 / 64).
// CHECK-LABEL: func.func @pools
// CHECK: %[[A:.*]] = mx.Convolution_fused %arg0, %arg1 {blocked_output
// CHECK: %[[B:.*]] = mx.Convolution_fused %arg0, %arg1 {blocked_output
// CHECK: %[[C:.*]] = mx.Concat %[[A]], %[[B]] {num_args = 2 : i64}
// CHECK: %[[P:.*]] = mx.Pooling %[[C]] {kernel = array<i64: 2, 2>, mx.blocked_data, mx.blocked_output, stride
// CHECK: %[[D:.*]] = mx.Convolution_fused %[[P]], %arg2 {blocked_data, blocked_output
// CHECK: %[[G:.*]] = mx.Pooling %[[D]] {global_pool = true, mx.blocked_data, pool_type = "avg"}
// CHECK: return %[[G]]
// LOWER-LABEL: func.func @pools
// LOWER: mxrt.kernel_call @mxc_kernel_pooling_f32({{.*}}) outs({{.*}}) args [1, 64, 8, 8, 4, 4, 2, 2, 2, 2, 0, 0, 98]
// LOWER: mxrt.kernel_call @mxc_kernel_pooling_f32({{.*}}) outs({{.*}}) args [1, 16, 4, 4, 1, 1, 4, 4, 1, 1, 0, 0, 35]
func.func @pools(%x: tensor<1x16x8x8xf32>, %w: tensor<32x16x1x1xf32>, %w2: tensor<16x64x1x1xf32>) -> tensor<1x16x1x1xf32> {
  %a = mx.Convolution_fused %x, %w {kernel = array<i64: 1, 1>, num_filter = 32 : i64} : (tensor<1x16x8x8xf32>, tensor<32x16x1x1xf32>) -> tensor<1x32x8x8xf32>
  %b = mx.Convolution_fused %x, %w {kernel = array<i64: 1, 1>, num_filter = 32 : i64} : (tensor<1x16x8x8xf32>, tensor<32x16x1x1xf32>) -> tensor<1x32x8x8xf32>
  %c = mx.Concat %a, %b {dim = 1 : i64, num_args = 2 : i64} : (tensor<1x32x8x8xf32>, tensor<1x32x8x8xf32>) -> tensor<1x64x8x8xf32>
  %p = mx.Pooling %c {kernel = array<i64: 2, 2>, pool_type = "max", stride = array<i64: 2, 2>} : (tensor<1x64x8x8xf32>) -> tensor<1x64x4x4xf32>
  %d = mx.Convolution_fused %p, %w2 {kernel = array<i64: 1, 1>, num_filter = 16 : i64} : (tensor<1x64x4x4xf32>, tensor<16x64x1x1xf32>) -> tensor<1x16x4x4xf32>
  %g = mx.Pooling %d {global_pool = true, pool_type = "avg"} : (tensor<1x16x4x4xf32>) -> tensor<1x16x1x1xf32>
  return %g : tensor<1x16x1x1xf32>
}

// -----

// A Concat with an NCHW part (the function's argument) keeps its whole
// class NCHW, the convolution before it included; the pooling after it
// reads NCHW and writes blocked for the convolution.
// CHECK-LABEL: func.func @mixed_concat
// CHECK: %[[A:.*]] = mx.Convolution_fused %arg0, %arg1 {kernel
// CHECK: %[[C:.*]] = mx.Concat %[[A]], %arg0 {num_args
// CHECK: %[[P:.*]] = mx.Pooling %[[C]] {kernel = array<i64: 2, 2>, mx.blocked_output, stride
// CHECK: mx.Convolution_fused %[[P]], %arg2 {blocked_data, kernel
// LOWER-LABEL: func.func @mixed_concat
// LOWER: mxrt.kernel_call @mxc_kernel_pooling_f32({{.*}}) outs({{.*}}) args [1, 48, 8, 8, 4, 4, 2, 2, 2, 2, 0, 0, 66]
func.func @mixed_concat(%x: tensor<1x16x8x8xf32>, %w: tensor<32x16x1x1xf32>, %w2: tensor<16x48x1x1xf32>) -> tensor<1x16x4x4xf32> {
  %a = mx.Convolution_fused %x, %w {kernel = array<i64: 1, 1>, num_filter = 32 : i64} : (tensor<1x16x8x8xf32>, tensor<32x16x1x1xf32>) -> tensor<1x32x8x8xf32>
  %c = mx.Concat %a, %x {dim = 1 : i64, num_args = 2 : i64} : (tensor<1x32x8x8xf32>, tensor<1x16x8x8xf32>) -> tensor<1x48x8x8xf32>
  %p = mx.Pooling %c {kernel = array<i64: 2, 2>, pool_type = "max", stride = array<i64: 2, 2>} : (tensor<1x48x8x8xf32>) -> tensor<1x48x4x4xf32>
  %d = mx.Convolution_fused %p, %w2 {kernel = array<i64: 1, 1>, num_filter = 16 : i64} : (tensor<1x48x4x4xf32>, tensor<16x48x1x1xf32>) -> tensor<1x16x4x4xf32>
  return %d : tensor<1x16x4x4xf32>
}

// -----

// ResNet-v2's pre-activation: a BatchNorm (inference form) and relu between
// blocked tensors becomes a depthwise 1x1 fused convolution (weights of
// ones, the BatchNorm's scale and shift, the relu), so the residual stream
// %a stays blocked into the add of %c.
// CHECK-LABEL: func.func @preactivation
// CHECK: %[[A:.*]] = mx.Convolution_fused %arg0, %arg1 {blocked_output, kernel = array<i64: 1, 1>, num_filter = 32 : i64}
// CHECK: %[[ONES:.*]] = mx._ones {shape = array<i64: 32, 1, 1, 1>} : () -> tensor<32x1x1x1xf32>
// CHECK: %[[R:.*]] = mx.Convolution_fused %[[A]], %[[ONES]] scale %{{.*}} shift %{{.*}} {act = "relu", blocked_data, blocked_output, kernel = array<i64: 1, 1>, num_filter = 32 : i64, num_group = 32 : i64}
// CHECK-NOT: mx.BatchNorm
// CHECK-NOT: mx.Activation
// CHECK: %[[C:.*]] = mx.Convolution_fused %[[R]], %arg6 sum %[[A]] {blocked_data, blocked_output
// CHECK: mx.Convolution_fused %[[C]], %arg7 {blocked_data, kernel
// LOWER-LABEL: func.func @preactivation
// LOWER: mxrt.kernel_call @mxc_kernel_conv_fused_f32({{.*}}) outs({{.*}}) args [1, 32, 32, 32, 8, 8, 1, 1, 8, 8, 1, 1, 0, 0, 1, 1, 102, 1, 0, 0]
func.func @preactivation(%x: tensor<1x16x8x8xf32>, %w0: tensor<32x16x1x1xf32>, %g: tensor<32xf32>, %be: tensor<32xf32>, %mm: tensor<32xf32>, %mv: tensor<32xf32>, %w1: tensor<32x32x3x3xf32>, %w2: tensor<16x32x1x1xf32>) -> tensor<1x16x8x8xf32> {
  %a = mx.Convolution_fused %x, %w0 {kernel = array<i64: 1, 1>, num_filter = 32 : i64} : (tensor<1x16x8x8xf32>, tensor<32x16x1x1xf32>) -> tensor<1x32x8x8xf32>
  %o, %m, %v = mx.BatchNorm %a, %g, %be, %mm, %mv {use_global_stats = true} : (tensor<1x32x8x8xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>, tensor<32xf32>) -> (tensor<1x32x8x8xf32>, tensor<32xf32>, tensor<32xf32>)
  %r = mx.Activation %o {act_type = "relu"} : (tensor<1x32x8x8xf32>) -> tensor<1x32x8x8xf32>
  %c = mx.Convolution_fused %r, %w1 sum %a {kernel = array<i64: 3, 3>, num_filter = 32 : i64, pad = array<i64: 1, 1>} : (tensor<1x32x8x8xf32>, tensor<32x32x3x3xf32>, tensor<1x32x8x8xf32>) -> tensor<1x32x8x8xf32>
  %d = mx.Convolution_fused %c, %w2 {kernel = array<i64: 1, 1>, num_filter = 16 : i64} : (tensor<1x32x8x8xf32>, tensor<16x32x1x1xf32>) -> tensor<1x16x8x8xf32>
  return %d : tensor<1x16x8x8xf32>
}
