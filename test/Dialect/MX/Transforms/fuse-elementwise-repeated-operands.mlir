// RUN: mxc-opt %s --split-input-file --mx-fuse-elementwise | FileCheck %s --check-prefix=GROUP
// RUN: mxc-opt %s --split-input-file --mx-fuse-elementwise --convert-mx-to-linalg --canonicalize --cse | FileCheck %s

// Regression tests: a value read twice by one op of a fused group
// (broadcast_mul(%v, %v), as a training-mode BatchNorm followed by
// broadcast_mul(out, out) gives) while it is also a result of the group.
// linalg's elementwise fusion fuses one operand at a time; redirecting the
// other read to the fused op's own copy of the value made the op use its own
// result and crashed convert-mx-to-linalg (free(): invalid pointer).

// The value read twice is one input of the group and one block argument.
// GROUP-LABEL: func.func @square_by_mul
// GROUP: %[[F:.*]]:2 = mx.fused %arg0, %arg1 :
// GROUP: ^bb0(%[[X:.*]]: tensor<2x3x4x4xf32>, %[[Y:.*]]: tensor<1x3x1x1xf32>):
// GROUP-NEXT: %[[A:.*]] = mx.broadcast_add %[[X]], %[[Y]]
// GROUP-NEXT: %[[M:.*]] = mx.broadcast_mul %[[A]], %[[A]]
// GROUP-NEXT: mx.yield %[[A]], %[[M]]
// GROUP: return %[[F]]#0, %[[F]]#1

// One loop nest that computes the sum once and squares it.
// CHECK-LABEL: func.func @square_by_mul
// CHECK: %[[G:.*]]:2 = linalg.generic {{.*}} ins(%arg0, %arg1 : tensor<2x3x4x4xf32>, tensor<1x3x1x1xf32>)
// CHECK-NEXT: ^bb0(%[[I0:.*]]: f32, %[[I1:.*]]: f32, %{{.*}}: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[I0]], %[[I1]] : f32
// CHECK-NEXT: %[[P:.*]] = arith.mulf %[[S]], %[[S]] : f32
// CHECK-NEXT: linalg.yield %[[S]], %[[P]] : f32, f32
// CHECK-NOT: linalg.generic
// CHECK: return %[[G]]#0, %[[G]]#1
func.func @square_by_mul(%x: tensor<2x3x4x4xf32>, %y: tensor<1x3x1x1xf32>) -> (tensor<2x3x4x4xf32>, tensor<2x3x4x4xf32>) {
  %0 = mx.broadcast_add %x, %y : (tensor<2x3x4x4xf32>, tensor<1x3x1x1xf32>) -> tensor<2x3x4x4xf32>
  %1 = mx.broadcast_mul %0, %0 : (tensor<2x3x4x4xf32>, tensor<2x3x4x4xf32>) -> tensor<2x3x4x4xf32>
  return %0, %1 : tensor<2x3x4x4xf32>, tensor<2x3x4x4xf32>
}

// -----

// A value read by two ops of the group, one of which also reads the other's
// result: after the first fusion the fused generic reads %q through two
// operands (the exp's and the mul's), and %q is also a result of the group.
// GROUP-LABEL: func.func @diamond_kept
// GROUP: mx.fused %arg0, %arg1 :
// GROUP-COUNT-3: mx.
// GROUP: mx.yield
// GROUP-NOT: mx.fused

// CHECK-LABEL: func.func @diamond_kept
// CHECK: %[[G:.*]]:2 = linalg.generic {{.*}} ins(%arg0, %arg1 : tensor<4x5xf32>, tensor<4x5xf32>)
// CHECK: math.exp
// CHECK: arith.mulf
// CHECK-NOT: linalg.generic
// CHECK: return %[[G]]#0, %[[G]]#1
func.func @diamond_kept(%x: tensor<4x5xf32>, %y: tensor<4x5xf32>) -> (tensor<4x5xf32>, tensor<4x5xf32>) {
  %q = mx.elemwise_add %x, %y : (tensor<4x5xf32>, tensor<4x5xf32>) -> tensor<4x5xf32>
  %p = mx.exp %q : (tensor<4x5xf32>) -> tensor<4x5xf32>
  %c = mx.elemwise_mul %p, %q : (tensor<4x5xf32>, tensor<4x5xf32>) -> tensor<4x5xf32>
  return %q, %c : tensor<4x5xf32>, tensor<4x5xf32>
}

// -----

// The group of the reported graph (mx-autodiff of BatchNorm in training mode
// -> broadcast_mul(out, out) -> sum): per-channel statistics and the
// normalized output in one group; the output is yielded and squared.
// GROUP-LABEL: func.func @bn_train_square
// GROUP: %[[F:.*]]:3 = mx.fused
// GROUP: mx.broadcast_mul %[[O:.*]], %[[O]]
// GROUP: mx.yield
// GROUP: mx.sum %[[F]]#2

// The per-channel power stays a loop over the channels (it is not fused into
// the loop that broadcasts it, which would take it once per element).
// CHECK-LABEL: func.func @bn_train_square
// CHECK: %[[P:.*]] = linalg.generic {{.*}} ins(%arg0 : tensor<1x3x1x1xf32>)
// CHECK: math.powf
// CHECK: %[[G:.*]]:2 = linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%arg1, %[[P]],
// CHECK-NOT: math.powf
// CHECK: %[[N:.*]] = arith.addf
// CHECK-NEXT: %[[SQ:.*]] = arith.mulf %[[N]], %[[N]] : f32
// CHECK-NEXT: linalg.yield %[[N]], %[[SQ]] : f32, f32
// CHECK: linalg.generic {{.*}} iterator_types = ["reduction", "reduction", "reduction", "reduction"]} ins(%[[G]]#1 :
// CHECK: return %[[P]], %[[G]]#0,
func.func @bn_train_square(%var: tensor<1x3x1x1xf32>, %xc: tensor<2x3x4x4xf32>, %g: tensor<1x3x1x1xf32>, %b: tensor<1x3x1x1xf32>) -> (tensor<1x3x1x1xf32>, tensor<2x3x4x4xf32>, tensor<1xf32>) {
  %0 = mx._plus_scalar %var {is_int = false, scalar = 1.000000e-03 : f64} : (tensor<1x3x1x1xf32>) -> tensor<1x3x1x1xf32>
  %1 = mx._power_scalar %0 {is_int = false, scalar = -5.000000e-01 : f64} : (tensor<1x3x1x1xf32>) -> tensor<1x3x1x1xf32>
  %2 = mx.broadcast_mul %xc, %1 : (tensor<2x3x4x4xf32>, tensor<1x3x1x1xf32>) -> tensor<2x3x4x4xf32>
  %3 = mx.broadcast_mul %2, %g : (tensor<2x3x4x4xf32>, tensor<1x3x1x1xf32>) -> tensor<2x3x4x4xf32>
  %4 = mx.broadcast_add %3, %b : (tensor<2x3x4x4xf32>, tensor<1x3x1x1xf32>) -> tensor<2x3x4x4xf32>
  %5 = mx.broadcast_mul %4, %4 : (tensor<2x3x4x4xf32>, tensor<2x3x4x4xf32>) -> tensor<2x3x4x4xf32>
  %6 = mx.sum %5 : (tensor<2x3x4x4xf32>) -> tensor<1xf32>
  return %1, %4, %6 : tensor<1x3x1x1xf32>, tensor<2x3x4x4xf32>, tensor<1xf32>
}
