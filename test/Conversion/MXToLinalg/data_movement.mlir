// RUN: mxc-opt %s --split-input-file --convert-mx-to-linalg | FileCheck %s

// Tests that a Reshape that merges axes is one collapse_shape.
// CHECK-LABEL: func.func @reshape_collapse
// CHECK: %[[C:.+]] = tensor.collapse_shape %arg0 {{\[}}[0], [1, 2]] : tensor<2x3x4xf32> into tensor<2x12xf32>
// CHECK: return %[[C]]
func.func @reshape_collapse(%x: tensor<2x3x4xf32>) -> tensor<2x12xf32> {
  %0 = mx.Reshape %x {shape = array<i64: 0, -1>} : (tensor<2x3x4xf32>) -> tensor<2x12xf32>
  return %0 : tensor<2x12xf32>
}

// -----

// Tests that a Reshape that splits an axis is one expand_shape.
// CHECK-LABEL: func.func @reshape_expand
// CHECK: tensor.expand_shape %arg0 {{\[}}[0], [1, 2]] output_shape [2, 3, 4] : tensor<2x12xf32> into tensor<2x3x4xf32>
func.func @reshape_expand(%x: tensor<2x12xf32>) -> tensor<2x3x4xf32> {
  %0 = mx.Reshape %x {shape = array<i64: 0, -4, 3, 4>} : (tensor<2x12xf32>) -> tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}

// -----

// Tests that a Reshape whose extents do not regroup goes through 1-D.
// CHECK-LABEL: func.func @reshape_general
// CHECK: %[[F:.+]] = tensor.collapse_shape %arg0 {{\[}}[0, 1, 2]] : tensor<2x3x4xf32> into tensor<24xf32>
// CHECK: tensor.expand_shape %[[F]] {{\[}}[0, 1]] output_shape [4, 6] : tensor<24xf32> into tensor<4x6xf32>
func.func @reshape_general(%x: tensor<2x3x4xf32>) -> tensor<4x6xf32> {
  %0 = mx.Reshape %x {shape = array<i64: 4, -1>} : (tensor<2x3x4xf32>) -> tensor<4x6xf32>
  return %0 : tensor<4x6xf32>
}

// -----

// Tests that Flatten collapses all axes but the first.
// CHECK-LABEL: func.func @flatten
// CHECK: tensor.collapse_shape %arg0 {{\[}}[0], [1, 2, 3]] : tensor<2x3x4x5xi32> into tensor<2x60xi32>
func.func @flatten(%x: tensor<2x3x4x5xi32>) -> tensor<2x60xi32> {
  %0 = mx.Flatten %x : (tensor<2x3x4x5xi32>) -> tensor<2x60xi32>
  return %0 : tensor<2x60xi32>
}

// -----

// Tests that expand_dims inserts a unit axis with expand_shape (a negative
// axis counts from the end).
// CHECK-LABEL: func.func @expand_dims
// CHECK: tensor.expand_shape %arg0 {{\[}}[0], [1, 2]] output_shape [2, 3, 1] : tensor<2x3xf32> into tensor<2x3x1xf32>
func.func @expand_dims(%x: tensor<2x3xf32>) -> tensor<2x3x1xf32> {
  %0 = mx.expand_dims %x {axis = -1 : i64} : (tensor<2x3xf32>) -> tensor<2x3x1xf32>
  return %0 : tensor<2x3x1xf32>
}

// -----

// Tests that transpose is linalg.transpose with the given permutation, and
// that empty axes reverse them.
// CHECK-LABEL: func.func @transpose
// CHECK: %[[E:.+]] = tensor.empty() : tensor<2x4x3xf32>
// CHECK: linalg.transpose ins(%arg0 : tensor<2x3x4xf32>) outs(%[[E]] : tensor<2x4x3xf32>) permutation = [0, 2, 1]
// CHECK: %[[E2:.+]] = tensor.empty() : tensor<4x3x2xf32>
// CHECK: linalg.transpose ins(%arg0 : tensor<2x3x4xf32>) outs(%[[E2]] : tensor<4x3x2xf32>) permutation = [2, 1, 0]
func.func @transpose(%x: tensor<2x3x4xf32>) -> (tensor<2x4x3xf32>, tensor<4x3x2xf32>) {
  %0 = mx.transpose %x {axes = array<i64: 0, 2, 1>} : (tensor<2x3x4xf32>) -> tensor<2x4x3xf32>
  %1 = mx.transpose %x : (tensor<2x3x4xf32>) -> tensor<4x3x2xf32>
  return %0, %1 : tensor<2x4x3xf32>, tensor<4x3x2xf32>
}

// -----

