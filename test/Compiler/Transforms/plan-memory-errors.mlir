// mx-plan-memory errors: an unknown strategy, a planned function that is
// called (the arena argument would break the call).
// RUN: not mxc-opt %s -mx-plan-memory=strategy=greedy 2>&1 | FileCheck %s --check-prefix=STRATEGY
// RUN: mxc-opt %s -mx-plan-memory -verify-diagnostics -o /dev/null

// STRATEGY: error: mx-plan-memory: unknown strategy 'greedy' (expected none, inplace, coshare or both)

// expected-error @below {{cannot plan the memory of @callee: it is called, and planning adds an arena argument}}
func.func @callee(%x: memref<4xf32>) {
  %a = memref.alloc() : memref<4xf32>
  memref.copy %x, %a : memref<4xf32> to memref<4xf32>
  memref.copy %a, %x : memref<4xf32> to memref<4xf32>
  return
}
func.func private @caller(%x: memref<4xf32>) {
  call @callee(%x) : (memref<4xf32>) -> ()
  return
}
