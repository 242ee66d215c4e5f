// RUN: mxc-opt %s --split-input-file --convert-mx-to-linalg | FileCheck %s

// Tests that sum over one axis with keepdims reduces into the kept axes and
// expands back to the inferred shape.
// CHECK-DAG: #[[IN:.+]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[OUT:.+]] = affine_map<(d0, d1, d2) -> (d0, d2)>
// CHECK-LABEL: func.func @sum_keepdims
// CHECK: %[[Z:.+]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[INIT:.+]] = linalg.fill ins(%[[Z]] : f32) outs(%{{.+}} : tensor<2x4xf32>)
// CHECK: %[[R:.+]] = linalg.generic {indexing_maps = [#[[IN]], #[[OUT]]], iterator_types = ["parallel", "reduction", "parallel"]} ins(%arg0 : tensor<2x3x4xf32>) outs(%[[INIT]] : tensor<2x4xf32>)
// CHECK: arith.addf
// CHECK: %[[E:.+]] = tensor.expand_shape %[[R]] {{\[}}[0], [1, 2]] output_shape [2, 1, 4] : tensor<2x4xf32> into tensor<2x1x4xf32>
// CHECK: return %[[E]]
func.func @sum_keepdims(%x: tensor<2x3x4xf32>) -> tensor<2x1x4xf32> {
  %0 = mx.sum %x {axis = array<i64: 1>, keepdims = true} : (tensor<2x3x4xf32>) -> tensor<2x1x4xf32>
  return %0 : tensor<2x1x4xf32>
}

// -----

