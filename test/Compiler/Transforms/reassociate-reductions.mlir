// mxc-reassociate-reductions: `reassoc` on the float arithmetic of linalg
// ops with a reduction loop, keeping the flags they had; elementwise ops
// stay as they are.
// RUN: mxc-opt %s -split-input-file -mxc-reassociate-reductions | FileCheck %s

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>

// Tests that a row sum gets reassoc and an elementwise op does not.
func.func @sum(%x: tensor<4x8xf32>, %acc: tensor<4xf32>, %e: tensor<4x8xf32>)
    -> (tensor<4xf32>, tensor<4x8xf32>) {
  %0 = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4x8xf32>) outs(%acc : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.mulf %in, %in fastmath<nnan> : f32
    %s = arith.addf %m, %out : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  %1 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %a = arith.addf %in, %in : f32
    linalg.yield %a : f32
  } -> tensor<4x8xf32>
  return %0, %1 : tensor<4xf32>, tensor<4x8xf32>
}
// CHECK-LABEL: func.func @sum(
// CHECK: iterator_types = ["parallel", "reduction"]
// CHECK: arith.mulf %{{.*}}, %{{.*}} fastmath<reassoc,nnan> : f32
// CHECK: arith.addf %{{.*}}, %{{.*}} fastmath<reassoc> : f32
// CHECK: iterator_types = ["parallel", "parallel"]
// CHECK: arith.addf %{{.*}}, %{{.*}} : f32
// CHECK-NOT: reassoc

// -----

// Tests that a reduction on memrefs (after bufferization) is covered too.
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @buffers(%x: memref<4x8xf32>, %acc: memref<4xf32>) {
  linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<4x8xf32>) outs(%acc : memref<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %out : f32
    linalg.yield %m : f32
  }
  return
}
// CHECK-LABEL: func.func @buffers(
// CHECK: arith.maximumf %{{.*}}, %{{.*}} fastmath<reassoc> : f32
