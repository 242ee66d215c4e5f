// RUN: mxc-opt %s --split-input-file | mxc-opt --split-input-file | FileCheck %s

// Tests that a kernel call on tensors round-trips, with its static arguments
// and the destination's type as the result type.

// CHECK-LABEL: func.func @on_tensors
// CHECK-SAME: (%[[A:.*]]: tensor<4x3xf32>, %[[B:.*]]: tensor<3x5xf32>, %[[C:.*]]: tensor<4x5xf32>)
// CHECK: %[[R:.*]] = mxrt.kernel_call @mxc_kernel_gemm_f32(%[[A]], %[[B]]) outs(%[[C]]) args [1, 4, 5, 3, 0, 0] : (tensor<4x3xf32>, tensor<3x5xf32>, tensor<4x5xf32>) -> tensor<4x5xf32>
// CHECK: return %[[R]]
func.func @on_tensors(%a: tensor<4x3xf32>, %b: tensor<3x5xf32>, %c: tensor<4x5xf32>) -> tensor<4x5xf32> {
  %0 = mxrt.kernel_call @mxc_kernel_gemm_f32(%a, %b) outs(%c) args [1, 4, 5, 3, 0, 0] : (tensor<4x3xf32>, tensor<3x5xf32>, tensor<4x5xf32>) -> tensor<4x5xf32>
  return %0 : tensor<4x5xf32>
}

// -----

// Tests that a kernel call on memrefs (contiguous, any offset) round-trips
// without a result, and that empty static arguments are not printed.

// CHECK-LABEL: func.func @on_memrefs
// CHECK: mxrt.kernel_call @k(%{{.*}}, %{{.*}}) outs(%{{.*}}) : (memref<2x3xf64>, memref<6xf64, strided<[1], offset: ?>>, memref<f64>) -> (){{$}}
// CHECK: mxrt.kernel_call @k() outs(%{{.*}}) args [7] : (memref<f64>) -> (){{$}}
func.func @on_memrefs(%a: memref<2x3xf64>, %b: memref<6xf64, strided<[1], offset: ?>>, %c: memref<f64>) {
  mxrt.kernel_call @k(%a, %b) outs(%c) : (memref<2x3xf64>, memref<6xf64, strided<[1], offset: ?>>, memref<f64>) -> ()
  mxrt.kernel_call @k() outs(%c) args [7] : (memref<f64>) -> ()
  return
}