// Tests that slice_axis is an extract_slice; negative begin / end count from
// the end and an absent end means the end of the axis.
// CHECK-LABEL: func.func @slice_axis
// CHECK: tensor.extract_slice %arg0[0, 1] [2, 3] [1, 1] : tensor<2x5xf32> to tensor<2x3xf32>
// CHECK: tensor.extract_slice %arg0[0, 3] [2, 2] [1, 1] : tensor<2x5xf32> to tensor<2x2xf32>
// CHECK: tensor.extract_slice %arg0[0, 0] [1, 5] [1, 1] : tensor<2x5xf32> to tensor<1x5xf32>
func.func @slice_axis(%x: tensor<2x5xf32>) -> (tensor<2x3xf32>, tensor<2x2xf32>, tensor<1x5xf32>) {
  %0 = mx.slice_axis %x {axis = 1 : i64, begin = 1 : i64, end = -1 : i64} : (tensor<2x5xf32>) -> tensor<2x3xf32>
  %1 = mx.slice_axis %x {axis = -1 : i64, begin = -2 : i64} : (tensor<2x5xf32>) -> tensor<2x2xf32>
  %2 = mx.slice_axis %x {axis = 0 : i64, begin = 0 : i64, end = 1 : i64} : (tensor<2x5xf32>) -> tensor<1x5xf32>
  return %0, %1, %2 : tensor<2x3xf32>, tensor<2x2xf32>, tensor<1x5xf32>
}

// -----

// Tests that Concat inserts each input into an empty result at its offset
// along dim.
// CHECK-LABEL: func.func @concat
// CHECK: %[[E:.+]] = tensor.empty() : tensor<2x8xf32>
// CHECK: %[[A:.+]] = tensor.insert_slice %arg0 into %[[E]][0, 0] [2, 3] [1, 1] : tensor<2x3xf32> into tensor<2x8xf32>
// CHECK: %[[B:.+]] = tensor.insert_slice %arg1 into %[[A]][0, 3] [2, 5] [1, 1] : tensor<2x5xf32> into tensor<2x8xf32>
// CHECK: return %[[B]]
func.func @concat(%a: tensor<2x3xf32>, %b: tensor<2x5xf32>) -> tensor<2x8xf32> {
  %0 = mx.Concat %a, %b {num_args = 2 : i64} : (tensor<2x3xf32>, tensor<2x5xf32>) -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

// Tests Concat along axis 0 with a negative dim and three inputs.
// CHECK-LABEL: func.func @concat_three
// CHECK: tensor.insert_slice %arg0 into %{{.+}}[0, 0] [1, 4] [1, 1]
// CHECK: tensor.insert_slice %arg1 into %{{.+}}[1, 0] [2, 4] [1, 1]
// CHECK: tensor.insert_slice %arg2 into %{{.+}}[3, 0] [1, 4] [1, 1]
func.func @concat_three(%a: tensor<1x4xi32>, %b: tensor<2x4xi32>, %c: tensor<1x4xi32>) -> tensor<4x4xi32> {
  %0 = mx.Concat %a, %b, %c {num_args = 3 : i64, dim = -2 : i64} : (tensor<1x4xi32>, tensor<2x4xi32>, tensor<1x4xi32>) -> tensor<4x4xi32>
  return %0 : tensor<4x4xi32>
}

// -----

// Tests that one_hot compares int(index) with the position on the new last
// axis and selects on_value / off_value in the result type.
// CHECK-DAG: #[[IN:.+]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-DAG: #[[OUT:.+]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @one_hot
// CHECK: linalg.generic {indexing_maps = [#[[IN]], #[[OUT]]], iterator_types = ["parallel", "parallel", "parallel"]} ins(%arg0 : tensor<2x3xf32>) outs(%{{.+}} : tensor<2x3x4xi32>)
// CHECK: ^bb0(%[[X:.+]]: f32, %{{.+}}: i32):
// CHECK: %[[I32:.+]] = arith.fptosi %[[X]] : f32 to i32
// CHECK: %[[I:.+]] = arith.extsi %[[I32]] : i32 to i64
// CHECK: %[[J:.+]] = linalg.index 2 : index
// CHECK: %[[J64:.+]] = arith.index_cast %[[J]] : index to i64
// CHECK: %[[HIT:.+]] = arith.cmpi eq, %[[I]], %[[J64]] : i64
// CHECK: %[[ON:.+]] = arith.constant 5 : i32
// CHECK: %[[OFF:.+]] = arith.constant -1 : i32
// CHECK: arith.select %[[HIT]], %[[ON]], %[[OFF]] : i32
func.func @one_hot(%i: tensor<2x3xf32>) -> tensor<2x3x4xi32> {
  %0 = mx.one_hot %i {depth = 4 : i64, dtype = "int32", on_value = 5.000000e+00 : f64, off_value = -1.000000e+00 : f64} : (tensor<2x3xf32>) -> tensor<2x3x4xi32>
  return %0 : tensor<2x3x4xi32>
}