// Tests that exclude reduces every axis not listed (negative axes count
// from the end).
// CHECK-LABEL: func.func @sum_exclude
// CHECK: linalg.generic {{.*}} iterator_types = ["reduction", "reduction", "parallel"]
// CHECK-SAME: outs(%{{.+}} : tensor<4xf32>)
func.func @sum_exclude(%x: tensor<2x3x4xf32>) -> tensor<4xf32> {
  %0 = mx.sum %x {axis = array<i64: -1>, exclude = true} : (tensor<2x3x4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Tests that mean over all axes (no axis attribute) reduces to a scalar,
// divides by the count and gives MXNet's shape (1,).
// CHECK-LABEL: func.func @mean_all
// CHECK: linalg.generic {{.*}} iterator_types = ["reduction", "reduction"]
// CHECK-SAME: outs(%{{.+}} : tensor<f32>)
// CHECK: %[[N:.+]] = arith.constant 6.000000e+00 : f32
// CHECK: arith.divf %{{.+}}, %[[N]] : f32
// CHECK: tensor.expand_shape %{{.+}} [] output_shape [1] : tensor<f32> into tensor<1xf32>
func.func @mean_all(%x: tensor<2x3xf32>) -> tensor<1xf32> {
  %0 = mx.mean %x : (tensor<2x3xf32>) -> tensor<1xf32>
  return %0 : tensor<1xf32>
}

// -----

// Tests that an f16 sum accumulates in f32 and truncates at the end.
// CHECK-LABEL: func.func @sum_f16
// CHECK: outs(%{{.+}} : tensor<2xf32>)
// CHECK: %[[W:.+]] = arith.extf %{{.+}} : f16 to f32
// CHECK: arith.addf %{{.+}}, %[[W]] : f32
// CHECK: arith.truncf %{{.+}} : f32 to f16
func.func @sum_f16(%x: tensor<2x3xf16>) -> tensor<2xf16> {
  %0 = mx.sum %x {axis = array<i64: 1>} : (tensor<2x3xf16>) -> tensor<2xf16>
  return %0 : tensor<2xf16>
}

// -----

// Tests that max starts from -inf and propagates NaN (maximumf); min on
// unsigned integers starts from the type's largest value and uses minui.
// CHECK-LABEL: func.func @max_min
// CHECK: %[[NINF:.+]] = arith.constant 0xFF800000 : f32
// CHECK: linalg.fill ins(%[[NINF]] : f32)
// CHECK: arith.maximumf
// (A ui8 fill is a generic that yields the i8 constant cast to ui8 in its
// body: a linalg.fill of a cast value reaches LLVM as a ui8 store.)
// CHECK: %[[MAXU:.+]] = arith.constant -1 : i8
// CHECK: %[[INIT:.+]] = linalg.generic
// CHECK-SAME: outs(%{{.+}} : tensor<2xui8>)
// CHECK: %[[MAXU8:.+]] = builtin.unrealized_conversion_cast %[[MAXU]] : i8 to ui8
// CHECK: linalg.yield %[[MAXU8]] : ui8
// CHECK: outs(%[[INIT]] : tensor<2xui8>)
// CHECK: arith.minui %{{.+}}, %{{.+}} : i8
func.func @max_min(%x: tensor<2x3xf32>, %u: tensor<2x3xui8>) -> (tensor<3xf32>, tensor<2xui8>) {
  %0 = mx.max %x {axis = array<i64: 0>} : (tensor<2x3xf32>) -> tensor<3xf32>
  %1 = mx.min %u {axis = array<i64: 1>} : (tensor<2x3xui8>) -> tensor<2xui8>
  return %0, %1 : tensor<3xf32>, tensor<2xui8>
}

// -----

// Tests that argmax tracks (value, index) in one reduction, takes the first
// maximum (or the first NaN), and gives the index in the input's type.
// CHECK-LABEL: func.func @argmax_axis
// CHECK: %[[R:.+]]:2 = linalg.generic {{.*}} iterator_types = ["parallel", "reduction", "parallel"]
// CHECK-SAME: outs(%{{.+}}, %{{.+}} : tensor<2x4xf32>, tensor<2x4xi64>)
// CHECK: ^bb0(%[[X:.+]]: f32, %[[CUR:.+]]: f32, %[[IDX:.+]]: i64):
// CHECK: %[[NUM:.+]] = arith.cmpf ord, %[[CUR]], %[[CUR]] : f32
// CHECK: %[[GT:.+]] = arith.cmpf ugt, %[[X]], %[[CUR]] : f32
// CHECK: %[[TAKE:.+]] = arith.andi %[[NUM]], %[[GT]] : i1
// CHECK: %[[J:.+]] = linalg.index 1 : index
// CHECK: %[[J64:.+]] = arith.index_cast %[[J]] : index to i64
// CHECK: arith.select %[[TAKE]], %[[J64]], %[[IDX]] : i64
// CHECK: linalg.generic {{.*}} ins(%[[R]]#1 : tensor<2x4xi64>)
// CHECK: arith.sitofp %{{.+}} : i64 to f32
func.func @argmax_axis(%x: tensor<2x3x4xf32>) -> tensor<2x4xf32> {
  %0 = mx.argmax %x {axis = 1 : i64} : (tensor<2x3x4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// Tests that argmax without an axis searches the flattened input.
// CHECK-LABEL: func.func @argmax_flat
// CHECK: %[[F:.+]] = tensor.collapse_shape %arg0 {{\[}}[0, 1]] : tensor<2x3xi32> into tensor<6xi32>
// CHECK: linalg.generic {{.*}} iterator_types = ["reduction"]} ins(%[[F]] : tensor<6xi32>)
// CHECK: arith.cmpi sgt
// CHECK: arith.trunci %{{.+}} : i64 to i32
// CHECK: tensor.expand_shape %{{.+}} [] output_shape [1] : tensor<i32> into tensor<1xi32>
func.func @argmax_flat(%x: tensor<2x3xi32>) -> tensor<1xi32> {
  %0 = mx.argmax %x : (tensor<2x3xi32>) -> tensor<1xi32>
  return %0 : tensor<1xi32>
}

// -----

// Tests that softmax is three passes: the max, the sum of exp((x - max) / t)
// and the normalisation.
// CHECK-DAG: #[[ID:.+]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[ROW:.+]] = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @softmax
// CHECK: %[[MAX:.+]] = linalg.generic {indexing_maps = [#[[ID]], #[[ROW]]], iterator_types = ["parallel", "reduction"]}
// CHECK: arith.maximumf
// CHECK: %[[SUM:.+]] = linalg.generic {indexing_maps = [#[[ID]], #[[ROW]], #[[ROW]]], iterator_types = ["parallel", "reduction"]} ins(%arg0, %[[MAX]] :
// CHECK: %[[D:.+]] = arith.subf
// CHECK: %[[T:.+]] = arith.constant 2.000000e+00 : f32
// CHECK: %[[Q:.+]] = arith.divf %[[D]], %[[T]] : f32
// CHECK: %[[E:.+]] = math.exp %[[Q]] : f32
// CHECK: arith.addf %{{.+}}, %[[E]] : f32
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[ROW]], #[[ROW]], #[[ID]]], iterator_types = ["parallel", "parallel"]} ins(%arg0, %[[MAX]], %[[SUM]] :
// CHECK: math.exp
// CHECK: arith.divf
func.func @softmax(%x: tensor<2x5xf32>) -> tensor<2x5xf32> {
  %0 = mx.softmax %x {temperature = 2.000000e+00 : f64} : (tensor<2x5xf32>) -> tensor<2x5xf32>
  return %0 : tensor<2x5xf32>
}

// -----

// Tests that log_softmax subtracts log(sum) and honours the dtype attribute.
// CHECK-LABEL: func.func @log_softmax
// CHECK: arith.extf %{{.+}} : f32 to f64
// CHECK: %[[L:.+]] = math.log %{{.+}} : f64
// CHECK: arith.subf %{{.+}}, %[[L]] : f64
// CHECK: -> tensor<2x5xf64>
func.func @log_softmax(%x: tensor<2x5xf32>) -> tensor<2x5xf64> {
  %0 = mx.log_softmax %x {axis = 1 : i64, dtype = "float64"} : (tensor<2x5xf32>) -> tensor<2x5xf64>
  return %0 : tensor<2x5xf64>
}

// -----

// Tests that softmax with use_length masks positions at or past the
// row's length (out of the max and sum, and 0 in the result).
// CHECK-LABEL: func.func @softmax_length
// CHECK: ^bb0(%{{.+}}: f32, %[[LEN:.+]]: i32, %{{.+}}: f32):
// CHECK: %[[N:.+]] = arith.extsi %[[LEN]] : i32 to i64
// CHECK: %[[J:.+]] = linalg.index 1 : index
// CHECK: %[[J64:.+]] = arith.index_cast %[[J]] : index to i64
// CHECK: arith.cmpi slt, %[[J64]], %[[N]] : i64
func.func @softmax_length(%x: tensor<2x5xf32>, %len: tensor<2xi32>) -> tensor<2x5xf32> {
  %0 = mx.softmax %x, %len {use_length = true} : (tensor<2x5xf32>, tensor<2xi32>) -> tensor<2x5xf32>
  return %0 : tensor<2x5xf32>
}

// -----

// Tests that SoftmaxOutput normalises over all axes but the first by
// default, over axis 1 with multi_output and over the last axis with
// preserve_shape; the label is not read.
// CHECK-LABEL: func.func @softmax_output
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "reduction", "reduction"]} ins(%arg0 :
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "reduction", "parallel"]} ins(%arg0 :
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]} ins(%arg0 :
// CHECK-NOT: %arg1
func.func @softmax_output(%x: tensor<2x3x4xf32>, %label: tensor<2x3x4xf32>) -> (tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>) {
  %0 = mx.SoftmaxOutput %x, %label : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %1 = mx.SoftmaxOutput %x, %label {multi_output = true} : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %2 = mx.SoftmaxOutput %x, %label {preserve_shape = true} : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  return %0, %1, %2 : tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>
}

// -----

// Tests softmax_backward on the CPU: the sum of dy * y (log_softmax: of dy)
// along the axis in f32 for f16 data, then y * (dy - s) (log: dy - exp(y)
// * s) rounded once.

// CHECK-LABEL: func.func @softmax_grad
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: -> tensor<4xf32>
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]
// CHECK: %[[D:.*]] = arith.subf
// CHECK: arith.mulf %{{.*}}, %[[D]] : f32
// CHECK: arith.truncf
// CHECK: linalg.generic {{.*}} iterator_types = ["reduction", "parallel"]
// CHECK-NOT: arith.mulf
// CHECK: -> tensor<10xf32>
// CHECK: math.exp
// CHECK: arith.subf
func.func @softmax_grad(%dy: tensor<4x10xf16>, %y: tensor<4x10xf16>) -> (tensor<4x10xf16>, tensor<4x10xf16>) {
  %0 = mx.softmax_backward %dy, %y {axis = 1 : i64} : (tensor<4x10xf16>, tensor<4x10xf16>) -> tensor<4x10xf16>
  %1 = mx.softmax_backward %dy, %y {axis = 0 : i64, log = true} : (tensor<4x10xf16>, tensor<4x10xf16>) -> tensor<4x10xf16>
  return %0, %1 : tensor<4x10xf16>, tensor<4x10xf16>
}

