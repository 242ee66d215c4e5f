// RUN: mxc-opt %s --split-input-file --mx-prune | FileCheck %s --check-prefix=INF
// RUN: mxc-opt %s --split-input-file --mx-prune=mode=training | FileCheck %s --check-prefix=TRAIN

// Tests mx-prune without outputs: inference turns SoftmaxOutput into softmax
// (the label argument goes away), drops Dropout, BlockGrad and identity and
// the unused head of the graph; training keeps the label and the ops.

// INF-LABEL: func.func @main
// INF-SAME: (%[[DATA:.*]]: tensor<2x8xf32> {mx.kind = "data", mx.name = "data"}, %[[W:.*]]: tensor<4x8xf32> {mx.kind = "param", mx.name = "fc_weight"}, %[[B:.*]]: tensor<4xf32> {mx.kind = "param", mx.name = "fc_bias"})
// INF-SAME: -> (tensor<2x4xf32> {mx.name = "softmax_output"})
// INF-NEXT: %[[FC:.*]] = mx.FullyConnected %[[DATA]], %[[W]], %[[B]]
// INF-NEXT: %[[SM:.*]] = mx.softmax %[[FC]] {axis = 1 : i64} : (tensor<2x4xf32>) -> tensor<2x4xf32>
// INF-NEXT: return %[[SM]]

// TRAIN-LABEL: func.func @main
// TRAIN-SAME: %{{.*}}: tensor<2xf32> {mx.kind = "data", mx.name = "softmax_label"}
// TRAIN: mx.identity
// TRAIN: mx.Dropout
// TRAIN: mx.BlockGrad
// TRAIN: mx.SoftmaxOutput
// TRAIN-NOT: mx.relu
func.func @main(%data: tensor<2x8xf32> {mx.kind = "data", mx.name = "data"},
                %w: tensor<4x8xf32> {mx.kind = "param", mx.name = "fc_weight"},
                %b: tensor<4xf32> {mx.kind = "param", mx.name = "fc_bias"},
                %unused: tensor<3xf32> {mx.kind = "param", mx.name = "unused_weight"},
                %label: tensor<2xf32> {mx.kind = "data", mx.name = "softmax_label"})
    -> (tensor<2x4xf32> {mx.name = "softmax_output"}) {
  %0 = mx.identity %data : (tensor<2x8xf32>) -> tensor<2x8xf32> loc("id")
  %1, %mask = mx.Dropout %0 {p = 5.000000e-01 : f64} : (tensor<2x8xf32>) -> (tensor<2x8xf32>, tensor<2x8xf32>)
  %2 = mx.BlockGrad %1 : (tensor<2x8xf32>) -> tensor<2x8xf32> loc("stop")
  %3 = mx.FullyConnected %2, %w, %b {num_hidden = 4 : i64} : (tensor<2x8xf32>, tensor<4x8xf32>, tensor<4xf32>) -> tensor<2x4xf32> loc("fc")
  %4 = mx.relu %unused : (tensor<3xf32>) -> tensor<3xf32> loc("dead")
  %5 = mx.SoftmaxOutput %3, %label : (tensor<2x4xf32>, tensor<2xf32>) -> tensor<2x4xf32>
  return %5 : tensor<2x4xf32>
}

// -----

// SoftmaxOutput's inference form per multi_output / preserve_shape / rank:
// axis 1, the last axis, or the trailing axes flattened.

// INF-LABEL: func.func @main
// INF-SAME: (%[[X:.*]]: tensor<2x3x4xf32>
// INF-NOT: mx.SoftmaxOutput
// INF: mx.softmax %[[X]] {axis = 1 : i64} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
// INF: mx.softmax %[[X]] {axis = 2 : i64} : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
// INF: %[[FLAT:.*]] = mx.Reshape %[[X]] {shape = array<i64: 0, -1>} : (tensor<2x3x4xf32>) -> tensor<2x12xf32>
// INF: %[[SM:.*]] = mx.softmax %[[FLAT]] {axis = 1 : i64} : (tensor<2x12xf32>) -> tensor<2x12xf32>
// INF: mx.Reshape %[[SM]] {shape = array<i64: 2, 3, 4>} : (tensor<2x12xf32>) -> tensor<2x3x4xf32>
func.func @main(%x: tensor<2x3x4xf32> {mx.kind = "data", mx.name = "data"},
                %l1: tensor<2x4xf32> {mx.kind = "data", mx.name = "multi_label"},
                %l2: tensor<2x3xf32> {mx.kind = "data", mx.name = "preserve_label"},
                %l3: tensor<2x3xf32> {mx.kind = "data", mx.name = "flat_label"})
    -> (tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>) {
  %0 = mx.SoftmaxOutput %x, %l1 {multi_output = true} : (tensor<2x3x4xf32>, tensor<2x4xf32>) -> tensor<2x3x4xf32>
  %1 = mx.SoftmaxOutput %x, %l2 {preserve_shape = true} : (tensor<2x3x4xf32>, tensor<2x3xf32>) -> tensor<2x3x4xf32>
  %2 = mx.SoftmaxOutput %x, %l3 : (tensor<2x3x4xf32>, tensor<2x3xf32>) -> tensor<2x3x4xf32>
  return %0, %1, %2 : tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>
}

// -----

// A used Dropout mask becomes ones; BatchNorm stays, marked with its
// inference form (moving statistics).

// INF-LABEL: func.func @main
// INF-NOT: mx.Dropout
// INF: %[[ONES:.*]] = mx.ones_like %{{.*}}
// INF: mx.BatchNorm {{.*}}use_global_stats = true
// INF: return %{{.*}}, %[[ONES]]
func.func @main(%x: tensor<2x4x3x3xf32>, %g: tensor<4xf32>, %b: tensor<4xf32>, %m: tensor<4xf32>, %v: tensor<4xf32>)
    -> (tensor<2x4x3x3xf32>, tensor<2x4x3x3xf32>) {
  %0, %mask = mx.Dropout %x {p = 2.000000e-01 : f64} : (tensor<2x4x3x3xf32>) -> (tensor<2x4x3x3xf32>, tensor<2x4x3x3xf32>)
  %1, %mean, %var = mx.BatchNorm %0, %g, %b, %m, %v : (tensor<2x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<2x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>) loc("bn")
  return %1, %mask : tensor<2x4x3x3xf32>, tensor<2x4x3x3xf32>
}
