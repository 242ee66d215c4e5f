// RUN: mxc-opt %s --split-input-file --convert-mx-to-linalg --verify-diagnostics | FileCheck %s

// Tests that an f32 FullyConnected (flatten) becomes a kernel call of the
// runtime's OpenBLAS kernel on its operands as they are, into a fresh
// destination, with (m, n, k, has_bias) = (4, 10, 12, 1).

// CHECK-LABEL: func.func @fc_flatten
// CHECK-SAME: (%[[X:.*]]: tensor<4x3x2x2xf32>, %[[W:.*]]: tensor<10x12xf32>, %[[B:.*]]: tensor<10xf32>)
// CHECK: %[[OUT:.*]] = tensor.empty() : tensor<4x10xf32>
// CHECK: %[[R:.*]] = mxrt.kernel_call @mxc_kernel_fully_connected_f32(%[[X]], %[[W]], %[[B]]) outs(%[[OUT]]) args [4, 10, 12, 1] : (tensor<4x3x2x2xf32>, tensor<10x12xf32>, tensor<10xf32>, tensor<4x10xf32>) -> tensor<4x10xf32>
// CHECK: return %[[R]]
func.func @fc_flatten(%x: tensor<4x3x2x2xf32>, %w: tensor<10x12xf32>, %b: tensor<10xf32>) -> tensor<4x10xf32> {
  %0 = mx.FullyConnected %x, %w, %b {num_hidden = 10 : i64} : (tensor<4x3x2x2xf32>, tensor<10x12xf32>, tensor<10xf32>) -> tensor<4x10xf32>
  return %0 : tensor<4x10xf32>
}

// -----

// Tests that FullyConnected with flatten = false contracts the last axis only
// (m = 2 * 3 rows of k = 5) and, without a bias, passes has_bias = 0 and the
// weight as the ignored bias buffer.

// CHECK-LABEL: func.func @fc_no_flatten_no_bias
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x5xf32>, %[[W:.*]]: tensor<7x5xf32>)
// CHECK: mxrt.kernel_call @mxc_kernel_fully_connected_f32(%[[X]], %[[W]], %[[W]]) outs(%{{.*}}) args [6, 7, 5, 0] : (tensor<2x3x5xf32>, tensor<7x5xf32>, tensor<7x5xf32>, tensor<2x3x7xf32>) -> tensor<2x3x7xf32>
func.func @fc_no_flatten_no_bias(%x: tensor<2x3x5xf32>, %w: tensor<7x5xf32>) -> tensor<2x3x7xf32> {
  %0 = mx.FullyConnected %x, %w {num_hidden = 7 : i64, flatten = false, no_bias = true} : (tensor<2x3x5xf32>, tensor<7x5xf32>) -> tensor<2x3x7xf32>
  return %0 : tensor<2x3x7xf32>
}

// -----

// Tests that an f16 FullyConnected (no f16 kernel) becomes a bias broadcast
// and a linalg.generic contraction against the transposed weight.

// CHECK-DAG: #[[X:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-DAG: #[[WT:.*]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-DAG: #[[Y:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-LABEL: func.func @fc_f16
// CHECK-NOT: call
// CHECK: %[[BIAS:.*]] = linalg.generic {{.*}} ins(%{{.*}} : tensor<3xf16>) outs(%{{.*}} : tensor<2x3xf16>)
// CHECK: linalg.generic {indexing_maps = [#[[X]], #[[WT]], #[[Y]]], iterator_types = ["parallel", "parallel", "reduction"]} ins(%{{.*}}, %{{.*}} : tensor<2x4xf16>, tensor<3x4xf16>) outs(%[[BIAS]] : tensor<2x3xf16>)
// CHECK: arith.mulf
// CHECK: arith.addf
func.func @fc_f16(%x: tensor<2x4xf16>, %w: tensor<3x4xf16>, %b: tensor<3xf16>) -> tensor<2x3xf16> {
  %0 = mx.FullyConnected %x, %w, %b {num_hidden = 3 : i64} : (tensor<2x4xf16>, tensor<3x4xf16>, tensor<3xf16>) -> tensor<2x3xf16>
  return %0 : tensor<2x3xf16>
}

// -----

