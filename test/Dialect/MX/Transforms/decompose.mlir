// RUN: mxc-opt %s --split-input-file --mx-decompose | FileCheck %s

// Tests that LayerNorm becomes MXNet's formula in primitive ops: mean and
// variance over the axis (kept), sqrt(var + eps), gamma and beta reshaped to
// broadcast along the axis; the unused mean / std outputs leave nothing.

// CHECK-LABEL: func.func @layer_norm
// CHECK-SAME: (%[[X:.*]]: tensor<2x5xf32>, %[[G:.*]]: tensor<5xf32>, %[[B:.*]]: tensor<5xf32>)
// CHECK: %[[M:.*]] = mx.mean %[[X]] {axis = array<i64: 1>, keepdims = true}
// CHECK: %[[C:.*]] = mx.broadcast_sub %[[X]], %[[M]]
// CHECK: %[[SQ:.*]] = mx.square %[[C]]
// CHECK: %[[V:.*]] = mx.mean %[[SQ]] {axis = array<i64: 1>, keepdims = true}
// CHECK: %[[VE:.*]] = mx._plus_scalar %[[V]] {is_int = false, scalar = 1.000000e-03 : f64}
// CHECK: %[[S:.*]] = mx.sqrt %[[VE]]
// CHECK: %[[N:.*]] = mx.broadcast_div %[[C]], %[[S]]
// CHECK: %[[GR:.*]] = mx.Reshape %[[G]] {shape = array<i64: 1, 5>}
// CHECK: %[[Y:.*]] = mx.broadcast_mul %[[N]], %[[GR]]
// CHECK: %[[BR:.*]] = mx.Reshape %[[B]] {shape = array<i64: 1, 5>}
// CHECK: %[[OUT:.*]] = mx.broadcast_add %[[Y]], %[[BR]]
// CHECK-NOT: mx.LayerNorm
// CHECK: return %[[OUT]]
func.func @layer_norm(%x: tensor<2x5xf32>, %g: tensor<5xf32>, %b: tensor<5xf32>) -> tensor<2x5xf32> {
  %out, %mean, %std = mx.LayerNorm %x, %g, %b {eps = 1.0e-03 : f64} : (tensor<2x5xf32>, tensor<5xf32>, tensor<5xf32>) -> (tensor<2x5xf32>, tensor<2x1xf32>, tensor<2x1xf32>)
  return %out : tensor<2x5xf32>
}

// -----

// Tests that GroupNorm normalizes (N, num_groups, rest) and reports std as
// (N, num_groups); the unused mean's Reshape is not left behind.

// CHECK-LABEL: func.func @group_norm
// CHECK: %[[XG:.*]] = mx.Reshape %{{.*}} {shape = array<i64: 2, 2, 6>}
// CHECK: mx.mean %[[XG]] {axis = array<i64: 2>, keepdims = true}
// CHECK: %[[S:.*]] = mx.sqrt
// CHECK: mx.Reshape %{{.*}} {shape = array<i64: 1, 2, 1>}
// CHECK: %[[OUT:.*]] = mx.Reshape %{{.*}} {shape = array<i64: 2, 4, 3>}
// CHECK-NEXT: %[[STD:.*]] = mx.Reshape %[[S]] {shape = array<i64: 2, 2>}
// CHECK-NEXT: return %[[OUT]], %[[STD]]
func.func @group_norm(%x: tensor<2x4x3xf32>, %g: tensor<2xf32>, %b: tensor<2xf32>) -> (tensor<2x4x3xf32>, tensor<2x2xf32>) {
  %out, %mean, %std = mx.GroupNorm %x, %g, %b {num_groups = 2 : i64} : (tensor<2x4x3xf32>, tensor<2xf32>, tensor<2xf32>) -> (tensor<2x4x3xf32>, tensor<2x2xf32>, tensor<2x2xf32>)
  return %out, %std : tensor<2x4x3xf32>, tensor<2x2xf32>
}

// -----

// Tests that a channel-last Convolution is the channel-first one between
// transposes (the weight (F, kh, kw, C) too), its other attributes kept.

// CHECK-LABEL: func.func @conv_nhwc
// CHECK: %[[X:.*]] = mx.transpose %{{.*}} {axes = array<i64: 0, 3, 1, 2>} : (tensor<1x8x8x4xf32>) -> tensor<1x4x8x8xf32>
// CHECK: %[[W:.*]] = mx.transpose %{{.*}} {axes = array<i64: 0, 3, 1, 2>} : (tensor<6x3x3x4xf32>) -> tensor<6x4x3x3xf32>
// CHECK: %[[Y:.*]] = mx.Convolution %[[X]], %[[W]], %{{.*}} {kernel = array<i64: 3, 3>, {{.*}}num_filter = 6 : i64, pad = array<i64: 1, 1>}
// CHECK-NOT: layout
// CHECK: %[[OUT:.*]] = mx.transpose %[[Y]] {axes = array<i64: 0, 2, 3, 1>} : (tensor<1x6x8x8xf32>) -> tensor<1x8x8x6xf32>
// CHECK: return %[[OUT]]
func.func @conv_nhwc(%x: tensor<1x8x8x4xf32>, %w: tensor<6x3x3x4xf32>, %b: tensor<6xf32>) -> tensor<1x8x8x6xf32> {
  %0 = mx.Convolution %x, %w, %b {kernel = array<i64: 3, 3>, num_filter = 6 : i64, pad = array<i64: 1, 1>, layout = "NHWC"} : (tensor<1x8x8x4xf32>, tensor<6x3x3x4xf32>, tensor<6xf32>) -> tensor<1x8x8x6xf32>
  return %0 : tensor<1x8x8x6xf32>
}

