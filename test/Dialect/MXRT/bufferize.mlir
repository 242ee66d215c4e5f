// RUN: mxc-opt %s --split-input-file --cse --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" | FileCheck %s

// Tests the ResNet-18 shortcut pattern after CSE: two kernel calls read
// relu1 (%r) through one shared collapse_shape (CSE merged the two), and an
// elementwise op between them writes relu1 in place. The second call reads
// relu1 at the call itself, so bufferization must not let the elementwise op
// clobber what that call reads: here the calls read a copy of relu1 taken
// before the in-place write (the alternative, a buffer of its own for the
// elementwise op, would be as correct).

// CHECK-LABEL: func.func @shared_input_written_between_calls
// CHECK-SAME: (%[[X:.*]]: memref<2x8xf32>, %[[W1:.*]]: memref<8x4xf32>, %[[W2:.*]]: memref<8x4xf32>)
// CHECK: %[[R:.*]] = memref.alloc() {{.*}} : memref<2x8xf32>
// CHECK: linalg.generic {{.*}} ins(%[[X]] : memref<2x8xf32>) outs(%[[R]] : memref<2x8xf32>)
// CHECK: %[[RF:.*]] = memref.collapse_shape %[[R]]
// CHECK: %[[RC:.*]] = memref.alloc() {{.*}} : memref<16xf32>
// CHECK: memref.copy %[[RF]], %[[RC]]
// CHECK: mxrt.kernel_call @mxc_kernel_gemm_f32(%[[RC]], %[[W1]]) outs(%{{.*}}) args [1, 2, 4, 8, 0, 0]
// CHECK: linalg.generic {{.*}} ins(%[[R]] : memref<2x8xf32>) outs(%[[R]] : memref<2x8xf32>)
// CHECK: mxrt.kernel_call @mxc_kernel_gemm_f32(%[[RC]], %[[W2]]) outs(%{{.*}}) args [1, 2, 4, 8, 0, 0]
// CHECK: return
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @shared_input_written_between_calls(%x: tensor<2x8xf32>, %w1: tensor<8x4xf32>, %w2: tensor<8x4xf32>)
    -> (tensor<2x4xf32>, tensor<2x8xf32>, tensor<2x4xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x8xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<2x8xf32>) outs(%e : tensor<2x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %zero : f32
    linalg.yield %m : f32
  } -> tensor<2x8xf32>
  %f1 = tensor.collapse_shape %r [[0, 1]] : tensor<2x8xf32> into tensor<16xf32>
  %e1 = tensor.empty() : tensor<2x4xf32>
  %a = mxrt.kernel_call @mxc_kernel_gemm_f32(%f1, %w1) outs(%e1) args [1, 2, 4, 8, 0, 0] : (tensor<16xf32>, tensor<8x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %s = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%r : tensor<2x8xf32>) outs(%r : tensor<2x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %d = arith.addf %in, %in : f32
    linalg.yield %d : f32
  } -> tensor<2x8xf32>
  %f2 = tensor.collapse_shape %r [[0, 1]] : tensor<2x8xf32> into tensor<16xf32>
  %e2 = tensor.empty() : tensor<2x4xf32>
  %b = mxrt.kernel_call @mxc_kernel_gemm_f32(%f2, %w2) outs(%e2) args [1, 2, 4, 8, 0, 0] : (tensor<16xf32>, tensor<8x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  return %a, %s, %b : tensor<2x4xf32>, tensor<2x8xf32>, tensor<2x4xf32>
}

// -----

// Tests the same graph with both calls before the elementwise op: it then
// runs in place on relu1's buffer, and nothing is copied.

