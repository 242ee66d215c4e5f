// RUN: mxc-opt %s --split-input-file --verify-diagnostics | FileCheck %s --check-prefix=ROUND
// RUN: mxc-opt %s --split-input-file --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" --mxrt-lower-kernel-calls --verify-diagnostics | FileCheck %s --check-prefix=LOWER

// Tests a kernel call with two destinations (the output and a scratch
// workspace, as the convolution gradients use): on tensors it returns one
// updated value per destination; bufferized, the scratch is a buffer of its
// own and the C call gets the destinations after the inputs, in order.

// ROUND-LABEL: func.func @workspace
// ROUND: %{{.*}}:2 = mxrt.kernel_call @k(%{{.*}}) outs(%{{.*}}, %{{.*}}) args [7] : (tensor<4xf32>, tensor<4xf32>, tensor<16xf32>) -> (tensor<4xf32>, tensor<16xf32>)

// LOWER: func.func private @k(memref<?xf32, strided<[1], offset: ?>>, memref<?xf32, strided<[1], offset: ?>>, memref<?xf32, strided<[1], offset: ?>>, i64)
// LOWER-LABEL: func.func @workspace
// LOWER-SAME: (%[[A:.*]]: memref<4xf32>) -> memref<4xf32>
// LOWER-DAG: %[[OUT:.*]] = memref.alloc() {{.*}} : memref<4xf32>
// LOWER-DAG: %[[WS:.*]] = memref.alloc() {{.*}} : memref<16xf32>
// LOWER-DAG: %[[AV:.*]] = memref.cast %[[A]]
// LOWER-DAG: %[[OV:.*]] = memref.cast %[[OUT]]
// LOWER-DAG: %[[WV:.*]] = memref.cast %[[WS]]
// LOWER: call @k(%[[AV]], %[[OV]], %[[WV]], %{{.*}})
// LOWER: return %[[OUT]]
func.func @workspace(%a: tensor<4xf32>) -> tensor<4xf32> {
  %out = tensor.empty() : tensor<4xf32>
  %ws = bufferization.alloc_tensor() : tensor<16xf32>
  %r:2 = mxrt.kernel_call @k(%a) outs(%out, %ws) args [7] : (tensor<4xf32>, tensor<4xf32>, tensor<16xf32>) -> (tensor<4xf32>, tensor<16xf32>)
  return %r#0 : tensor<4xf32>
}

// -----

func.func @one_result_for_two(%a: tensor<4xf32>, %c: tensor<4xf32>, %w: tensor<16xf32>) {
  // expected-error @+1 {{'mxrt.kernel_call' op on tensors must return the updated destinations}}
  %0 = mxrt.kernel_call @k(%a) outs(%c, %w) : (tensor<4xf32>, tensor<4xf32>, tensor<16xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @mixed_destinations(%a: memref<4xf32>, %c: memref<4xf32>, %w: tensor<16xf32>) {
  // expected-error @+1 {{'mxrt.kernel_call' op destinations must be all tensors or all memrefs}}
  mxrt.kernel_call @k(%a) outs(%c, %w) : (memref<4xf32>, memref<4xf32>, tensor<16xf32>) -> ()
  return
}

// -----

func.func @no_destination(%a: memref<4xf32>) {
  // expected-error @+1 {{'mxrt.kernel_call' op needs at least one destination}}
  mxrt.kernel_call @k(%a) outs() : (memref<4xf32>) -> ()
  return
}
