// RUN: mxc-opt %s -split-input-file -verify-diagnostics

// One case per verifier check and per kind of inference failure. An
// inference failure reports the reason, then MLIR's 'failed to infer
// returned types'.

// Tests that an integer tensor is rejected where MXNet needs floats.
func.func @f(%x: tensor<1x3x8x8xi32>, %w: tensor<4x3x3x3xi32>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values}}
  %0 = mx.Convolution %x, %w {kernel = array<i64: 3, 3>, no_bias = true, num_filter = 4 : i64} : (tensor<1x3x8x8xi32>, tensor<4x3x3x3xi32>) -> tensor<1x4x6x6xi32>
  return
}

// -----

// Tests that an enum attribute only takes MXNet's spellings.
func.func @f(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{attribute 'act_type' failed to satisfy constraint: string attribute one of relu, sigmoid, tanh, softrelu, softsign}}
  %0 = mx.Activation %x {act_type = "swish"} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

// Tests that a dtype attribute only takes MXNet's dtype names.
func.func @f(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{attribute 'dtype' failed to satisfy constraint: string attribute one of float32, float64, float16, bfloat16, uint8, int8, int32, int64, bool}}
  %0 = mx.Cast %x {dtype = "float8"} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

// Tests that a required attribute must be present.
func.func @f(%x: tensor<1x3x8x8xf32>, %w: tensor<4x3x3x3xf32>) {
  // expected-error @+1 {{requires attribute 'kernel'}}
  %0 = mx.Convolution %x, %w {no_bias = true, num_filter = 4 : i64} : (tensor<1x3x8x8xf32>, tensor<4x3x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

// Tests that result types must match the inferred ones.
func.func @f(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{'mx.relu' op inferred type(s) 'tensor<2x3xf32>' are incompatible with return type(s) of operation 'tensor<3x2xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mx.relu %x : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return
}

// -----

// Tests that a result element type must match the inferred one.
func.func @f(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{'mx.Cast' op inferred type(s) 'tensor<2x3xf16>' are incompatible with return type(s) of operation 'tensor<2x3xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mx.Cast %x {dtype = "float16"} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

// Tests that a kernel has 1, 2 or 3 entries.
func.func @f(%x: tensor<1x4x8x8xf32>, %w: tensor<4x4x3x3xf32>) {
  // expected-error @+2 {{'mx.Convolution' op kernel (1, 1, 1, 1) must have 1, 2 or 3 entries}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mx.Convolution %x, %w {kernel = array<i64: 1, 1, 1, 1>, no_bias = true, num_filter = 4 : i64} : (tensor<1x4x8x8xf32>, tensor<4x4x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

// Tests that the data rank is the kernel rank + 2.
func.func @f(%x: tensor<1x4x8x8xf32>, %w: tensor<4x4x3x3xf32>) {
  // expected-error @+2 {{'mx.Convolution' op expects 3-D data for a 1-D kernel, got (1, 4, 8, 8)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mx.Convolution %x, %w {kernel = array<i64: 3>, no_bias = true, num_filter = 4 : i64} : (tensor<1x4x8x8xf32>, tensor<4x4x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

// Tests that the layout must fit the kernel rank.
func.func @f(%x: tensor<1x4x8x8xf32>, %w: tensor<4x4x3x3xf32>) {
  // expected-error @+2 {{'mx.Convolution' op layout NCDHW does not fit 4-D data}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mx.Convolution %x, %w {kernel = array<i64: 3, 3>, layout = "NCDHW", no_bias = true, num_filter = 4 : i64} : (tensor<1x4x8x8xf32>, tensor<4x4x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

// Tests that stride has one entry per kernel dimension.
func.func @f(%x: tensor<1x4x8x8xf32>, %w: tensor<4x4x3x3xf32>) {
  // expected-error @+2 {{'mx.Convolution' op stride (1, 1, 1) must have 2 entries, like the kernel}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mx.Convolution %x, %w {kernel = array<i64: 3, 3>, no_bias = true, num_filter = 4 : i64, stride = array<i64: 1, 1, 1>} : (tensor<1x4x8x8xf32>, tensor<4x4x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

// Tests that kernel extents are positive.
func.func @f(%x: tensor<1x4x8x8xf32>, %w: tensor<4x4x3x3xf32>) {
  // expected-error @+2 {{'mx.Convolution' op kernel (0, 3) must have entries >= 1}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mx.Convolution %x, %w {kernel = array<i64: 0, 3>, no_bias = true, num_filter = 4 : i64} : (tensor<1x4x8x8xf32>, tensor<4x4x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

// Tests that dilate entries are positive.
func.func @f(%x: tensor<1x4x8x8xf32>, %w: tensor<4x4x3x3xf32>) {
  // expected-error @+2 {{'mx.Convolution' op dilate (0, 1) must have entries >= 1}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mx.Convolution %x, %w {dilate = array<i64: 0, 1>, kernel = array<i64: 3, 3>, no_bias = true, num_filter = 4 : i64} : (tensor<1x4x8x8xf32>, tensor<4x4x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

// Tests that pad entries are non-negative.
func.func @f(%x: tensor<1x4x8x8xf32>, %w: tensor<4x4x3x3xf32>) {
  // expected-error @+2 {{'mx.Convolution' op pad (-1, 0) must have entries >= 0}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mx.Convolution %x, %w {kernel = array<i64: 3, 3>, no_bias = true, num_filter = 4 : i64, pad = array<i64: -1, 0>} : (tensor<1x4x8x8xf32>, tensor<4x4x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

// Tests that num_filter is at least 1.
func.func @f(%x: tensor<1x4x8x8xf32>, %w: tensor<4x4x3x3xf32>) {
  // expected-error @+2 {{'mx.Convolution' op num_filter must be >= 1, got 0}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mx.Convolution %x, %w {kernel = array<i64: 3, 3>, no_bias = true, num_filter = 0 : i64} : (tensor<1x4x8x8xf32>, tensor<4x4x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

// Tests that num_group is at least 1.
func.func @f(%x: tensor<1x4x8x8xf32>, %w: tensor<4x4x3x3xf32>) {
  // expected-error @+2 {{'mx.Convolution' op num_group must be >= 1, got 0}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mx.Convolution %x, %w {kernel = array<i64: 3, 3>, no_bias = true, num_filter = 4 : i64, num_group = 0 : i64} : (tensor<1x4x8x8xf32>, tensor<4x4x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

// Tests that num_filter is divisible by num_group.
func.func @f(%x: tensor<1x4x8x8xf32>, %w: tensor<4x4x3x3xf32>) {
  // expected-error @+2 {{'mx.Convolution' op num_filter 4 not divisible by num_group 3}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mx.Convolution %x, %w {kernel = array<i64: 3, 3>, no_bias = true, num_filter = 4 : i64, num_group = 3 : i64} : (tensor<1x4x8x8xf32>, tensor<4x4x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

// Tests that the input channels are divisible by num_group.
func.func @f(%x: tensor<1x3x8x8xf32>, %w: tensor<4x1x3x3xf32>) {
  // expected-error @+2 {{'mx.Convolution' op input channels 3 not divisible by num_group 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mx.Convolution %x, %w {kernel = array<i64: 3, 3>, no_bias = true, num_filter = 4 : i64, num_group = 2 : i64} : (tensor<1x3x8x8xf32>, tensor<4x1x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

// Tests that a bias is required unless no_bias.
func.func @f(%x: tensor<1x4x8x8xf32>, %w: tensor<4x4x3x3xf32>) {
  // expected-error @+2 {{'mx.Convolution' op expects a bias input unless no_bias is true}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mx.Convolution %x, %w {kernel = array<i64: 3, 3>, num_filter = 4 : i64} : (tensor<1x4x8x8xf32>, tensor<4x4x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

// Tests that no bias may be given with no_bias.
func.func @f(%x: tensor<1x4x8x8xf32>, %w: tensor<4x4x3x3xf32>, %b: tensor<4xf32>) {
  // expected-error @+2 {{'mx.Convolution' op has a bias input but no_bias is true}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mx.Convolution %x, %w, %b {kernel = array<i64: 3, 3>, no_bias = true, num_filter = 4 : i64} : (tensor<1x4x8x8xf32>, tensor<4x4x3x3xf32>, tensor<4xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

// Tests that the weight is (num_filter, C / num_group, *kernel).
func.func @f(%x: tensor<1x4x8x8xf32>, %w: tensor<4x2x3x3xf32>) {
  // expected-error @+2 {{'mx.Convolution' op weight shape (4, 2, 3, 3) does not match expected (4, 4, 3, 3)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mx.Convolution %x, %w {kernel = array<i64: 3, 3>, no_bias = true, num_filter = 4 : i64} : (tensor<1x4x8x8xf32>, tensor<4x2x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

// Tests that the weight has the data's element type.
func.func @f(%x: tensor<1x4x8x8xf32>, %w: tensor<4x4x3x3xf16>) {
  // expected-error @+2 {{'mx.Convolution' op weight element type 'f16' does not match 'f32'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mx.Convolution %x, %w {kernel = array<i64: 3, 3>, no_bias = true, num_filter = 4 : i64} : (tensor<1x4x8x8xf32>, tensor<4x4x3x3xf16>) -> tensor<1x4x6x6xf32>
  return
}

// -----

// Tests that the bias is (num_filter,).
func.func @f(%x: tensor<1x4x8x8xf32>, %w: tensor<4x4x3x3xf32>, %b: tensor<3xf32>) {
  // expected-error @+2 {{'mx.Convolution' op bias shape (3,) does not match expected (4,)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mx.Convolution %x, %w, %b {kernel = array<i64: 3, 3>, num_filter = 4 : i64} : (tensor<1x4x8x8xf32>, tensor<4x4x3x3xf32>, tensor<3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

// Tests that the dilated kernel fits the padded input.
func.func @f(%x: tensor<1x4x4x4xf32>, %w: tensor<4x4x3x3xf32>) {
  // expected-error @+2 {{'mx.Convolution' op kernel size 5 (dilated) exceeds padded input size 4 in spatial dimension 0}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mx.Convolution %x, %w {dilate = array<i64: 2, 2>, kernel = array<i64: 3, 3>, no_bias = true, num_filter = 4 : i64} : (tensor<1x4x4x4xf32>, tensor<4x4x3x3xf32>) -> tensor<1x4x1x1xf32>
  return
}

// -----

// Tests that workspace is non-negative (verifier).
func.func @f(%x: tensor<1x4x8x8xf32>, %w: tensor<4x4x3x3xf32>) {
  // expected-error @+1 {{'mx.Convolution' op workspace must be >= 0, got -1}}
  %0 = mx.Convolution %x, %w {kernel = array<i64: 3, 3>, no_bias = true, num_filter = 4 : i64, workspace = -1 : i64} : (tensor<1x4x8x8xf32>, tensor<4x4x3x3xf32>) -> tensor<1x4x6x6xf32>
  return
}

// -----

// Tests that Pooling takes 3-D to 5-D data.
func.func @f(%x: tensor<4x8xf32>) {
  // expected-error @+2 {{'mx.Pooling' op expects 3-D, 4-D or 5-D data, got (4, 8)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mx.Pooling %x {kernel = array<i64: 2>} : (tensor<4x8xf32>) -> tensor<4x4xf32>
  return
}

// -----

// Tests that the Pooling layout must fit the data rank.
func.func @f(%x: tensor<1x4x8x8xf32>) {
  // expected-error @+2 {{'mx.Pooling' op layout NCW does not fit 4-D data}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mx.Pooling %x {kernel = array<i64: 2, 2>, layout = "NCW"} : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
  return
}

// -----

// Tests that lp pooling needs p_value.
func.func @f(%x: tensor<1x4x8x8xf32>) {
  // expected-error @+2 {{'mx.Pooling' op lp pooling requires p_value}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mx.Pooling %x {kernel = array<i64: 2, 2>, pool_type = "lp", stride = array<i64: 2, 2>} : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
  return
}

// -----

// Tests that a kernel is needed without global_pool.
func.func @f(%x: tensor<1x4x8x8xf32>) {
  // expected-error @+2 {{'mx.Pooling' op requires a kernel unless global_pool is true}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mx.Pooling %x {pool_type = "avg"} : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
  return
}

// -----

// Tests that the kernel has one entry per spatial dimension.
func.func @f(%x: tensor<1x4x8x8xf32>) {
  // expected-error @+2 {{'mx.Pooling' op kernel (2,) must have 2 entries for 4-D data}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mx.Pooling %x {kernel = array<i64: 2>} : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
  return
}

// -----

// Tests that the Pooling pad has one entry per spatial dimension.
func.func @f(%x: tensor<1x4x8x8xf32>) {
  // expected-error @+2 {{'mx.Pooling' op pad (1,) must have 2 entries, like the kernel}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mx.Pooling %x {kernel = array<i64: 2, 2>, pad = array<i64: 1>} : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
  return
}

// -----

// Tests that the Pooling stride is positive.
func.func @f(%x: tensor<1x4x8x8xf32>) {
  // expected-error @+2 {{'mx.Pooling' op stride (0, 2) must have entries >= 1}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mx.Pooling %x {kernel = array<i64: 2, 2>, stride = array<i64: 0, 2>} : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
  return
}

// -----

// Tests that the same convention is 1-D only.
func.func @f(%x: tensor<1x4x8x8xf32>) {
  // expected-error @+2 {{'mx.Pooling' op pooling_convention 'same' supports 1-D pooling only}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mx.Pooling %x {kernel = array<i64: 2, 2>, pooling_convention = "same"} : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
  return
}

// -----

// Tests that the same convention takes no padding.
func.func @f(%x: tensor<1x4x8xf32>) {
  // expected-error @+2 {{'mx.Pooling' op pooling_convention 'same' does not allow pad}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mx.Pooling %x {kernel = array<i64: 2>, pad = array<i64: 1>, pooling_convention = "same"} : (tensor<1x4x8xf32>) -> tensor<1x4x9xf32>
  return
}

// -----

// Tests that the pooling window fits the padded input.
func.func @f(%x: tensor<1x4x8x8xf32>) {
  // expected-error @+2 {{'mx.Pooling' op kernel size 9 exceeds padded input size 8 in spatial dimension 0}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mx.Pooling %x {kernel = array<i64: 9, 2>} : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
  return
}

// -----

// Tests that FullyConnected needs data of rank >= 1.
func.func @f(%x: tensor<f32>, %w: tensor<4x1xf32>) {
  // expected-error @+2 {{'mx.FullyConnected' op expects data of rank >= 1}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mx.FullyConnected %x, %w {no_bias = true, num_hidden = 4 : i64} : (tensor<f32>, tensor<4x1xf32>) -> tensor<4xf32>
  return
}

// -----

// Tests that num_hidden is at least 1.
func.func @f(%x: tensor<2x3xf32>, %w: tensor<4x3xf32>) {
  // expected-error @+2 {{'mx.FullyConnected' op num_hidden must be >= 1, got 0}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mx.FullyConnected %x, %w {no_bias = true, num_hidden = 0 : i64} : (tensor<2x3xf32>, tensor<4x3xf32>) -> tensor<2x4xf32>
  return
}

// -----

// Tests that FullyConnected needs a bias unless no_bias.
func.func @f(%x: tensor<2x3xf32>, %w: tensor<4x3xf32>) {
  // expected-error @+2 {{'mx.FullyConnected' op expects a bias input unless no_bias is true}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mx.FullyConnected %x, %w {num_hidden = 4 : i64} : (tensor<2x3xf32>, tensor<4x3xf32>) -> tensor<2x4xf32>
  return
}

// -----

// Tests that FullyConnected takes no bias with no_bias.
func.func @f(%x: tensor<2x3xf32>, %w: tensor<4x3xf32>, %b: tensor<4xf32>) {
  // expected-error @+2 {{'mx.FullyConnected' op has a bias input but no_bias is true}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mx.FullyConnected %x, %w, %b {no_bias = true, num_hidden = 4 : i64} : (tensor<2x3xf32>, tensor<4x3xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  return
}

// -----

// Tests that the weight is (num_hidden, flattened input size).
func.func @f(%x: tensor<2x3x4xf32>, %w: tensor<5x4xf32>) {
  // expected-error @+2 {{'mx.FullyConnected' op weight shape (5, 4) does not match expected (5, 12)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mx.FullyConnected %x, %w {no_bias = true, num_hidden = 5 : i64} : (tensor<2x3x4xf32>, tensor<5x4xf32>) -> tensor<2x5xf32>
  return
}

// -----

// Tests that the FullyConnected bias is (num_hidden,) or (num_hidden, 1).
func.func @f(%x: tensor<2x3xf32>, %w: tensor<4x3xf32>, %b: tensor<1x4xf32>) {
  // expected-error @+2 {{'mx.FullyConnected' op bias shape (1, 4) does not match expected (4,)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mx.FullyConnected %x, %w, %b {num_hidden = 4 : i64} : (tensor<2x3xf32>, tensor<4x3xf32>, tensor<1x4xf32>) -> tensor<2x4xf32>
  return
}

// -----

// Tests that the FullyConnected weight has the data's element type.
func.func @f(%x: tensor<2x3xf32>, %w: tensor<4x3xf64>) {
  // expected-error @+2 {{'mx.FullyConnected' op weight element type 'f64' does not match 'f32'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mx.FullyConnected %x, %w {no_bias = true, num_hidden = 4 : i64} : (tensor<2x3xf32>, tensor<4x3xf64>) -> tensor<2x4xf32>
  return
}

// -----

// Tests that Flatten needs data of rank >= 1.
func.func @f(%x: tensor<f32>) {
  // expected-error @+2 {{'mx.Flatten' op expects data of rank >= 1}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mx.Flatten %x : (tensor<f32>) -> tensor<1x1xf32>
  return
}

// -----

// Tests that SoftmaxOutput needs data of rank >= 1.
func.func @f(%x: tensor<f32>, %l: tensor<f32>) {
  // expected-error @+2 {{'mx.SoftmaxOutput' op expects data of rank >= 1}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mx.SoftmaxOutput %x, %l : (tensor<f32>, tensor<f32>) -> tensor<f32>
  return
}

// -----

// Tests that the label has the data's element type.
func.func @f(%x: tensor<4x10xf32>, %l: tensor<4xf16>) {
  // expected-error @+2 {{'mx.SoftmaxOutput' op label element type 'f16' does not match 'f32'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mx.SoftmaxOutput %x, %l : (tensor<4x10xf32>, tensor<4xf16>) -> tensor<4x10xf32>
  return
}

// -----

// Tests that the label is the data shape without the last axis.
func.func @f(%x: tensor<4x10xf32>, %l: tensor<10xf32>) {
  // expected-error @+2 {{'mx.SoftmaxOutput' op label shape (10,) does not match expected (4,) or the data shape (4, 10)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mx.SoftmaxOutput %x, %l : (tensor<4x10xf32>, tensor<10xf32>) -> tensor<4x10xf32>
  return
}

// -----

// Tests that multi_output needs data of rank >= 2.
func.func @f(%x: tensor<4xf32>, %l: tensor<2xf32>) {
  // expected-error @+2 {{'mx.SoftmaxOutput' op multi_output expects data of rank >= 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mx.SoftmaxOutput %x, %l {multi_output = true} : (tensor<4xf32>, tensor<2xf32>) -> tensor<4xf32>
  return
}

// -----

// Tests that multi_output labels are (N, rest) or (N, d2, ...).
func.func @f(%x: tensor<2x5x3xf32>, %l: tensor<2x5xf32>) {
  // expected-error @+2 {{'mx.SoftmaxOutput' op label shape (2, 5) does not fit data shape (2, 5, 3); expected (2, 3) or (2, 3)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mx.SoftmaxOutput %x, %l {multi_output = true} : (tensor<2x5x3xf32>, tensor<2x5xf32>) -> tensor<2x5x3xf32>
  return
}

// -----

// Tests that smooth_alpha is in [0, 1] (verifier).
func.func @f(%x: tensor<4x10xf32>, %l: tensor<4xf32>) {
  // expected-error @+1 {{'mx.SoftmaxOutput' op smooth_alpha must be in [0, 1], got 1.5}}
  %0 = mx.SoftmaxOutput %x, %l {smooth_alpha = 1.5 : f64} : (tensor<4x10xf32>, tensor<4xf32>) -> tensor<4x10xf32>
  return
}

// -----

// Tests that LRN takes 4-D data.
func.func @f(%x: tensor<2x8xf32>) {
  // expected-error @+2 {{'mx.LRN' op expects 4-D data (N, C, H, W), got (2, 8)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0:2 = mx.LRN %x {nsize = 3 : i64} : (tensor<2x8xf32>) -> (tensor<2x8xf32>, tensor<2x8xf32>)
  return
}

// -----

// Tests that nsize is at least 1 (verifier).
func.func @f(%x: tensor<1x8x4x4xf32>) {
  // expected-error @+1 {{'mx.LRN' op nsize must be >= 1, got 0}}
  %0:2 = mx.LRN %x {nsize = 0 : i64} : (tensor<1x8x4x4xf32>) -> (tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>)
  return
}

// -----

// Tests that Dropout axes are in range.
func.func @f(%x: tensor<4x16xf32>) {
  // expected-error @+2 {{'mx.Dropout' op axes (2,) out of range for 2-D input}}
  // expected-error @+1 {{failed to infer returned types}}
  %0:2 = mx.Dropout %x {axes = array<i64: 2>} : (tensor<4x16xf32>) -> (tensor<4x16xf32>, tensor<4x16xf32>)
  return
}

// -----

// Tests that p is in [0, 1] (verifier).
func.func @f(%x: tensor<4x16xf32>) {
  // expected-error @+1 {{'mx.Dropout' op p must be in [0, 1], got 1.5}}
  %0:2 = mx.Dropout %x {p = 1.5 : f64} : (tensor<4x16xf32>) -> (tensor<4x16xf32>, tensor<4x16xf32>)
  return
}

// -----

// Tests that the BatchNorm axis is in range.
func.func @f(%x: tensor<2x4x8x8xf32>, %g: tensor<4xf32>, %b: tensor<4xf32>, %mm: tensor<4xf32>, %mv: tensor<4xf32>) {
  // expected-error @+2 {{'mx.BatchNorm' op axis 4 is out of range for 4-D input}}
  // expected-error @+1 {{failed to infer returned types}}
  %0:3 = mx.BatchNorm %x, %g, %b, %mm, %mv {axis = 4 : i64} : (tensor<2x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<2x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>)
  return
}

// -----

// Tests that BatchNorm needs data of rank >= 1.
func.func @f(%x: tensor<f32>, %g: tensor<1xf32>, %b: tensor<1xf32>, %mm: tensor<1xf32>, %mv: tensor<1xf32>) {
  // expected-error @+2 {{'mx.BatchNorm' op expects data of rank >= 1}}
  // expected-error @+1 {{failed to infer returned types}}
  %0:3 = mx.BatchNorm %x, %g, %b, %mm, %mv : (tensor<f32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>) -> (tensor<f32>, tensor<1xf32>, tensor<1xf32>)
  return
}

// -----

// Tests that gamma, beta and the moving statistics are (C,).
func.func @f(%x: tensor<2x4x8x8xf32>, %g: tensor<4xf32>, %b: tensor<4xf32>, %mm: tensor<8xf32>, %mv: tensor<4xf32>) {
  // expected-error @+2 {{'mx.BatchNorm' op moving_mean shape (8,) does not match expected (4,)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0:3 = mx.BatchNorm %x, %g, %b, %mm, %mv : (tensor<2x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>, tensor<8xf32>, tensor<4xf32>) -> (tensor<2x4x8x8xf32>, tensor<4xf32>, tensor<4xf32>)
  return
}

// -----

// Tests that the parameters of f16 data are f32.
func.func @f(%x: tensor<2x4xf16>, %g: tensor<4xf16>, %b: tensor<4xf16>, %mm: tensor<4xf16>, %mv: tensor<4xf16>) {
  // expected-error @+2 {{'mx.BatchNorm' op gamma element type 'f16' does not match 'f32'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0:3 = mx.BatchNorm %x, %g, %b, %mm, %mv : (tensor<2x4xf16>, tensor<4xf16>, tensor<4xf16>, tensor<4xf16>, tensor<4xf16>) -> (tensor<2x4xf16>, tensor<4xf16>, tensor<4xf16>)
  return
}

// -----

// Tests that num_args equals the number of inputs.
func.func @f(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>) {
  // expected-error @+2 {{'mx.Concat' op num_args 3 does not match the 2 inputs}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mx.Concat %a, %b {num_args = 3 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x6xf32>
  return
}

// -----

// Tests that scalars cannot be concatenated.
func.func @f(%a: tensor<f32>, %b: tensor<f32>) {
  // expected-error @+2 {{'mx.Concat' op zero-dimensional arrays cannot be concatenated}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mx.Concat %a, %b {num_args = 2 : i64} : (tensor<f32>, tensor<f32>) -> tensor<f32>
  return
}

// -----

// Tests that the Concat dim is in range.
func.func @f(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>) {
  // expected-error @+2 {{'mx.Concat' op dim 2 is out of range for 2-D input}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mx.Concat %a, %b {dim = 2 : i64, num_args = 2 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x6xf32>
  return
}

// -----

// Tests that Concat inputs share an element type.
func.func @f(%a: tensor<2x3xf32>, %b: tensor<2x3xi32>) {
  // expected-error @+2 {{'mx.Concat' op input #1 element type 'i32' does not match 'f32'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mx.Concat %a, %b {num_args = 2 : i64} : (tensor<2x3xf32>, tensor<2x3xi32>) -> tensor<2x6xf32>
  return
}

// -----

// Tests that Concat inputs share a rank.
func.func @f(%a: tensor<2x3xf32>, %b: tensor<2x3x1xf32>) {
  // expected-error @+2 {{'mx.Concat' op input #1 has rank 3, expected 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mx.Concat %a, %b {num_args = 2 : i64} : (tensor<2x3xf32>, tensor<2x3x1xf32>) -> tensor<2x6xf32>
  return
}

// -----

// Tests that Concat inputs agree outside dim.
func.func @f(%a: tensor<2x3xf32>, %b: tensor<3x3xf32>) {
  // expected-error @+2 {{'mx.Concat' op input #1 shape (3, 3) does not match the other inputs outside dim 1}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mx.Concat %a, %b {num_args = 2 : i64} : (tensor<2x3xf32>, tensor<3x3xf32>) -> tensor<2x6xf32>
  return
}

// -----

// Tests that elemwise operands have one shape.
func.func @f(%a: tensor<2x3xf32>, %b: tensor<3x2xf32>) {
  // expected-error @+2 {{'mx.elemwise_add' op operands must have the same shape, got (2, 3) and (3, 2)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mx.elemwise_add %a, %b : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x3xf32>
  return
}

// -----

// Tests that elemwise operands have one element type.
func.func @f(%a: tensor<2x3xf32>, %b: tensor<2x3xf16>) {
  // expected-error @+2 {{'mx.elemwise_mul' op rhs element type 'f16' does not match 'f32'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mx.elemwise_mul %a, %b : (tensor<2x3xf32>, tensor<2x3xf16>) -> tensor<2x3xf32>
  return
}

// -----

// Tests that broadcast extents are equal or 1.
func.func @f(%a: tensor<2x3xf32>, %b: tensor<4x3xf32>) {
  // expected-error @+2 {{'mx.broadcast_add' op operands could not be broadcast together with shapes (2, 3) and (4, 3)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mx.broadcast_add %a, %b : (tensor<2x3xf32>, tensor<4x3xf32>) -> tensor<4x3xf32>
  return
}

// -----

// Tests that reduction axes are in range.
func.func @f(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{'mx.sum' op reduction axis 2 is out of range for 2-D input}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mx.sum %x {axis = array<i64: 2>} : (tensor<2x3xf32>) -> tensor<2xf32>
  return
}

// -----

// Tests that reduction axes have no duplicates.
func.func @f(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{'mx.mean' op reduction axes (1, -1) have duplicates}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mx.mean %x {axis = array<i64: 1, -1>} : (tensor<2x3xf32>) -> tensor<2xf32>
  return
}

// -----

// Tests that max and min need a non-empty input.
func.func @f(%x: tensor<0x3xf32>) {
  // expected-error @+2 {{'mx.max' op cannot reduce an empty input (0, 3)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mx.max %x : (tensor<0x3xf32>) -> tensor<1xf32>
  return
}

// -----

// Tests that argmax needs data of rank >= 1.
func.func @f(%x: tensor<f32>) {
  // expected-error @+2 {{'mx.argmax' op expects data of rank >= 1}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mx.argmax %x : (tensor<f32>) -> tensor<1xf32>
  return
}

// -----

// Tests that the argmax axis is in range.
func.func @f(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{'mx.argmax' op axis -3 is out of range for 2-D input}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mx.argmax %x {axis = -3 : i64} : (tensor<2x3xf32>) -> tensor<2xf32>
  return
}

// -----

// Tests that dot takes no scalars.
func.func @f(%a: tensor<f32>, %b: tensor<3xf32>) {
  // expected-error @+2 {{'mx.dot' op scalar tensors are not supported}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mx.dot %a, %b : (tensor<f32>, tensor<3xf32>) -> tensor<3xf32>
  return
}

// -----

// Tests that vectors cannot be transposed.
func.func @f(%a: tensor<3xf32>, %b: tensor<3xf32>) {
  // expected-error @+2 {{'mx.dot' op cannot transpose vectors}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mx.dot %a, %b {transpose_a = true} : (tensor<3xf32>, tensor<3xf32>) -> tensor<1xf32>
  return
}

// -----

// Tests that dot contracts equal extents.
func.func @f(%a: tensor<2x3xf32>, %b: tensor<4x5xf32>) {
  // expected-error @+2 {{'mx.dot' op shape mismatch: (2, 3) X (4, 5) (transpose_a=0, transpose_b=0)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mx.dot %a, %b : (tensor<2x3xf32>, tensor<4x5xf32>) -> tensor<2x5xf32>
  return
}

// -----

// Tests that batch_dot takes N-D inputs of equal rank N >= 3.
func.func @f(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) {
  // expected-error @+2 {{'mx.batch_dot' op expects N-D inputs of equal rank N >= 3, got (2, 3) and (3, 4)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mx.batch_dot %a, %b : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  return
}

// -----

// Tests that batch extents are equal.
func.func @f(%a: tensor<2x2x3xf32>, %b: tensor<4x3x5xf32>) {
  // expected-error @+2 {{'mx.batch_dot' op batch dimensions must be equal, got (2, 2, 3) and (4, 3, 5)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mx.batch_dot %a, %b : (tensor<2x2x3xf32>, tensor<4x3x5xf32>) -> tensor<2x2x5xf32>
  return
}

// -----

// Tests that batch_dot contracts equal extents.
func.func @f(%a: tensor<2x2x3xf32>, %b: tensor<2x4x5xf32>) {
  // expected-error @+2 {{'mx.batch_dot' op shape mismatch: (2, 2, 3) X (2, 4, 5) (transpose_a=0, transpose_b=0)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mx.batch_dot %a, %b : (tensor<2x2x3xf32>, tensor<2x4x5xf32>) -> tensor<2x2x5xf32>
  return
}

// -----

// Tests that code 0 copies an existing input extent.
func.func @f(%x: tensor<2x3x4xf32>) {
  // expected-error @+2 {{'mx.Reshape' op shape (0, 0, 0, 0): code 0 has no input dimension to copy}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mx.Reshape %x {shape = array<i64: 0, 0, 0, 0>} : (tensor<2x3x4xf32>) -> tensor<24xf32>
  return
}

// -----

// Tests that only one extent is inferred.
func.func @f(%x: tensor<2x3x4xf32>) {
  // expected-error @+2 {{'mx.Reshape' op shape (-1, -1): only one dimension can be inferred (-1)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mx.Reshape %x {shape = array<i64: -1, -1>} : (tensor<2x3x4xf32>) -> tensor<24xf32>
  return
}

// -----

// Tests that code -3 merges two input extents.
func.func @f(%x: tensor<2x3x4xf32>) {
  // expected-error @+2 {{'mx.Reshape' op shape (0, 0, -3): code -3 needs two input dimensions}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mx.Reshape %x {shape = array<i64: 0, 0, -3>} : (tensor<2x3x4xf32>) -> tensor<24xf32>
  return
}

// -----

// Tests that code -4 is followed by two values.
func.func @f(%x: tensor<2x3x4xf32>) {
  // expected-error @+2 {{'mx.Reshape' op shape (-4, 1): code -4 needs two following values}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mx.Reshape %x {shape = array<i64: -4, 1>} : (tensor<2x3x4xf32>) -> tensor<24xf32>
  return
}

// -----

// Tests that code -4 infers at most one of its values.
func.func @f(%x: tensor<2x3x4xf32>) {
  // expected-error @+2 {{'mx.Reshape' op shape (-4, -1, -1, -2): split dimensions cannot both be -1}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mx.Reshape %x {shape = array<i64: -4, -1, -1, -2>} : (tensor<2x3x4xf32>) -> tensor<24xf32>
  return
}

// -----

// Tests that code -4 splits into valid values.
func.func @f(%x: tensor<2x3x4xf32>) {
  // expected-error @+2 {{'mx.Reshape' op shape (-4, 0, 2, -2): invalid split dimensions 0, 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mx.Reshape %x {shape = array<i64: -4, 0, 2, -2>} : (tensor<2x3x4xf32>) -> tensor<24xf32>
  return
}

// -----

// Tests that code -4 splits an extent exactly.
func.func @f(%x: tensor<2x3x4xf32>) {
  // expected-error @+2 {{'mx.Reshape' op split dimensions 3, 0 do not divide input dimension 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mx.Reshape %x {shape = array<i64: -4, 3, -1, -2>} : (tensor<2x3x4xf32>) -> tensor<24xf32>
  return
}

// -----

// Tests that codes below -4 are invalid.
func.func @f(%x: tensor<2x3x4xf32>) {
  // expected-error @+2 {{'mx.Reshape' op shape (-5,): invalid code -5}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mx.Reshape %x {shape = array<i64: -5>} : (tensor<2x3x4xf32>) -> tensor<24xf32>
  return
}

// -----

// Tests that the -1 extent divides the element count.
func.func @f(%x: tensor<2x3x4xf32>) {
  // expected-error @+2 {{'mx.Reshape' op cannot infer the -1 dimension of shape (5, -1) for input (2, 3, 4)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mx.Reshape %x {shape = array<i64: 5, -1>} : (tensor<2x3x4xf32>) -> tensor<24xf32>
  return
}

// -----

// Tests that the element count is kept.
func.func @f(%x: tensor<2x3x4xf32>) {
  // expected-error @+2 {{'mx.Reshape' op cannot reshape (2, 3, 4) to (5, 5): element counts differ}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mx.Reshape %x {shape = array<i64: 5, 5>} : (tensor<2x3x4xf32>) -> tensor<5x5xf32>
  return
}

// -----

// Tests that Reshape needs a shape.
func.func @f(%x: tensor<2x3x4xf32>) {
  // expected-error @+2 {{'mx.Reshape' op requires a non-empty shape}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mx.Reshape %x {reverse = true} : (tensor<2x3x4xf32>) -> tensor<24xf32>
  return
}

// -----

// Tests that target_shape has no negative extent.
func.func @f(%x: tensor<2x3x4xf32>) {
  // expected-error @+2 {{'mx.Reshape' op target_shape (-1, 4) has a negative extent}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mx.Reshape %x {target_shape = array<i64: -1, 4>} : (tensor<2x3x4xf32>) -> tensor<24xf32>
  return
}

// -----

// Tests that target_shape infers at most one extent.
func.func @f(%x: tensor<2x3x4xf32>) {
  // expected-error @+2 {{'mx.Reshape' op target_shape (0, 0) may infer (0) only one extent}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mx.Reshape %x {target_shape = array<i64: 0, 0>} : (tensor<2x3x4xf32>) -> tensor<24xf32>
  return
}

// -----

// Tests that target_shape's inferred extent divides the element count.
func.func @f(%x: tensor<2x3x4xf32>) {
  // expected-error @+2 {{'mx.Reshape' op cannot infer target_shape (0, 5) for input (2, 3, 4)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mx.Reshape %x {target_shape = array<i64: 0, 5>} : (tensor<2x3x4xf32>) -> tensor<24xf32>
  return
}

// -----

// Tests that keep_highest needs data of rank >= 1.
func.func @f(%x: tensor<f32>) {
  // expected-error @+2 {{'mx.Reshape' op keep_highest needs data of rank >= 1}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mx.Reshape %x {keep_highest = true, target_shape = array<i64: 1>} : (tensor<f32>) -> tensor<1xf32>
  return
}

// -----

// Tests that transpose takes at most 6 axes.
func.func @f(%x: tensor<1x1x1x1x1x1x1xf32>) {
  // expected-error @+2 {{'mx.transpose' op supports at most 6 dimensions, got 7}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mx.transpose %x : (tensor<1x1x1x1x1x1x1xf32>) -> tensor<1x1x1x1x1x1x1xf32>
  return
}

// -----

// Tests that transpose axes are a permutation.
func.func @f(%x: tensor<2x3x4xf32>) {
  // expected-error @+2 {{'mx.transpose' op axes (0, 0, 1) must be a permutation of 0..2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mx.transpose %x {axes = array<i64: 0, 0, 1>} : (tensor<2x3x4xf32>) -> tensor<2x2x3xf32>
  return
}

// -----

// Tests that the expand_dims axis is in [-ndim - 1, ndim].
func.func @f(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{'mx.expand_dims' op axis 3 must be in [-3, 2]}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mx.expand_dims %x {axis = 3 : i64} : (tensor<2x3xf32>) -> tensor<2x3x1xf32>
  return
}

// -----

// Tests that the slice_axis axis is in range.
func.func @f(%x: tensor<2x5xf32>) {
  // expected-error @+2 {{'mx.slice_axis' op axis 2 is out of range for 2-D input}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mx.slice_axis %x {axis = 2 : i64, begin = 0 : i64} : (tensor<2x5xf32>) -> tensor<2x5xf32>
  return
}

// -----

// Tests that end does not exceed the axis size.
func.func @f(%x: tensor<2x5xf32>) {
  // expected-error @+2 {{'mx.slice_axis' op end 6 exceeds the axis size 5}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mx.slice_axis %x {axis = 1 : i64, begin = 0 : i64, end = 6 : i64} : (tensor<2x5xf32>) -> tensor<2x6xf32>
  return
}

// -----

// Tests that begin is within the axis.
func.func @f(%x: tensor<2x5xf32>) {
  // expected-error @+2 {{'mx.slice_axis' op begin -7 is out of range for axis size 5}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mx.slice_axis %x {axis = 1 : i64, begin = -7 : i64} : (tensor<2x5xf32>) -> tensor<2x5xf32>
  return
}

// -----

// Tests that begin is before end.
func.func @f(%x: tensor<2x5xf32>) {
  // expected-error @+2 {{'mx.slice_axis' op begin 3 must be less than end 2 (axis size 5)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mx.slice_axis %x {axis = 1 : i64, begin = 3 : i64, end = 2 : i64} : (tensor<2x5xf32>) -> tensor<2x1xf32>
  return
}

// -----

// Tests that softmax needs data of rank >= 1.
func.func @f(%x: tensor<f32>) {
  // expected-error @+2 {{'mx.softmax' op expects data of rank >= 1}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mx.softmax %x : (tensor<f32>) -> tensor<f32>
  return
}

// -----

// Tests that the softmax axis is in range.
func.func @f(%x: tensor<2x5xf32>) {
  // expected-error @+2 {{'mx.softmax' op axis 2 is out of range for 2-D input}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mx.softmax %x {axis = 2 : i64} : (tensor<2x5xf32>) -> tensor<2x5xf32>
  return
}

// -----

// Tests that use_length needs a length input.
func.func @f(%x: tensor<2x5xf32>) {
  // expected-error @+2 {{'mx.softmax' op requires a 'length' input when use_length is true}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mx.softmax %x {use_length = true} : (tensor<2x5xf32>) -> tensor<2x5xf32>
  return
}

// -----

// Tests that a length input needs use_length.
func.func @f(%x: tensor<2x5xf32>, %l: tensor<2xi32>) {
  // expected-error @+2 {{'mx.softmax' op has a 'length' input but use_length is false}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mx.softmax %x, %l : (tensor<2x5xf32>, tensor<2xi32>) -> tensor<2x5xf32>
  return
}

// -----

// Tests that length is the data shape without the axis.
func.func @f(%x: tensor<2x5xf32>, %l: tensor<5xi32>) {
  // expected-error @+2 {{'mx.softmax' op length shape (5,) does not match expected (2,)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mx.softmax %x, %l {use_length = true} : (tensor<2x5xf32>, tensor<5xi32>) -> tensor<2x5xf32>
  return
}

// -----

// Tests that log_softmax has no length input.
func.func @f(%x: tensor<2x5xf32>) {
  // expected-error @+2 {{'mx.log_softmax' op does not support use_length}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mx.log_softmax %x {use_length = true} : (tensor<2x5xf32>) -> tensor<2x5xf32>
  return
}

// -----

// Tests that prelu needs gamma.
func.func @f(%x: tensor<2x4xf32>) {
  // expected-error @+2 {{'mx.LeakyReLU' op act_type 'prelu' requires a gamma input}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mx.LeakyReLU %x {act_type = "prelu"} : (tensor<2x4xf32>) -> tensor<2x4xf32>
  return
}

// -----

// Tests that only prelu takes gamma.
func.func @f(%x: tensor<2x4xf32>, %g: tensor<4xf32>) {
  // expected-error @+2 {{'mx.LeakyReLU' op has a gamma input but act_type is 'leaky' (only 'prelu' takes one)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mx.LeakyReLU %x, %g : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  return
}

// -----

// Tests that gamma broadcasts to the channel axis.
func.func @f(%x: tensor<2x4x3xf32>, %g: tensor<3xf32>) {
  // expected-error @+2 {{'mx.LeakyReLU' op cannot broadcast gamma shape (3,) to data shape (2, 4, 3)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mx.LeakyReLU %x, %g {act_type = "prelu"} : (tensor<2x4x3xf32>, tensor<3xf32>) -> tensor<2x4x3xf32>
  return
}

// -----

// Tests that gamma has the data's element type.
func.func @f(%x: tensor<2x4xf32>, %g: tensor<4xf16>) {
  // expected-error @+2 {{'mx.LeakyReLU' op gamma element type 'f16' does not match 'f32'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mx.LeakyReLU %x, %g {act_type = "prelu"} : (tensor<2x4xf32>, tensor<4xf16>) -> tensor<2x4xf32>
  return
}

// -----

// Tests that where's x and y have one shape.
func.func @f(%c: tensor<2x3xi1>, %a: tensor<2x3xf32>, %b: tensor<3x3xf32>) {
  // expected-error @+2 {{'mx.where' op x shape (2, 3) and y shape (3, 3) must be equal}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mx.where %c, %a, %b : (tensor<2x3xi1>, tensor<2x3xf32>, tensor<3x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

// Tests that where's x and y have one element type.
func.func @f(%c: tensor<2x3xi1>, %a: tensor<2x3xf32>, %b: tensor<2x3xf64>) {
  // expected-error @+2 {{'mx.where' op y element type 'f64' does not match 'f32'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mx.where %c, %a, %b : (tensor<2x3xi1>, tensor<2x3xf32>, tensor<2x3xf64>) -> tensor<2x3xf32>
  return
}

// -----

// Tests that the condition is x's shape or 1-D of its first extent.
func.func @f(%c: tensor<3xi1>, %a: tensor<2x3xf32>, %b: tensor<2x3xf32>) {
  // expected-error @+2 {{'mx.where' op condition shape (3,) must equal the shape (2, 3) of x or be 1-D of its first extent}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mx.where %c, %a, %b : (tensor<3xi1>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

// Tests that depth is non-negative.
func.func @f(%i: tensor<4xi32>) {
  // expected-error @+2 {{'mx.one_hot' op depth must be >= 0, got -1}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mx.one_hot %i {depth = -1 : i64} : (tensor<4xi32>) -> tensor<4x1xf32>
  return
}

// -----

func.func @deconvolution_adj_not_below_stride(%x: tensor<1x2x3x3xf32>, %w: tensor<2x2x3x3xf32>) -> tensor<1x2x9x9xf32> {
  // expected-error @+2 {{'mx.Deconvolution' op adj (2, 2) must be smaller than stride (2, 2)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mx.Deconvolution %x, %w {kernel = array<i64: 3, 3>, num_filter = 2 : i64, stride = array<i64: 2, 2>, adj = array<i64: 2, 2>} : (tensor<1x2x3x3xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x9x9xf32>
  return %0 : tensor<1x2x9x9xf32>
}

// -----

func.func @deconvolution_weight_shape(%x: tensor<1x4x3x3xf32>, %w: tensor<2x4x3x3xf32>) -> tensor<1x4x5x5xf32> {
  // expected-error @+2 {{'mx.Deconvolution' op weight}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mx.Deconvolution %x, %w {kernel = array<i64: 3, 3>, num_filter = 4 : i64} : (tensor<1x4x3x3xf32>, tensor<2x4x3x3xf32>) -> tensor<1x4x5x5xf32>
  return %0 : tensor<1x4x5x5xf32>
}

// -----

func.func @im2col_kernel_exceeds_input(%x: tensor<1x2x3x3xf32>) -> tensor<1x32x1xf32> {
  // expected-error @+2 {{'mx.im2col' op kernel size exceed input: the dilated kernel 4 is larger than the padded extent 3 in spatial dimension 0}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mx.im2col %x {kernel = array<i64: 4, 4>} : (tensor<1x2x3x3xf32>) -> tensor<1x32x1xf32>
  return %0 : tensor<1x32x1xf32>
}

// -----

func.func @col2im_blocks_mismatch(%c: tensor<1x18x8xf32>) -> tensor<1x2x5x5xf32> {
  // expected-error @+2 {{'mx.col2im' op output size does not match convolution parameters: data has 8 blocks, an image of (5, 5) gives 9}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mx.col2im %c {kernel = array<i64: 3, 3>, output_size = array<i64: 5, 5>} : (tensor<1x18x8xf32>) -> tensor<1x2x5x5xf32>
  return %0 : tensor<1x2x5x5xf32>
}

// -----

func.func @interleaved_heads_do_not_divide(%qkv: tensor<4x3x12xf32>) -> tensor<15x4x4xf32> {
  // expected-error @+2 {{'mx._contrib_interleaved_matmul_selfatt_qk' op queries_keys_values.shape[2] = 12 should be a multiple of 3 * heads = 15}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mx._contrib_interleaved_matmul_selfatt_qk %qkv {heads = 5 : i64} : (tensor<4x3x12xf32>) -> tensor<15x4x4xf32>
  return %0 : tensor<15x4x4xf32>
}

// -----

func.func @interleaved_attention_shape(%kv: tensor<5x3x8xf32>, %att: tensor<6x4x4xf32>) -> tensor<4x3x4xf32> {
  // expected-error @+2 {{'mx._contrib_interleaved_matmul_encdec_valatt' op keys_values.shape[0] should be equal to attention.shape[2], currently are 5 and 4}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mx._contrib_interleaved_matmul_encdec_valatt %kv, %att {heads = 2 : i64} : (tensor<5x3x8xf32>, tensor<6x4x4xf32>) -> tensor<4x3x4xf32>
  return %0 : tensor<4x3x4xf32>
}

// -----

func.func @bilinear_sampler_grid_shape(%x: tensor<2x3x5x5xf32>, %g: tensor<2x3x4x4xf32>) -> tensor<2x3x4x4xf32> {
  // expected-error @+2 {{'mx.BilinearSampler' op grid should be (batch, 2, H, W) with the data's batch 2, got (2, 3, 4, 4)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0, %1 = mx.BilinearSampler %x, %g : (tensor<2x3x5x5xf32>, tensor<2x3x4x4xf32>) -> (tensor<2x3x4x4xf32>, tensor<2x4x4x2xf32>)
  return %0 : tensor<2x3x4x4xf32>
}

// -----

func.func @grid_generator_affine_needs_target(%a: tensor<2x6xf32>) -> tensor<2x2x1x1xf32> {
  // expected-error @+2 {{'mx.GridGenerator' op incorrect target_shape (0, 0): affine needs a positive (H, W)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0, %1 = mx.GridGenerator %a {transform_type = "affine"} : (tensor<2x6xf32>) -> (tensor<2x2x1x1xf32>, tensor<3x1xf32>)
  return %0 : tensor<2x2x1x1xf32>
}

// -----

func.func @random_gamma_alpha() -> tensor<4xf32> {
  // expected-error @+2 {{'mx._random_gamma' op alpha parameter in gamma distribution has to be positive}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mx._random_gamma {alpha = 0.0 : f64, shape = array<i64: 4>} : () -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @random_poisson_like_rate(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+2 {{'mx._random_poisson_like' op lambda parameter in poisson distribution has to be non-negative}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mx._random_poisson_like %x {lam = -1.0 : f64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @sample_normal_parameter_shapes(%m: tensor<2xf32>, %s: tensor<3xf32>) -> tensor<2x4xf32> {
  // expected-error @+2 {{'mx._sample_normal' op the parameters' shapes differ: (2,) and (3,)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mx._sample_normal %m, %s {shape = array<i64: 4>} : (tensor<2xf32>, tensor<3xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

func.func @random_negative_binomial_p() -> tensor<4xf32> {
  // expected-error @+2 {{'mx._random_negative_binomial' op p parameter in negative binomial distribution has to be non-negative}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mx._random_negative_binomial {k = 2 : i64, p = -0.5 : f64, shape = array<i64: 4>} : () -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @roi_align_position_sensitive_channels(%x: tensor<1x5x6x6xf32>, %r: tensor<3x5xf32>) -> tensor<3x1x2x2xf32> {
  // expected-error @+2 {{'mx._contrib_ROIAlign' op Input channels should be divided by pooled_size[0]*pooled_size[1]when position_sensitive is true.}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mx._contrib_ROIAlign %x, %r {pooled_size = array<i64: 2, 2>, spatial_scale = 1.0 : f64, position_sensitive = true} : (tensor<1x5x6x6xf32>, tensor<3x5xf32>) -> tensor<3x1x2x2xf32>
  return %0 : tensor<3x1x2x2xf32>
}

// -----

func.func @psroi_pooling_channels(%x: tensor<1x7x6x6xf32>, %r: tensor<3x5xf32>) -> tensor<3x2x2x2xf32> {
  // expected-error @+2 {{'mx._contrib_PSROIPooling' op data has 7 channels; output_dim * group_size^2 = 8 are read}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mx._contrib_PSROIPooling %x, %r {spatial_scale = 1.0 : f64, output_dim = 2 : i64, pooled_size = 2 : i64} : (tensor<1x7x6x6xf32>, tensor<3x5xf32>) -> tensor<3x2x2x2xf32>
  return %0 : tensor<3x2x2x2xf32>
}

// -----

func.func @deformable_offset_channels(%x: tensor<1x4x5x5xf32>, %o: tensor<1x9x5x5xf32>, %w: tensor<2x4x3x3xf32>) -> tensor<1x2x5x5xf32> {
  // expected-error @+2 {{'mx._contrib_DeformableConvolution' op offset filter must divide deformable group size}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mx._contrib_DeformableConvolution %x, %o, %w {kernel = array<i64: 3, 3>, pad = array<i64: 1, 1>, num_filter = 2 : i64, no_bias = true} : (tensor<1x4x5x5xf32>, tensor<1x9x5x5xf32>, tensor<2x4x3x3xf32>) -> tensor<1x2x5x5xf32>
  return %0 : tensor<1x2x5x5xf32>
}

// -----

func.func @modulated_mask_shape(%x: tensor<1x4x5x5xf32>, %o: tensor<1x18x5x5xf32>, %m: tensor<1x9x4x5xf32>, %w: tensor<2x4x3x3xf32>) -> tensor<1x2x5x5xf32> {
  // expected-error @+2 {{'mx._contrib_ModulatedDeformableConvolution' op mask must be (1, kh * kw * groups, 5, 5), got (1, 9, 4, 5)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mx._contrib_ModulatedDeformableConvolution %x, %o, %m, %w {kernel = array<i64: 3, 3>, pad = array<i64: 1, 1>, num_filter = 2 : i64, no_bias = true} : (tensor<1x4x5x5xf32>, tensor<1x18x5x5xf32>, tensor<1x9x4x5xf32>, tensor<2x4x3x3xf32>) -> tensor<1x2x5x5xf32>
  return %0 : tensor<1x2x5x5xf32>
}

// -----

func.func @rroi_align_rois_width(%x: tensor<1x2x6x6xf32>, %r: tensor<3x5xf32>) -> tensor<3x2x2x2xf32> {
  // expected-error @+2 {{'mx._contrib_RROIAlign' op bbox should be a 2D tensor of shape [batch, 6], got (3, 5)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mx._contrib_RROIAlign %x, %r {pooled_size = array<i64: 2, 2>, spatial_scale = 1.0 : f64} : (tensor<1x2x6x6xf32>, tensor<3x5xf32>) -> tensor<3x2x2x2xf32>
  return %0 : tensor<3x2x2x2xf32>
}

// -----

func.func @proposal_two_images(%c: tensor<2x4x3x3xf32>, %b: tensor<2x8x3x3xf32>, %i: tensor<2x3xf32>) -> tensor<4x5xf32> {
  // expected-error @+2 {{'mx._contrib_Proposal' op Sorry, multiple images each device is not implemented (cls_prob has 2 images; use _contrib_MultiProposal)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0, %1 = mx._contrib_Proposal %c, %b, %i {scales = "(8, 16)", ratios = "(1)", rpn_post_nms_top_n = 4 : i64} : (tensor<2x4x3x3xf32>, tensor<2x8x3x3xf32>, tensor<2x3xf32>) -> (tensor<4x5xf32>, tensor<4x1xf32>)
  return %0 : tensor<4x5xf32>
}

// -----

func.func @multi_proposal_anchor_count(%c: tensor<2x6x3x3xf32>, %b: tensor<2x12x3x3xf32>, %i: tensor<2x3xf32>) -> tensor<8x5xf32> {
  // expected-error @+2 {{'mx._contrib_MultiProposal' op cls_prob has 6 channels, 2 * len(ratios) * len(scales) = 4 expected}}
  // expected-error @+1 {{failed to infer returned types}}
  %0, %1 = mx._contrib_MultiProposal %c, %b, %i {scales = "(8, 16)", ratios = "(1)", rpn_post_nms_top_n = 4 : i64} : (tensor<2x6x3x3xf32>, tensor<2x12x3x3xf32>, tensor<2x3xf32>) -> (tensor<8x5xf32>, tensor<8x1xf32>)
  return %0 : tensor<8x5xf32>
}

// -----

func.func @multi_proposal_bbox_shape(%c: tensor<2x4x3x3xf32>, %b: tensor<2x8x3x4xf32>, %i: tensor<2x3xf32>) -> tensor<8x5xf32> {
  // expected-error @+2 {{'mx._contrib_MultiProposal' op bbox_pred must be (2, 8, 3, 3), got (2, 8, 3, 4)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0, %1 = mx._contrib_MultiProposal %c, %b, %i {scales = "(8, 16)", ratios = "(1)", rpn_post_nms_top_n = 4 : i64} : (tensor<2x4x3x3xf32>, tensor<2x8x3x4xf32>, tensor<2x3xf32>) -> (tensor<8x5xf32>, tensor<8x1xf32>)
  return %0 : tensor<8x5xf32>
}

// -----

func.func @image_normalize_channels(%x: tensor<2x4x5xf32>) -> tensor<2x4x5xf32> {
  // expected-error @+2 {{'mx._image_normalize' op The first dimension of input tensor must be the channel dimension with either 1 or 3 elements, but got input with shape (2, 4, 5)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mx._image_normalize %x {mean = "(0, 1)", std = "1"} : (tensor<2x4x5xf32>) -> tensor<2x4x5xf32>
  return %0 : tensor<2x4x5xf32>
}

// -----

func.func @image_normalize_mean(%x: tensor<3x4x5xf32>) -> tensor<3x4x5xf32> {
  // expected-error @+2 {{'mx._image_normalize' op Invalid mean for input with shape (3, 4, 5). mean must have either 1 or 3 elements, but got (0.0, 0.0, 0.0, 0.0)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mx._image_normalize %x : (tensor<3x4x5xf32>) -> tensor<3x4x5xf32>
  return %0 : tensor<3x4x5xf32>
}

// -----

func.func @image_crop_bounds(%x: tensor<4x5x3xf32>) -> tensor<3x3x3xf32> {
  // expected-error @+2 {{'mx._image_crop' op  x + width should not be greater than input width}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mx._image_crop %x {x = 3 : i64, y = 0 : i64, width = 3 : i64, height = 3 : i64} : (tensor<4x5x3xf32>) -> tensor<3x3x3xf32>
  return %0 : tensor<3x3x3xf32>
}

// -----

func.func @image_flip_rank(%x: tensor<2x4x5x3xf32>) -> tensor<2x4x5x3xf32> {
  // expected-error @+2 {{'mx._image_flip_left_right' op Input image must have shape (height, width, channels), but got (2, 4, 5, 3)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mx._image_flip_left_right %x : (tensor<2x4x5x3xf32>) -> tensor<2x4x5x3xf32>
  return %0 : tensor<2x4x5x3xf32>
}

// -----

// Tests that amp_multicast's num_outputs equals the number of inputs.
func.func @f(%a: tensor<2x3xf16>, %b: tensor<4xf32>) {
  // expected-error @+2 {{'mx.amp_multicast' op num_outputs 3 does not match the 2 inputs}}
  // expected-error @+1 {{failed to infer returned types}}
  %0:2 = mx.amp_multicast %a, %b {num_outputs = 3 : i64} : (tensor<2x3xf16>, tensor<4xf32>) -> (tensor<2x3xf32>, tensor<4xf32>)
  return
}

// -----

// Tests that ifft's interleaved (real, imaginary) input has an even last extent.
func.func @f(%a: tensor<2x3xf32>) {
  // expected-error @+2 {{'mx._contrib_ifft' op expects interleaved (real, imaginary) pairs: the last extent of (2, 3) is odd}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mx._contrib_ifft %a : (tensor<2x3xf32>) -> tensor<2x1xf32>
  return
}

// -----

// Tests that fft takes 2-D or 4-D data, as MXNet's.
func.func @f(%a: tensor<2x3x4xf32>) {
  // expected-error @+2 {{'mx._contrib_fft' op expects 2-D or 4-D data, got (2, 3, 4)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mx._contrib_fft %a : (tensor<2x3x4xf32>) -> tensor<2x3x8xf32>
  return
}

// -----

// Tests that count_sketch's h and s are (1, d) for the data's last extent d.
func.func @f(%x: tensor<2x5xf32>, %h: tensor<1x4xf32>, %s: tensor<1x5xf32>) {
  // expected-error @+2 {{'mx._contrib_count_sketch' op H should be a (1, 5) tensor (the data's last extent), got (1, 4)}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = mx._contrib_count_sketch %x, %h, %s {out_dim = 3 : i64} : (tensor<2x5xf32>, tensor<1x4xf32>, tensor<1x5xf32>) -> tensor<2x3xf32>
  return
}
