// mxc-parallel-loops: the outermost scf.parallel of a function becomes a call
// of the runtime's mxc_parallel_for over an outlined function, its captured
// values passed through an array of slots; loops with reductions and loops
// nested in other loops stay.
// RUN: mxc-opt %s -split-input-file -mxc-parallel-loops | FileCheck %s

// Tests a 2-D loop: 64 rows reach min-chunks, so the runtime gets the rows
// (n = 64) and the columns stay an scf.parallel; the cost is every
// iteration (64 * 256); both memrefs travel as pointer, offset, sizes and
// strides (2 + 2 * 2 slots each).
func.func @rows(%x: memref<64x256xf32>, %y: memref<64x256xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c256 = arith.constant 256 : index
  scf.parallel (%i, %j) = (%c0, %c0) to (%c64, %c256) step (%c1, %c1) {
    %v = memref.load %x[%i, %j] : memref<64x256xf32>
    %e = math.exp %v : f32
    memref.store %e, %y[%i, %j] : memref<64x256xf32>
  }
  return
}
// CHECK-LABEL: func.func @rows(
// CHECK: %[[CTX:.*]] = llvm.alloca %{{.*}} x !llvm.array<12 x i64>
// CHECK: memref.extract_aligned_pointer_as_index %arg0
// CHECK: memref.extract_strided_metadata %arg0
// CHECK: memref.extract_aligned_pointer_as_index %arg1
// CHECK: %[[N:.*]] = arith.muli %{{.*}}, %{{.*}} : index
// CHECK: %[[COST:.*]] = arith.muli
// CHECK: %[[FN:.*]] = constant @rows_par0 : (!llvm.ptr, index, index) -> ()
// CHECK: call @mxc_parallel_for(%[[FN]], %[[CTX]], %[[N]], %{{.*}})
// CHECK-NOT: scf.parallel
// CHECK: return
// CHECK-LABEL: func.func private @rows_par0(
// CHECK-SAME: %[[C:.*]]: !llvm.ptr, %[[LO:.*]]: index, %[[HI:.*]]: index)
// CHECK: %[[X:.*]] = builtin.unrealized_conversion_cast %{{.*}} : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> to memref<64x256xf32>
// CHECK: %[[Y:.*]] = builtin.unrealized_conversion_cast %{{.*}} to memref<64x256xf32>
// CHECK: scf.for %[[L:.*]] = %[[LO]] to %[[HI]]
// CHECK: scf.parallel (%[[J:.*]]) =
// CHECK: memref.load %[[X]][%{{.*}}, %[[J]]]
// CHECK: math.exp
// CHECK: memref.store %{{.*}}, %[[Y]][%{{.*}}, %[[J]]]
// CHECK: func.func private @mxc_parallel_for((!llvm.ptr, index, index) -> (), !llvm.ptr, index, index)

// -----

// Tests batch-1 NCHW: the prefix grows to (n, c, h) = 128 iterations,
// linearised (h fastest); a float scalar travels in a slot, a strided
// output with an offset keeps its layout.
func.func @nchw(%x: memref<1x8x16x16xf32>, %s: f32,
                %y: memref<1x8x16x16xf32, strided<[2048, 256, 16, 1], offset: 4>>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  scf.parallel (%n, %c, %h, %w) = (%c0, %c0, %c0, %c0) to (%c1, %c8, %c16, %c16)
      step (%c1, %c1, %c1, %c1) {
    %v = memref.load %x[%n, %c, %h, %w] : memref<1x8x16x16xf32>
    %m = arith.mulf %v, %s : f32
    memref.store %m, %y[%n, %c, %h, %w]
        : memref<1x8x16x16xf32, strided<[2048, 256, 16, 1], offset: 4>>
  }
  return
}
// CHECK-LABEL: func.func @nchw(
// CHECK: llvm.alloca %{{.*}} x !llvm.array<21 x i64>
// CHECK: llvm.store %arg1, %{{.*}} : f32, !llvm.ptr
// CHECK: call @mxc_parallel_for
// CHECK-LABEL: func.func private @nchw_par0(
// CHECK: llvm.load %{{.*}} : !llvm.ptr -> f32
// CHECK: to memref<1x8x16x16xf32, strided<[2048, 256, 16, 1], offset: 4>>
// CHECK: scf.for
// CHECK: arith.remsi
// CHECK: arith.divsi
// CHECK: arith.remsi
// CHECK: arith.divsi
// CHECK: scf.parallel (%{{.*}}) = (%{{.*}}) to (%{{.*}})
// CHECK: arith.mulf

// -----

// Tests a dynamic bound (one dimension handed over, the bound in a slot), a
// constant cloned rather than passed, and a loop with a reduction left as
// it is.
func.func @dyn(%x: memref<?xf32>, %n: index) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cst = arith.constant 0.0 : f32
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    memref.store %cst, %x[%i] : memref<?xf32>
  }
  %r = scf.parallel (%i) = (%c0) to (%n) step (%c1) init (%cst) -> f32 {
    %v = memref.load %x[%i] : memref<?xf32>
    scf.reduce(%v : f32) {
    ^bb0(%a: f32, %b: f32):
      %s = arith.addf %a, %b : f32
      scf.reduce.return %s : f32
    }
  }
  return %r : f32
}
// CHECK-LABEL: func.func @dyn(
// CHECK: llvm.alloca %{{.*}} x !llvm.array<5 x i64>
// CHECK: call @mxc_parallel_for
// CHECK: scf.parallel {{.*}} init
// CHECK: scf.reduce
// CHECK-LABEL: func.func private @dyn_par0(
// CHECK: arith.constant 0.000000e+00 : f32
// CHECK: %[[N:.*]] = arith.index_cast %{{.*}} : i64 to index
// CHECK: scf.for
// CHECK-NOT: scf.parallel
// CHECK: memref.store

// -----

// Tests that a loop inside another loop stays (only the outermost nest of a
// function is handed to the runtime).
func.func @nested(%x: memref<4x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %cst = arith.constant 1.0 : f32
  scf.for %i = %c0 to %c4 step %c1 {
    scf.parallel (%j) = (%c0) to (%c8) step (%c1) {
      memref.store %cst, %x[%i, %j] : memref<4x8xf32>
    }
  }
  return
}
// CHECK-LABEL: func.func @nested(
// CHECK-NOT: mxc_parallel_for
// CHECK: scf.for
// CHECK: scf.parallel
