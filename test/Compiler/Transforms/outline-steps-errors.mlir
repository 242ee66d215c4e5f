// mx-outline-steps refuses an entry it cannot outline, with one error.
// RUN: not mxc-opt %s -mx-outline-steps 2>&1 | FileCheck %s

// CHECK: error: mx-outline-steps: @noargs must have one block and an arena argument
func.func @noargs() attributes {mx.arena_size = 0 : i64} {
  return
}
