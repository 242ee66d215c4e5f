// RUN: mxc-opt %s --split-input-file --mxc-collapse-contiguous-dims | FileCheck %s

// Tests mxc-collapse-contiguous-dims: a linalg.generic on dense static
// memrefs gets each run of adjacent loop dimensions that every operand reads
// contiguously (or not at all) merged into one loop, through
// memref.collapse_shape views; a broadcast input read through constant 0s
// on its unit dimensions is read as a view without them first.

#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#bias = affine_map<(d0, d1, d2, d3) -> (0, d1, 0, 0)>

// A bias over NCHW: H and W merge (the bias is read as (d1)); N and C stay
// apart (the bias reads C alone).
// CHECK-DAG: #[[ID3:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[CH3:.*]] = affine_map<(d0, d1, d2) -> (d1)>
// CHECK-LABEL: func.func @bias_tanh
// CHECK-DAG: %[[B:.*]] = memref.collapse_shape %arg1 {{\[}}[0, 1, 2, 3]] : memref<1x50x1x1xf32> into memref<50xf32>
// CHECK-DAG: %[[X:.*]] = memref.collapse_shape %arg0 {{\[}}[0], [1], [2, 3]] : memref<64x50x8x8xf32> into memref<64x50x64xf32>
// CHECK-DAG: %[[Y:.*]] = memref.collapse_shape %arg2 {{\[}}[0], [1], [2, 3]] : memref<64x50x8x8xf32> into memref<64x50x64xf32>
// CHECK: linalg.generic {indexing_maps = [#[[ID3]], #[[CH3]], #[[ID3]]], iterator_types = ["parallel", "parallel", "parallel"]}
// CHECK-SAME: ins(%[[X]], %[[B]] : memref<64x50x64xf32>, memref<50xf32>) outs(%[[Y]] : memref<64x50x64xf32>)
// CHECK: math.tanh
func.func @bias_tanh(%x: memref<64x50x8x8xf32>, %b: memref<1x50x1x1xf32>, %y: memref<64x50x8x8xf32>) {
  linalg.generic {indexing_maps = [#id4, #bias, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x, %b : memref<64x50x8x8xf32>, memref<1x50x1x1xf32>) outs(%y : memref<64x50x8x8xf32>) {
  ^bb0(%in: f32, %bi: f32, %out: f32):
    %s = arith.addf %in, %bi : f32
    %t = math.tanh %s : f32
    linalg.yield %t : f32
  }
  return
}

// -----

// Every operand reads all four dimensions in order: one loop.
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @elementwise
// CHECK: memref.collapse_shape %arg0 {{\[}}[0, 1, 2, 3]] : memref<2x3x4x5xf32> into memref<120xf32>
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel"]}
func.func @elementwise(%a: memref<2x3x4x5xf32>, %b: memref<2x3x4x5xf32>) {
  linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%a : memref<2x3x4x5xf32>) outs(%b : memref<2x3x4x5xf32>) {
  ^bb0(%in: f32, %out: f32):
    %n = arith.negf %in : f32
    linalg.yield %n : f32
  }
  return
}

// -----

// A per-channel sum over N, H, W (BatchNorm's mean): H and W merge, both
// reductions; the parallel C and the reduction N stay apart.
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#chan = affine_map<(d0, d1, d2, d3) -> (d1)>
// CHECK-LABEL: func.func @channel_sum
// CHECK: linalg.generic {{.*}} iterator_types = ["reduction", "parallel", "reduction"]}
// CHECK-SAME: memref<8x16x49xf32>
func.func @channel_sum(%x: memref<8x16x7x7xf32>, %s: memref<16xf32>) {
  linalg.generic {indexing_maps = [#id4, #chan], iterator_types = ["reduction", "parallel", "reduction", "reduction"]}
      ins(%x : memref<8x16x7x7xf32>) outs(%s : memref<16xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %r = arith.addf %in, %acc : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// Left alone: a transposed read (no run is contiguous in every operand), a
// strided view (not the identity layout) and a body that reads linalg.index.
#id2 = affine_map<(d0, d1) -> (d0, d1)>
#tr2 = affine_map<(d0, d1) -> (d1, d0)>
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT: memref.collapse_shape
// CHECK: linalg.generic {{.*}} ins(%arg0 : memref<4x5xf32>) outs(%arg1 : memref<5x4xf32>)
// CHECK: linalg.generic {{.*}} ins(%{{.*}} : memref<4x5xf32, strided<[10, 1]>>)
// CHECK: linalg.generic {{.*}} outs(%arg1 : memref<5x4xf32>)
// CHECK: linalg.index
func.func @left_alone(%a: memref<4x5xf32>, %b: memref<5x4xf32>, %big: memref<4x10xf32>, %c: memref<4x5xf32>) {
  linalg.generic {indexing_maps = [#id2, #tr2], iterator_types = ["parallel", "parallel"]}
      ins(%a : memref<4x5xf32>) outs(%b : memref<5x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  %v = memref.subview %big[0, 0] [4, 5] [1, 1] : memref<4x10xf32> to memref<4x5xf32, strided<[10, 1]>>
  linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%v : memref<4x5xf32, strided<[10, 1]>>) outs(%c : memref<4x5xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  }
  linalg.generic {indexing_maps = [#tr2], iterator_types = ["parallel", "parallel"]}
      outs(%b : memref<5x4xf32>) {
  ^bb0(%out: f32):
    %i = linalg.index 0 : index
    %f = arith.index_cast %i : index to i64
    %g = arith.sitofp %f : i64 to f32
    linalg.yield %g : f32
  }
  return
}

// -----

// The innermost run stays apart where the loops before it would not reach
// mxc-parallel-loops' 64 chunks (a batch-1 BatchNorm on the image: 1 x 3
// channels); the bias is still read as (d1).
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#bias = affine_map<(d0, d1, d2, d3) -> (0, d1, 0, 0)>
// CHECK-LABEL: func.func @few_outer
// CHECK: memref.collapse_shape %arg1 {{\[}}[0, 1, 2, 3]] : memref<1x3x1x1xf32> into memref<3xf32>
// CHECK-NOT: memref.collapse_shape
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
// CHECK-SAME: ins(%arg0, %{{.*}} : memref<1x3x224x224xf32>, memref<3xf32>)
func.func @few_outer(%x: memref<1x3x224x224xf32>, %b: memref<1x3x1x1xf32>, %y: memref<1x3x224x224xf32>) {
  linalg.generic {indexing_maps = [#id4, #bias, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x, %b : memref<1x3x224x224xf32>, memref<1x3x1x1xf32>) outs(%y : memref<1x3x224x224xf32>) {
  ^bb0(%in: f32, %bi: f32, %out: f32):
    %s = arith.mulf %in, %bi : f32
    linalg.yield %s : f32
  }
  return
}
