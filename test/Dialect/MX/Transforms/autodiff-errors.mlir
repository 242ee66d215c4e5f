// RUN: mxc-opt %s --split-input-file --verify-diagnostics --mx-autodiff
// RUN: not mxc-opt %s --split-input-file --mx-autodiff='wrt=nope' 2>&1 | FileCheck %s --check-prefix=WRT
// RUN: not mxc-opt %s --split-input-file --mx-autodiff='grad-req=x=sometimes' 2>&1 | FileCheck %s --check-prefix=REQ
// RUN: not mxc-opt %s --split-input-file --mx-autodiff='grad-req=sometimes' 2>&1 | FileCheck %s --check-prefix=REQ2
// RUN: not mxc-opt %s --split-input-file --mx-autodiff='grad-req=z=write' 2>&1 | FileCheck %s --check-prefix=NAME

// WRT: error: wrt 'nope': the graph has no argument named 'nope'
// REQ: error: grad-req 'x=sometimes': 'sometimes' is not write, add or null
// REQ2: error: grad-req 'sometimes': expected write, add, null or name=req
// NAME: error: grad-req 'z=write': the graph has no argument named 'z'

func.func @main(%x: tensor<2xf32> {mx.kind = "param", mx.name = "x"}, %idx: tensor<2xi32> {mx.kind = "data", mx.name = "idx"}) -> (tensor<2xf32> {mx.name = "out"}) {
  %0 = mx.tanh %x : (tensor<2xf32>) -> tensor<2xf32> loc("t")
  return %0 : tensor<2xf32>
}

// -----

// An op on the path without a gradient for its configuration: the error is
// at the node.
func.func @main(%x: tensor<2x3x4xf32> {mx.kind = "param", mx.name = "x"}, %l: tensor<2x4xf32> {mx.kind = "data", mx.name = "label"}) -> (tensor<2x3x4xf32> {mx.name = "out"}) {
  // expected-error @below {{no gradient for SoftmaxOutput with smooth_alpha and multi_output}}
  %0 = mx.SoftmaxOutput %x, %l {multi_output = true, smooth_alpha = 1.000000e-01 : f64} : (tensor<2x3x4xf32>, tensor<2x4xf32>) -> tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}

// -----

// Ops off the path need no rule: the SoftmaxOutput only sees data here.
func.func @main(%d: tensor<2x3x4xf32> {mx.kind = "data", mx.name = "data"}, %l: tensor<2x4xf32> {mx.kind = "data", mx.name = "label"}, %x: tensor<2x3x4xf32> {mx.kind = "param", mx.name = "x"}) -> (tensor<2x3x4xf32> {mx.name = "out"}) {
  %0 = mx.SoftmaxOutput %d, %l {multi_output = true, smooth_alpha = 1.000000e-01 : f64} : (tensor<2x3x4xf32>, tensor<2x4xf32>) -> tensor<2x3x4xf32> loc("softmax")
  %1 = mx.elemwise_mul %0, %x : (tensor<2x3x4xf32>, tensor<2x3x4xf32>) -> tensor<2x3x4xf32> loc("mul")
  return %1 : tensor<2x3x4xf32>
}
