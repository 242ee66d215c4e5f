// RUN: mxc-opt %s --split-input-file --convert-mx-to-linalg --verify-diagnostics | FileCheck %s

// Tests that inference BatchNorm normalises with the moving statistics:
// invstd = 1 / sqrt(moving_var + eps) per channel, then
// (x - moving_mean) * invstd * gamma + beta along axis 1; the hidden outputs
// are moving_mean itself and invstd (what MXNet stores as var).

// CHECK-DAG: #[[VEC:.*]] = affine_map<(d0) -> (d0)>
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-DAG: #[[CH:.*]] = affine_map<(d0, d1, d2, d3) -> (d1)>
// CHECK-LABEL: func.func @batch_norm
// CHECK-SAME: (%[[X:.*]]: tensor<2x4x3x3xf32>, %[[G:.*]]: tensor<4xf32>, %[[B:.*]]: tensor<4xf32>, %[[MM:.*]]: tensor<4xf32>, %[[MV:.*]]: tensor<4xf32>)
// CHECK: %[[INVSTD:.*]] = linalg.generic {indexing_maps = [#[[VEC]], #[[VEC]]], iterator_types = ["parallel"]} ins(%[[MV]] : tensor<4xf32>)
// CHECK: %[[EPS:.*]] = arith.constant 9.99999974E-6 : f32
// CHECK: %[[V:.*]] = arith.addf %{{.*}}, %[[EPS]]
// CHECK: %[[S:.*]] = math.sqrt %[[V]]
// CHECK: arith.divf %{{.*}}, %[[S]]
// CHECK: %[[OUT:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[CH]], #[[CH]], #[[CH]], #[[CH]], #[[ID]]], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%[[X]], %[[MM]], %[[INVSTD]], %[[B]], %[[G]] : {{.*}})
// CHECK: ^bb0(%[[XI:.*]]: f32, %[[MI:.*]]: f32, %[[II:.*]]: f32, %[[BI:.*]]: f32, %[[GI:.*]]: f32, %{{.*}}: f32):
// CHECK: %[[D:.*]] = arith.subf %[[XI]], %[[MI]]
// CHECK: %[[N:.*]] = arith.mulf %[[D]], %[[II]]
// CHECK: %[[SC:.*]] = arith.mulf %[[N]], %[[GI]]
// CHECK: arith.addf %[[SC]], %[[BI]]
// CHECK: return %[[OUT]], %[[MM]], %[[INVSTD]]
func.func @batch_norm(%x: tensor<2x4x3x3xf32>, %g: tensor<4xf32>, %b: tensor<4xf32>, %mm: tensor<4xf32>, %mv: tensor<4xf32>) -> (tensor<2x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>) {
  %o, %mean, %var = mx.BatchNorm %x, %g, %b, %mm, %mv {eps = 1.000000e-05 : f64, fix_gamma = false} : (tensor<2x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<2x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>)
  return %o, %mean, %var : tensor<2x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// Tests that fix_gamma (MXNet's default) leaves gamma out, that
// use_global_stats changes nothing in inference, and that a negative axis
// selects the last dimension.

// CHECK-DAG: #[[LAST:.*]] = affine_map<(d0, d1, d2) -> (d2)>
// CHECK-LABEL: func.func @batch_norm_fix_gamma_last_axis
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #[[LAST]], #[[LAST]], #[[LAST]], #{{.*}}], {{.*}}} ins(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : tensor<2x3x5xf32>, tensor<5xf32>, tensor<5xf32>, tensor<5xf32>)
// CHECK: arith.subf
// CHECK-NEXT: arith.mulf
// CHECK-NEXT: arith.addf
func.func @batch_norm_fix_gamma_last_axis(%x: tensor<2x3x5xf32>, %g: tensor<5xf32>, %b: tensor<5xf32>, %mm: tensor<5xf32>, %mv: tensor<5xf32>) -> tensor<2x3x5xf32> {
  %o, %mean, %var = mx.BatchNorm %x, %g, %b, %mm, %mv {axis = -1 : i64, use_global_stats = true} : (tensor<2x3x5xf32>, tensor<5xf32>, tensor<5xf32>, tensor<5xf32>, tensor<5xf32>) -> (tensor<2x3x5xf32>, tensor<5xf32>, tensor<5xf32>)
  return %o : tensor<2x3x5xf32>
}

// -----

// Tests that f16 data normalises in f32 with its f32 parameters and is
// truncated back.

// CHECK-LABEL: func.func @batch_norm_f16
// CHECK: arith.extf %{{.*}} : f16 to f32
// CHECK: arith.truncf %{{.*}} : f32 to f16
func.func @batch_norm_f16(%x: tensor<2x4xf16>, %g: tensor<4xf32>, %b: tensor<4xf32>, %mm: tensor<4xf32>, %mv: tensor<4xf32>) -> tensor<2x4xf16> {
  %o, %mean, %var = mx.BatchNorm %x, %g, %b, %mm, %mv : (tensor<2x4xf16>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<2x4xf16>, tensor<4xf32>, tensor<4xf32>)
  return %o : tensor<2x4xf16>
}

// -----

// Tests that an f32 LRN becomes the runtime's kernel: mxc_kernel_lrn_norm_f32
// writes out and tmp_norm when tmp_norm is read, with (outer, channels,
// inner, nsize) and the bits of alpha, beta and knorm as doubles of floats.

// CHECK-LABEL: func.func @lrn_kernel
// CHECK: %[[R:.*]]:2 = mxrt.kernel_call @mxc_kernel_lrn_norm_f32(%{{.*}}) outs(%{{.*}}, %{{.*}}) args [1, 8, 16, 5, 4547007121832542208, 4604930618986332160, 4611686018427387904]
// CHECK: return %[[R]]#0, %[[R]]#1
func.func @lrn_kernel(%x: tensor<1x8x4x4xf32>) -> (tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>) {
  %out, %norm = mx.LRN %x {nsize = 5 : i64} : (tensor<1x8x4x4xf32>) -> (tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>)
  return %out, %norm : tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>
}

// -----

// Tests that without a reader of tmp_norm the kernel writes out alone.

// CHECK-LABEL: func.func @lrn_kernel_out
// CHECK: %[[R:.*]] = mxrt.kernel_call @mxc_kernel_lrn_f32(%{{.*}}) outs(%{{.*}}) args [2, 3, 10, 3
// CHECK: return %[[R]]
func.func @lrn_kernel_out(%x: tensor<2x3x2x5xf32>) -> tensor<2x3x2x5xf32> {
  %out, %norm = mx.LRN %x {nsize = 3 : i64} : (tensor<2x3x2x5xf32>) -> (tensor<2x3x2x5xf32>, tensor<2x3x2x5xf32>)
  return %out : tensor<2x3x2x5xf32>
}

// -----

// Tests that LRN without the runtime's kernels zero-pads the channel axis by
// nsize / 2, sums squares over a window of nsize channels, and yields out =
// x * (knorm + alpha / nsize * sum)^(-beta) and tmp_norm = knorm + alpha /
// nsize * sum from one generic; beta 0.75 as 1 / (sqrt(t) * sqrt(sqrt(t))).

// CHECK-DAG: #[[IN:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1 + d4, d2, d3)>
// CHECK-DAG: #[[WIN:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d4)>
// CHECK-LABEL: func.func @lrn
// CHECK: %[[P:.*]] = tensor.pad %{{.*}} low[0, 2, 0, 0] high[0, 2, 0, 0]
// CHECK: } : tensor<1x8x4x4xf32> to tensor<1x12x4x4xf32>
// CHECK: %[[SUMS:.*]] = linalg.generic {indexing_maps = [#[[IN]], #[[WIN]], #{{.*}}], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]} ins(%[[P]], %{{.*}} : tensor<1x12x4x4xf32>, tensor<5xf32>)
// CHECK: %[[SQ:.*]] = arith.mulf %[[V:.*]], %[[V]]
// CHECK: arith.addf %{{.*}}, %[[SQ]]
// CHECK: %[[R:.*]]:2 = linalg.generic {{.*}} ins(%{{.*}}, %[[SUMS]] : tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>) outs(%{{.*}}, %{{.*}} : tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>)
// CHECK-DAG: %[[K:.*]] = arith.constant 2.000000e+00 : f32
// CHECK-DAG: %[[SALPHA:.*]] = arith.constant 2.000000e-05 : f32
// CHECK: %[[AS:.*]] = arith.mulf %[[SALPHA]], %{{.*}}
// CHECK: %[[NORM:.*]] = arith.addf %[[K]], %[[AS]]
// CHECK: %[[ROOT:.*]] = math.sqrt %[[NORM]]
// CHECK: %[[ROOT2:.*]] = math.sqrt %[[ROOT]]
// CHECK: %[[DEN:.*]] = arith.mulf %[[ROOT]], %[[ROOT2]]
// CHECK: %[[SCALE:.*]] = arith.divf %{{.*}}, %[[DEN]]
// CHECK: %[[Y:.*]] = arith.mulf %{{.*}}, %[[SCALE]]
// CHECK: linalg.yield %[[Y]], %[[NORM]]
// CHECK: return %[[R]]#0, %[[R]]#1
module attributes {mxc.kernel_calls = false} {
  func.func @lrn(%x: tensor<1x8x4x4xf32>) -> (tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>) {
    %out, %norm = mx.LRN %x {nsize = 5 : i64} : (tensor<1x8x4x4xf32>) -> (tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>)
    return %out, %norm : tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>
  }
}

// -----

// Tests that another exponent keeps powf.

// CHECK-LABEL: func.func @lrn_pow
// CHECK: %[[NB:.*]] = arith.constant -6.000000e-01 : f32
// CHECK: math.powf %{{.*}}, %[[NB]]
module attributes {mxc.kernel_calls = false} {
  func.func @lrn_pow(%x: tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32> {
    %out, %norm = mx.LRN %x {nsize = 5 : i64, beta = 6.000000e-01 : f64} : (tensor<1x8x4x4xf32>) -> (tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>)
    return %out : tensor<1x8x4x4xf32>
  }
}

// -----

// Tests that an even nsize (MXNet's channel window must be centred) is
// rejected with a one-line error at the node.

func.func @lrn_even(%x: tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32> {
  // expected-error @+1 {{cannot lower LRN: nsize must be odd (MXNet's channel window is centred), got 4}}
  %out, %norm = mx.LRN %x {nsize = 4 : i64} : (tensor<1x8x4x4xf32>) -> (tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>)
  return %out : tensor<1x8x4x4xf32>
}
