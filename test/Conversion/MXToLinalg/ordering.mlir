// RUN: mxc-opt %s --split-input-file --convert-mx-to-linalg --cse --verify-diagnostics | FileCheck %s

// topk lowers to the runtime's kernel on the flattened data with args
// [outer, n, inner, k, is_ascend, mode]; `both` calls it for the values
// (mode 0) and for the positions (mode 1). Axis 1 of 2x3x4: outer 2, n 3,
// inner 4.

// CHECK-LABEL: func.func @topk_both
// CHECK: %[[X:.*]] = tensor.collapse_shape %arg0 {{\[\[}}0, 1, 2]] : tensor<2x3x4xf32> into tensor<24xf32>
// CHECK: %[[V:.*]] = mxrt.kernel_call @mxc_kernel_topk_f32(%[[X]]) outs(%{{.*}}) args [2, 3, 4, 2, 0, 0] : (tensor<24xf32>, tensor<16xf32>) -> tensor<16xf32>
// CHECK: tensor.expand_shape %[[V]]
// CHECK: %[[I:.*]] = mxrt.kernel_call @mxc_kernel_topk_f32(%[[X]]) outs(%{{.*}}) args [2, 3, 4, 2, 0, 1]
// CHECK: tensor.expand_shape %[[I]]
func.func @topk_both(%x: tensor<2x3x4xf32>) -> (tensor<2x2x4xf32>, tensor<2x2x4xf32>) {
  %v, %i = mx.topk %x {axis = 1 : i64, k = 2 : i64, ret_typ = "both"} : (tensor<2x3x4xf32>) -> (tensor<2x2x4xf32>, tensor<2x2x4xf32>)
  return %v, %i : tensor<2x2x4xf32>, tensor<2x2x4xf32>
}

// -----

// No axis: the flattened input (outer = inner = 1); a mask has the input's
// shape (mode 2); k < 1 is the whole axis.

// CHECK-LABEL: func.func @topk_flat_mask
// CHECK: mxrt.kernel_call @mxc_kernel_topk_f64(%{{.*}}) outs(%{{.*}}) args [1, 12, 1, 12, 1, 2] : (tensor<12xf64>, tensor<12xf64>) -> tensor<12xf64>
func.func @topk_flat_mask(%x: tensor<3x4xf64>) -> tensor<3x4xf64> {
  %m = mx.topk %x {k = 0 : i64, ret_typ = "mask", is_ascend = true} : (tensor<3x4xf64>) -> tensor<3x4xf64>
  return %m : tensor<3x4xf64>
}

// -----

// Integer positions are converted from the kernel's f32 result; f16 data is
// widened to f32 for the kernel. The unused hidden positions of `value` are
// not computed.

// CHECK-LABEL: func.func @topk_types
// CHECK: linalg.generic
// CHECK: arith.extf %{{.*}} : f16 to f32
// CHECK: mxrt.kernel_call @mxc_kernel_topk_f32({{.*}}) args [1, 4, 1, 2, 0, 1]
// CHECK: linalg.generic
// CHECK: arith.fptosi %{{.*}} : f32 to i32
// CHECK: mxrt.kernel_call @mxc_kernel_topk_f32({{.*}}) args [1, 4, 1, 2, 0, 0]
// CHECK-NOT: mxrt.kernel_call
// CHECK: arith.truncf %{{.*}} : f32 to f16
// CHECK: return
func.func @topk_types(%x: tensor<4xf16>) -> (tensor<2xi32>, tensor<2xf16>) {
  %i = mx.topk %x {k = 2 : i64, dtype = "int32"} : (tensor<4xf16>) -> tensor<2xi32>
  %v, %h = mx.topk %x {k = 2 : i64, ret_typ = "value"} : (tensor<4xf16>) -> (tensor<2xf16>, tensor<2xi32>)
  return %i, %v : tensor<2xi32>, tensor<2xf16>
}

// -----

// sort and argsort are topk over the whole axis (through the composite
// pattern when mx-decompose did not run).

// CHECK-LABEL: func.func @sort_argsort
// CHECK: mxrt.kernel_call @mxc_kernel_topk_f32(%{{.*}}) outs(%{{.*}}) args [1, 5, 3, 5, 1, 0]
// CHECK: mxrt.kernel_call @mxc_kernel_topk_f32(%{{.*}}) outs(%{{.*}}) args [5, 3, 1, 3, 0, 1]
func.func @sort_argsort(%x: tensor<5x3xf32>) -> (tensor<5x3xf32>, tensor<5x3xf32>) {
  %s, %h = mx.sort %x {axis = 0 : i64} : (tensor<5x3xf32>) -> (tensor<5x3xf32>, tensor<5x3xi32>)
  %a = mx.argsort %x {axis = -1 : i64, is_ascend = false} : (tensor<5x3xf32>) -> tensor<5x3xf32>
  return %s, %a : tensor<5x3xf32>, tensor<5x3xf32>
}

// -----

// Integer data: ordered as f64, the values converted back.

// CHECK-LABEL: func.func @topk_int
// CHECK: arith.sitofp %{{.*}} : i32 to f64
// CHECK: mxrt.kernel_call @mxc_kernel_topk_f64({{.*}}) args [1, 4, 1, 2, 0, 0]
// CHECK: arith.fptosi %{{.*}} : f64 to i32
func.func @topk_int(%x: tensor<4xi32>) -> tensor<2xi32> {
  %v, %h = mx.topk %x {k = 2 : i64, ret_typ = "value"} : (tensor<4xi32>) -> (tensor<2xi32>, tensor<2xi32>)
  return %v : tensor<2xi32>
}
