// RUN: mxc-opt %s --split-input-file --mx-fuse-elementwise --convert-mx-to-linalg --canonicalize --cse | FileCheck %s

// Tests that convert-mx-to-linalg lowers each mx.fused to one linalg.generic
// over the data (one loop nest): a convolution's bias + BatchNorm + relu
// after the library convolution call, with BatchNorm's 1 / sqrt(var + eps)
// in a loop over the channels of its own (not recomputed per element); a
// broadcast chain; a group with two results (one generic with two results).

// CHECK-LABEL: func.func @conv_tail
// CHECK: %[[C:.*]] = mxrt.kernel_call @mxc_kernel_conv_f32
// CHECK: %[[INV:.*]] = linalg.generic {{.*}} iterator_types = ["parallel"]} ins(%{{.*}} : tensor<8xf32>)
// CHECK: math.sqrt
// CHECK-NOT: linalg.generic
// CHECK: %[[G:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%[[C]], %{{.*}}, %{{.*}}, %[[INV]], %{{.*}}, %{{.*}} : tensor<1x8x8x8xf32>, tensor<1x8x1x1xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>)
// CHECK-NOT: math.sqrt
// CHECK: arith.cmpf ugt
// CHECK: linalg.yield
// CHECK-NOT: linalg.generic
// CHECK: return %[[G]]
func.func @conv_tail(%x: tensor<1x3x8x8xf32>, %w: tensor<8x3x3x3xf32>, %b: tensor<8xf32>, %g: tensor<8xf32>, %be: tensor<8xf32>, %mm: tensor<8xf32>, %mv: tensor<8xf32>) -> tensor<1x8x8x8xf32> {
  %c = mx.Convolution %x, %w, %b {kernel = array<i64: 3, 3>, num_filter = 8 : i64, pad = array<i64: 1, 1>} : (tensor<1x3x8x8xf32>, tensor<8x3x3x3xf32>, tensor<8xf32>) -> tensor<1x8x8x8xf32>
  %o, %m, %v = mx.BatchNorm %c, %g, %be, %mm, %mv {fix_gamma = false, use_global_stats = true} : (tensor<1x8x8x8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>) -> (tensor<1x8x8x8xf32>, tensor<8xf32>, tensor<8xf32>)
  %r = mx.Activation %o {act_type = "relu"} : (tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  return %r : tensor<1x8x8x8xf32>
}

// -----

// CHECK-LABEL: func.func @broadcast_chain
// CHECK-COUNT-1: linalg.generic
// CHECK-NOT: linalg.generic
// CHECK: return
func.func @broadcast_chain(%a: tensor<4x1xf32>, %b: tensor<1x5xf32>, %c: tensor<5xf32>) -> tensor<4x5xf32> {
  %0 = mx.broadcast_mul %a, %b : (tensor<4x1xf32>, tensor<1x5xf32>) -> tensor<4x5xf32>
  %1 = mx._plus_scalar %0 {scalar = 1.0 : f64} : (tensor<4x5xf32>) -> tensor<4x5xf32>
  %2 = mx.broadcast_maximum %1, %c : (tensor<4x5xf32>, tensor<5xf32>) -> tensor<4x5xf32>
  %3 = mx.clip %2 {a_min = 0.0 : f64, a_max = 6.0 : f64} : (tensor<4x5xf32>) -> tensor<4x5xf32>
  return %3 : tensor<4x5xf32>
}

// -----

// CHECK-LABEL: func.func @two_results
// CHECK: %[[G:.*]]:2 = linalg.generic
// CHECK: math.exp
// CHECK: arith.cmpf ugt
// CHECK: linalg.yield %{{.*}}, %{{.*}} : f32, f32
// CHECK-NOT: linalg.generic
// CHECK: return %[[G]]#1, %[[G]]#0
func.func @two_results(%x: tensor<1x4x6x6xf32>) -> (tensor<1x4x6x6xf32>, tensor<1x4x6x6xf32>) {
  %e = mx.exp %x : (tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  %r = mx.relu %e : (tensor<1x4x6x6xf32>) -> tensor<1x4x6x6xf32>
  return %r, %e : tensor<1x4x6x6xf32>, tensor<1x4x6x6xf32>
}
