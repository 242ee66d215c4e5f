// RUN: mxc-opt %s --split-input-file --mx-fuse-elementwise | FileCheck %s
// RUN: mxc-opt %s --split-input-file --mx-fuse-elementwise=split-bias=false | FileCheck %s --check-prefix=NOSPLIT

// Tests mx-fuse-elementwise on mx ops: a convolution's bias moves into its
// tail (bias + BatchNorm + relu become one mx.fused), and with
// split-bias=false the convolution keeps its bias.

// CHECK-LABEL: func.func @conv_tail
// CHECK-SAME: (%[[X:.*]]: tensor<1x3x8x8xf32>, %[[W:.*]]: tensor<8x3x3x3xf32>, %[[B:.*]]: tensor<8xf32>, %[[G:.*]]: tensor<8xf32>, %[[BE:.*]]: tensor<8xf32>, %[[MM:.*]]: tensor<8xf32>, %[[MV:.*]]: tensor<8xf32>)
// CHECK: %[[RB:.*]] = mx.Reshape %[[B]] {shape = array<i64: 1, 8, 1, 1>} : (tensor<8xf32>) -> tensor<1x8x1x1xf32>
// CHECK: %[[C:.*]] = mx.Convolution %[[X]], %[[W]] {kernel = array<i64: 3, 3>, no_bias = true, num_filter = 8 : i64, pad = array<i64: 1, 1>} : (tensor<1x3x8x8xf32>, tensor<8x3x3x3xf32>) -> tensor<1x8x8x8xf32>
// CHECK: %[[F:.*]] = mx.fused %[[C]], %[[RB]], %[[G]], %[[BE]], %[[MM]], %[[MV]] : (tensor<1x8x8x8xf32>, tensor<1x8x1x1xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<1x8x8x8xf32> {
// CHECK-NEXT: ^bb0(%[[A0:.*]]: tensor<1x8x8x8xf32>, %[[A1:.*]]: tensor<1x8x1x1xf32>, %[[A2:.*]]: tensor<8xf32>, %[[A3:.*]]: tensor<8xf32>, %[[A4:.*]]: tensor<8xf32>, %[[A5:.*]]: tensor<8xf32>):
// CHECK-NEXT: %[[ADD:.*]] = mx.broadcast_add %[[A0]], %[[A1]]
// CHECK-NEXT: %[[BN:.*]], %{{.*}}, %{{.*}} = mx.BatchNorm %[[ADD]], %[[A2]], %[[A3]], %[[A4]], %[[A5]]
// CHECK-NEXT: %[[R:.*]] = mx.Activation %[[BN]] {act_type = "relu"}
// CHECK-NEXT: mx.yield %[[R]] : tensor<1x8x8x8xf32>
// CHECK-NEXT: }
// CHECK-NEXT: return %[[F]]

