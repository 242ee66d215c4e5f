// RUN: not mxc-opt %s --mx-fuse-elementwise --convert-mx-to-linalg 2>&1 | FileCheck %s

// Tests that an op of a fused group that cannot be lowered is named, with its
// node and the reason, in the one error the conversion reports.

// CHECK: error: loc(fused["add", "relu"]): cannot lower mx.fused: in the fused group: elemwise_add (node 'add'): bool tensors are not supported
func.func @main(%a: tensor<2x3xi1>, %b: tensor<2x3xi1>) -> tensor<2x3xi1> {
  %0 = mx.elemwise_add %a, %b : (tensor<2x3xi1>, tensor<2x3xi1>) -> tensor<2x3xi1> loc("add")
  %1 = mx.relu %0 : (tensor<2x3xi1>) -> tensor<2x3xi1> loc("relu")
  return %1 : tensor<2x3xi1>
}
