// RUN: mxc-opt %s --split-input-file --mx-decompose -verify-diagnostics

// Composites built from the extents (reshapes, index grids, one-hot
// filters) need static shapes: a dynamic extent is an error naming the op,
// not arithmetic on an unknown size.
func.func @im2col_dynamic_batch(%x: tensor<?x2x5x5xf32>) -> tensor<?x18x9xf32> {
  // expected-error @+1 {{'mx.im2col' op needs static shapes (its composite is built from the extents)}}
  %0 = mx.im2col %x {kernel = array<i64: 3, 3>} : (tensor<?x2x5x5xf32>) -> tensor<?x18x9xf32>
  return %0 : tensor<?x18x9xf32>
}

// -----

func.func @sampler_dynamic_grid(%x: tensor<1x3x5x5xf32>, %g: tensor<1x2x?x4xf32>) -> tensor<1x3x?x4xf32> {
  // expected-error @+1 {{'mx.BilinearSampler' op needs static shapes}}
  %0, %1 = mx.BilinearSampler %x, %g : (tensor<1x3x5x5xf32>, tensor<1x2x?x4xf32>) -> (tensor<1x3x?x4xf32>, tensor<1x?x4x2xf32>)
  return %0 : tensor<1x3x?x4xf32>
}
