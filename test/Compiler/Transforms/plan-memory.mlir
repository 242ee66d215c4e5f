// mx-plan-memory: allocs become views of one trailing arena argument, at
// offsets chosen by each strategy; the plan remarks (print-plan) show sizes,
// live steps, storages and the lower bound.
// RUN: mxc-opt %s -mx-plan-memory -split-input-file | FileCheck %s --check-prefix=BOTH
// RUN: mxc-opt %s -mx-plan-memory=strategy=none -split-input-file | FileCheck %s --check-prefix=NONE
// RUN: mxc-opt %s -mx-plan-memory="strategy=inplace print-plan" -split-input-file -o /dev/null 2>&1 | FileCheck %s --check-prefix=INPLACE
// RUN: mxc-opt %s -mx-plan-memory="strategy=coshare print-plan" -split-input-file -o /dev/null 2>&1 | FileCheck %s --check-prefix=COSHARE
// RUN: mxc-opt %s -mx-plan-memory="strategy=both print-plan" -split-input-file -o /dev/null 2>&1 | FileCheck %s --check-prefix=BOTHPLAN

#id = affine_map<(d0) -> (d0)>
#rev = affine_map<(d0) -> (63 - d0)>

// exp -> relu -> copy out: the relu output takes the exp output's storage in
// place (its input dies at the relu), so one 256-byte storage; none keeps two.
func.func @chain(%x: memref<64xf32>, %out: memref<64xf32>) {
  %a = memref.alloc() {alignment = 64 : i64} : memref<64xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : memref<64xf32>) outs(%a : memref<64xf32>) {
  ^bb0(%in: f32, %o: f32):
    %e = math.exp %in : f32
    linalg.yield %e : f32
  }
  %b = memref.alloc() {alignment = 64 : i64} : memref<64xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%a : memref<64xf32>) outs(%b : memref<64xf32>) {
  ^bb0(%in: f32, %o: f32):
    %z = arith.constant 0.0 : f32
    %r = arith.maximumf %in, %z : f32
    linalg.yield %r : f32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%b : memref<64xf32>) outs(%out : memref<64xf32>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  }
  memref.dealloc %a : memref<64xf32>
  memref.dealloc %b : memref<64xf32>
  return
}
// BOTH-LABEL: func.func @chain(
// BOTH-SAME: %{{.*}}: memref<64xf32>, %{{.*}}: memref<64xf32>, %[[ARENA:.*]]: memref<256xi8> {llvm.noalias})
// BOTH-SAME: attributes {mx.arena_size = 256 : i64}
// BOTH: %[[C0:.*]] = arith.constant 0 : index
// BOTH: %[[A:.*]] = memref.view %[[ARENA]][%[[C0]]][] : memref<256xi8> to memref<64xf32>
// BOTH: ins(%{{.*}} : memref<64xf32>) outs(%[[A]] : memref<64xf32>)
// BOTH: %[[C0B:.*]] = arith.constant 0 : index
// BOTH: %[[B:.*]] = memref.view %[[ARENA]][%[[C0B]]][] : memref<256xi8> to memref<64xf32>
// BOTH: ins(%[[A]] : memref<64xf32>) outs(%[[B]] : memref<64xf32>)
// BOTH-NOT: memref.alloc
// BOTH-NOT: memref.dealloc
// BOTH: return

// NONE-LABEL: func.func @chain(
// NONE-SAME: memref<512xi8> {llvm.noalias}) attributes {mx.arena_size = 512 : i64}
// NONE: arith.constant 0 : index
// NONE: arith.constant 256 : index
// NONE-NOT: memref.dealloc

// INPLACE: remark: buffer 0 (64xf32, 256 bytes) steps [1, 3] -> storage 0 at offset 0
// INPLACE: remark: buffer 1 (64xf32, 256 bytes) steps [3, 4] -> storage 0 at offset 0 (in place of buffer 0)
// INPLACE: remark: arena of @chain: 256 bytes in 1 storages for 2 buffers (strategy inplace), lower bound 256 bytes, 0 allocations left
// Co-share alone cannot reuse a buffer read by the step that writes the new one.
// COSHARE: remark: arena of @chain: 512 bytes in 2 storages for 2 buffers (strategy coshare), lower bound 256 bytes
// BOTHPLAN: remark: buffer 1 (64xf32, 256 bytes) steps [3, 4] -> storage 0 at offset 0 (in place of buffer 0)
// BOTHPLAN: remark: arena of @chain: 256 bytes in 1 storages for 2 buffers (strategy both), lower bound 256 bytes

// -----

#id = affine_map<(d0) -> (d0)>
#rev = affine_map<(d0) -> (63 - d0)>

