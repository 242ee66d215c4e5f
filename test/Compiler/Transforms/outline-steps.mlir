// mx-outline-steps: each run of ops of one location (one MXNet node) becomes
// a step function over the buffers it touches, reads first, then writes; the
// entry becomes a list of calls (the plan).
// RUN: mxc-opt %s -mx-outline-steps -split-input-file | FileCheck %s

#id = affine_map<(d0) -> (d0)>

// Two independent branches of x (exp -> a, relu -> b) joined by an add into
// the output; the add's fill and generic share a location: one step.
func.func @diamond(%x: memref<64xf32>, %out: memref<64xf32>, %arena: memref<512xi8>)
    attributes {mx.arena_size = 512 : i64} {
  %c0 = arith.constant 0 : index
  %c256 = arith.constant 256 : index
  %a = memref.view %arena[%c0][] : memref<512xi8> to memref<64xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : memref<64xf32>) outs(%a : memref<64xf32>) {
  ^bb0(%in: f32, %o: f32):
    %e = math.exp %in : f32
    linalg.yield %e : f32
  } loc("exp0")
  %b = memref.view %arena[%c256][] : memref<512xi8> to memref<64xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : memref<64xf32>) outs(%b : memref<64xf32>) {
  ^bb0(%in: f32, %o: f32):
    %z = arith.constant 0.0 : f32
    %r = arith.maximumf %in, %z : f32
    linalg.yield %r : f32
  } loc("relu0")
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%out : memref<64xf32>) loc("add0")
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%a, %b : memref<64xf32>, memref<64xf32>) outs(%out : memref<64xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %s = arith.addf %p, %q : f32
    %t = arith.addf %s, %o : f32
    linalg.yield %t : f32
  } loc("add0")
  return
}
// CHECK-LABEL: func.func @diamond(
// CHECK-SAME: %[[X:.*]]: memref<64xf32>, %[[OUT:.*]]: memref<64xf32>, %[[ARENA:.*]]: memref<512xi8>)
// CHECK-DAG: %[[A:.*]] = memref.view %[[ARENA]][%{{.*}}][] : memref<512xi8> to memref<64xf32>
// CHECK-DAG: %[[B:.*]] = memref.view %[[ARENA]][%{{.*}}][] : memref<512xi8> to memref<64xf32>
// CHECK: call @diamond_step0(%[[X]], %[[A]]) {mx.nodes = ["exp0"], mx.reads = 1 : i64, mx.step = 0 : i64}
// CHECK: call @diamond_step1(%[[X]], %[[B]]) {mx.nodes = ["relu0"], mx.reads = 1 : i64, mx.step = 1 : i64}
// CHECK: call @diamond_step2(%[[A]], %[[B]], %[[OUT]]) {mx.nodes = ["add0"], mx.reads = 2 : i64, mx.step = 2 : i64}
// CHECK-NEXT: return
// CHECK: func.func private @diamond_step0(%{{.*}}: memref<64xf32> {llvm.noalias}, %{{.*}}: memref<64xf32> {llvm.noalias}) attributes {mx.step = 0 : i64}
// CHECK: math.exp
// CHECK: func.func private @diamond_step1(
// CHECK: arith.maximumf
// CHECK: func.func private @diamond_step2(
// CHECK: %[[ZERO:.*]] = arith.constant 0.0{{.*}} : f32
// CHECK: linalg.fill ins(%[[ZERO]] : f32)
// CHECK: linalg.generic
// CHECK: return

// -----

#id = affine_map<(d0) -> (d0)>

// In place: the relu writes the storage the exp wrote (same offset and
// type), so the step that reads one and writes the other uses one argument
// for both (see below); a fused location names every node of the group.
func.func @inplace(%x: memref<64xf32>, %out: memref<64xf32>, %arena: memref<256xi8>)
    attributes {mx.arena_size = 256 : i64} {
  %c0 = arith.constant 0 : index
  %a = memref.view %arena[%c0][] : memref<256xi8> to memref<64xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : memref<64xf32>) outs(%a : memref<64xf32>) {
  ^bb0(%in: f32, %o: f32):
    %e = math.exp %in : f32
    linalg.yield %e : f32
  } loc("exp0")
  %b = memref.view %arena[%c0][] : memref<256xi8> to memref<64xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%a : memref<64xf32>) outs(%b : memref<64xf32>) {
  ^bb0(%in: f32, %o: f32):
    %z = arith.constant 0.0 : f32
    %r = arith.maximumf %in, %z : f32
    linalg.yield %r : f32
  } loc(fused["relu0", "neg0"])
  memref.copy %b, %out : memref<64xf32> to memref<64xf32> loc("copy0")
  return
}
// CHECK-LABEL: func.func @inplace(
// CHECK: call @inplace_step0(
// CHECK: call @inplace_step1({{.*}}) {mx.nodes = ["relu0", "neg0"], mx.reads = 1 : i64, mx.step = 1 : i64}
// CHECK: call @inplace_step2({{.*}}) {mx.nodes = ["copy0"], mx.reads = 1 : i64, mx.step = 2 : i64}
// The in-place step's output is exactly its input (same arena bytes, same
// type): the body reads and writes through the first argument alone, which
// is then noalias (LLVM vectorises one pointer; two pointers to the same
// bytes it cannot); the second stays in the signature, unused.
// CHECK: func.func private @inplace_step1(%[[IN:.*]]: memref<64xf32> {llvm.noalias}, %[[OUT:.*]]: memref<64xf32>) attributes {mx.step = 1 : i64}
// CHECK-NOT: %[[OUT]]
// CHECK: linalg.generic {{.*}} ins(%[[IN]] : memref<64xf32>) outs(%[[IN]] : memref<64xf32>)
// CHECK-NOT: %[[OUT]]
// CHECK: return
// CHECK: func.func private @inplace_step2(%{{.*}}: memref<64xf32> {llvm.noalias}, %{{.*}}: memref<64xf32> {llvm.noalias})
// CHECK: memref.copy

