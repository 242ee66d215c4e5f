// RUN: mxc-opt %s --split-input-file --verify-diagnostics

func.func @tensor_without_result(%a: tensor<4xf32>, %c: tensor<4xf32>) {
  // expected-error @+1 {{'mxrt.kernel_call' op on tensors must return the updated destination}}
  mxrt.kernel_call @k(%a) outs(%c) : (tensor<4xf32>, tensor<4xf32>) -> ()
  return
}

// -----

func.func @memref_with_result(%a: memref<4xf32>, %c: memref<4xf32>) {
  // expected-error @+1 {{'mxrt.kernel_call' op on memrefs must not return a value}}
  %0 = mxrt.kernel_call @k(%a) outs(%c) : (memref<4xf32>, memref<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @result_type(%a: tensor<4xf32>, %c: tensor<4xf32>) {
  // expected-error @+1 {{'mxrt.kernel_call' op expected type of operand #1 ('tensor<4xf32>') to match type of corresponding result ('tensor<5xf32>')}}
  %0 = mxrt.kernel_call @k(%a) outs(%c) : (tensor<4xf32>, tensor<4xf32>) -> tensor<5xf32>
  return
}

// -----

func.func @mixed(%a: memref<4xf32>, %c: tensor<4xf32>) {
  // expected-error @+1 {{'mxrt.kernel_call' op operand #0 must be a ranked tensor like the destination}}
  %0 = mxrt.kernel_call @k(%a) outs(%c) : (memref<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @dynamic(%a: tensor<?xf32>, %c: tensor<4xf32>) {
  // expected-error @+1 {{'mxrt.kernel_call' op operand #0 must have a static shape}}
  %0 = mxrt.kernel_call @k(%a) outs(%c) : (tensor<?xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @strided(%a: memref<4xf32, strided<[2]>>, %c: memref<4xf32>) {
  // expected-error @+1 {{'mxrt.kernel_call' op operand #0 must be a statically shaped, contiguous row-major memref}}
  mxrt.kernel_call @k(%a) outs(%c) : (memref<4xf32, strided<[2]>>, memref<4xf32>) -> ()
  return
}

// -----

func.func @element_type(%a: tensor<4xf64>, %c: tensor<4xf32>) {
  // expected-error @+1 {{'mxrt.kernel_call' op operand #0 must have the destination's element type 'f32'}}
  %0 = mxrt.kernel_call @k(%a) outs(%c) : (tensor<4xf64>, tensor<4xf32>) -> tensor<4xf32>
  return
}
