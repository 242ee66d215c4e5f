// RUN: mxc-opt %s --split-input-file --mx-autodiff --mx-split-training=part=forward | FileCheck %s --check-prefix=FWD
// RUN: mxc-opt %s --split-input-file --mx-autodiff --mx-split-training=part=backward | FileCheck %s --check-prefix=BWD
// RUN: not mxc-opt %s --split-input-file --mx-autodiff --mx-split-training=part=sideways 2>&1 | FileCheck %s --check-prefix=ERR

// mx-split-training cuts mx-autodiff's training step into its two halves
// (MXNet's CachedOp forward and backward). out = tanh(x) * x: the forward
// keeps tanh(x) for the backward (residual0, result 1 of the forward, read
// by the backward as fwd1); the backward reads x itself as its argument.

// FWD-LABEL: func.func @main
// FWD-SAME: (%[[X:.*]]: tensor<2x3xf32> {mx.kind = "param", mx.name = "x"})
// FWD-SAME: -> (tensor<2x3xf32> {mx.name = "out"}, tensor<2x3xf32> {mx.kind = "residual", mx.name = "residual0"})
// FWD-NEXT: %[[T:.*]] = mx.tanh %[[X]]
// FWD-NEXT: %[[Y:.*]] = mx.elemwise_mul %[[T]], %[[X]]
// FWD-NEXT: return %[[Y]], %[[T]]

// BWD-LABEL: func.func @main
// BWD-SAME: (%[[X:.*]]: tensor<2x3xf32> {mx.kind = "param", mx.name = "x"}, %[[G:.*]]: tensor<2x3xf32> {mx.kind = "head_grad", mx.name = "out_grad"}, %[[T:.*]]: tensor<2x3xf32> {mx.kind = "residual", mx.name = "fwd1"})
// BWD-SAME: -> (tensor<2x3xf32> {mx.kind = "grad", mx.name = "x_grad"})
// BWD-NOT: mx.tanh
// BWD: mx.elemwise_mul %[[G]], %[[X]]
// BWD: mx.square %[[T]]
// BWD: return

// ERR: mx-split-training: part 'sideways': expected forward or backward
func.func @main(%x: tensor<2x3xf32> {mx.kind = "param", mx.name = "x"}) -> (tensor<2x3xf32> {mx.name = "out"}) {
  %0 = mx.tanh %x : (tensor<2x3xf32>) -> tensor<2x3xf32> loc("t")
  %1 = mx.elemwise_mul %0, %x : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32> loc("m")
  return %1 : tensor<2x3xf32>
}

// -----

// Dropout: the mask is drawn once, in the forward (from rng_seed), and the
// backward multiplies by that same mask (a residual), not by a new draw.
// The forward's only argument that the backward does not read is w.

// FWD-LABEL: func.func @main
// FWD-SAME: %{{.*}}: tensor<1xi64> {mx.kind = "rng_seed", mx.name = "rng_seed"})
// FWD-SAME: -> (tensor<2x3xf32> {mx.name = "out"}, tensor<2x3xf32> {mx.kind = "residual", mx.name = "residual0"})
// FWD: %[[M:.*]] = mx.dropout_mask
// FWD: %[[Y:.*]] = mx.elemwise_mul %{{.*}}, %[[M]]
// FWD-NEXT: return %[[Y]], %[[M]]

// BWD-LABEL: func.func @main
// BWD-SAME: (%[[X:.*]]: tensor<2x3xf32> {mx.kind = "data", mx.name = "data"}, %[[G:.*]]: tensor<2x3xf32> {mx.kind = "head_grad", mx.name = "out_grad"}, %[[M:.*]]: tensor<2x3xf32> {mx.kind = "residual", mx.name = "fwd1"})
// BWD-SAME: -> (tensor<3xf32> {mx.kind = "grad", mx.name = "w_grad"})
// BWD-NOT: mx.dropout_mask
// BWD: %[[GM:.*]] = mx.elemwise_mul %[[G]], %[[M]]
// BWD-NEXT: mx.elemwise_mul %[[GM]], %[[X]]
func.func @main(%x: tensor<2x3xf32> {mx.kind = "data", mx.name = "data"}, %w: tensor<3xf32> {mx.kind = "param", mx.name = "w"}) -> (tensor<2x3xf32> {mx.name = "out"}) {
  %0 = mx.broadcast_mul %x, %w : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32> loc("mul")
  %1, %mask = mx.Dropout %0 {p = 5.000000e-01 : f64} : (tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>) loc("drop")
  return %1 : tensor<2x3xf32>
}

// -----

// BatchNorm in training: the updated moving statistics are forward results
// (aux_out); a residual that is also a head is not returned twice: the
// backward reads the head (fwd0).

// FWD-LABEL: func.func @main
// FWD-SAME: -> (tensor<2x3xf32> {mx.name = "out"}, tensor<3xf32> {mx.kind = "aux_out", mx.name = "mm"}, tensor<3xf32> {mx.kind = "aux_out", mx.name = "mv"}
// FWD-NOT: head_grad

// BWD-LABEL: func.func @main
// BWD-SAME: {mx.kind = "residual", mx.name = "fwd0"}
// BWD-SAME: -> (tensor<3xf32> {mx.kind = "grad", mx.name = "g_grad"}, tensor<3xf32> {mx.kind = "grad", mx.name = "b_grad"})
// BWD-NOT: aux_out
func.func @main(%x: tensor<2x3xf32> {mx.kind = "data", mx.name = "data"}, %g: tensor<3xf32> {mx.kind = "param", mx.name = "g"}, %b: tensor<3xf32> {mx.kind = "param", mx.name = "b"}, %mm: tensor<3xf32> {mx.kind = "aux", mx.name = "mm"}, %mv: tensor<3xf32> {mx.kind = "aux", mx.name = "mv"}) -> (tensor<2x3xf32> {mx.name = "out"}) {
  %0:3 = mx.BatchNorm %x, %g, %b, %mm, %mv {fix_gamma = false} : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>) loc("bn")
  %1 = mx.tanh %0#0 : (tensor<2x3xf32>) -> tensor<2x3xf32> loc("t")
  return %1 : tensor<2x3xf32>
}