// a -> (reverse) b -> (reverse) c: not elementwise, so no inplace; c reuses
// a's storage (a died at the step before c's writer, which depends on it).
func.func @coshare(%x: memref<64xf32>, %out: memref<64xf32>) {
  %a = memref.alloc() : memref<64xf32>
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : memref<64xf32>) outs(%a : memref<64xf32>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  }
  %b = memref.alloc() : memref<64xf32>
  linalg.generic {indexing_maps = [#rev, #id], iterator_types = ["parallel"]}
      ins(%a : memref<64xf32>) outs(%b : memref<64xf32>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  }
  %c = memref.alloc() : memref<64xf32>
  linalg.generic {indexing_maps = [#rev, #id], iterator_types = ["parallel"]}
      ins(%b : memref<64xf32>) outs(%c : memref<64xf32>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  }
  memref.copy %c, %out : memref<64xf32> to memref<64xf32>
  return
}
// BOTH-LABEL: func.func @coshare(
// BOTH-SAME: memref<512xi8> {llvm.noalias}) attributes {mx.arena_size = 512 : i64}
// NONE-LABEL: func.func @coshare(
// NONE-SAME: attributes {mx.arena_size = 768 : i64}
// INPLACE: remark: arena of @coshare: 768 bytes in 3 storages
// COSHARE: remark: buffer 2 (64xf32, 256 bytes) steps [5, 6] -> storage 0 at offset 0 (co-shared)
// COSHARE: remark: arena of @coshare: 512 bytes in 2 storages for 3 buffers (strategy coshare), lower bound 256 bytes
// BOTHPLAN: remark: arena of @coshare: 512 bytes in 2 storages for 3 buffers (strategy both)

// -----

#id = affine_map<(d0) -> (d0)>
#rev = affine_map<(d0) -> (63 - d0)>

// Two independent branches. In the function's order %a is dead before %b
// is written, but nothing orders %a's readers before %b's writer, so a
// parallel executor could run them together: no co-sharing. In @ordered,
// %b's writer reads %out1, which %a's reader wrote: sharing is safe.
func.func @parallel(%x: memref<64xf32>, %out1: memref<64xf32>, %out2: memref<64xf32>) {
  %a = memref.alloc() : memref<64xf32>
  linalg.generic {indexing_maps = [#rev, #id], iterator_types = ["parallel"]}
      ins(%x : memref<64xf32>) outs(%a : memref<64xf32>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  }
  linalg.generic {indexing_maps = [#rev, #id], iterator_types = ["parallel"]}
      ins(%a : memref<64xf32>) outs(%out1 : memref<64xf32>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  }
  %b = memref.alloc() : memref<64xf32>
  linalg.generic {indexing_maps = [#rev, #id], iterator_types = ["parallel"]}
      ins(%x : memref<64xf32>) outs(%b : memref<64xf32>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  }
  linalg.generic {indexing_maps = [#rev, #id], iterator_types = ["parallel"]}
      ins(%b : memref<64xf32>) outs(%out2 : memref<64xf32>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  }
  return
}
func.func @ordered(%x: memref<64xf32>, %out1: memref<64xf32>, %out2: memref<64xf32>) {
  %a = memref.alloc() : memref<64xf32>
  linalg.generic {indexing_maps = [#rev, #id], iterator_types = ["parallel"]}
      ins(%x : memref<64xf32>) outs(%a : memref<64xf32>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  }
  linalg.generic {indexing_maps = [#rev, #id], iterator_types = ["parallel"]}
      ins(%a : memref<64xf32>) outs(%out1 : memref<64xf32>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  }
  %b = memref.alloc() : memref<64xf32>
  linalg.generic {indexing_maps = [#rev, #id], iterator_types = ["parallel"]}
      ins(%out1 : memref<64xf32>) outs(%b : memref<64xf32>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  }
  linalg.generic {indexing_maps = [#rev, #id], iterator_types = ["parallel"]}
      ins(%b : memref<64xf32>) outs(%out2 : memref<64xf32>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  }
  return
}
// The ops one MXNet node lowered to (same location) are one node of the
// DAG: %b's fill has no dependency of its own, but it is part of "pool",
// whose generic reads %out1, so %b may take %a's storage.
func.func @node(%x: memref<64xf32>, %out1: memref<64xf32>, %out2: memref<64xf32>) {
  %a = memref.alloc() : memref<64xf32>
  linalg.generic {indexing_maps = [#rev, #id], iterator_types = ["parallel"]}
      ins(%x : memref<64xf32>) outs(%a : memref<64xf32>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  }
  linalg.generic {indexing_maps = [#rev, #id], iterator_types = ["parallel"]}
      ins(%a : memref<64xf32>) outs(%out1 : memref<64xf32>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  }
  %b = memref.alloc() : memref<64xf32> loc("pool")
  %zero = arith.constant 0.0 : f32 loc("pool")
  linalg.fill ins(%zero : f32) outs(%b : memref<64xf32>) loc("pool")
  linalg.generic {indexing_maps = [#rev, #id], iterator_types = ["parallel"]}
      ins(%out1 : memref<64xf32>) outs(%b : memref<64xf32>) {
  ^bb0(%in: f32, %o: f32):
    %m = arith.maximumf %in, %o : f32
    linalg.yield %m : f32
  } loc("pool")
  linalg.generic {indexing_maps = [#rev, #id], iterator_types = ["parallel"]}
      ins(%b : memref<64xf32>) outs(%out2 : memref<64xf32>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  }
  return
}
// Where an allocation sits orders nothing: %b's alloc is in node "a"'s run
// (as CSE or hoisting may leave it), but "b" only reads %x, so the two
// branches stay independent and do not share.
func.func @alloc_elsewhere(%x: memref<64xf32>, %out1: memref<64xf32>, %out2: memref<64xf32>) {
  %a = memref.alloc() : memref<64xf32> loc("a")
  %b = memref.alloc() : memref<64xf32> loc("a")
  linalg.generic {indexing_maps = [#rev, #id], iterator_types = ["parallel"]}
      ins(%x : memref<64xf32>) outs(%a : memref<64xf32>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  } loc("a")
  linalg.generic {indexing_maps = [#rev, #id], iterator_types = ["parallel"]}
      ins(%a : memref<64xf32>) outs(%out1 : memref<64xf32>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  } loc("a")
  linalg.generic {indexing_maps = [#rev, #id], iterator_types = ["parallel"]}
      ins(%x : memref<64xf32>) outs(%b : memref<64xf32>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  } loc("b")
  linalg.generic {indexing_maps = [#rev, #id], iterator_types = ["parallel"]}
      ins(%b : memref<64xf32>) outs(%out2 : memref<64xf32>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  } loc("b")
  return
}
// COSHARE: remark: arena of @parallel: 512 bytes in 2 storages for 2 buffers (strategy coshare), lower bound 256 bytes
// COSHARE: remark: arena of @ordered: 256 bytes in 1 storages for 2 buffers (strategy coshare), lower bound 256 bytes
// COSHARE: remark: arena of @node: 256 bytes in 1 storages for 2 buffers (strategy coshare), lower bound 256 bytes
// COSHARE: remark: arena of @alloc_elsewhere: 512 bytes in 2 storages for 2 buffers (strategy coshare)
// BOTHPLAN: remark: arena of @parallel: 512 bytes in 2 storages
// BOTHPLAN: remark: arena of @ordered: 256 bytes in 1 storages
// BOTHPLAN: remark: arena of @node: 256 bytes in 1 storages
// BOTHPLAN: remark: arena of @alloc_elsewhere: 512 bytes in 2 storages

// -----

// A workspace allocated inside a loop becomes a view too (live for the
// whole loop); a buffer that is returned stays an allocation; sizes are
// rounded to 64 bytes (3 x i8 -> 64, then f64 at offset 64).
func.func @nested(%x: memref<8xf64>, %n: index) -> memref<3xi8> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %small = memref.alloc() : memref<3xi8>
  %i8 = arith.constant 7 : i8
  memref.store %i8, %small[%c0] : memref<3xi8>
  scf.for %i = %c0 to %n step %c1 {
    %w = memref.alloc() : memref<8xf64>
    memref.copy %x, %w : memref<8xf64> to memref<8xf64>
    memref.copy %w, %x : memref<8xf64> to memref<8xf64>
    memref.dealloc %w : memref<8xf64>
  }
  %r = memref.alloc() : memref<3xi8>
  memref.copy %small, %r : memref<3xi8> to memref<3xi8>
  return %r : memref<3xi8>
}
// BOTH-LABEL: func.func @nested(
// BOTH-SAME: %{{.*}}: memref<8xf64>, %{{.*}}: index, %[[ARENA:.*]]: memref<128xi8> {llvm.noalias}) -> memref<3xi8>
// BOTH: memref.view %[[ARENA]][%{{.*}}][] : memref<128xi8> to memref<3xi8>
// BOTH: scf.for
// BOTH: %[[C64:.*]] = arith.constant 64 : index
// BOTH-NEXT: memref.view %[[ARENA]][%[[C64]]][] : memref<128xi8> to memref<8xf64>
// BOTH-NOT: memref.dealloc
// BOTH: %[[R:.*]] = memref.alloc() : memref<3xi8>
// BOTH: return %[[R]]
// COSHARE: remark: arena of @nested: 128 bytes in 2 storages for 2 buffers (strategy coshare), lower bound 67 bytes, 1 allocations left
