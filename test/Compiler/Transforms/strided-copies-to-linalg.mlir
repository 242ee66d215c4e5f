// mxc-strided-copies-to-linalg: memref.copy with a non-identity layout on
// either side becomes linalg.copy; contiguous copies stay memref.copy.
// RUN: mxc-opt %s -mxc-strided-copies-to-linalg | FileCheck %s

// Tests that a copy into a subview and one out of it become linalg.copy,
// and a copy between identity layouts stays.
func.func @copies(%src: memref<4x4xf32>, %big: memref<6x6xf32>, %dst: memref<4x4xf32>) {
  %v = memref.subview %big[1, 1] [4, 4] [1, 1]
      : memref<6x6xf32> to memref<4x4xf32, strided<[6, 1], offset: 7>>
  memref.copy %src, %v : memref<4x4xf32> to memref<4x4xf32, strided<[6, 1], offset: 7>>
  memref.copy %v, %dst : memref<4x4xf32, strided<[6, 1], offset: 7>> to memref<4x4xf32>
  memref.copy %src, %dst : memref<4x4xf32> to memref<4x4xf32>
  return
}
// CHECK-LABEL: func.func @copies(
// CHECK-SAME: %[[SRC:[^:]*]]: memref<4x4xf32>, %{{[^:]*}}: memref<6x6xf32>, %[[DST:[^:]*]]: memref<4x4xf32>)
// CHECK: %[[V:.*]] = memref.subview
// CHECK: linalg.copy ins(%[[SRC]] : memref<4x4xf32>) outs(%[[V]] : memref<4x4xf32, strided<[6, 1], offset: 7>>)
// CHECK: linalg.copy ins(%[[V]] : memref<4x4xf32, strided<[6, 1], offset: 7>>) outs(%[[DST]] : memref<4x4xf32>)
// CHECK: memref.copy %[[SRC]], %[[DST]] : memref<4x4xf32> to memref<4x4xf32>
// CHECK-NOT: memref.copy
