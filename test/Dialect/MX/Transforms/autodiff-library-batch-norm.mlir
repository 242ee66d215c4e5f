// RUN: mxc-opt %s --split-input-file --mx-autodiff='library-batch-norm=true' | FileCheck %s

// mx-autodiff's library-batch-norm (the CUDA target's choice): a training
// BatchNorm becomes one mx.BatchNorm_train, its gradient one
// mx.BatchNorm_backward; the moving statistics are updated from the op's
// mean and biased variance with momentum as in the composed form; MXNet's
// hidden var output is the op's invstd.

// CHECK-LABEL: func.func @main
// CHECK-SAME: %[[X:[^:]*]]: tensor<2x3x2x2xf32> {mx.kind = "data", mx.name = "data"}, %[[G:[^:]*]]: tensor<3xf32> {mx.kind = "param", mx.name = "bn_gamma"}, %[[B:[^:]*]]: tensor<3xf32> {mx.kind = "param", mx.name = "bn_beta"}
// CHECK-SAME: %[[MM:[^:]*]]: tensor<3xf32> {mx.kind = "aux", mx.name = "bn_moving_mean"}, %[[MV:[^:]*]]: tensor<3xf32> {mx.kind = "aux", mx.name = "bn_moving_var"}, %[[DY:[^:]*]]: tensor<2x3x2x2xf32> {mx.kind = "head_grad", mx.name = "bn_output_grad"})
// CHECK-NOT: mx.mean
// CHECK: %[[Y:[^ ]*]], %[[YM:[^ ]*]], %[[YV:[^ ]*]], %[[YI:[^ ]*]] = mx.BatchNorm_train %[[X]], %[[G]], %[[B]] {eps = 0.0010000000474974513 : f64}
// CHECK-SAME: -> (tensor<2x3x2x2xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>)
// CHECK-DAG: %[[A:.*]] = mx._mul_scalar %[[MM]] {is_int = false, scalar = 9.000000e-01 : f64}
// CHECK-DAG: %[[S:.*]] = mx._mul_scalar %[[YM]]
// CHECK-DAG: %[[A2:.*]] = mx._mul_scalar %[[MV]] {is_int = false, scalar = 9.000000e-01 : f64}
// CHECK-DAG: %[[S2:.*]] = mx._mul_scalar %[[YV]]
// CHECK-DAG: %[[NEWM:.*]] = mx.elemwise_add %[[A]], %[[S]]
// CHECK-DAG: %[[NEWV:.*]] = mx.elemwise_add %[[A2]], %[[S2]]
// CHECK: %[[DX:[^ ]*]], %[[DG:[^ ]*]], %[[DB:[^ ]*]] = mx.BatchNorm_backward %[[DY]], %[[X]], %[[G]], %[[YM]], %[[YI]] {eps = 0.0010000000474974513 : f64}
// CHECK-NOT: mx.mean
// CHECK: return %[[Y]], %[[DG]], %[[DB]], %[[NEWM]], %[[NEWV]]
func.func @main(%x: tensor<2x3x2x2xf32> {mx.kind = "data", mx.name = "data"}, %g: tensor<3xf32> {mx.kind = "param", mx.name = "bn_gamma"}, %b: tensor<3xf32> {mx.kind = "param", mx.name = "bn_beta"}, %mm: tensor<3xf32> {mx.kind = "aux", mx.name = "bn_moving_mean"}, %mv: tensor<3xf32> {mx.kind = "aux", mx.name = "bn_moving_var"}) -> (tensor<2x3x2x2xf32> {mx.name = "bn_output"}) {
  %0:3 = mx.BatchNorm %x, %g, %b, %mm, %mv {fix_gamma = false} : (tensor<2x3x2x2xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3x2x2xf32>, tensor<3xf32>, tensor<3xf32>) loc("bn")
  return %0#0 : tensor<2x3x2x2xf32>
}

// -----

// fix_gamma (MXNet's default): ones as the scale, so gamma's gradient is
// zeros (nothing reaches it); a channel axis other than 1 (axis -1 of a
// rank-3 input), and the mean / var outputs (output_mean_var) are the op's
// mean and invstd.

