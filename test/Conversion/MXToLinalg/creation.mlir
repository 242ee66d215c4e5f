// RUN: mxc-opt %s --split-input-file --convert-mx-to-linalg | FileCheck %s

// Tests that _zeros / _full fill with DType(value) and _arange computes
// MXNet's range_fwd, DType(start) + (i / repeat) * DType(step), in the
// element type (float32 here; int32 in int64 arithmetic, truncated).
// CHECK-LABEL: func.func @creation
// CHECK: %[[Z:.+]] = arith.constant 0.000000e+00 : f32
// CHECK: linalg.fill ins(%[[Z]] : f32) outs(%{{.+}} : tensor<2x3xf32>)
// CHECK: %[[F:.+]] = arith.constant -2 : i32
// CHECK: linalg.fill ins(%[[F]] : i32) outs(%{{.+}} : tensor<4xi32>)
// CHECK: linalg.generic
// CHECK: arith.divui
// CHECK: arith.sitofp %{{.+}} : i64 to f32
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: linalg.generic
// CHECK: arith.muli
// CHECK: arith.addi
// CHECK: arith.trunci %{{.+}} : i64 to i32
func.func @creation() -> (tensor<2x3xf32>, tensor<4xi32>, tensor<8xf32>, tensor<5xi32>) {
  %0 = mx._zeros {shape = array<i64: 2, 3>} : () -> tensor<2x3xf32>
  %1 = mx._full {shape = array<i64: 4>, value = -2.7 : f64, dtype = "int32"} : () -> tensor<4xi32>
  %2 = mx._arange {start = 0.5 : f64, stop = 2.5 : f64, step = 0.5 : f64, repeat = 2 : i64} : () -> tensor<8xf32>
  %3 = mx._arange {start = 5.0 : f64, dtype = "int32"} : () -> tensor<5xi32>
  return %0, %1, %2, %3 : tensor<2x3xf32>, tensor<4xi32>, tensor<8xf32>, tensor<5xi32>
}

// -----

// Tests that _eye selects 1 where j - i == k.
// CHECK-LABEL: func.func @eye
// CHECK: linalg.generic
// CHECK: %[[D:.+]] = arith.subi %{{.+}}, %{{.+}} : index
// CHECK: arith.cmpi eq, %[[D]], %{{.+}} : index
// CHECK: arith.select
func.func @eye() -> tensor<3x4xf32> {
  %0 = mx._eye {N = 3 : i64, M = 4 : i64, k = 1 : i64} : () -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}
