// RUN: mxc-opt %s --split-input-file --mx-autodiff | FileCheck %s

// mx-autodiff with the default options (wrt = every param, grad-req write):
// a head gradient argument per result, the gradients as extra results, the
// sum of the gradients of a value with several uses.

// CHECK-LABEL: func.func @main
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32> {mx.kind = "param", mx.name = "x"}, %[[G:.*]]: tensor<2x3xf32> {mx.kind = "head_grad", mx.name = "out_grad"})
// CHECK-SAME: -> (tensor<2x3xf32> {mx.name = "out"}, tensor<2x3xf32> {mx.kind = "grad", mx.name = "x_grad"})
// CHECK-NEXT: %[[T:.*]] = mx.tanh %[[X]]
// CHECK-NEXT: %[[Y:.*]] = mx.elemwise_mul %[[T]], %[[X]]
// d(out)/d(t) and d(out)/d(x) through the mul:
// CHECK-NEXT: %[[DT:.*]] = mx.elemwise_mul %[[G]], %[[X]]
// CHECK-NEXT: %[[DX1:.*]] = mx.elemwise_mul %[[G]], %[[T]]
// tanh' = 1 - tanh^2:
// CHECK-NEXT: %[[SQ:.*]] = mx.square %[[T]]
// CHECK-NEXT: %[[D:.*]] = mx._rminus_scalar %[[SQ]]
// CHECK-NEXT: %[[DX2:.*]] = mx.elemwise_mul %[[DT]], %[[D]]
// x has two uses: the gradients are summed.
// CHECK-NEXT: %[[DX:.*]] = mx.elemwise_add %[[DX1]], %[[DX2]]
// CHECK-NEXT: return %[[Y]], %[[DX]]
func.func @main(%x: tensor<2x3xf32> {mx.kind = "param", mx.name = "x"}) -> (tensor<2x3xf32> {mx.name = "out"}) {
  %0 = mx.tanh %x : (tensor<2x3xf32>) -> tensor<2x3xf32> loc("t")
  %1 = mx.elemwise_mul %0, %x : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32> loc("m")
  return %1 : tensor<2x3xf32>
}

// -----

// Two results, two head gradients; the data argument gets no gradient, and
// only params do; the broadcast sum's gradient is broadcast back.

// CHECK-LABEL: func.func @main
// CHECK-SAME: (%[[D:.*]]: tensor<4xf32> {mx.kind = "data", mx.name = "data"}, %[[W:.*]]: tensor<4xf32> {mx.kind = "param", mx.name = "w"}, %[[B:.*]]: tensor<4xf32> {mx.kind = "param", mx.name = "b"}, %[[GY:.*]]: tensor<4xf32> {mx.kind = "head_grad", mx.name = "y_grad"}, %[[GS:.*]]: tensor<1xf32> {mx.kind = "head_grad", mx.name = "s_grad"})
// CHECK-SAME: -> (tensor<4xf32> {mx.name = "y"}, tensor<1xf32> {mx.name = "s"}, tensor<4xf32> {mx.kind = "grad", mx.name = "w_grad"}, tensor<4xf32> {mx.kind = "grad", mx.name = "b_grad"})
// CHECK: %[[Z:.*]] = mx.zeros_like
// CHECK-NEXT: %[[BS:.*]] = mx.broadcast_add %[[Z]], %[[GS]]
// CHECK-NEXT: %[[G1:.*]] = mx.elemwise_add %[[GY]], %[[BS]]
// CHECK-NEXT: %[[GW:.*]] = mx.elemwise_mul %[[G1]], %[[D]]
// CHECK-NEXT: return %{{.*}}, %{{.*}}, %[[GW]], %[[G1]]
func.func @main(%d: tensor<4xf32> {mx.kind = "data", mx.name = "data"}, %w: tensor<4xf32> {mx.kind = "param", mx.name = "w"}, %b: tensor<4xf32> {mx.kind = "param", mx.name = "b"}) -> (tensor<4xf32> {mx.name = "y"}, tensor<1xf32> {mx.name = "s"}) {
  %0 = mx.elemwise_mul %d, %w : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> loc("mul")
  %1 = mx.elemwise_add %0, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32> loc("add")
  %2 = mx.sum %1 : (tensor<4xf32>) -> tensor<1xf32> loc("sum")
  return %1, %2 : tensor<4xf32>, tensor<1xf32>
}

