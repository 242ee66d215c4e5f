// mxc-empty-tensor-per-use: a tensor.empty that CSE shared between
// independent destinations becomes one per use, beside its user's top-level
// op and with its location, so that one-shot bufferization allocates a
// buffer for each instead of writing the results one after another into one.
// RUN: mxc-opt %s -mxc-empty-tensor-per-use -mlir-print-debuginfo | FileCheck %s
// RUN: mxc-opt %s -mxc-empty-tensor-per-use -one-shot-bufferize="bufferize-function-boundaries allow-return-allocs-from-loops" | FileCheck %s --check-prefix=BUF

#id = affine_map<(d0) -> (d0)>

// Without the pass, bufferization writes %b in place into %a's buffer once
// %a has been copied out (one allocation): node "b" would then wait for node
// "a". With it, two allocations.
// CHECK-LABEL: func.func @two_nodes(
// CHECK-NOT: tensor.empty
// CHECK: %[[E0:.*]] = tensor.empty() : tensor<64xf32> loc(#[[A:loc[0-9]*]])
// CHECK-NEXT: linalg.generic {{.*}} outs(%[[E0]] : tensor<64xf32>)
// CHECK: %[[E1:.*]] = tensor.empty() : tensor<64xf32> loc(#[[B:loc[0-9]*]])
// CHECK-NEXT: linalg.generic {{.*}} outs(%[[E1]] : tensor<64xf32>)
// BUF-LABEL: func.func @two_nodes(
// BUF-COUNT-2: memref.alloc()
// BUF-NOT: memref.alloc()
func.func @two_nodes(%x: tensor<64xf32>, %y: tensor<64xf32>, %o1: tensor<64xf32>, %o2: tensor<64xf32>) -> (tensor<64xf32>, tensor<64xf32>) {
  %e = tensor.empty() : tensor<64xf32> loc("x")
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<64xf32>) outs(%e : tensor<64xf32>) {
  ^bb0(%in: f32, %o: f32):
    %r = math.exp %in : f32
    linalg.yield %r : f32
  } -> tensor<64xf32> loc("a")
  %r1 = linalg.copy ins(%a : tensor<64xf32>) outs(%o1 : tensor<64xf32>) -> tensor<64xf32> loc("a")
  %b = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%y : tensor<64xf32>) outs(%e : tensor<64xf32>) {
  ^bb0(%in: f32, %o: f32):
    %r = math.exp %in : f32
    linalg.yield %r : f32
  } -> tensor<64xf32> loc("b")
  %r2 = linalg.copy ins(%b : tensor<64xf32>) outs(%o2 : tensor<64xf32>) -> tensor<64xf32> loc("b")
  return %r1, %r2 : tensor<64xf32>, tensor<64xf32>
}

// A use inside a loop gets its copy in the function's block, just before the
// loop and with the loop's location (one allocation, not one per iteration);
// the original, placed elsewhere, goes.
// CHECK-LABEL: func.func @loop(
// CHECK-NOT: tensor.empty
// CHECK: %[[E:.*]] = tensor.empty() : tensor<8xf32> loc(#[[L:loc[0-9]*]])
// CHECK-NEXT: scf.for
// CHECK-NOT: tensor.empty
// CHECK: linalg.fill {{.*}} outs(%[[E]] : tensor<8xf32>)
// BUF-LABEL: func.func @loop(
// BUF-NOT: scf.for
// BUF: memref.alloc() {{.*}} : memref<8xf32>
// BUF-NOT: memref.alloc
// BUF: scf.for
// BUF-NOT: memref.alloc
// BUF: return
func.func @loop(%n: index, %init: tensor<8xf32>) -> tensor<8xf32> {
  %e = tensor.empty() : tensor<8xf32> loc("x")
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %f = arith.constant 1.0 : f32
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %init) -> tensor<8xf32> {
    %t = linalg.fill ins(%f : f32) outs(%e : tensor<8xf32>) -> tensor<8xf32>
    %s = linalg.add ins(%acc, %t : tensor<8xf32>, tensor<8xf32>) outs(%acc : tensor<8xf32>) -> tensor<8xf32>
    scf.yield %s : tensor<8xf32>
  } loc("loop")
  return %r : tensor<8xf32>
}

// Dynamic sizes: each copy takes the same size operands. A single use in
// the same block stays as it is.
// CHECK-LABEL: func.func @dynamic(
// CHECK: tensor.empty(%{{.*}}) : tensor<?xf32> loc(#[[A]])
// CHECK-NEXT: linalg.fill
// CHECK: tensor.empty(%{{.*}}) : tensor<?xf32> loc(#[[B]])
// CHECK-NEXT: linalg.fill
// CHECK: %[[S:.*]] = tensor.empty() : tensor<4xf32> loc(#[[X:loc[0-9]*]])
// CHECK: linalg.fill {{.*}} outs(%[[S]] : tensor<4xf32>)
func.func @dynamic(%n: index, %f: f32) -> (tensor<?xf32>, tensor<?xf32>, tensor<4xf32>) {
  %e = tensor.empty(%n) : tensor<?xf32>
  %a = linalg.fill ins(%f : f32) outs(%e : tensor<?xf32>) -> tensor<?xf32> loc("a")
  %b = linalg.fill ins(%f : f32) outs(%e : tensor<?xf32>) -> tensor<?xf32> loc("b")
  %s = tensor.empty() : tensor<4xf32> loc("x")
  %c = arith.constant 0.0 : f32
  %t = linalg.fill ins(%c : f32) outs(%s : tensor<4xf32>) -> tensor<4xf32> loc("c")
  return %a, %b, %t : tensor<?xf32>, tensor<?xf32>, tensor<4xf32>
}

// CHECK-DAG: #[[A]] = loc("a")
// CHECK-DAG: #[[B]] = loc("b")
// CHECK-DAG: #[[L]] = loc("loop")
// CHECK-DAG: #[[X]] = loc("x")
