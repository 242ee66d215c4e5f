// RUN: mxc-opt %s --split-input-file --convert-mx-to-linalg --verify-diagnostics | FileCheck %s

// Tests that max pooling pads with the lowest finite f32 (MXNet's initial
// maximum, so padding never wins) only where windows reach (valid: none
// after the input here) and reduces each window with maxnumf over a window
// operand of the kernel's shape, strided in the input map.

// CHECK-DAG: #[[IN:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2 * 2 + d4, d3 * 2 + d5)>
// CHECK-DAG: #[[WIN:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d4, d5)>
// CHECK-DAG: #[[OUT:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3)>
// CHECK-LABEL: func.func @max_pad
// CHECK: %[[LOWEST:.*]] = arith.constant -3.40282347E+38 : f32
// CHECK: %[[P:.*]] = tensor.pad %{{.*}} low[0, 0, 1, 1] high[0, 0, 0, 0]
// CHECK: tensor.yield %[[LOWEST]] : f32
// CHECK: %[[WINDOW:.*]] = tensor.empty() : tensor<3x3xf32>
// CHECK: %[[INIT:.*]] = linalg.fill
// CHECK: %[[R:.*]] = linalg.generic {indexing_maps = [#[[IN]], #[[WIN]], #[[OUT]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%[[P]], %[[WINDOW]] : tensor<1x2x9x9xf32>, tensor<3x3xf32>) outs(%[[INIT]] : tensor<1x2x4x4xf32>)
// CHECK: arith.maxnumf
// CHECK: return %[[R]]
func.func @max_pad(%x: tensor<1x2x8x8xf32>) -> tensor<1x2x4x4xf32> {
  %0 = mx.Pooling %x {kernel = array<i64: 3, 3>, pool_type = "max", stride = array<i64: 2, 2>, pad = array<i64: 1, 1>} : (tensor<1x2x8x8xf32>) -> tensor<1x2x4x4xf32>
  return %0 : tensor<1x2x4x4xf32>
}

// -----

// Tests that the full convention pads after the input as far as the last
// window reaches (8 + 1 -> 11 for out 5 of kernel 3, stride 2) and that avg
// with count_include_pad (MXNet's default) divides by per-position window
// sizes min(start + k, in + pad) - start: 3, 3, 3, 3, 2 along each axis, as
// constant vectors multiplied together.

// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-DAG: #[[H:.*]] = affine_map<(d0, d1, d2, d3) -> (d2)>
// CHECK-DAG: #[[W:.*]] = affine_map<(d0, d1, d2, d3) -> (d3)>
// CHECK-LABEL: func.func @avg_full
// CHECK: tensor.pad %{{.*}} low[0, 0, 1, 1] high[0, 0, 2, 2]
// CHECK: tensor.yield %{{.*}} : f32
// CHECK: } : tensor<1x2x8x8xf32> to tensor<1x2x11x11xf32>
// CHECK: %[[SUM:.*]] = linalg.generic
// CHECK: arith.addf
// CHECK: %[[SIZES:.*]] = arith.constant dense<[3.000000e+00, 3.000000e+00, 3.000000e+00, 3.000000e+00, 2.000000e+00]> : tensor<5xf32>
// CHECK: %[[SIZES2:.*]] = arith.constant dense<[3.000000e+00, 3.000000e+00, 3.000000e+00, 3.000000e+00, 2.000000e+00]> : tensor<5xf32>
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[H]], #[[W]], #[[ID]]], {{.*}}} ins(%[[SUM]], %[[SIZES]], %[[SIZES2]] : tensor<1x2x5x5xf32>, tensor<5xf32>, tensor<5xf32>)
// CHECK: ^bb0(%[[S:.*]]: f32, %[[A:.*]]: f32, %[[B:.*]]: f32, %{{.*}}: f32):
// CHECK: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK: %[[M1:.*]] = arith.mulf %[[ONE]], %[[A]]
// CHECK: %[[M2:.*]] = arith.mulf %[[M1]], %[[B]]
// CHECK: arith.divf %[[S]], %[[M2]]
func.func @avg_full(%x: tensor<1x2x8x8xf32>) -> tensor<1x2x5x5xf32> {
  %0 = mx.Pooling %x {kernel = array<i64: 3, 3>, pool_type = "avg", stride = array<i64: 2, 2>, pad = array<i64: 1, 1>, pooling_convention = "full"} : (tensor<1x2x8x8xf32>) -> tensor<1x2x5x5xf32>
  return %0 : tensor<1x2x5x5xf32>
}