// -----

// Tests that NWC pooling is NCW pooling between transposes; a channel-first
// Pooling stays.

// CHECK-LABEL: func.func @pool_nwc
// CHECK: mx.transpose %{{.*}} {axes = array<i64: 0, 2, 1>} : (tensor<1x8x3xf32>) -> tensor<1x3x8xf32>
// CHECK: %[[P:.*]] = mx.Pooling %{{.*}} {kernel = array<i64: 2>, {{.*}}stride = array<i64: 2>} : (tensor<1x3x8xf32>) -> tensor<1x3x4xf32>
// CHECK: mx.transpose %[[P]] {axes = array<i64: 0, 2, 1>} : (tensor<1x3x4xf32>) -> tensor<1x4x3xf32>
// CHECK: mx.Pooling %{{.*}} {kernel = array<i64: 2>, stride = array<i64: 2>} : (tensor<1x3x8xf32>) -> tensor<1x3x4xf32>
func.func @pool_nwc(%x: tensor<1x8x3xf32>, %y: tensor<1x3x8xf32>) -> (tensor<1x4x3xf32>, tensor<1x3x4xf32>) {
  %0 = mx.Pooling %x {kernel = array<i64: 2>, stride = array<i64: 2>, layout = "NWC"} : (tensor<1x8x3xf32>) -> tensor<1x4x3xf32>
  %1 = mx.Pooling %y {kernel = array<i64: 2>, stride = array<i64: 2>} : (tensor<1x3x8xf32>) -> tensor<1x3x4xf32>
  return %0, %1 : tensor<1x4x3xf32>, tensor<1x3x4xf32>
}

// -----

// sort / argsort: topk over the whole axis (k = 0) returning the values (and
// the hidden int32 positions) or the positions; axis and order kept, an
// absent axis (None: the flattened input) stays absent.

// CHECK-LABEL: func.func @sort_argsort
// CHECK: %[[S:.*]], %{{.*}} = mx.topk %arg0 {axis = 1 : i64, is_ascend = true, k = 0 : i64, ret_typ = "value"} : (tensor<3x5xf32>) -> (tensor<3x5xf32>, tensor<3x5xi32>)
// CHECK: %[[A:.*]] = mx.topk %arg0 {dtype = "int64", k = 0 : i64} : (tensor<3x5xf32>) -> tensor<15xi64>
// CHECK: return %[[S]], %[[A]]
func.func @sort_argsort(%x: tensor<3x5xf32>) -> (tensor<3x5xf32>, tensor<15xi64>) {
  %s, %i = mx.sort %x {axis = 1 : i64} : (tensor<3x5xf32>) -> (tensor<3x5xf32>, tensor<3x5xi32>)
  %a = mx.argsort %x {is_ascend = false, dtype = "int64"} : (tensor<3x5xf32>) -> tensor<15xi64>
  return %s, %a : tensor<3x5xf32>, tensor<15xi64>
}

// -----

// Small composites: quadratic as square / scalar ops, div_sqrt_dim as one
// scalar multiplication by 1/sqrt(16), all_finite as min(abs(x) < inf).

// CHECK-LABEL: func.func @small_composites
// CHECK: mx.square
// CHECK: mx._mul_scalar {{.*}}scalar = 2.000000e+00
// CHECK: mx._mul_scalar {{.*}}scalar = -1.000000e+00
// CHECK: mx.elemwise_add
// CHECK: mx._plus_scalar {{.*}}scalar = 3.000000e+00
// CHECK: mx._mul_scalar {{.*}}scalar = 2.500000e-01
// CHECK: mx.abs
// CHECK: mx._lesser_scalar {{.*}}scalar = 0x7FF0000000000000
// CHECK: mx.min
// CHECK-NOT: mx.all_finite
func.func @small_composites(%x: tensor<2x16xf32>) -> (tensor<2x16xf32>, tensor<2x16xf32>, tensor<1xf32>) {
  %q = mx._contrib_quadratic %x {a = 2.0 : f64, b = -1.0 : f64, c = 3.0 : f64} : (tensor<2x16xf32>) -> tensor<2x16xf32>
  %d = mx._contrib_div_sqrt_dim %x : (tensor<2x16xf32>) -> tensor<2x16xf32>
  %f = mx.all_finite %x : (tensor<2x16xf32>) -> tensor<1xf32>
  return %q, %d, %f : tensor<2x16xf32>, tensor<2x16xf32>, tensor<1xf32>
}