// -----

// BatchNorm in training: batch statistics (mean, biased variance), the
// running statistics updated with momentum 0.9 and returned as aux_out.

// CHECK-LABEL: func.func @main
// CHECK-SAME: %[[X:[^:]*]]: tensor<2x3x2x2xf32> {mx.kind = "data", mx.name = "data"}
// CHECK-SAME: %[[MM:[^:]*]]: tensor<3xf32> {mx.kind = "aux", mx.name = "bn_moving_mean"}, %[[MV:[^:]*]]: tensor<3xf32> {mx.kind = "aux", mx.name = "bn_moving_var"}, %{{.*}}: tensor<2x3x2x2xf32> {mx.kind = "head_grad", mx.name = "bn_output_grad"})
// CHECK-SAME: -> (tensor<2x3x2x2xf32> {mx.name = "bn_output"}, tensor<3xf32> {mx.kind = "grad", mx.name = "bn_gamma_grad"}, tensor<3xf32> {mx.kind = "grad", mx.name = "bn_beta_grad"}, tensor<3xf32> {mx.kind = "aux_out", mx.name = "bn_moving_mean"}, tensor<3xf32> {mx.kind = "aux_out", mx.name = "bn_moving_var"})
// CHECK-NOT: mx.BatchNorm
// CHECK: %[[MEAN:.*]] = mx.mean %[[X]] {axis = array<i64: 0, 2, 3>, keepdims = true}
// CHECK-NEXT: %[[C:.*]] = mx.broadcast_sub %[[X]], %[[MEAN]]
// CHECK-NEXT: %[[SQ:.*]] = mx.square %[[C]]
// CHECK-NEXT: %[[VAR:.*]] = mx.mean %[[SQ]] {axis = array<i64: 0, 2, 3>, keepdims = true}
// CHECK: %[[M1:.*]] = mx.Reshape %[[MEAN]] {shape = array<i64: 3>}
// CHECK-NEXT: %[[V1:.*]] = mx.Reshape %[[VAR]] {shape = array<i64: 3>}
// CHECK-NEXT: %[[A:.*]] = mx._mul_scalar %[[MM]] {is_int = false, scalar = 9.000000e-01 : f64}
// CHECK-NEXT: %[[B:.*]] = mx._mul_scalar %[[M1]] {is_int = false, scalar = 0.09999
// CHECK-NEXT: %[[NEWM:.*]] = mx.elemwise_add %[[A]], %[[B]]
// CHECK-NEXT: %[[A2:.*]] = mx._mul_scalar %[[MV]] {is_int = false, scalar = 9.000000e-01 : f64}
// CHECK-NEXT: %[[B2:.*]] = mx._mul_scalar %[[V1]]
// CHECK-NEXT: %[[NEWV:.*]] = mx.elemwise_add %[[A2]], %[[B2]]
// CHECK: return %{{.*}}, %{{.*}}, %{{.*}}, %[[NEWM]], %[[NEWV]]
func.func @main(%x: tensor<2x3x2x2xf32> {mx.kind = "data", mx.name = "data"}, %g: tensor<3xf32> {mx.kind = "param", mx.name = "bn_gamma"}, %b: tensor<3xf32> {mx.kind = "param", mx.name = "bn_beta"}, %mm: tensor<3xf32> {mx.kind = "aux", mx.name = "bn_moving_mean"}, %mv: tensor<3xf32> {mx.kind = "aux", mx.name = "bn_moving_var"}) -> (tensor<2x3x2x2xf32> {mx.name = "bn_output"}) {
  %0:3 = mx.BatchNorm %x, %g, %b, %mm, %mv {fix_gamma = false} : (tensor<2x3x2x2xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3x2x2xf32>, tensor<3xf32>, tensor<3xf32>) loc("bn")
  return %0#0 : tensor<2x3x2x2xf32>
}

// -----

// BatchNorm with use_global_stats: moving statistics as constants, no update.

