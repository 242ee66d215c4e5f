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

// Tests that LRN zero-pads the channel axis by nsize / 2, sums squares over
// a window of nsize channels, and yields out = x * (knorm + alpha / nsize *
// sum)^(-beta) and tmp_norm = knorm + alpha / nsize * sum from one generic.

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
// CHECK: %[[NB:.*]] = arith.constant -7.500000e-01 : f32
// CHECK: %[[POW:.*]] = math.powf %[[NORM]], %[[NB]]
// CHECK: %[[Y:.*]] = arith.mulf %{{.*}}, %[[POW]]
// CHECK: linalg.yield %[[Y]], %[[NORM]]
// CHECK: return %[[R]]#0, %[[R]]#1
func.func @lrn(%x: tensor<1x8x4x4xf32>) -> (tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>) {
  %out, %norm = mx.LRN %x {nsize = 5 : i64} : (tensor<1x8x4x4xf32>) -> (tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>)
  return %out, %norm : tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>
}

// -----

// Tests that an even nsize (MXNet's channel window must be centred) is
// rejected with a one-line error at the node.

func.func @lrn_even(%x: tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32> {
  // expected-error @+1 {{cannot lower LRN: nsize must be odd (MXNet's channel window is centred), got 4}}
  %out, %norm = mx.LRN %x {nsize = 4 : i64} : (tensor<1x8x4x4xf32>) -> (tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>)
  return %out : tensor<1x8x4x4xf32>
}
