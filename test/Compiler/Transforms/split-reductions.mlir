// mxc-split-reductions (the CUDA target, on tensors): long reductions with
// few outputs become a partial reduction over chunks (more GPU threads, each
// reading neighbours of its neighbours' elements) and a final reduction of
// the chunks. Numerics: `mxc run --split-reductions` against the unsplit
// graph in test/python/gpu/test_gpu_target.py.
// RUN: mxc-opt %s --pass-pipeline="builtin.module(func.func(mxc-split-reductions))" | FileCheck %s

#x = affine_map<(n, c, h, w) -> (n, c, h, w)>
#ch = affine_map<(n, c, h, w) -> (c)>
// Tests BatchNorm's sum of squares per channel: H and W merged (784), split
// into 392 chunks of 2 (16 outputs x 392 = 6272 threads instead of 16); the
// partials start at 0 (addf's neutral element), the final sum adds them into
// the original output, whose initial value is kept.
// CHECK-DAG: #[[X4:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-DAG: #[[P4:.*]] = affine_map<(d0, d1, d2, d3) -> (d1, d3)>
// CHECK-DAG: #[[ID2:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[ROW:.*]] = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @sum_of_squares_per_channel
// CHECK-SAME:    (%[[ARG:.*]]: tensor<8x16x28x28xf32>, %[[INIT:.*]]: tensor<16xf32>)
// CHECK:         %[[HW:.*]] = tensor.collapse_shape %[[ARG]] {{\[\[}}0], [1], [2, 3]] : tensor<8x16x28x28xf32> into tensor<8x16x784xf32>
// CHECK:         %[[CH:.*]] = tensor.expand_shape %[[HW]] {{\[\[}}0], [1], [2, 3]] output_shape [8, 16, 2, 392] : tensor<8x16x784xf32> into tensor<8x16x2x392xf32>
// CHECK:         %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:         %[[FILL:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%{{.*}} : tensor<16x392xf32>)
// CHECK:         %[[PART:.*]] = linalg.generic {indexing_maps = [#[[X4]], #[[P4]]], iterator_types = ["reduction", "parallel", "reduction", "parallel"]}
// CHECK-SAME:        ins(%[[CH]] : tensor<8x16x2x392xf32>) outs(%[[FILL]] : tensor<16x392xf32>)
// CHECK:           arith.mulf
// CHECK:           arith.addf
// CHECK:         %[[SUM:.*]] = linalg.generic {indexing_maps = [#[[ID2]], #[[ROW]]], iterator_types = ["parallel", "reduction"]}
// CHECK-SAME:        ins(%[[PART]] : tensor<16x392xf32>) outs(%[[INIT]] : tensor<16xf32>)
// CHECK-NEXT:    ^bb0(%[[IN:.*]]: f32, %[[ACC:.*]]: f32):
// CHECK-NEXT:      %[[S:.*]] = arith.addf %[[IN]], %[[ACC]] : f32
// CHECK-NEXT:      linalg.yield %[[S]] : f32
// CHECK:         return %[[SUM]]
func.func @sum_of_squares_per_channel(%x: tensor<8x16x28x28xf32>, %init: tensor<16xf32>) -> tensor<16xf32> {
  %r = linalg.generic {indexing_maps = [#x, #ch], iterator_types = ["reduction", "parallel", "reduction", "reduction"]}
      ins(%x : tensor<8x16x28x28xf32>) outs(%init : tensor<16xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %sq = arith.mulf %in, %in : f32
    %s = arith.addf %sq, %acc : f32
    linalg.yield %s : f32
  } -> tensor<16xf32>
  return %r : tensor<16xf32>
}

#all = affine_map<(i) -> (i)>
#none = affine_map<(i) -> ()>
// Tests a full max over 100000 elements (one output: one GPU thread
// unsplit): 1000 chunks of 100, the partials start at -inf (maximumf's
// neutral element).
// CHECK-LABEL: func.func @full_max
// CHECK:         tensor.expand_shape %{{.*}} {{\[\[}}0, 1]] output_shape [100, 1000] : tensor<100000xf32> into tensor<100x1000xf32>
// CHECK:         arith.constant 0xFF800000 : f32
// CHECK:         linalg.generic {{.*}}iterator_types = ["reduction", "parallel"]{{.*}} outs(%{{.*}} : tensor<1000xf32>)
// CHECK:           arith.maximumf
// CHECK:         linalg.generic {{.*}}iterator_types = ["reduction"]{{.*}} ins(%{{.*}} : tensor<1000xf32>) outs(%{{.*}} : tensor<f32>)
// CHECK:           arith.maximumf
func.func @full_max(%x: tensor<100000xf32>, %init: tensor<f32>) -> tensor<f32> {
  %r = linalg.generic {indexing_maps = [#all, #none], iterator_types = ["reduction"]}
      ins(%x : tensor<100000xf32>) outs(%init : tensor<f32>) {
  ^bb0(%in: f32, %acc: f32):
    %m = arith.maximumf %in, %acc : f32
    linalg.yield %m : f32
  } -> tensor<f32>
  return %r : tensor<f32>
}

#r2 = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (i)>
// Tests what is left alone: many outputs (40000 rows: threads enough), a
// short reduction (100 elements), an argmax-like body reading linalg.index,
// and a body whose accumulator is not combined by one op with a neutral
// element (acc * 0.5 + in).
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT:     tensor.expand_shape
// CHECK-COUNT-4: linalg.generic
// CHECK-NOT:     linalg.generic
func.func @left_alone(%many: tensor<40000x512xf32>, %o1: tensor<40000xf32>,
                      %short: tensor<1x100xf32>, %o2: tensor<1xf32>,
                      %long: tensor<1x4096xf32>, %o3: tensor<1xf32>) -> (tensor<40000xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>) {
  %a = linalg.generic {indexing_maps = [#r2, #row], iterator_types = ["parallel", "reduction"]}
      ins(%many : tensor<40000x512xf32>) outs(%o1 : tensor<40000xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %in, %acc : f32
    linalg.yield %s : f32
  } -> tensor<40000xf32>
  %b = linalg.generic {indexing_maps = [#r2, #row], iterator_types = ["parallel", "reduction"]}
      ins(%short : tensor<1x100xf32>) outs(%o2 : tensor<1xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %in, %acc : f32
    linalg.yield %s : f32
  } -> tensor<1xf32>
  %c = linalg.generic {indexing_maps = [#r2, #row], iterator_types = ["parallel", "reduction"]}
      ins(%long : tensor<1x4096xf32>) outs(%o3 : tensor<1xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %j = linalg.index 1 : index
    %ji = arith.index_cast %j : index to i32
    %jf = arith.sitofp %ji : i32 to f32
    %p = arith.mulf %in, %jf : f32
    %s = arith.addf %p, %acc : f32
    linalg.yield %s : f32
  } -> tensor<1xf32>
  %d = linalg.generic {indexing_maps = [#r2, #row], iterator_types = ["parallel", "reduction"]}
      ins(%long : tensor<1x4096xf32>) outs(%o3 : tensor<1xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %half = arith.constant 0.5 : f32
    %h = arith.mulf %acc, %half : f32
    %s = arith.addf %h, %in : f32
    linalg.yield %s : f32
  } -> tensor<1xf32>
  return %a, %b, %c, %d : tensor<40000xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>
}
