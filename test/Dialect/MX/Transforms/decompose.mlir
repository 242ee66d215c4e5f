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