// -----

// Samplers: drawn from an rng_seed argument added to the function
// (mx.kind "rng_seed"), one stream per sampler; normal by Box-Muller
// (sqrt(-2 log(1 - u1)) cos(2 pi u2)) in f32 and cast to the result type.

// CHECK-LABEL: func.func @samplers
// CHECK-SAME: %[[SEED:[^:]*]]: tensor<1xi64> {mx.kind = "rng_seed", mx.name = "rng_seed"}
// CHECK: %[[U:.*]] = mx.random_uniform %[[SEED]] {high = 3.000000e+00 : f64, low = -1.000000e+00 : f64, stream = [[S0:.*]] : i64}
// CHECK: %[[U1:.*]] = mx.random_uniform %[[SEED]] {high = 0.000000e+00 : f64, low = 1.000000e+00 : f64
// CHECK: mx.random_uniform %[[SEED]] {high = 6.2831853071795862 : f64, low = 0.000000e+00 : f64
// CHECK: mx.log %[[U1]]
// CHECK: mx.sqrt
// CHECK: mx.cos
// CHECK: mx.Cast {{.*}}dtype = "float16"
func.func @samplers() -> (tensor<2x3xf32>, tensor<4xf16>) {
  %u = mx._random_uniform {low = -1.0 : f64, high = 3.0 : f64, shape = array<i64: 2, 3>} : () -> tensor<2x3xf32>
  %n = mx._random_normal {shape = array<i64: 4>, dtype = "float16"} : () -> tensor<4xf16>
  return %u, %n : tensor<2x3xf32>, tensor<4xf16>
}

// The other samplers draw from the same rng_seed with streams of their
// own: gamma's 16 candidates along a leading axis (Box-Muller in pairs:
// cos and sin), the first accepted one picked by argmax / pick; a
// _sample_* reads its parameters through BlockGrad (no gradient), each
// broadcast over the draws.

// CHECK-LABEL: func.func @more_samplers
// CHECK-SAME: %[[A:[^:]*]]: tensor<2xf32>
// CHECK-SAME: %[[SEED:[^:]*]]: tensor<1xi64> {mx.kind = "rng_seed", mx.name = "rng_seed"}
// CHECK: mx.BlockGrad %[[A]]
// CHECK: mx.random_uniform %[[SEED]] {{.*}} -> tensor<8x2x5xf32>
// CHECK: mx.cos
// CHECK: mx.sin
// CHECK: mx.Concat {{.*}} -> tensor<16x2x5xf32>
// CHECK: mx.argmax {{.*}}axis = 0
// CHECK: mx.pick
// CHECK: mx.random_uniform %[[SEED]] {{.*}} -> tensor<4x3xf64>
// CHECK: mx.log
// CHECK-NOT: mx._random_
// CHECK-NOT: mx._sample_
func.func @more_samplers(%a: tensor<2xf32>) -> (tensor<2x5xf32>, tensor<4x3xf64>) {
  %g = mx._sample_gamma %a, %a {shape = array<i64: 5>} : (tensor<2xf32>, tensor<2xf32>) -> tensor<2x5xf32>
  %x = mx._zeros {shape = array<i64: 4, 3>, dtype = "float64"} : () -> tensor<4x3xf64>
  %e = mx._random_exponential_like %x {lam = 2.0 : f64} : (tensor<4x3xf64>) -> tensor<4x3xf64>
  return %g, %e : tensor<2x5xf32>, tensor<4x3xf64>
}

// -----

// Tests that amp_multicast casts where its type rule changed the type (the
// float16 input to float32) and passes the others through (the float32 and
// int32 inputs).
// CHECK-LABEL: func.func @amp_multicast
// CHECK-SAME: (%[[A:.*]]: tensor<2x3xf16>, %[[B:.*]]: tensor<4xf32>, %[[C:.*]]: tensor<2xi32>)
// CHECK: %[[CA:.*]] = mx.Cast %[[A]] {dtype = "float32"} : (tensor<2x3xf16>) -> tensor<2x3xf32>
// CHECK-NOT: mx.Cast
// CHECK-NOT: mx.amp_multicast
// CHECK: return %[[CA]], %[[B]], %[[C]]
func.func @amp_multicast(%a: tensor<2x3xf16>, %b: tensor<4xf32>, %c: tensor<2xi32>) -> (tensor<2x3xf32>, tensor<4xf32>, tensor<2xi32>) {
  %0:3 = mx.amp_multicast %a, %b, %c {num_outputs = 3 : i64} : (tensor<2x3xf16>, tensor<4xf32>, tensor<2xi32>) -> (tensor<2x3xf32>, tensor<4xf32>, tensor<2xi32>)
  return %0#0, %0#1, %0#2 : tensor<2x3xf32>, tensor<4xf32>, tensor<2xi32>
}