// -----

// Tests softmax on the CUDA target (mxc.cuda_target): f32 / f64 softmax,
// log_softmax and SoftmaxOutput over one block of axes are cuDNN's kernel
// calls with (outer, classes, inner, log), and so is their gradient; a
// temperature keeps the generated form.

// CHECK-LABEL: func.func @softmax_cuda
// CHECK-SAME: (%[[X:[^:]*]]: tensor<2x3x4x5xf32>, %[[D:[^:]*]]: tensor<2x3x4x5xf64>,
// CHECK: mxrt.kernel_call @mxc_kernel_softmax_f32(%[[X]]) outs(%{{.*}}) args [2, 3, 20, 0]
// CHECK: %[[L:.*]] = mxrt.kernel_call @mxc_kernel_softmax_f64(%[[D]]) outs(%{{.*}}) args [24, 5, 1, 1]
// CHECK: mxrt.kernel_call @mxc_kernel_softmax_f32(%[[X]]) outs(%{{.*}}) args [2, 60, 1, 0]
// CHECK: mxrt.kernel_call @mxc_kernel_softmax_backward_f64(%[[L]], %[[D]]) outs(%{{.*}}) args [24, 5, 1, 1]
// CHECK: linalg.generic
// CHECK-NOT: mxrt.kernel_call
// CHECK: return
module attributes {mxc.cuda_target} {
  func.func @softmax_cuda(%x: tensor<2x3x4x5xf32>, %d: tensor<2x3x4x5xf64>, %label: tensor<2x3x4xf32>) -> (tensor<2x3x4x5xf32>, tensor<2x3x4x5xf64>, tensor<2x3x4x5xf32>, tensor<2x3x4x5xf64>, tensor<2x3x4x5xf32>) {
    %0 = mx.softmax %x {axis = 1 : i64} : (tensor<2x3x4x5xf32>) -> tensor<2x3x4x5xf32>
    %1 = mx.log_softmax %d : (tensor<2x3x4x5xf64>) -> tensor<2x3x4x5xf64>
    %2 = mx.SoftmaxOutput %x, %label : (tensor<2x3x4x5xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4x5xf32>
    %3 = mx.softmax_backward %d, %1 {axis = -1 : i64, log = true} : (tensor<2x3x4x5xf64>, tensor<2x3x4x5xf64>) -> tensor<2x3x4x5xf64>
    %4 = mx.softmax %x {axis = 1 : i64, temperature = 2.0 : f64} : (tensor<2x3x4x5xf32>) -> tensor<2x3x4x5xf32>
    return %0, %1, %2, %3, %4 : tensor<2x3x4x5xf32>, tensor<2x3x4x5xf64>, tensor<2x3x4x5xf32>, tensor<2x3x4x5xf64>, tensor<2x3x4x5xf32>
  }
}
