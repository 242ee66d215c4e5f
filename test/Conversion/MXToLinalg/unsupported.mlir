// RUN: mxc-opt %s --split-input-file --convert-mx-to-linalg -verify-diagnostics
// RUN: not mxc-opt %s --split-input-file --convert-mx-to-linalg 2>&1 | FileCheck %s

// Cases a pattern rejects with notifyMatchFailure: the pass reports the
// reason as one error at the op.

// Tests that Dropout with mode 'always' (random at inference) is rejected.
// CHECK: error: cannot lower Dropout: mode 'always' drops at inference time, which needs a random generator (not supported)
func.func @dropout_always(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{cannot lower Dropout: mode 'always' drops at inference time, which needs a random generator (not supported)}}
  %0, %1 = mx.Dropout %x {mode = "always", p = 5.000000e-01 : f64} : (tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<2x3xf32>)
  return %0 : tensor<2x3xf32>
}

// -----

// Tests that bool arithmetic is rejected, as MXNet's kernels do.
// CHECK: error: cannot lower elemwise_add: bool tensors are not supported
func.func @bool_add(%a: tensor<4xi1>, %b: tensor<4xi1>) -> tensor<4xi1> {
  // expected-error @+1 {{cannot lower elemwise_add: bool tensors are not supported}}
  %0 = mx.elemwise_add %a, %b : (tensor<4xi1>, tensor<4xi1>) -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

// Tests that a dynamic extent is rejected by the elementwise template.
// CHECK: error: cannot lower relu: dynamic shapes are not supported
func.func @dynamic_relu(%x: tensor<?x3xf32>) -> tensor<?x3xf32> {
  // expected-error @+1 {{cannot lower relu: dynamic shapes are not supported}}
  %0 = mx.relu %x : (tensor<?x3xf32>) -> tensor<?x3xf32>
  return %0 : tensor<?x3xf32>
}

// -----

// Tests that a dynamic extent is rejected by a reduction.
// CHECK: error: cannot lower sum: dynamic shapes are not supported
func.func @dynamic_sum(%x: tensor<?x3xf32>) -> tensor<1xf32> {
  // expected-error @+1 {{cannot lower sum: dynamic shapes are not supported}}
  %0 = mx.sum %x : (tensor<?x3xf32>) -> tensor<1xf32>
  return %0 : tensor<1xf32>
}

// -----

// Tests that a dynamic extent is rejected by a data-movement op.
// CHECK: error: cannot lower transpose: dynamic shapes are not supported
func.func @dynamic_transpose(%x: tensor<?x3xf32>) -> tensor<3x?xf32> {
  // expected-error @+1 {{cannot lower transpose: dynamic shapes are not supported}}
  %0 = mx.transpose %x : (tensor<?x3xf32>) -> tensor<3x?xf32>
  return %0 : tensor<3x?xf32>
}
