// mxc-gpu-launches-on-host refuses what a host loop over the threads would
// not mean: threads that synchronise or share memory.
// RUN: mxc-opt %s --mxc-gpu-launches-on-host --verify-diagnostics

func.func @barrier(%arg0: memref<16xf32>) {
  %c1 = arith.constant 1 : index
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
    // expected-error @+1 {{gpu.barrier cannot run as a host loop (GPU kernel emulation)}}
    gpu.barrier
    gpu.terminator
  }
  return
}
