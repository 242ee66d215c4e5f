// mxc-entry-abi refuses what cannot cross the entry, with one error.
// RUN: mxc-opt %s -split-input-file -mxc-entry-abi -verify-diagnostics

// Tests that a dynamically shaped argument is an error at @main.
// expected-error @+1 {{cannot compile a function with argument or result type 'tensor<?xf32>' (statically shaped tensors only)}}
func.func @main(%x: tensor<?xf32>) -> tensor<?xf32> {
  return %x : tensor<?xf32>
}

// -----

// Tests that a non-tensor result is an error at @main.
// expected-error @+1 {{cannot compile a function with argument or result type 'f32'}}
func.func @main(%x: tensor<4xf32>, %s: f32) -> f32 {
  return %s : f32
}

// -----

// Tests that a module without @main is an error.
// expected-error @+1 {{no function @main to compile}}
module {
  func.func @other() {
    return
  }
}
