// RUN: mxc-opt %s --split-input-file --mx-fuse-convolution | FileCheck %s
// RUN: mxc-opt %s --split-input-file --mx-fuse-convolution --convert-mx-to-linalg --canonicalize | FileCheck %s --check-prefix=LOWER
// RUN: mxc-opt %s --split-input-file --mx-fuse-convolution="constant-params=true" | FileCheck %s --check-prefix=CONST
// RUN: mxc-opt %s --split-input-file --mx-fuse-convolution="constant-params=true" --convert-mx-to-linalg --canonicalize | FileCheck %s --check-prefix=CONST-LOWER

// Tests mx-fuse-convolution: Convolution + BatchNorm (inference form) +
// clip becomes one mx.Convolution_fused with the BatchNorm's per-filter
// scale and shift computed from its parameters; a residual add joins as the
// sum; a value with a second user ends the chain; the lowering calls the
// runtime's fused kernel, accumulating into the sum. With constant-params, a
// weight that is a param / aux argument of the function makes the op
// constant_weights (flag 16 of the kernel call); any other weight does not.

// CHECK-LABEL: func.func @conv_bn_relu6
// CHECK-SAME: (%[[X:.*]]: tensor<1x3x8x8xf32>, %[[W:.*]]: tensor<8x3x3x3xf32>, %[[B:.*]]: tensor<8xf32>, %[[G:.*]]: tensor<8xf32>, %[[BE:.*]]: tensor<8xf32>, %[[MM:.*]]: tensor<8xf32>, %[[MV:.*]]: tensor<8xf32>)
// CHECK: %[[V:.*]] = mx._plus_scalar %[[MV]] {is_int = false, scalar = 1.000000e-05 : f64}
// CHECK: %[[SD:.*]] = mx.sqrt %[[V]]
// CHECK: %[[S:.*]] = mx.elemwise_div %[[G]], %[[SD]]
// CHECK: %[[MS:.*]] = mx.elemwise_mul %[[MM]], %[[S]]
// CHECK: %[[T:.*]] = mx.elemwise_sub %[[BE]], %[[MS]]
// CHECK: %[[F:.*]] = mx.Convolution_fused %[[X]], %[[W]] bias %[[B]] scale %[[S]] shift %[[T]] {act = "clip", act_max = 6.000000e+00 : f64, kernel = array<i64: 3, 3>, num_filter = 8 : i64, pad = array<i64: 1, 1>}
// CHECK-NOT: mx.BatchNorm
// CHECK-NOT: mx.clip
// CHECK: return %[[F]]
// LOWER-LABEL: func.func @conv_bn_relu6
// LOWER: mxrt.kernel_call @mxc_kernel_conv_fused_f32(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}) outs(%{{.*}}) args [1, 3, 8, 1, 8, 8, 3, 3, 8, 8, 1, 1, 1, 1, 1, 1, 7, 2, 0, 4618441417868443648]
// LOWER-NOT: accumulate
func.func @conv_bn_relu6(%x: tensor<1x3x8x8xf32>, %w: tensor<8x3x3x3xf32>, %b: tensor<8xf32>, %g: tensor<8xf32>, %be: tensor<8xf32>, %mm: tensor<8xf32>, %mv: tensor<8xf32>) -> tensor<1x8x8x8xf32> {
  %c = mx.Convolution %x, %w, %b {kernel = array<i64: 3, 3>, num_filter = 8 : i64, pad = array<i64: 1, 1>} : (tensor<1x3x8x8xf32>, tensor<8x3x3x3xf32>, tensor<8xf32>) -> tensor<1x8x8x8xf32>
  %o, %m, %v = mx.BatchNorm %c, %g, %be, %mm, %mv {eps = 1.0e-5 : f64, fix_gamma = false, use_global_stats = true} : (tensor<1x8x8x8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> (tensor<1x8x8x8xf32>, tensor<8xf32>, tensor<8xf32>)
  %r = mx.clip %o {a_min = 0.0 : f64, a_max = 6.0 : f64} : (tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  return %r : tensor<1x8x8x8xf32>
}

// -----

// fix_gamma: the scale is 1 / sqrt(var + eps); the residual add joins
// (either operand order), and the result keeps all its users.
// CHECK-LABEL: func.func @conv_bn_add
// CHECK-SAME: (%[[X:.*]]: tensor<1x8x4x4xf32>, %[[W:.*]]: tensor<8x8x1x1xf32>, %{{.*}}: tensor<8xf32>, %{{.*}}: tensor<8xf32>, %{{.*}}: tensor<8xf32>, %{{.*}}: tensor<8xf32>, %[[R:.*]]: tensor<1x8x4x4xf32>)
// CHECK: %[[S:.*]] = mx._rdiv_scalar %{{.*}} {is_int = false}
// CHECK: %[[F:.*]] = mx.Convolution_fused %[[X]], %[[W]] scale %[[S]] shift %{{.*}} sum %[[R]] {kernel = array<i64: 1, 1>, num_filter = 8 : i64}
// CHECK: %[[E:.*]] = mx.exp %[[F]]
// CHECK: return %[[F]], %[[E]]
// LOWER-LABEL: func.func @conv_bn_add
// LOWER-SAME: %[[R:[^ ]*]]: tensor<1x8x4x4xf32>)
// LOWER: mxrt.kernel_call @mxc_kernel_conv_fused_f32({{.*}}) outs(%[[R]]) args [1, 8, 8, 1, 4, 4, 1, 1, 4, 4, 1, 1, 0, 0, 1, 1, 14, 0, 0, 0] {accumulate}
func.func @conv_bn_add(%x: tensor<1x8x4x4xf32>, %w: tensor<8x8x1x1xf32>, %g: tensor<8xf32>, %be: tensor<8xf32>, %mm: tensor<8xf32>, %mv: tensor<8xf32>, %res: tensor<1x8x4x4xf32>) -> (tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>) {
  %c = mx.Convolution %x, %w {kernel = array<i64: 1, 1>, no_bias = true, num_filter = 8 : i64} : (tensor<1x8x4x4xf32>, tensor<8x8x1x1xf32>) -> tensor<1x8x4x4xf32>
  %o, %m, %v = mx.BatchNorm %c, %g, %be, %mm, %mv {use_global_stats = true} : (tensor<1x8x4x4xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> (tensor<1x8x4x4xf32>, tensor<8xf32>, tensor<8xf32>)
  %a = mx.elemwise_add %res, %o : (tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  %e = mx.exp %a : (tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  return %a, %e : tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>
}

// -----

// The convolution's output has a second user: nothing is fused. A
// BatchNorm whose hidden outputs are used (training form), f64 data and a
// 1-D convolution are not fused either.
// CHECK-LABEL: func.func @not_fused
// CHECK-NOT: mx.Convolution_fused
// CHECK: return
func.func @not_fused(%x: tensor<1x3x8x8xf32>, %w: tensor<8x3x3x3xf32>, %g: tensor<8xf32>, %be: tensor<8xf32>, %mm: tensor<8xf32>, %mv: tensor<8xf32>,
                     %xd: tensor<1x3x8x8xf64>, %wd: tensor<8x3x3x3xf64>, %x1: tensor<1x3x8xf32>, %w1: tensor<8x3x3xf32>)
    -> (tensor<1x8x8x8xf32>, tensor<1x8x8x8xf32>, tensor<1x8x8x8xf32>, tensor<8xf32>, tensor<1x8x8x8xf64>, tensor<1x8x8xf32>) {
  %c = mx.Convolution %x, %w {kernel = array<i64: 3, 3>, no_bias = true, num_filter = 8 : i64, pad = array<i64: 1, 1>} : (tensor<1x3x8x8xf32>, tensor<8x3x3x3xf32>) -> tensor<1x8x8x8xf32>
  %r = mx.relu %c : (tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  %c2 = mx.Convolution %x, %w {kernel = array<i64: 3, 3>, no_bias = true, num_filter = 8 : i64, pad = array<i64: 1, 1>} : (tensor<1x3x8x8xf32>, tensor<8x3x3x3xf32>) -> tensor<1x8x8x8xf32>
  %o, %m, %v = mx.BatchNorm %c2, %g, %be, %mm, %mv : (tensor<1x8x8x8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> (tensor<1x8x8x8xf32>, tensor<8xf32>, tensor<8xf32>)
  %cd = mx.Convolution %xd, %wd {kernel = array<i64: 3, 3>, no_bias = true, num_filter = 8 : i64, pad = array<i64: 1, 1>} : (tensor<1x3x8x8xf64>, tensor<8x3x3x3xf64>) -> tensor<1x8x8x8xf64>
  %rd = mx.relu %cd : (tensor<1x8x8x8xf64>) -> tensor<1x8x8x8xf64>
  %c1 = mx.Convolution %x1, %w1 {kernel = array<i64: 3>, no_bias = true, num_filter = 8 : i64, pad = array<i64: 1>} : (tensor<1x3x8xf32>, tensor<8x3x3xf32>) -> tensor<1x8x8xf32>
  %r1 = mx.relu %c1 : (tensor<1x8x8xf32>) -> tensor<1x8x8xf32>
  return %r, %c, %o, %m, %rd, %r1 : tensor<1x8x8x8xf32>, tensor<1x8x8x8xf32>, tensor<1x8x8x8xf32>, tensor<8xf32>, tensor<1x8x8x8xf64>, tensor<1x8x8xf32>
}

// -----

// constant-params: the weight of the first convolution is an argument of
// kind param (constant_weights, flags 2|4|16 = 22); the second's is
// computed (no constant_weights, flags 0); without the option neither is.
// CONST-LABEL: func.func @constant_weights
// CONST: mx.Convolution_fused %{{.*}}, %{{.*}} scale %{{.*}} shift %{{.*}} {act = "relu", constant_weights, kernel = array<i64: 3, 3>
// CONST: mx.Convolution_fused %{{.*}}, %{{.*}} {act = "relu", kernel = array<i64: 3, 3>
// CONST-LOWER-LABEL: func.func @constant_weights
// CONST-LOWER: mxrt.kernel_call @mxc_kernel_conv_fused_f32({{.*}}) args [1, 8, 8, 1, 8, 8, 3, 3, 8, 8, 1, 1, 1, 1, 1, 1, 22, 1, 0, 0]
// CONST-LOWER: mxrt.kernel_call @mxc_kernel_conv_fused_f32({{.*}}) args [1, 8, 8, 1, 8, 8, 3, 3, 8, 8, 1, 1, 1, 1, 1, 1, 0, 1, 0, 0]
// CHECK-LABEL: func.func @constant_weights
// CHECK-NOT: constant_weights
func.func @constant_weights(%x: tensor<1x8x8x8xf32> {mx.kind = "data"}, %w: tensor<8x8x3x3xf32> {mx.kind = "param"}, %g: tensor<8xf32> {mx.kind = "param"}, %be: tensor<8xf32> {mx.kind = "param"}, %mm: tensor<8xf32> {mx.kind = "aux"}, %mv: tensor<8xf32> {mx.kind = "aux"}) -> tensor<1x8x8x8xf32> {
  %c = mx.Convolution %x, %w {kernel = array<i64: 3, 3>, no_bias = true, num_filter = 8 : i64, pad = array<i64: 1, 1>} : (tensor<1x8x8x8xf32>, tensor<8x8x3x3xf32>) -> tensor<1x8x8x8xf32>
  %o, %m, %v = mx.BatchNorm %c, %g, %be, %mm, %mv {use_global_stats = true} : (tensor<1x8x8x8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> (tensor<1x8x8x8xf32>, tensor<8xf32>, tensor<8xf32>)
  %r = mx.relu %o : (tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  %w2 = mx.exp %w : (tensor<8x8x3x3xf32>) -> tensor<8x8x3x3xf32>
  %c2 = mx.Convolution %r, %w2 {kernel = array<i64: 3, 3>, no_bias = true, num_filter = 8 : i64, pad = array<i64: 1, 1>} : (tensor<1x8x8x8xf32>, tensor<8x8x3x3xf32>) -> tensor<1x8x8x8xf32>
  %r2 = mx.relu %c2 : (tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  return %r2 : tensor<1x8x8x8xf32>
}

// -----

// BatchNorm -> add -> relu (a ResNet block's end): the activation after the
// sum (act_after_sum, flag 128 of the kernel call). With an activation
// before the add, the one after it stays an op of its own.
// CHECK-LABEL: func.func @conv_bn_add_relu
// CHECK: %[[F:.*]] = mx.Convolution_fused %arg0, %arg1 scale %{{.*}} shift %{{.*}} sum %arg6 {act = "relu", act_after_sum, kernel = array<i64: 1, 1>, num_filter = 8 : i64}
// CHECK-NOT: mx.Activation
// CHECK: %[[G:.*]] = mx.Convolution_fused %[[F]], %arg1 scale %{{.*}} shift %{{.*}} sum %[[F]] {act = "relu", kernel = array<i64: 1, 1>, num_filter = 8 : i64}
// CHECK: %[[R:.*]] = mx.relu %[[G]]
// CHECK: return %[[R]]
// LOWER-LABEL: func.func @conv_bn_add_relu
// LOWER: mxrt.kernel_call @mxc_kernel_conv_fused_f32({{.*}}) args [1, 8, 8, 1, 4, 4, 1, 1, 4, 4, 1, 1, 0, 0, 1, 1, 142, 1, 0, 0] {accumulate}
func.func @conv_bn_add_relu(%x: tensor<1x8x4x4xf32>, %w: tensor<8x8x1x1xf32>, %g: tensor<8xf32>, %be: tensor<8xf32>, %mm: tensor<8xf32>, %mv: tensor<8xf32>, %res: tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32> {
  %c = mx.Convolution %x, %w {kernel = array<i64: 1, 1>, no_bias = true, num_filter = 8 : i64} : (tensor<1x8x4x4xf32>, tensor<8x8x1x1xf32>) -> tensor<1x8x4x4xf32>
  %o, %m, %v = mx.BatchNorm %c, %g, %be, %mm, %mv {use_global_stats = true} : (tensor<1x8x4x4xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> (tensor<1x8x4x4xf32>, tensor<8xf32>, tensor<8xf32>)
  %a = mx.elemwise_add %o, %res : (tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  %r = mx.Activation %a {act_type = "relu"} : (tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  %c2 = mx.Convolution %r, %w {kernel = array<i64: 1, 1>, no_bias = true, num_filter = 8 : i64} : (tensor<1x8x4x4xf32>, tensor<8x8x1x1xf32>) -> tensor<1x8x4x4xf32>
  %o2, %m2, %v2 = mx.BatchNorm %c2, %g, %be, %mm, %mv {use_global_stats = true} : (tensor<1x8x4x4xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> (tensor<1x8x4x4xf32>, tensor<8xf32>, tensor<8xf32>)
  %r2 = mx.relu %o2 : (tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  %a2 = mx.elemwise_add %r2, %r : (tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  %r3 = mx.relu %a2 : (tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  return %r3 : tensor<1x8x4x4xf32>
}

// -----

// A convolution with nothing to fold: with constant-params and a param
// weight it becomes a fused op for its kept weights (flags 16); its
// computed-weight twin, and both without the option, stay Convolutions.
// CONST-LABEL: func.func @bare_convolution
// CONST: %[[A:.*]] = mx.Convolution_fused %arg0, %arg1 {constant_weights, kernel = array<i64: 1, 1>, num_filter = 8 : i64, stride = array<i64: 2, 2>}
// CONST: mx.Convolution %[[A]], %{{.*}} {
// CONST-LOWER-LABEL: func.func @bare_convolution
// CONST-LOWER: mxrt.kernel_call @mxc_kernel_conv_fused_f32({{.*}}) args [1, 8, 8, 1, 8, 8, 1, 1, 4, 4, 2, 2, 0, 0, 1, 1, 16, 0, 0, 0]
// CHECK-LABEL: func.func @bare_convolution
// CHECK-NOT: Convolution_fused
// CHECK: return
func.func @bare_convolution(%x: tensor<1x8x8x8xf32> {mx.kind = "data"}, %w: tensor<8x8x1x1xf32> {mx.kind = "param"}) -> tensor<1x8x4x4xf32> {
  %c = mx.Convolution %x, %w {kernel = array<i64: 1, 1>, no_bias = true, num_filter = 8 : i64, stride = array<i64: 2, 2>} : (tensor<1x8x8x8xf32>, tensor<8x8x1x1xf32>) -> tensor<1x8x4x4xf32>
  %w2 = mx.exp %w : (tensor<8x8x1x1xf32>) -> tensor<8x8x1x1xf32>
  %c2 = mx.Convolution %c, %w2 {kernel = array<i64: 1, 1>, no_bias = true, num_filter = 8 : i64} : (tensor<1x8x4x4xf32>, tensor<8x8x1x1xf32>) -> tensor<1x8x4x4xf32>
  return %c2 : tensor<1x8x4x4xf32>
}

// -----

// A pre-activation ResNet unit: the residual is read by the next unit's
// BatchNorm (here an exp) before the convolution adds it. The lowering
// accumulates into the residual itself (one-shot bufferization copies it
// only where a later reader needs the old value); a residual that is also a
// result of the function (a training forward's) gets an explicit copy.
// CHECK-LABEL: func.func @residual_read_before
// CHECK: mx.Convolution_fused %arg0, %arg1 sum %arg2
// LOWER-LABEL: func.func @residual_read_before
// LOWER-NOT: alloc_tensor
// LOWER: mxrt.kernel_call @mxc_kernel_conv_fused_f32({{.*}}) outs(%arg2) args [1, 8, 8, 1, 4, 4, 1, 1, 4, 4, 1, 1, 0, 0, 1, 1, 8, 0, 0, 0] {accumulate}
func.func @residual_read_before(%x: tensor<1x8x4x4xf32>, %w: tensor<8x8x1x1xf32>, %res: tensor<1x8x4x4xf32>) -> (tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>) {
  %e = mx.exp %res : (tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  %c = mx.Convolution %x, %w {kernel = array<i64: 1, 1>, no_bias = true, num_filter = 8 : i64} : (tensor<1x8x4x4xf32>, tensor<8x8x1x1xf32>) -> tensor<1x8x4x4xf32>
  %a = mx.elemwise_add %c, %res : (tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  return %a, %e : tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>
}

// CHECK-LABEL: func.func @residual_returned
// CHECK: mx.Convolution_fused %arg0, %arg1 sum %[[R:.*]] {
// LOWER-LABEL: func.func @residual_returned
// LOWER: %[[C:.*]] = bufferization.alloc_tensor() copy(%[[R:.*]])
// LOWER: mxrt.kernel_call @mxc_kernel_conv_fused_f32({{.*}}) outs(%[[C]]) {{.*}} {accumulate}
// LOWER: return %{{.*}}, %[[R]]
func.func @residual_returned(%x: tensor<1x8x4x4xf32>, %w: tensor<8x8x1x1xf32>, %res: tensor<1x8x4x4xf32>) -> (tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>) {
  %e = mx.exp %res : (tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  %c = mx.Convolution %x, %w {kernel = array<i64: 1, 1>, no_bias = true, num_filter = 8 : i64} : (tensor<1x8x4x4xf32>, tensor<8x8x1x1xf32>) -> tensor<1x8x4x4xf32>
  %a = mx.elemwise_add %c, %e : (tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  return %a, %e : tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>
}