// CHECK-LABEL: func.func @shared_input_written_after_calls
// CHECK-NOT: memref.copy
// CHECK: %[[R:.*]] = memref.alloc() {{.*}} : memref<2x8xf32>
// CHECK-NOT: memref.copy
// CHECK: %[[RF:.*]] = memref.collapse_shape %[[R]]
// CHECK-NOT: memref.copy
// CHECK: mxrt.kernel_call @mxc_kernel_gemm_f32(%[[RF]], %{{.*}}) outs(%{{.*}})
// CHECK-NOT: memref.copy
// CHECK: mxrt.kernel_call @mxc_kernel_gemm_f32(%[[RF]], %{{.*}}) outs(%{{.*}})
// CHECK-NOT: memref.alloc
// CHECK-NOT: memref.copy
// CHECK: linalg.generic {{.*}} ins(%[[R]] : memref<2x8xf32>) outs(%[[R]] : memref<2x8xf32>)
// CHECK-NOT: memref.copy
// CHECK: return
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @shared_input_written_after_calls(%x: tensor<2x8xf32>, %w1: tensor<8x4xf32>, %w2: tensor<8x4xf32>)
    -> (tensor<2x4xf32>, tensor<2x8xf32>, tensor<2x4xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x8xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<2x8xf32>) outs(%e : tensor<2x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %zero : f32
    linalg.yield %m : f32
  } -> tensor<2x8xf32>
  %f1 = tensor.collapse_shape %r [[0, 1]] : tensor<2x8xf32> into tensor<16xf32>
  %e1 = tensor.empty() : tensor<2x4xf32>
  %a = mxrt.kernel_call @mxc_kernel_gemm_f32(%f1, %w1) outs(%e1) args [1, 2, 4, 8, 0, 0] : (tensor<16xf32>, tensor<8x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %f2 = tensor.collapse_shape %r [[0, 1]] : tensor<2x8xf32> into tensor<16xf32>
  %e2 = tensor.empty() : tensor<2x4xf32>
  %b = mxrt.kernel_call @mxc_kernel_gemm_f32(%f2, %w2) outs(%e2) args [1, 2, 4, 8, 0, 0] : (tensor<16xf32>, tensor<8x4xf32>, tensor<2x4xf32>) -> tensor<2x4xf32>
  %s = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%r : tensor<2x8xf32>) outs(%r : tensor<2x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %d = arith.addf %in, %in : f32
    linalg.yield %d : f32
  } -> tensor<2x8xf32>
  return %a, %s, %b : tensor<2x4xf32>, tensor<2x8xf32>, tensor<2x4xf32>
}

// -----

// Tests that a strided (non-contiguous) input is copied into a contiguous
// buffer for the kernel, and a strided destination gets a fresh buffer
// that is copied into it after the call.

// CHECK-LABEL: func.func @strided_operands
// CHECK-SAME: (%[[X:.*]]: memref<4x8xf32>, %[[D:.*]]: memref<4x8xf32>)
// CHECK: %[[XS:.*]] = memref.subview %[[X]][0, 0] [4, 4] [1, 1]
// CHECK: %[[DS:.*]] = memref.subview %[[D]][0, 4] [4, 4] [1, 1]
// CHECK: %[[XC:.*]] = memref.alloc() {{.*}} : memref<4x4xf32>
// CHECK: memref.copy %[[XS]], %[[XC]]
// CHECK: %[[T:.*]] = memref.alloc() {{.*}} : memref<4x4xf32>
// CHECK: mxrt.kernel_call @k(%[[XC]]) outs(%[[T]])
// CHECK: memref.copy %[[T]], %[[DS]]
// CHECK: return
func.func @strided_operands(%x: tensor<4x8xf32>, %d: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %xs = tensor.extract_slice %x[0, 0] [4, 4] [1, 1] : tensor<4x8xf32> to tensor<4x4xf32>
  %ds = tensor.extract_slice %d[0, 4] [4, 4] [1, 1] : tensor<4x8xf32> to tensor<4x4xf32>
  %k = mxrt.kernel_call @k(%xs) outs(%ds) : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  %r = tensor.insert_slice %k into %d[0, 4] [4, 4] [1, 1] : tensor<4x4xf32> into tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// -----

// An accumulating kernel (mxc_kernel_conv_fused with a residual sum) reads
// its destination: when the residual is used again after the call, the
// kernel accumulates into a copy of it; when the call is its last use, into
// its own buffer.

// CHECK-LABEL: func.func @accumulate_reused
// CHECK-SAME: (%[[X:.*]]: memref<4xf32>, %[[R:.*]]: memref<4xf32>)
// CHECK: %[[C:.*]] = memref.alloc() {{.*}} : memref<4xf32>
// CHECK: memref.copy %[[R]], %[[C]]
// CHECK: mxrt.kernel_call @k(%[[X]]) outs(%[[C]]) {accumulate}
// CHECK: return %[[C]], %[[R]]
func.func @accumulate_reused(%x: tensor<4xf32>, %r: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %y = mxrt.kernel_call @k(%x) outs(%r) {accumulate} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %y, %r : tensor<4xf32>, tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @accumulate_last_use
// CHECK-SAME: (%[[X:.*]]: memref<4xf32>, %[[R:.*]]: memref<4xf32>)
// CHECK-NOT: memref.copy
// CHECK: mxrt.kernel_call @k(%[[X]]) outs(%[[R]]) {accumulate}
// CHECK: return %[[R]]
func.func @accumulate_last_use(%x: tensor<4xf32>, %r: tensor<4xf32>) -> tensor<4xf32> {
  %y = mxrt.kernel_call @k(%x) outs(%r) {accumulate} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}
