// RUN: mxc-opt %s --mx-prune="outputs=relu1" | FileCheck %s --check-prefix=RELU
// RUN: mxc-opt %s --mx-prune="outputs=bn:2,fc_output,data" | FileCheck %s --check-prefix=MULTI
// RUN: mxc-opt %s --mx-prune="outputs=relu1 mode=training" | FileCheck %s --check-prefix=RELU
// RUN: not mxc-opt %s --mx-prune="outputs=nosuch" 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not mxc-opt %s --mx-prune="outputs=relu1:1" 2>&1 | FileCheck %s --check-prefix=RANGE
// RUN: not mxc-opt %s --mx-prune="outputs=relu1:x" 2>&1 | FileCheck %s --check-prefix=SYNTAX
// RUN: not mxc-opt %s --mx-prune="mode=eval" 2>&1 | FileCheck %s --check-prefix=MODE

// Tests mx-prune's outputs option: the results become the named heads (by
// node[:index], MXNet output name or argument name), what they do not need
// goes away, arguments included; bad heads are one error naming the node.

// RELU-LABEL: func.func @main
// RELU-SAME: (%[[X:.*]]: tensor<2x4x3x3xf32> {mx.kind = "data", mx.name = "data"}, %{{.*}}: tensor<4xf32> {mx.kind = "param", mx.name = "bn_gamma"}, %{{.*}}: tensor<4xf32> {mx.kind = "param", mx.name = "bn_beta"}, %{{.*}}: tensor<4xf32> {mx.kind = "aux", mx.name = "bn_moving_mean"}, %{{.*}}: tensor<4xf32> {mx.kind = "aux", mx.name = "bn_moving_var"})
// RELU-SAME: -> (tensor<2x4x3x3xf32> {mx.name = "relu1_output"})
// RELU-NEXT: mx.BatchNorm
// RELU-NEXT: %[[R:.*]] = mx.Activation
// RELU-NEXT: return %[[R]]

// MULTI-LABEL: func.func @main
// MULTI-SAME: -> (tensor<4xf32> {mx.name = "bn_var"}, tensor<2x10xf32> {mx.name = "fc_output"}, tensor<2x4x3x3xf32> {mx.name = "data"})
// MULTI: %{{.*}}, %{{.*}}, %[[VAR:.*]] = mx.BatchNorm
// MULTI: %[[FC:.*]] = mx.FullyConnected
// MULTI-NOT: mx.SoftmaxOutput
// MULTI: return %[[VAR]], %[[FC]], %arg0

// UNKNOWN: error: loc("nosuch"): no such node in the graph
// RANGE: error: loc("relu1"): output index 1 out of range: the node has 1 output{{$}}
// SYNTAX: error: loc("relu1:x"): mx-prune outputs entry 'relu1:x': expected node[:index]
// MODE: error: mx-prune: mode 'eval': expected inference or training
func.func @main(%x: tensor<2x4x3x3xf32> {mx.kind = "data", mx.name = "data"},
                %g: tensor<4xf32> {mx.kind = "param", mx.name = "bn_gamma"},
                %b: tensor<4xf32> {mx.kind = "param", mx.name = "bn_beta"},
                %m: tensor<4xf32> {mx.kind = "aux", mx.name = "bn_moving_mean"},
                %v: tensor<4xf32> {mx.kind = "aux", mx.name = "bn_moving_var"},
                %w: tensor<10x36xf32> {mx.kind = "param", mx.name = "fc_weight"},
                %fb: tensor<10xf32> {mx.kind = "param", mx.name = "fc_bias"},
                %label: tensor<2xf32> {mx.kind = "data", mx.name = "softmax_label"})
    -> (tensor<2x10xf32> {mx.name = "softmax_output"}) {
  %0, %mean, %var = mx.BatchNorm %x, %g, %b, %m, %v {fix_gamma = false} : (tensor<2x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<2x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>) loc("bn")
  %1 = mx.Activation %0 {act_type = "relu"} : (tensor<2x4x3x3xf32>) -> tensor<2x4x3x3xf32> loc("relu1")
  %2 = mx.FullyConnected %1, %w, %fb {num_hidden = 10 : i64} : (tensor<2x4x3x3xf32>, tensor<10x36xf32>, tensor<10xf32>) -> tensor<2x10xf32> loc("fc")
  %3 = mx.SoftmaxOutput %2, %label : (tensor<2x10xf32>, tensor<2xf32>) -> tensor<2x10xf32> loc("softmax")
  return %3 : tensor<2x10xf32>
}