// -----

// A value other than a buffer crossing two steps (a dynamically sized
// allocation written by one node and read by the next) merges them.
func.func @merge(%x: memref<64xf32>, %out: memref<64xf32>, %arena: memref<64xi8>, %n: index)
    attributes {mx.arena_size = 64 : i64} {
  %t = memref.alloc(%n) : memref<?xf32> loc("producer")
  %c0 = arith.constant 0 : index
  %v = memref.load %x[%c0] : memref<64xf32> loc("producer")
  memref.store %v, %t[%c0] : memref<?xf32> loc("producer")
  %w = memref.load %t[%c0] : memref<?xf32> loc("consumer")
  memref.store %w, %out[%c0] : memref<64xf32> loc("consumer")
  memref.dealloc %t : memref<?xf32> loc("consumer")
  return
}
// CHECK-LABEL: func.func @merge(
// CHECK: call @merge_step0({{.*}}) {mx.nodes = ["producer", "consumer"], mx.reads = 2 : i64, mx.step = 0 : i64}
// CHECK-NOT: call
// CHECK: return
// CHECK: func.func private @merge_step0(
// CHECK: memref.alloc
// CHECK: memref.dealloc

// -----

// A view of a step's own allocation used by that step (Dropout's mask) is
// cloned into it after the allocation.
func.func @ownview(%x: memref<64xf32>, %out: memref<64xf32>, %arena: memref<64xi8>, %n: index)
    attributes {mx.arena_size = 64 : i64} {
  %t = memref.alloc(%n) : memref<?xf32> loc("mask")
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %v = memref.subview %t[%c1] [%c1] [%c1] : memref<?xf32> to memref<?xf32, strided<[?], offset: ?>>
  %w = memref.load %x[%c0] : memref<64xf32> loc("mask")
  memref.store %w, %v[%c0] : memref<?xf32, strided<[?], offset: ?>> loc("mask")
  memref.dealloc %t : memref<?xf32> loc("mask")
  memref.copy %x, %out : memref<64xf32> to memref<64xf32> loc("out")
  return
}
// CHECK-LABEL: func.func @ownview(
// CHECK: call @ownview_step0({{.*}}) {mx.nodes = ["mask"]
// CHECK: call @ownview_step1({{.*}}) {mx.nodes = ["out"]
// CHECK: func.func private @ownview_step0(
// CHECK: %[[T:.*]] = memref.alloc
// CHECK: memref.subview %[[T]]
// CHECK: memref.store

// -----

#id = affine_map<(d0) -> (d0)>

// An input and an output the caller passes one buffer for (mx.in_place:
// an optimizer update, out = weight): the step reads and writes both
// through the input's argument (one pointer for LLVM); the output's stays
// in the signature, unused. The gradient keeps its noalias.
func.func @in_place(%w: memref<64xf32>, %g: memref<64xf32>, %out: memref<64xf32>, %arena: memref<64xi8>)
    attributes {mx.arena_size = 64 : i64, mx.in_place = array<i64: 0, 2>} {
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%w, %g : memref<64xf32>, memref<64xf32>) outs(%out : memref<64xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %d = arith.subf %a, %b : f32
    linalg.yield %d : f32
  } loc("sgd0")
  return
}
// CHECK-LABEL: func.func @in_place(
// CHECK: call @in_place_step0(%arg0, %arg1, %arg2) {mx.nodes = ["sgd0"], mx.reads = 2 : i64, mx.step = 0 : i64}
// CHECK: func.func private @in_place_step0(%[[W:[^:]*]]: memref<64xf32> {llvm.noalias}, %{{[^:]*}}: memref<64xf32> {llvm.noalias}, %{{[^:]*}}: memref<64xf32>)
// CHECK: linalg.generic {{.*}} ins(%[[W]], %{{.*}} : memref<64xf32>, memref<64xf32>) outs(%[[W]] : memref<64xf32>)