// CHECK-LABEL: func.func @main
// CHECK-SAME: %[[X:[^:]*]]: tensor<4x2x5xf64>
// CHECK-SAME: %[[G:[^:]*]]: tensor<5xf64> {mx.kind = "param", mx.name = "bn_gamma"}, %[[B:[^:]*]]: tensor<5xf64>
// CHECK: %[[ONES:.*]] = mx.ones_like %[[G]]
// CHECK: %[[Y:[^ ]*]], %[[YM:[^ ]*]], %[[YV:[^ ]*]], %[[YI:[^ ]*]] = mx.BatchNorm_train %[[X]], %[[ONES]], %[[B]] {axis = 2 : i64, eps
// CHECK: %[[DX:[^ ]*]], %[[DG:[^ ]*]], %[[DB:[^ ]*]] = mx.BatchNorm_backward %{{.*}}, %[[X]], %[[ONES]], %[[YM]], %[[YI]]
// CHECK: %[[ZG:.*]] = mx.zeros_like %[[G]]
// CHECK: return %[[Y]], %[[YM]], %[[YI]], %[[ZG]], %[[DB]],
func.func @main(%x: tensor<4x2x5xf64> {mx.kind = "data", mx.name = "data"}, %g: tensor<5xf64> {mx.kind = "param", mx.name = "bn_gamma"}, %b: tensor<5xf64> {mx.kind = "param", mx.name = "bn_beta"}, %mm: tensor<5xf64> {mx.kind = "aux", mx.name = "bn_moving_mean"}, %mv: tensor<5xf64> {mx.kind = "aux", mx.name = "bn_moving_var"}) -> (tensor<4x2x5xf64> {mx.name = "bn_output"}, tensor<5xf64> {mx.name = "bn_mean"}, tensor<5xf64> {mx.name = "bn_var"}) {
  %0:3 = mx.BatchNorm %x, %g, %b, %mm, %mv {axis = -1 : i64, output_mean_var = true} : (tensor<4x2x5xf64>, tensor<5xf64>, tensor<5xf64>, tensor<5xf64>, tensor<5xf64>) -> (tensor<4x2x5xf64>, tensor<5xf64>, tensor<5xf64>) loc("bn")
  return %0#0, %0#1, %0#2 : tensor<4x2x5xf64>, tensor<5xf64>, tensor<5xf64>
}

// -----

// What the library kernels do not take keeps the composed form:
// use_global_stats (the moving statistics as constants), one element a
// channel.

// CHECK-LABEL: func.func @main
// CHECK-NOT: mx.BatchNorm_train
// CHECK: mx.BlockGrad
// CHECK-NOT: mx.BatchNorm_train
// CHECK: return
func.func @main(%x: tensor<2x3xf32> {mx.kind = "data", mx.name = "data"}, %g: tensor<3xf32> {mx.kind = "param", mx.name = "bn_gamma"}, %b: tensor<3xf32> {mx.kind = "param", mx.name = "bn_beta"}, %mm: tensor<3xf32> {mx.kind = "aux", mx.name = "bn_moving_mean"}, %mv: tensor<3xf32> {mx.kind = "aux", mx.name = "bn_moving_var"}) -> (tensor<2x3xf32> {mx.name = "bn_output"}) {
  %0:3 = mx.BatchNorm %x, %g, %b, %mm, %mv {fix_gamma = false, use_global_stats = true} : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>) loc("bn")
  return %0#0 : tensor<2x3xf32>
}

// -----

// CHECK-LABEL: func.func @main
// CHECK-NOT: mx.BatchNorm_train
// CHECK: mx.mean
// CHECK-NOT: mx.BatchNorm_train
// CHECK: return
func.func @main(%x: tensor<1x3xf32> {mx.kind = "data", mx.name = "data"}, %g: tensor<3xf32> {mx.kind = "param", mx.name = "bn_gamma"}, %b: tensor<3xf32> {mx.kind = "param", mx.name = "bn_beta"}, %mm: tensor<3xf32> {mx.kind = "aux", mx.name = "bn_moving_mean"}, %mv: tensor<3xf32> {mx.kind = "aux", mx.name = "bn_moving_var"}) -> (tensor<1x3xf32> {mx.name = "bn_output"}) {
  %0:3 = mx.BatchNorm %x, %g, %b, %mm, %mv {fix_gamma = false} : (tensor<1x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<1x3xf32>, tensor<3xf32>, tensor<3xf32>) loc("bn")
  return %0#0 : tensor<1x3xf32>
}
