// RUN: mxc-opt %s --split-input-file --mxrt-lower-kernel-calls --verify-diagnostics | FileCheck %s

// Tests that a bufferized kernel call becomes a call of the runtime's C
// function on rank-1 views (inputs, then the destination) and i64 static
// arguments, declared once for two calls; a view with an offset stays a view.

// CHECK: func.func private @mxc_kernel_gemm_f32(memref<?xf32, strided<[1], offset: ?>>, memref<?xf32, strided<[1], offset: ?>>, memref<?xf32, strided<[1], offset: ?>>, i64, i64, i64, i64, i64, i64)
// CHECK-NOT: func.func private
// CHECK-LABEL: func.func @gemm
// CHECK-SAME: (%[[A:.*]]: memref<2x3xf32>, %[[B:.*]]: memref<3x5xf32, strided<[5, 1], offset: ?>>, %[[C:.*]]: memref<2x5xf32>, %[[V:.*]]: memref<10xf32>)
// CHECK: %[[AF:.*]] = memref.collapse_shape %[[A]] {{\[}}[0, 1]] : memref<2x3xf32> into memref<6xf32>
// CHECK: %[[AV:.*]] = memref.cast %[[AF]] : memref<6xf32> to memref<?xf32, strided<[1], offset: ?>>
// CHECK: %[[BF:.*]] = memref.collapse_shape %[[B]] {{\[}}[0, 1]] : memref<3x5xf32, strided<[5, 1], offset: ?>> into memref<15xf32, strided<[1], offset: ?>>
// CHECK: %[[BV:.*]] = memref.cast %[[BF]]
// CHECK: %[[CF:.*]] = memref.collapse_shape %[[C]]
// CHECK: %[[CV:.*]] = memref.cast %[[CF]]
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : i64
// CHECK-DAG: %[[C2:.*]] = arith.constant 2 : i64
// CHECK-DAG: %[[C5:.*]] = arith.constant 5 : i64
// CHECK-DAG: %[[C3:.*]] = arith.constant 3 : i64
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : i64
// CHECK: call @mxc_kernel_gemm_f32(%[[AV]], %[[BV]], %[[CV]], %[[C1]], %[[C2]], %[[C5]], %[[C3]], %[[C0]], %[[C0]])
// CHECK: %[[VV:.*]] = memref.cast %[[V]] : memref<10xf32> to memref<?xf32, strided<[1], offset: ?>>
// CHECK: call @mxc_kernel_gemm_f32(%[[AV2:.*]], %[[BV2:.*]], %[[VV]],
// CHECK-NOT: mxrt.kernel_call
func.func @gemm(%a: memref<2x3xf32>, %b: memref<3x5xf32, strided<[5, 1], offset: ?>>, %c: memref<2x5xf32>, %v: memref<10xf32>) {
  mxrt.kernel_call @mxc_kernel_gemm_f32(%a, %b) outs(%c) args [1, 2, 5, 3, 0, 0] : (memref<2x3xf32>, memref<3x5xf32, strided<[5, 1], offset: ?>>, memref<2x5xf32>) -> ()
  mxrt.kernel_call @mxc_kernel_gemm_f32(%a, %b) outs(%v) args [1, 2, 5, 3, 0, 0] : (memref<2x3xf32>, memref<3x5xf32, strided<[5, 1], offset: ?>>, memref<10xf32>) -> ()
  return
}

// -----

// Tests that a rank-0 buffer is passed as a one-element view.

// CHECK-LABEL: func.func @scalar
// CHECK: %[[E:.*]] = memref.expand_shape %{{.*}} [] output_shape [1] : memref<f64> into memref<1xf64>
// CHECK: %[[EV:.*]] = memref.cast %[[E]] : memref<1xf64> to memref<?xf64, strided<[1], offset: ?>>
// CHECK: call @k(%{{.*}}, %[[EV]])
func.func @scalar(%a: memref<3xf64>, %c: memref<f64>) {
  mxrt.kernel_call @k(%a) outs(%c) : (memref<3xf64>, memref<f64>) -> ()
  return
}

// -----

func.func @on_tensors(%a: tensor<3xf32>, %c: tensor<3xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{'mxrt.kernel_call' op is still on tensors: run after bufferization}}
  %0 = mxrt.kernel_call @k(%a) outs(%c) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func private @k(memref<?xf32, strided<[1], offset: ?>>, i64)

func.func @mismatched_declaration(%a: memref<3xf32>, %c: memref<3xf32>) {
  // expected-error @+1 {{'mxrt.kernel_call' op callee @k is declared with type}}
  mxrt.kernel_call @k(%a) outs(%c) : (memref<3xf32>, memref<3xf32>) -> ()
  return
}
