// RUN: mxc-opt %s --split-input-file --verify-diagnostics | FileCheck %s

// Verifier and result-type cases of the backward ops of MXBackwardOps.td:
// each checks its operands against the forward op's own shape inference.

// Tests that valid backward ops round-trip: the data gradient of a stride-2
// convolution accepts both input extents that give the same output (7 and 8
// give 4), the weight gradient's type is inferred, and pooling / LRN
// gradients have the data's type.

// CHECK-LABEL: func.func @valid
// CHECK: mx.Convolution_backward_data %{{.*}}, %{{.*}} {kernel = array<i64: 3, 3>, num_filter = 6 : i64, num_group = 2 : i64, pad = array<i64: 1, 1>, stride = array<i64: 2, 2>} : (tensor<2x6x4x4xf32>, tensor<6x2x3x3xf32>) -> tensor<2x4x8x8xf32>
// CHECK: mx.Convolution_backward_data {{.*}} -> tensor<2x4x7x7xf32>
// CHECK: mx.Convolution_backward_weight {{.*}} : (tensor<2x6x4x4xf32>, tensor<2x4x8x8xf32>) -> tensor<6x2x3x3xf32>
// CHECK: mx.Convolution_backward_weight {{.*}} : (tensor<1x4x5x6x7xf64>, tensor<1x2x5x6x7xf64>) -> tensor<4x2x1x1x1xf64>
// CHECK: mx.Pooling_backward {{.*}} -> tensor<1x3x8x8xf32>
// CHECK: mx.Pooling_backward {{.*}} -> tensor<2x5x7xf64>
// CHECK: mx.LRN_backward {{.*}} -> tensor<1x8x4x4xf32>
func.func @valid(%dy: tensor<2x6x4x4xf32>, %w: tensor<6x2x3x3xf32>, %x: tensor<2x4x8x8xf32>,
                 %dy3: tensor<1x4x5x6x7xf64>, %x3: tensor<1x2x5x6x7xf64>,
                 %pdy: tensor<1x3x4x4xf32>, %px: tensor<1x3x8x8xf32>,
                 %gdy: tensor<2x5x1xf64>, %gx: tensor<2x5x7xf64>,
                 %l: tensor<1x8x4x4xf32>) {
  %0 = mx.Convolution_backward_data %dy, %w {kernel = array<i64: 3, 3>, num_filter = 6 : i64, num_group = 2 : i64, pad = array<i64: 1, 1>, stride = array<i64: 2, 2>} : (tensor<2x6x4x4xf32>, tensor<6x2x3x3xf32>) -> tensor<2x4x8x8xf32>
  %1 = mx.Convolution_backward_data %dy, %w {kernel = array<i64: 3, 3>, num_filter = 6 : i64, num_group = 2 : i64, pad = array<i64: 1, 1>, stride = array<i64: 2, 2>} : (tensor<2x6x4x4xf32>, tensor<6x2x3x3xf32>) -> tensor<2x4x7x7xf32>
  %2 = mx.Convolution_backward_weight %dy, %x {kernel = array<i64: 3, 3>, num_filter = 6 : i64, num_group = 2 : i64, pad = array<i64: 1, 1>, stride = array<i64: 2, 2>} : (tensor<2x6x4x4xf32>, tensor<2x4x8x8xf32>) -> tensor<6x2x3x3xf32>
  %3 = "mx.Convolution_backward_weight"(%dy3, %x3) {kernel = array<i64: 1, 1, 1>, num_filter = 4 : i64} : (tensor<1x4x5x6x7xf64>, tensor<1x2x5x6x7xf64>) -> tensor<4x2x1x1x1xf64>
  %4 = mx.Pooling_backward %pdy, %px, %pdy {kernel = array<i64: 3, 3>, pool_type = "avg", stride = array<i64: 2, 2>, pad = array<i64: 1, 1>, count_include_pad = false} : (tensor<1x3x4x4xf32>, tensor<1x3x8x8xf32>, tensor<1x3x4x4xf32>) -> tensor<1x3x8x8xf32>
  %5 = mx.Pooling_backward %gdy, %gx, %gdy {global_pool = true, pool_type = "max"} : (tensor<2x5x1xf64>, tensor<2x5x7xf64>, tensor<2x5x1xf64>) -> tensor<2x5x7xf64>
  %6 = mx.LRN_backward %l, %l, %l, %l {nsize = 5 : i64} : (tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  return
}

// -----

// Tests that out_grad must have the forward Convolution's output type (9x9 data gives 5x5).

func.func @a(%dy: tensor<2x6x4x4xf32>, %w: tensor<6x2x3x3xf32>) -> tensor<2x4x9x9xf32> {
  // expected-error @+1 {{'mx.Convolution_backward_data' op out_grad type 'tensor<2x6x4x4xf32>' does not match the forward result type 'tensor<2x6x5x5xf32>'}}
  %0 = mx.Convolution_backward_data %dy, %w {kernel = array<i64: 3, 3>, num_filter = 6 : i64, num_group = 2 : i64, pad = array<i64: 1, 1>, stride = array<i64: 2, 2>} : (tensor<2x6x4x4xf32>, tensor<6x2x3x3xf32>) -> tensor<2x4x9x9xf32>
  return %0 : tensor<2x4x9x9xf32>
}

// -----

// Tests that the forward's weight check applies (4 channels, 1 group: weight 6x4x3x3).

func.func @c(%dy: tensor<2x6x4x4xf32>, %w: tensor<6x2x3x3xf32>) -> tensor<2x4x8x8xf32> {
  // expected-error @+1 {{'mx.Convolution_backward_data' op as the forward Convolution: weight shape (6, 2, 3, 3) does not match expected (6, 4, 3, 3)}}
  %0 = mx.Convolution_backward_data %dy, %w {kernel = array<i64: 3, 3>, num_filter = 6 : i64, num_group = 1 : i64, pad = array<i64: 1, 1>, stride = array<i64: 2, 2>} : (tensor<2x6x4x4xf32>, tensor<6x2x3x3xf32>) -> tensor<2x4x8x8xf32>
  return %0 : tensor<2x4x8x8xf32>
}

// -----

// Tests that the weight gradient's type must be (num_filter, C / num_group,
// *kernel).

func.func @d(%dy: tensor<2x6x4x4xf32>, %x: tensor<2x4x8x8xf32>) -> tensor<6x4x3x3xf32> {
  // expected-error @+1 {{'mx.Convolution_backward_weight' op as the forward Convolution: weight shape (6, 4, 3, 3) does not match expected (6, 2, 3, 3)}}
  %0 = mx.Convolution_backward_weight %dy, %x {kernel = array<i64: 3, 3>, num_filter = 6 : i64, num_group = 2 : i64, pad = array<i64: 1, 1>, stride = array<i64: 2, 2>} : (tensor<2x6x4x4xf32>, tensor<2x4x8x8xf32>) -> tensor<6x4x3x3xf32>
  return %0 : tensor<6x4x3x3xf32>
}

// -----

// Tests that the weight gradient checks out_grad against the forward output.

func.func @e(%dy: tensor<2x6x5x5xf32>, %x: tensor<2x4x8x8xf32>) -> tensor<6x2x3x3xf32> {
  // expected-error @+1 {{'mx.Convolution_backward_weight' op out_grad type 'tensor<2x6x5x5xf32>' does not match the forward result type 'tensor<2x6x4x4xf32>'}}
  %0 = mx.Convolution_backward_weight %dy, %x {kernel = array<i64: 3, 3>, num_filter = 6 : i64, num_group = 2 : i64, pad = array<i64: 1, 1>, stride = array<i64: 2, 2>} : (tensor<2x6x5x5xf32>, tensor<2x4x8x8xf32>) -> tensor<6x2x3x3xf32>
  return %0 : tensor<6x2x3x3xf32>
}

// -----

// Tests that the kernel rank must match the data rank.

func.func @f(%dy: tensor<2x6x4x4xf32>, %x: tensor<2x4x8x8xf32>) -> tensor<6x2x3x3xf32> {
  // expected-error @+1 {{'mx.Convolution_backward_weight' op as the forward Convolution: expects 5-D data for a 3-D kernel, got (2, 4, 8, 8)}}
  %0 = mx.Convolution_backward_weight %dy, %x {kernel = array<i64: 3, 3, 3>, num_filter = 6 : i64, num_group = 2 : i64} : (tensor<2x6x4x4xf32>, tensor<2x4x8x8xf32>) -> tensor<6x2x3x3xf32>
  return %0 : tensor<6x2x3x3xf32>
}

// -----

// Tests that the forward output operand must have Pooling's result type.

func.func @g(%dy: tensor<1x3x4x4xf32>, %x: tensor<1x3x8x8xf32>, %y: tensor<1x3x3x3xf32>) -> tensor<1x3x8x8xf32> {
  // expected-error @+1 {{'mx.Pooling_backward' op output type 'tensor<1x3x3x3xf32>' does not match the forward result type 'tensor<1x3x4x4xf32>'}}
  %0 = mx.Pooling_backward %dy, %x, %y {kernel = array<i64: 3, 3>, pool_type = "avg", stride = array<i64: 2, 2>, pad = array<i64: 1, 1>} : (tensor<1x3x4x4xf32>, tensor<1x3x8x8xf32>, tensor<1x3x3x3xf32>) -> tensor<1x3x8x8xf32>
  return %0 : tensor<1x3x8x8xf32>
}

// -----

// Tests that out_grad must have Pooling's result type.

func.func @h(%dy: tensor<1x3x3x3xf32>, %x: tensor<1x3x8x8xf32>, %y: tensor<1x3x4x4xf32>) -> tensor<1x3x8x8xf32> {
  // expected-error @+1 {{'mx.Pooling_backward' op out_grad type 'tensor<1x3x3x3xf32>' does not match the forward result type 'tensor<1x3x4x4xf32>'}}
  %0 = mx.Pooling_backward %dy, %x, %y {kernel = array<i64: 3, 3>, pool_type = "avg", stride = array<i64: 2, 2>, pad = array<i64: 1, 1>} : (tensor<1x3x3x3xf32>, tensor<1x3x8x8xf32>, tensor<1x3x4x4xf32>) -> tensor<1x3x8x8xf32>
  return %0 : tensor<1x3x8x8xf32>
}

// -----

// Tests that Pooling's attribute checks apply: a kernel is needed without global_pool.

func.func @i(%dy: tensor<1x3x4x4xf32>, %x: tensor<1x3x8x8xf32>, %y: tensor<1x3x4x4xf32>) -> tensor<1x3x8x8xf32> {
  // expected-error @+1 {{'mx.Pooling_backward' op as the forward Pooling: requires a kernel unless global_pool is true}}
  %0 = mx.Pooling_backward %dy, %x, %y {pool_type = "avg"} : (tensor<1x3x4x4xf32>, tensor<1x3x8x8xf32>, tensor<1x3x4x4xf32>) -> tensor<1x3x8x8xf32>
  return %0 : tensor<1x3x8x8xf32>
}

// -----

// Tests that lp pooling needs p_value.

func.func @j(%dy: tensor<1x3x4x4xf32>, %x: tensor<1x3x8x8xf32>, %y: tensor<1x3x4x4xf32>) -> tensor<1x3x8x8xf32> {
  // expected-error @+1 {{'mx.Pooling_backward' op as the forward Pooling: lp pooling requires p_value}}
  %0 = mx.Pooling_backward %dy, %x, %y {pool_type = "lp", kernel = array<i64: 2, 2>, stride = array<i64: 2, 2>} : (tensor<1x3x4x4xf32>, tensor<1x3x8x8xf32>, tensor<1x3x4x4xf32>) -> tensor<1x3x8x8xf32>
  return %0 : tensor<1x3x8x8xf32>
}

// -----

// Tests that tmp_norm must have the data's type.

func.func @k(%dy: tensor<1x8x4x4xf32>, %x: tensor<1x8x4x4xf32>, %n: tensor<1x8x4x5xf32>) -> tensor<1x8x4x4xf32> {
  // expected-error @+1 {{'mx.LRN_backward' op tmp_norm type 'tensor<1x8x4x5xf32>' does not match the data type 'tensor<1x8x4x4xf32>'}}
  %0 = mx.LRN_backward %dy, %x, %n, %x {nsize = 5 : i64} : (tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>, tensor<1x8x4x5xf32>, tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  return %0 : tensor<1x8x4x4xf32>
}

// -----

// Tests that nsize must be positive.

func.func @l(%dy: tensor<1x8x4x4xf32>, %x: tensor<1x8x4x4xf32>, %n: tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32> {
  // expected-error @+1 {{'mx.LRN_backward' op nsize must be >= 1, got 0}}
  %0 = mx.LRN_backward %dy, %x, %n, %x {nsize = 0 : i64} : (tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf32>
  return %0 : tensor<1x8x4x4xf32>
}

// -----

// Tests that the LRN gradient has the data's element type.

func.func @m(%dy: tensor<1x8x4x4xf32>, %x: tensor<1x8x4x4xf32>, %n: tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf64> {
  // expected-error @+2 {{'mx.LRN_backward' op inferred type(s) 'tensor<1x8x4x4xf32>' are incompatible with return type(s) of operation 'tensor<1x8x4x4xf64>'}}
  // expected-error @+1 {{'mx.LRN_backward' op failed to infer returned types}}
  %0 = mx.LRN_backward %dy, %x, %n, %x {nsize = 3 : i64} : (tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>, tensor<1x8x4x4xf32>) -> tensor<1x8x4x4xf64>
  return %0 : tensor<1x8x4x4xf64>
}

// -----

// Tests that BatchNorm_train / BatchNorm_backward round-trip: channels at
// axis 1 (the default, elided) and at axis -1.

// CHECK-LABEL: func.func @bn
// CHECK: mx.BatchNorm_train %{{.*}}, %{{.*}}, %{{.*}} {eps = 1.000000e-05 : f64} : (tensor<2x3x4xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>)
// CHECK: mx.BatchNorm_backward {{.*}} {axis = -1 : i64} : (tensor<2x3x4xf64>, tensor<2x3x4xf64>, tensor<4xf64>, tensor<4xf64>, tensor<4xf64>) -> (tensor<2x3x4xf64>, tensor<4xf64>, tensor<4xf64>)
func.func @bn(%x: tensor<2x3x4xf32>, %c: tensor<3xf32>, %y: tensor<2x3x4xf64>, %d: tensor<4xf64>) {
  %0:4 = mx.BatchNorm_train %x, %c, %c {eps = 1.0e-5 : f64} : (tensor<2x3x4xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>)
  %1:3 = mx.BatchNorm_backward %y, %y, %d, %d, %d {axis = -1 : i64, eps = 1.0e-3 : f64} : (tensor<2x3x4xf64>, tensor<2x3x4xf64>, tensor<4xf64>, tensor<4xf64>, tensor<4xf64>) -> (tensor<2x3x4xf64>, tensor<4xf64>, tensor<4xf64>)
  return
}

// -----

// Tests that BatchNorm_train's statistics have one value a channel.

func.func @bn_stats(%x: tensor<2x3x4xf32>, %c: tensor<3xf32>) {
  // expected-error @+1 {{'mx.BatchNorm_train' op mean type 'tensor<4xf32>' is not 'tensor<3xf32>' (one value a channel)}}
  %0:4 = mx.BatchNorm_train %x, %c, %c : (tensor<2x3x4xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3x4xf32>, tensor<4xf32>, tensor<3xf32>, tensor<3xf32>)
  return
}

// -----

// Tests that BatchNorm_backward's data gradient has the data's type, and
// that the channel axis is checked.

func.func @bn_grad(%y: tensor<2x3x4xf64>, %d: tensor<3xf64>) {
  // expected-error @+1 {{'mx.BatchNorm_backward' op data_grad type 'tensor<2x3x4xf32>' does not match the data type 'tensor<2x3x4xf64>'}}
  %0:3 = mx.BatchNorm_backward %y, %y, %d, %d, %d : (tensor<2x3x4xf64>, tensor<2x3x4xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3xf64>) -> (tensor<2x3x4xf32>, tensor<3xf64>, tensor<3xf64>)
  return
}

// -----

func.func @bn_axis(%x: tensor<2x3xf32>, %c: tensor<3xf32>) {
  // expected-error @+1 {{'mx.BatchNorm_train' op axis 2 out of range for data 'tensor<2x3xf32>'}}
  %0:4 = mx.BatchNorm_train %x, %c, %c {axis = 2 : i64} : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>)
  return
}

// -----

func.func @bn_eps(%x: tensor<2x3xf32>, %c: tensor<3xf32>) {
  // expected-error @+1 {{'mx.BatchNorm_train' op eps must be > 0, got 0}}
  %0:4 = mx.BatchNorm_train %x, %c, %c {eps = 0.0 : f64} : (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>)
  return
}

// -----

// Tests that softmax_backward round-trips and checks its operands' types
// and axis.

// CHECK-LABEL: func.func @softmax_grad
// CHECK: mx.softmax_backward %{{.*}}, %{{.*}} {axis = 0 : i64, log = true} : (tensor<4x10xf64>, tensor<4x10xf64>) -> tensor<4x10xf64>
func.func @softmax_grad(%y: tensor<4x10xf64>) -> tensor<4x10xf64> {
  %0 = mx.softmax_backward %y, %y {axis = 0 : i64, log = true} : (tensor<4x10xf64>, tensor<4x10xf64>) -> tensor<4x10xf64>
  return %0 : tensor<4x10xf64>
}

// -----

func.func @softmax_grad_type(%y: tensor<4x10xf32>, %dy: tensor<4x9xf32>) -> tensor<4x10xf32> {
  // expected-error @+1 {{'mx.softmax_backward' op out_grad type 'tensor<4x9xf32>' does not match the output type 'tensor<4x10xf32>'}}
  %0 = mx.softmax_backward %dy, %y : (tensor<4x9xf32>, tensor<4x10xf32>) -> tensor<4x10xf32>
  return %0 : tensor<4x10xf32>
}

// -----

func.func @softmax_grad_axis(%y: tensor<4x10xf32>) -> tensor<4x10xf32> {
  // expected-error @+1 {{'mx.softmax_backward' op axis 2 out of range for 'tensor<4x10xf32>'}}
  %0 = mx.softmax_backward %y, %y {axis = 2 : i64} : (tensor<4x10xf32>, tensor<4x10xf32>) -> tensor<4x10xf32>
  return %0 : tensor<4x10xf32>
}
