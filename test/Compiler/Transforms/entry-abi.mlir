// mxc-entry-abi: @main on tensors becomes the compiled entry on caller
// buffers (inputs, then one per result), with the plan's buffer names.
// RUN: mxc-opt %s -split-input-file -mxc-entry-abi | FileCheck %s
// RUN: mxc-opt %s -split-input-file -mxc-entry-abi=entry=model | FileCheck %s --check-prefix=ENTRY

// Tests that inputs are read through to_tensor restrict, each result is
// materialized into the writable tensor of its output buffer and then into
// the buffer, and the names (mx.name, else arg<i> / output<i>) are kept.
func.func @main(%x: tensor<4xf32> {mx.name = "data"}, %y: tensor<2x3xi64>)
    -> (tensor<4xf32> {mx.name = "out"}, tensor<2x3xi64>) {
  %0 = math.exp %x : tensor<4xf32>
  return %0, %y : tensor<4xf32>, tensor<2x3xi64>
}
// CHECK-LABEL: func.func @mxc_main(
// CHECK-SAME: %[[X:[^:]*]]: memref<4xf32> {llvm.noalias}, %[[Y:[^:]*]]: memref<2x3xi64> {llvm.noalias},
// CHECK-SAME: %[[OUT:[^:]*]]: memref<4xf32> {llvm.noalias}, %[[OUT1:[^:]*]]: memref<2x3xi64> {llvm.noalias})
// CHECK-SAME: attributes {llvm.emit_c_interface, mx.buffer_names = ["data", "arg1", "out", "output1"], mx.num_inputs = 2 : i64}
// CHECK-NOT: ->
// CHECK: %[[TX:.*]] = bufferization.to_tensor %[[X]] restrict : memref<4xf32>
// CHECK: %[[TY:.*]] = bufferization.to_tensor %[[Y]] restrict : memref<2x3xi64>
// CHECK: %[[TO:.*]] = bufferization.to_tensor %[[OUT]] restrict writable : memref<4xf32>
// CHECK: %[[TO1:.*]] = bufferization.to_tensor %[[OUT1]] restrict writable : memref<2x3xi64>
// CHECK: %[[E:.*]] = math.exp %[[TX]]
// CHECK: %[[M:.*]] = bufferization.materialize_in_destination %[[E]] in %[[TO]] : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK: bufferization.materialize_in_destination %[[M]] in writable %[[OUT]] : (tensor<4xf32>, memref<4xf32>) -> ()
// CHECK: %[[M1:.*]] = bufferization.materialize_in_destination %[[TY]] in %[[TO1]]
// CHECK: bufferization.materialize_in_destination %[[M1]] in writable %[[OUT1]]
// CHECK: return{{$}}
// ENTRY-LABEL: func.func @model(
// ENTRY-NOT: @main

// -----

// Tests that other functions (the kernels' declarations) are left alone.
func.func private @helper(tensor<4xf32>) -> tensor<4xf32>
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
// CHECK: func.func private @helper(tensor<4xf32>) -> tensor<4xf32>
// CHECK-LABEL: func.func @mxc_main(
// CHECK-SAME: mx.buffer_names = ["arg0", "output0"], mx.num_inputs = 1 : i64

// -----

// A result that is a fill other ops also use (a label's zero gradient that
// CSE merged with a reduction's zero accumulator of the same shape) gets a
// fill of its own, so that bufferization can write the accumulator in place.
func.func @main(%x: tensor<4x3xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %e = tensor.empty() : tensor<4xf32>
  %c0 = arith.constant 0.0 : f32
  %z = linalg.fill ins(%c0 : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %s = linalg.reduce ins(%x : tensor<4x3xf32>) outs(%z : tensor<4xf32>) dimensions = [1]
    (%a: f32, %b: f32) {
      %t = arith.addf %a, %b : f32
      linalg.yield %t : f32
    }
  return %s, %z : tensor<4xf32>, tensor<4xf32>
}
// CHECK-LABEL: func.func @mxc_main(
// CHECK: %[[Z:.*]] = linalg.fill
// CHECK: %[[S:.*]] = linalg.reduce ins(%{{.*}}) outs(%[[Z]] : tensor<4xf32>)
// CHECK: %[[Z2:.*]] = linalg.fill
// CHECK: bufferization.materialize_in_destination %[[S]]
// CHECK: bufferization.materialize_in_destination %[[Z2]]
// CHECK: return

// -----

// An input and an output declared one buffer (mx.in_place, argument numbers
// after the ABI: input 0, output 0 = argument 2) lose noalias; the others
// keep it.
func.func @main(%w: tensor<4xf32> {mx.name = "weight"}, %g: tensor<4xf32> {mx.name = "grad"})
    -> (tensor<4xf32> {mx.name = "out"}) attributes {mx.in_place = array<i64: 0, 2>} {
  %0 = arith.subf %w, %g : tensor<4xf32>
  return %0 : tensor<4xf32>
}
// CHECK-LABEL: func.func @mxc_main(
// CHECK-SAME: %{{[^:]*}}: memref<4xf32>, %{{[^:]*}}: memref<4xf32> {llvm.noalias}, %{{[^:]*}}: memref<4xf32>)
// CHECK-SAME: mx.in_place = array<i64: 0, 2>