// NOSPLIT-LABEL: func.func @conv_tail
// NOSPLIT-NOT: mx.Reshape
// NOSPLIT: %[[C:.*]] = mx.Convolution %{{.*}}, %{{.*}}, %{{.*}} {kernel
// NOSPLIT: mx.fused %[[C]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} :
// NOSPLIT-NEXT: ^bb0
// NOSPLIT-NEXT: mx.BatchNorm
// NOSPLIT-NEXT: mx.Activation
// NOSPLIT-NEXT: mx.yield
func.func @conv_tail(%x: tensor<1x3x8x8xf32>, %w: tensor<8x3x3x3xf32>, %b: tensor<8xf32>, %g: tensor<8xf32>, %be: tensor<8xf32>, %mm: tensor<8xf32>, %mv: tensor<8xf32>) -> tensor<1x8x8x8xf32> {
  %c = mx.Convolution %x, %w, %b {kernel = array<i64: 3, 3>, num_filter = 8 : i64, pad = array<i64: 1, 1>} : (tensor<1x3x8x8xf32>, tensor<8x3x3x3xf32>, tensor<8xf32>) -> tensor<1x8x8x8xf32>
  %o, %m, %v = mx.BatchNorm %c, %g, %be, %mm, %mv {fix_gamma = false, use_global_stats = true} : (tensor<1x8x8x8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> (tensor<1x8x8x8xf32>, tensor<8xf32>, tensor<8xf32>)
  %r = mx.Activation %o {act_type = "relu"} : (tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  return %r : tensor<1x8x8x8xf32>
}

// -----

// A FullyConnected bias joins its activation (the bias broadcasts over the
// trailing axis as it is). A layer whose output has several users keeps
// its bias.

// CHECK-LABEL: func.func @fc_tail
// CHECK: %[[FC:.*]] = mx.FullyConnected %{{.*}}, %{{.*}} {no_bias = true, num_hidden = 4 : i64} : (tensor<2x8xf32>, tensor<4x8xf32>) -> tensor<2x4xf32>
// CHECK: %[[F:.*]] = mx.fused %[[FC]], %{{.*}} : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
// CHECK: mx.broadcast_add %{{.*}}, %{{.*}} : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
// CHECK-NEXT: mx.Activation {{.*}}"tanh"
// CHECK: %[[FC2:.*]] = mx.FullyConnected %[[F]], %{{.*}}, %{{.*}} {num_hidden = 4 : i64}
// CHECK-NOT: mx.fused
// CHECK: return
func.func @fc_tail(%x: tensor<2x8xf32>, %w: tensor<4x8xf32>, %b: tensor<4xf32>, %w2: tensor<4x4xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>) {
  %0 = mx.FullyConnected %x, %w, %b {num_hidden = 4 : i64} : (tensor<2x8xf32>, tensor<4x8xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  %1 = mx.Activation %0 {act_type = "tanh"} : (tensor<2x4xf32>) -> tensor<2x4xf32>
  %2 = mx.FullyConnected %1, %w2, %b {num_hidden = 4 : i64} : (tensor<2x4xf32>, tensor<4x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  %3 = mx.relu %2 : (tensor<2x4xf32>) -> tensor<2x4xf32>
  return %2, %3 : tensor<2x4xf32>, tensor<2x4xf32>
}

// -----

// Cycles: relu's value goes through a Pooling (not fusible) and comes back
// into the add, so the add starts a new group instead of joining relu's
// (one group containing both would need Pooling's result before computing
// its input). A value used outside its group is a result of the group.

// CHECK-LABEL: func.func @no_cycle
// CHECK: %[[G1:.*]]:2 = mx.fused %{{.*}} : (tensor<1x4x6x6xf32>) -> (tensor<1x4x6x6xf32>, tensor<1x4x6x6xf32>) {
// CHECK: %[[E:.*]] = mx.exp
// CHECK-NEXT: %[[R:.*]] = mx.relu %[[E]]
// CHECK-NEXT: mx.yield %[[E]], %[[R]]
// CHECK: %[[P:.*]] = mx.Pooling %[[G1]]#1
// CHECK: %[[G2:.*]] = mx.fused %[[P]], %[[G1]]#1 : (tensor<1x4x6x6xf32>, tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32> {
// CHECK: mx.elemwise_add
// CHECK-NEXT: mx._mul_scalar
// CHECK-NEXT: mx.yield
// CHECK: return %[[G2]], %[[G1]]#0
func.func @no_cycle(%x: tensor<1x4x6x6xf32>) -> (tensor<1x4x6x6xf32>, tensor<1x4x6x6xf32>) {
  %e = mx.exp %x : (tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  %r = mx.relu %e : (tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  %p = mx.Pooling %r {kernel = array<i64: 3, 3>, pad = array<i64: 1, 1>, pool_type = "max"} : (tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  %a = mx.elemwise_add %p, %r : (tensor<1x4x6x6xf32>, tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  %m = mx._mul_scalar %a {scalar = 2.0 : f64} : (tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  return %m, %e : tensor<1x4x6x6xf32>, tensor<1x4x6x6xf32>
}

// -----

// Single fusible ops stay as they are; a BatchNorm whose mean is used is not
// fused (its hidden results are per-channel values).

// CHECK-LABEL: func.func @singles
// CHECK-NOT: mx.fused
// CHECK: mx.sigmoid
// CHECK: mx.BatchNorm
// CHECK: mx.relu
// CHECK-NOT: mx.fused
func.func @singles(%x: tensor<2x3xf32>, %y: tensor<2x4x3x3xf32>, %g: tensor<4xf32>) -> (tensor<2x3xf32>, tensor<2x4x3x3xf32>, tensor<4xf32>) {
  %0 = mx.sigmoid %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %1, %m, %v = mx.BatchNorm %y, %g, %g, %g, %g : (tensor<2x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<2x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>)
  %2 = mx.relu %1 : (tensor<2x4x3x3xf32>) -> tensor<2x4x3x3xf32>
  return %0, %2, %m : tensor<2x3xf32>, tensor<2x4x3x3xf32>, tensor<4xf32>
}

// -----

// Broadcast and scalar chains over different shapes form one group; its
// inputs are every value read from outside, once.

// CHECK-LABEL: func.func @broadcast_chain
// CHECK: %[[F:.*]] = mx.fused %arg0, %arg1, %arg2 : (tensor<4x1xf32>, tensor<1x5xf32>, tensor<5xf32>) -> tensor<4x5xf32> {
// CHECK: mx.broadcast_mul
// CHECK-NEXT: mx._plus_scalar
// CHECK-NEXT: mx.broadcast_maximum
// CHECK-NEXT: mx.clip
// CHECK-NEXT: mx.yield
// CHECK: return %[[F]]
func.func @broadcast_chain(%a: tensor<4x1xf32>, %b: tensor<1x5xf32>, %c: tensor<5xf32>) -> tensor<4x5xf32> {
  %0 = mx.broadcast_mul %a, %b : (tensor<4x1xf32>, tensor<1x5xf32>) -> tensor<4x5xf32>
  %1 = mx._plus_scalar %0 {scalar = 1.0 : f64} : (tensor<4x5xf32>) -> tensor<4x5xf32>
  %2 = mx.broadcast_maximum %1, %c : (tensor<4x5xf32>, tensor<5xf32>) -> tensor<4x5xf32>
  %3 = mx.clip %2 {a_min = 0.0 : f64, a_max = 6.0 : f64} : (tensor<4x5xf32>) -> tensor<4x5xf32>
  return %3 : tensor<4x5xf32>
}