// -----

// Tests that avg with count_include_pad = false divides by the clipped
// window: 2, 3, 3 along each axis of a 5-wide input (kernel 3, stride 2,
// pad 1), and that a uniform divisor would have been one constant.

// CHECK-LABEL: func.func @avg_exclude_pad
// CHECK: arith.constant dense<[2.000000e+00, 3.000000e+00, 2.000000e+00]> : tensor<3xf32>
func.func @avg_exclude_pad(%x: tensor<1x1x5x5xf32>) -> tensor<1x1x3x3xf32> {
  %0 = mx.Pooling %x {kernel = array<i64: 3, 3>, pool_type = "avg", stride = array<i64: 2, 2>, pad = array<i64: 1, 1>, count_include_pad = false} : (tensor<1x1x5x5xf32>) -> tensor<1x1x3x3xf32>
  return %0 : tensor<1x1x3x3xf32>
}

// -----

// Tests that global avg pooling ignores kernel, stride and pad: one window
// of the whole 7x7 extent, no padding, divided by the constant 49.

// CHECK-LABEL: func.func @global_avg
// CHECK-NOT: tensor.pad
// CHECK: tensor.empty() : tensor<7x7xf32>
// CHECK: linalg.generic
// CHECK-SAME: outs(%{{.*}} : tensor<2x3x1x1xf32>)
// CHECK: arith.constant 4.900000e+01 : f32
// CHECK: arith.divf
func.func @global_avg(%x: tensor<2x3x7x7xf32>) -> tensor<2x3x1x1xf32> {
  %0 = mx.Pooling %x {kernel = array<i64: 3, 3>, pool_type = "avg", global_pool = true, pad = array<i64: 1, 1>} : (tensor<2x3x7x7xf32>) -> tensor<2x3x1x1xf32>
  return %0 : tensor<2x3x1x1xf32>
}

// -----

// Tests that sum pooling of f16 accumulates in f32 (MXNet's AccType) and
// truncates the result; no division.

// CHECK-LABEL: func.func @sum_f16
// CHECK: linalg.generic
// CHECK-SAME: outs(%{{.*}} : tensor<1x2x3xf32>)
// CHECK: arith.extf %{{.*}} : f16 to f32
// CHECK: arith.addf
// CHECK: linalg.generic
// CHECK-NOT: arith.divf
// CHECK: arith.truncf %{{.*}} : f32 to f16
func.func @sum_f16(%x: tensor<1x2x6xf16>) -> tensor<1x2x3xf16> {
  %0 = mx.Pooling %x {kernel = array<i64: 2>, pool_type = "sum", stride = array<i64: 2>} : (tensor<1x2x6xf16>) -> tensor<1x2x3xf16>
  return %0 : tensor<1x2x3xf16>
}

// -----

// Tests that L2 pooling sums squares and takes the square root.

// CHECK-LABEL: func.func @lp2
// CHECK: %[[X2:.*]] = arith.mulf %[[IN:.*]], %[[IN]] : f32
// CHECK: arith.addf %{{.*}}, %[[X2]] : f32
// CHECK: math.sqrt
func.func @lp2(%x: tensor<1x1x4x4xf32>) -> tensor<1x1x2x2xf32> {
  %0 = mx.Pooling %x {kernel = array<i64: 2, 2>, pool_type = "lp", p_value = 2 : i64, stride = array<i64: 2, 2>} : (tensor<1x1x4x4xf32>) -> tensor<1x1x2x2xf32>
  return %0 : tensor<1x1x2x2xf32>
}

// -----

// Tests that channel-last pooling (a composite, see mx-decompose) is lowered
// as NCHW pooling between transposes.

