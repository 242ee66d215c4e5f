// mxc-gpu-sink-constants: a constant tensor (a memref.global in host memory)
// read by a GPU kernel moves into the kernel's module instead of being passed
// as a host address; the constant's values travel with it (the get_global
// left outside is dead: canonicalize removes it).
// RUN: mxc-opt %s -pass-pipeline='builtin.module(func.func(mxc-gpu-sink-constants), gpu-kernel-outlining, canonicalize)' | FileCheck %s
// RUN: mxc-opt %s -pass-pipeline='builtin.module(gpu-kernel-outlining)' | FileCheck %s --check-prefix=WITHOUT

// CHECK-LABEL: func.func @step
// CHECK-NOT: memref.get_global
// CHECK: gpu.launch_func @step_kernel::@step_kernel {{.*}} args(%{{.*}} : memref<4xf32>)
// CHECK: gpu.module @step_kernel
// CHECK: gpu.func @step_kernel(%{{.*}}: memref<4xf32>) kernel
// CHECK: memref.get_global @__constant_4xf32 : memref<4xf32>
// CHECK: memref.global "private" constant @__constant_4xf32 : memref<4xf32> = dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]>

// Without the pass the kernel takes the host global as an argument.
// WITHOUT: memref.get_global @__constant_4xf32
// WITHOUT: gpu.launch_func @step_kernel::@step_kernel {{.*}} args(%{{.*}} : memref<4xf32>, %{{.*}} : memref<4xf32>)
module {
  memref.global "private" constant @__constant_4xf32 : memref<4xf32> = dense<[1.0, 2.0, 3.0, 4.0]>
  func.func @step(%a: memref<4xf32>) {
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %g = memref.get_global @__constant_4xf32 : memref<4xf32>
    gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1) threads(%tx, %ty, %tz) in (%i = %c4, %j = %c1, %k = %c1) {
      %v = memref.load %g[%tx] : memref<4xf32>
      memref.store %v, %a[%tx] : memref<4xf32>
      gpu.terminator
    }
    return
  }
}
