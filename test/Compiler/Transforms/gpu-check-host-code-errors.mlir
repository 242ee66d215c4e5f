// mxc-gpu-check-host-code: after kernel outlining, a step of the CUDA target
// may only launch kernels; anything that would touch its (device) buffers on
// the host is an error naming the MXNet node, or the step.
// RUN: not mxc-opt %s -split-input-file -mxc-gpu-check-host-code -mlir-print-op-on-diagnostic=false 2>&1 | FileCheck %s

// Tests a library call left in a step (GEMM-class ops have no GPU kernel):
// the diagnostic's location is the MXNet node.
// CHECK: error: loc("fc1"): func.call has no GPU lowering yet (--target cuda compiles elementwise, broadcast and reduction steps into kernels, GEMM and convolution through cuBLAS / cuDNN; the other library calls are CPU-only so far)
#fc1 = loc("fc1"(unknown))
func.func private @mxc_kernel_sgemm(memref<4x4xf32>, memref<4x4xf32>)
func.func @step0(%a: memref<4x4xf32>, %b: memref<4x4xf32>) {
  func.call @mxc_kernel_sgemm(%a, %b) : (memref<4x4xf32>, memref<4x4xf32>) -> () loc(#fc1)
  return
}

// -----

// Tests a host loop without a node name: the error names the step (once,
// for the loop, not for what is inside it).
// CHECK: gpu-check-host-code-errors.mlir:[[@LINE+7]]:3: error: step @step1: scf.for has no GPU lowering yet
// CHECK-NOT: memref.store has no GPU lowering
func.func @step1(%a: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %z = arith.constant 0.0 : f32
  scf.for %i = %c0 to %c4 step %c1 {
    memref.store %z, %a[%i] : memref<4xf32>
  }
  return
}

// -----

// Tests a tensor constant bufferized into a global (host memory) in a step:
// a kernel given it would read host addresses.
// CHECK: error: loc("ones"): the constant @__constant_4xf32 would be read on the GPU from host memory (constant tensors have no GPU placement yet)
#ones = loc("ones"(unknown))
memref.global "private" constant @__constant_4xf32 : memref<4xf32> = dense<1.0>
func.func @step3(%a: memref<4xf32>) {
  %g = memref.get_global @__constant_4xf32 : memref<4xf32> loc(#ones)
  return
}

// -----

// Tests that views, constants and launches pass.
// CHECK-NOT: error: step @step2
module attributes {gpu.container_module} {
  gpu.module @k {
    gpu.func @k(%a: memref<4xf32>) kernel {
      gpu.return
    }
  }
  func.func @step2(%a: memref<16xi8>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %v = memref.view %a[%c0][] : memref<16xi8> to memref<4xf32>
    gpu.launch_func @k::@k blocks in (%c1, %c1, %c1) threads in (%c1, %c1, %c1) args(%v : memref<4xf32>)
    return
  }
}

// -----

// Tests a launch not outlined: an error unless `launches` (the GPU kernel
// emulation checks the steps before outlining: gpu-launches-on-host.mlir).
// CHECK: gpu-check-host-code-errors.mlir:[[@LINE+3]]:3: error: step @step_launch: gpu.launch has no GPU lowering yet
func.func @step_launch(%a: memref<4xf32>) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    gpu.terminator
  }
  return
}
