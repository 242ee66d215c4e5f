// RUN: mxc-opt %s --split-input-file --mxc-fuse-elementwise-ops | FileCheck %s

// Tests mxc-fuse-elementwise-ops: elementwise producers fuse into their
// consumers as upstream linalg-fuse-elementwise-ops does, but a producer
// that computes something and is read through a broadcasting map (BatchNorm's
// per-channel 1 / sqrt(var + eps)) stays a loop of its own; a broadcast
// producer that only copies still fuses.

#id1 = affine_map<(d0) -> (d0)>
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#chan = affine_map<(d0, d1, d2, d3) -> (d1)>

// CHECK-LABEL: func.func @broadcast_producer_kept
// CHECK: %[[INV:.*]] = linalg.generic {{.*}} iterator_types = ["parallel"]}
// CHECK: math.sqrt
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %[[INV]] : tensor<1x8x4x4xf32>, tensor<8xf32>)
// CHECK-NOT: math.sqrt
// CHECK: arith.mulf
// CHECK-NOT: linalg.generic
// CHECK: return
func.func @broadcast_producer_kept(%x: tensor<1x8x4x4xf32>, %var: tensor<8xf32>) -> tensor<1x8x4x4xf32> {
  %one = arith.constant 1.0 : f32
  %e1 = tensor.empty() : tensor<8xf32>
  %inv = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]}
      ins(%var : tensor<8xf32>) outs(%e1 : tensor<8xf32>) {
  ^bb0(%v: f32, %o: f32):
    %s = math.sqrt %v : f32
    %r = arith.divf %one, %s : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  %e4 = tensor.empty() : tensor<1x8x4x4xf32>
  %y = linalg.generic {indexing_maps = [#id4, #chan, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x, %inv : tensor<1x8x4x4xf32>, tensor<8xf32>) outs(%e4 : tensor<1x8x4x4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    linalg.yield %m : f32
  } -> tensor<1x8x4x4xf32>
  return %y : tensor<1x8x4x4xf32>
}

// -----

#id1 = affine_map<(d0) -> (d0)>
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#chan = affine_map<(d0, d1, d2, d3) -> (d1)>

// Same-shape producers fuse (one loop nest, the exp inside it).
// CHECK-LABEL: func.func @same_shape_fused
// CHECK: linalg.generic
// CHECK: math.exp
// CHECK: arith.mulf
// CHECK-NOT: linalg.generic
// CHECK: return
func.func @same_shape_fused(%x: tensor<1x8x4x4xf32>, %z: tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32> {
  %e = tensor.empty() : tensor<1x8x4x4xf32>
  %p = linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x : tensor<1x8x4x4xf32>) outs(%e : tensor<1x8x4x4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %t = math.exp %a : f32
    linalg.yield %t : f32
  } -> tensor<1x8x4x4xf32>
  %y = linalg.generic {indexing_maps = [#id4, #id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%p, %z : tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>) outs(%e : tensor<1x8x4x4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    linalg.yield %m : f32
  } -> tensor<1x8x4x4xf32>
  return %y : tensor<1x8x4x4xf32>
}
