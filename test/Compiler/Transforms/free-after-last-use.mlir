// mxc-free-after-last-use: each dealloc moves to just after the last use
// of its allocation in the block (views and nested uses count).
// RUN: mxc-opt %s -split-input-file -mxc-free-after-last-use | FileCheck %s

// Tests that deallocs at the end of the block move up to the last use, a
// use through a view and a use nested in a loop included.
func.func @chain(%n: index, %out: memref<?xf32>) {
  %cst = arith.constant 1.0 : f32
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %a = memref.alloc(%n) : memref<?xf32>
  linalg.fill ins(%cst : f32) outs(%a : memref<?xf32>)
  %b = memref.alloc(%n) : memref<?xf32>
  %bv = memref.subview %b[0] [%n] [1] : memref<?xf32> to memref<?xf32, strided<[1]>>
  linalg.copy ins(%a : memref<?xf32>) outs(%bv : memref<?xf32, strided<[1]>>)
  scf.for %i = %c0 to %n step %c1 {
    %x = memref.load %b[%i] : memref<?xf32>
    memref.store %x, %out[%i] : memref<?xf32>
  }
  linalg.fill ins(%cst : f32) outs(%out : memref<?xf32>)
  memref.dealloc %a : memref<?xf32>
  memref.dealloc %b : memref<?xf32>
  return
}
// CHECK-LABEL: func.func @chain(
// CHECK: %[[A:.*]] = memref.alloc
// CHECK: linalg.fill {{.*}} outs(%[[A]]
// CHECK: %[[B:.*]] = memref.alloc
// CHECK: linalg.copy ins(%[[A]]
// CHECK-NEXT: memref.dealloc %[[A]]
// CHECK-NEXT: scf.for
// CHECK: memref.load %[[B]]
// CHECK: }
// CHECK-NEXT: memref.dealloc %[[B]]
// CHECK-NEXT: linalg.fill
// CHECK-NEXT: return

// -----

// Tests that a dealloc in another block than its alloc, or whose allocation
// is used in another block, stays where it is.
func.func @other_block(%n: index, %cond: i1, %out: memref<?xf32>) {
  %a = memref.alloc(%n) : memref<?xf32>
  memref.copy %a, %out : memref<?xf32> to memref<?xf32>
  cf.cond_br %cond, ^use, ^done
^use:
  memref.copy %a, %out : memref<?xf32> to memref<?xf32>
  cf.br ^done
^done:
  memref.dealloc %a : memref<?xf32>
  return
}
// CHECK-LABEL: func.func @other_block(
// CHECK: ^bb2:
// CHECK-NEXT: memref.dealloc
// CHECK-NEXT: return