// Tests that dot takes MXNet's 2-D views: with transpose_a the lhs (4, 2, 3)
// is (k = 4) x (m = 6) and with transpose_b the rhs (5, 4) is (n = 5) x k;
// one GEMM (batch 1) with both transposition flags set.

// CHECK-LABEL: func.func @dot_transposed
// CHECK: mxrt.kernel_call @mxc_kernel_gemm_f32(%{{.*}}, %{{.*}}) outs(%{{.*}}) args [1, 6, 5, 4, 1, 1] : (tensor<4x2x3xf32>, tensor<5x4xf32>, tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
func.func @dot_transposed(%a: tensor<4x2x3xf32>, %b: tensor<5x4xf32>) -> tensor<2x3x5xf32> {
  %0 = mx.dot %a, %b {transpose_a = true, transpose_b = true} : (tensor<4x2x3xf32>, tensor<5x4xf32>) -> tensor<2x3x5xf32>
  return %0 : tensor<2x3x5xf32>
}

// -----

// Tests that an f64 dot of two vectors is a 1 x 1 GEMM on the f64 kernel.

// CHECK-LABEL: func.func @dot_vectors_f64
// CHECK: mxrt.kernel_call @mxc_kernel_gemm_f64(%{{.*}}, %{{.*}}) outs(%{{.*}}) args [1, 1, 1, 7, 0, 0] : (tensor<7xf64>, tensor<7xf64>, tensor<1xf64>) -> tensor<1xf64>
func.func @dot_vectors_f64(%a: tensor<7xf64>, %b: tensor<7xf64>) -> tensor<1xf64> {
  %0 = mx.dot %a, %b : (tensor<7xf64>, tensor<7xf64>) -> tensor<1xf64>
  return %0 : tensor<1xf64>
}

// -----

// Tests that batch_dot folds the leading axes into the batch (2 * 3 = 6)
// and takes m, n, k from the (transposed) trailing matrices.

// CHECK-LABEL: func.func @batch_dot
// CHECK: mxrt.kernel_call @mxc_kernel_gemm_f32(%{{.*}}, %{{.*}}) outs(%{{.*}}) args [6, 2, 5, 4, 1, 0] : (tensor<2x3x4x2xf32>, tensor<2x3x4x5xf32>, tensor<2x3x2x5xf32>) -> tensor<2x3x2x5xf32>
func.func @batch_dot(%a: tensor<2x3x4x2xf32>, %b: tensor<2x3x4x5xf32>) -> tensor<2x3x2x5xf32> {
  %0 = mx.batch_dot %a, %b {transpose_a = true} : (tensor<2x3x4x2xf32>, tensor<2x3x4x5xf32>) -> tensor<2x3x2x5xf32>
  return %0 : tensor<2x3x2x5xf32>
}

// -----

// Tests that with mxc.kernel_calls = false on the module an f32 batch_dot is
// a batched linalg.generic contraction, the transposed rhs read as (b, n, k).

// CHECK-DAG: #[[A:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
// CHECK-DAG: #[[BT:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>
// CHECK-DAG: #[[C:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-LABEL: func.func @batch_dot_codegen
// CHECK-NOT: call
// CHECK: linalg.fill
// CHECK: linalg.generic {indexing_maps = [#[[A]], #[[BT]], #[[C]]], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%{{.*}}, %{{.*}} : tensor<3x2x4xf32>, tensor<3x5x4xf32>) outs(%{{.*}} : tensor<3x2x5xf32>)
module attributes {mxc.kernel_calls = false} {
  func.func @batch_dot_codegen(%a: tensor<3x2x4xf32>, %b: tensor<3x5x4xf32>) -> tensor<3x2x5xf32> {
    %0 = mx.batch_dot %a, %b {transpose_b = true} : (tensor<3x2x4xf32>, tensor<3x5x4xf32>) -> tensor<3x2x5xf32>
    return %0 : tensor<3x2x5xf32>
  }
}

// -----

// Tests that a sparse dot is rejected with a one-line error at the node.

func.func @dot_csr(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{cannot lower dot: forward_stype 'csr' (sparse storage) is not supported}}
  %0 = mx.dot %a, %b {forward_stype = "csr"} : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}
