// RUN: mxc-opt %s --split-input-file --canonicalize --cse | FileCheck %s

// Tests that a kernel call on tensors without uses is removed (it has no
// side effects) and that CSE merges two identical ones.

// CHECK-LABEL: func.func @pure_on_tensors
// CHECK: %[[R:.*]] = mxrt.kernel_call @k
// CHECK-NOT: mxrt.kernel_call
// CHECK: return %[[R]], %[[R]]
func.func @pure_on_tensors(%a: tensor<4xf32>, %c: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = mxrt.kernel_call @k(%a) outs(%c) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = mxrt.kernel_call @k(%a) outs(%c) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %2 = mxrt.kernel_call @k(%c) outs(%a) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}

// -----

// Tests that kernel calls on memrefs (which write their destination) are
// neither removed nor merged.

// CHECK-LABEL: func.func @effects_on_memrefs
// CHECK-COUNT-2: mxrt.kernel_call @k
func.func @effects_on_memrefs(%a: memref<4xf32>, %c: memref<4xf32>) {
  mxrt.kernel_call @k(%a) outs(%c) : (memref<4xf32>, memref<4xf32>) -> ()
  mxrt.kernel_call @k(%a) outs(%c) : (memref<4xf32>, memref<4xf32>) -> ()
  return
}