// CHECK-LABEL: func.func @main
// CHECK-SAME: -> (tensor<2x3xf32> {mx.name = "bn_output"}, tensor<3xf32> {mx.kind = "grad", mx.name = "bn_gamma_grad"}, tensor<3xf32> {mx.kind = "grad", mx.name = "bn_beta_grad"})
// CHECK: mx.BlockGrad
// CHECK-NOT: aux_out
func.func @main(%x: tensor<2x3xf32> {mx.kind = "data", mx.name = "data"}, %g: tensor<3xf32> {mx.kind = "param", mx.name = "bn_gamma"}, %b: tensor<3xf32> {mx.kind = "param", mx.name = "bn_beta"}, %mm: tensor<3xf32> {mx.kind = "aux", mx.name = "bn_moving_mean"}, %mv: tensor<3xf32> {mx.kind = "aux", mx.name = "bn_moving_var"}) -> (tensor<2x3xf32> {mx.name = "bn_output"}) {
  %0:3 = mx.BatchNorm %x, %g, %b, %mm, %mv {fix_gamma = false, use_global_stats = true} : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>) loc("bn")
  return %0#0 : tensor<2x3xf32>
}

// -----

// Dropout in training: one counter-based mask from the rng_seed argument,
// used by the forward product and reused by the backward one.

// CHECK-LABEL: func.func @main
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32> {mx.kind = "param", mx.name = "x"}, %[[SEED:.*]]: tensor<1xi64> {mx.kind = "rng_seed", mx.name = "rng_seed"}, %[[G:.*]]: tensor<4x8xf32> {mx.kind = "head_grad", mx.name = "drop_output_grad"})
// CHECK-NEXT: %[[M:.*]] = mx.dropout_mask %[[SEED]] {p = 2.500000e-01 : f64, stream = {{-?[0-9]+}} : i64} : (tensor<1xi64>) -> tensor<4x8xf32>
// CHECK-NEXT: %[[Y:.*]] = mx.elemwise_mul %[[X]], %[[M]]
// CHECK-NEXT: %[[DX:.*]] = mx.elemwise_mul %[[G]], %[[M]]
// CHECK-NEXT: return %[[Y]], %[[DX]]
// CHECK-NOT: dropout_mask
func.func @main(%x: tensor<4x8xf32> {mx.kind = "param", mx.name = "x"}) -> (tensor<4x8xf32> {mx.name = "drop_output"}) {
  %0:2 = mx.Dropout %x {p = 2.500000e-01 : f64} : (tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) loc("drop")
  return %0#0 : tensor<4x8xf32>
}

// -----

// LeakyReLU rrelu in training: random slopes in [lower_bound, upper_bound)
// (the mask result), y = x * (x > 0 ? 1 : slope); the backward reuses them.

// CHECK-LABEL: func.func @main
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32> {mx.kind = "param", mx.name = "x"}, %[[SEED:.*]]: tensor<1xi64> {mx.kind = "rng_seed", mx.name = "rng_seed"}, %[[G:.*]]: tensor<4x8xf32> {mx.kind = "head_grad", mx.name = "act_output_grad"})
// CHECK-NEXT: %[[S:.*]] = mx.random_uniform %[[SEED]] {high = 3.340000e-01 : f64, low = 1.250000e-01 : f64, stream = {{-?[0-9]+}} : i64} : (tensor<1xi64>) -> tensor<4x8xf32>
// CHECK-NEXT: %[[P:.*]] = mx._greater_scalar %[[X]]
// CHECK-NEXT: %[[N:.*]] = mx._rminus_scalar %[[P]]
// CHECK-NEXT: %[[NS:.*]] = mx.elemwise_mul %[[N]], %[[S]]
// CHECK-NEXT: %[[F:.*]] = mx.elemwise_add %[[P]], %[[NS]]
// CHECK-NEXT: %[[Y:.*]] = mx.elemwise_mul %[[X]], %[[F]]
// CHECK-NEXT: %[[DX:.*]] = mx.elemwise_mul %[[G]], %[[F]]
// CHECK-NOT: random_uniform
// CHECK: return %[[Y]], %[[DX]]
func.func @main(%x: tensor<4x8xf32> {mx.kind = "param", mx.name = "x"}) -> (tensor<4x8xf32> {mx.name = "act_output"}) {
  %0:2 = mx.LeakyReLU %x {act_type = "rrelu"} : (tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) loc("act")
  return %0#0 : tensor<4x8xf32>
}
