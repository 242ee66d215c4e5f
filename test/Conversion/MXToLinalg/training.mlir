// RUN: mxc-opt %s --split-input-file --convert-mx-to-linalg | FileCheck %s

// Tests that dropout_mask reads its seed inside the linalg.generic (an
// input broadcast from element 0), not with a tensor.extract before it: on
// a GPU the generic becomes the kernel, and a load outside it would be host
// code reading device memory.
// CHECK-LABEL: func.func @mask
// CHECK-NOT: tensor.extract
// CHECK: linalg.generic {indexing_maps = [#[[SEED:.*]], #[[ID:.*]]], iterator_types = ["parallel", "parallel"]} ins(%arg0 : tensor<1xi64>)
// CHECK: ^bb0(%[[S:.*]]: i64, %{{.*}}: f32):
// CHECK: arith.muli %[[S]],
// CHECK: arith.select
func.func @mask(%seed: tensor<1xi64>) -> tensor<4x8xf32> {
  %m = mx.dropout_mask %seed {p = 2.500000e-01 : f64, stream = 7 : i64} : (tensor<1xi64>) -> tensor<4x8xf32>
  return %m : tensor<4x8xf32>
}