// CHECK-LABEL: func.func @pool_nhwc
// CHECK: linalg.transpose ins(%{{.*}} : tensor<1x8x8x3xf32>) outs(%{{.*}} : tensor<1x3x8x8xf32>) permutation = [0, 3, 1, 2]
// CHECK: %[[P:.*]] = linalg.generic
// CHECK: linalg.transpose ins(%[[P]] : tensor<1x3x4x4xf32>) outs(%{{.*}} : tensor<1x4x4x3xf32>) permutation = [0, 2, 3, 1]
func.func @pool_nhwc(%x: tensor<1x8x8x3xf32>) -> tensor<1x4x4x3xf32> {
  %0 = mx.Pooling %x {kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>, layout = "NHWC"} : (tensor<1x8x8x3xf32>) -> tensor<1x4x4x3xf32>
  return %0 : tensor<1x4x4x3xf32>
}

// -----

// Tests Pooling on the CUDA target (mxc.cuda_target): max / avg / sum of
// f32 / f64 with windows cuDNN takes are cuDNN's forward, a kernel call with
// the gradient kernel's arguments (kind, p, count_include_pad, planes, then
// in, kernel, out, stride, pad as 3-D triples); 'full' convention and lp
// pooling stay generated.

// CHECK-LABEL: func.func @pool_cuda
// CHECK-SAME: (%[[X:[^:]*]]: tensor<2x3x9x9xf32>, %[[D:[^:]*]]: tensor<2x3x8xf64>)
// CHECK: mxrt.kernel_call @mxc_kernel_pooling_forward_f32(%[[X]]) outs(%{{.*}}) args [0, 1, 1, 6, 1, 9, 9, 1, 3, 3, 1, 5, 5, 1, 2, 2, 0, 1, 1]
// CHECK: mxrt.kernel_call @mxc_kernel_pooling_forward_f32(%[[X]]) outs(%{{.*}}) args [1, 1, 0, 6, 1, 9, 9, 1, 3, 3, 1, 9, 9, 1, 1, 1, 0, 1, 1]
// CHECK: mxrt.kernel_call @mxc_kernel_pooling_forward_f64(%[[D]]) outs(%{{.*}}) args [2, 1, 1, 6, 1, 1, 8, 1, 1, 8, 1, 1, 1, 1, 1, 1, 0, 0, 0]
// CHECK-NOT: mxrt.kernel_call
// CHECK: return
module attributes {mxc.cuda_target} {
  func.func @pool_cuda(%x: tensor<2x3x9x9xf32>, %d: tensor<2x3x8xf64>) -> (tensor<2x3x5x5xf32>, tensor<2x3x9x9xf32>, tensor<2x3x1xf64>, tensor<2x3x5x5xf32>, tensor<2x3x8x8xf32>) {
    %0 = mx.Pooling %x {kernel = array<i64: 3, 3>, pool_type = "max", stride = array<i64: 2, 2>, pad = array<i64: 1, 1>} : (tensor<2x3x9x9xf32>) -> tensor<2x3x5x5xf32>
    %1 = mx.Pooling %x {kernel = array<i64: 3, 3>, pool_type = "avg", pad = array<i64: 1, 1>, count_include_pad = false} : (tensor<2x3x9x9xf32>) -> tensor<2x3x9x9xf32>
    %2 = mx.Pooling %d {global_pool = true, kernel = array<i64: 1>, pool_type = "sum"} : (tensor<2x3x8xf64>) -> tensor<2x3x1xf64>
    %3 = mx.Pooling %x {kernel = array<i64: 2, 2>, pool_type = "max", stride = array<i64: 2, 2>, pooling_convention = "full"} : (tensor<2x3x9x9xf32>) -> tensor<2x3x5x5xf32>
    %4 = mx.Pooling %x {kernel = array<i64: 2, 2>, pool_type = "lp", p_value = 2 : i64} : (tensor<2x3x9x9xf32>) -> tensor<2x3x8x8xf32>
    return %0, %1, %2, %3, %4 : tensor<2x3x5x5xf32>, tensor<2x3x9x9xf32>, tensor<2x3x1xf64>, tensor<2x3x5x5xf32>, tensor<2x3x8x8xf32>
  }
}
