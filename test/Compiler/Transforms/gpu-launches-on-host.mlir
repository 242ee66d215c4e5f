// mxc-gpu-launches-on-host: the GPU kernel emulation (`mxc run
// --emulate-gpu-kernels`) runs each gpu.launch as a host loop over its grid
// and blocks (z, y, x of each), the launch body inside with the block and
// thread ids its induction variables (reversed with reverse=true: a kernel
// whose result depends on the order of its threads races on a GPU); device
// temporaries become host ones and the GPU twins of library kernels their
// CPU kernels. The numerics are checked end to end by
// test/python/gpu/test_gpu_emulation.py.
// RUN: mxc-opt %s --mxc-gpu-check-host-code=launches=true --mxc-gpu-launches-on-host | FileCheck %s
// RUN: mxc-opt %s --mxc-gpu-launches-on-host=reverse=true | FileCheck %s --check-prefix=REV

// CHECK-LABEL: func.func @step0
// CHECK-NOT:     gpu.
// CHECK:         %[[T:.*]] = memref.alloc() : memref<16xf32>
// CHECK:         scf.parallel (%[[BZ:[a-z0-9_]+]], %[[BY:[a-z0-9_]+]], %[[BX:[a-z0-9_]+]], %[[TZ:[a-z0-9_]+]], %[[TY:[a-z0-9_]+]], %[[TX:[a-z0-9_]+]]) = ({{.*}}) to (%c1, %c1, %c2, %c1, %c1, %c8)
// CHECK:           scf.execute_region {
// CHECK:             %[[BASE:.*]] = arith.muli %[[BX]], %c8
// CHECK:             %[[I:.*]] = arith.addi %[[TX]], %[[BASE]]
// CHECK:             %[[V:.*]] = memref.load %arg0[%[[I]]]
// CHECK:             memref.store %[[V]], %[[T]][%[[I]]]
// CHECK:             scf.yield
// CHECK:         call @mxc_kernel_topk_f32(%[[T]], %arg1)
// CHECK:         memref.dealloc %[[T]]
// CHECK-NOT:     gpu.
// CHECK:         return
// CHECK:       func.func private @mxc_kernel_topk_f32(memref<16xf32>, memref<16xf32>)
// CHECK-NOT:   mxc_cuda_kernel

// A constant copied into a device temporary (a library kernel reads it) is
// a host copy; a twin whose CPU kernel is declared already calls that one.
// CHECK-LABEL: func.func @step1
// CHECK:         %[[G:.*]] = memref.get_global @anchors : memref<4xf32>
// CHECK:         %[[T:.*]] = memref.alloc() : memref<4xf32>
// CHECK:         memref.copy %[[G]], %[[T]] : memref<4xf32> to memref<4xf32>
// CHECK:         call @mxc_kernel_lu_f32(%[[T]])
// CHECK:         memref.dealloc %[[T]]
// REV:         scf.parallel (%[[BZ:[a-z0-9_]+]], %[[BY:[a-z0-9_]+]], %[[BX:[a-z0-9_]+]], %[[TZ:[a-z0-9_]+]], %[[TY:[a-z0-9_]+]], %[[TX:[a-z0-9_]+]]) =
// REV-DAG:       %[[LASTB:.*]] = arith.subi %c2, %{{.*}}
// REV-DAG:       %[[RBX:.*]] = arith.subi %[[LASTB]], %[[BX]]
// REV-DAG:       %[[LASTT:.*]] = arith.subi %c8, %{{.*}}
// REV-DAG:       %[[RTX:.*]] = arith.subi %[[LASTT]], %[[TX]]
// REV:           arith.muli %[[RBX]], %c8
func.func @step0(%arg0: memref<16xf32>, %arg1: memref<16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c8 = arith.constant 8 : index
  %0 = gpu.wait async
  %t, %1 = gpu.alloc async [%0] () : memref<16xf32>
  gpu.launch blocks(%bx, %by, %bz) in (%gx = %c2, %gy = %c1, %gz = %c1)
             threads(%tx, %ty, %tz) in (%sx = %c8, %sy = %c1, %sz = %c1) {
    %base = arith.muli %bx, %sx : index
    %i = arith.addi %tx, %base : index
    %v = memref.load %arg0[%i] : memref<16xf32>
    memref.store %v, %t[%i] : memref<16xf32>
    gpu.terminator
  }
  call @mxc_cuda_kernel_topk_f32(%t, %arg1) : (memref<16xf32>, memref<16xf32>) -> ()
  %2 = gpu.dealloc async [%1] %t : memref<16xf32>
  gpu.wait [%2]
  return
}
func.func private @mxc_cuda_kernel_topk_f32(memref<16xf32>, memref<16xf32>)

memref.global "private" constant @anchors : memref<4xf32> = dense<[1.0, 2.0, 3.0, 4.0]>
func.func @step1() {
  %g = memref.get_global @anchors : memref<4xf32>
  %0 = gpu.wait async
  %t, %1 = gpu.alloc async [%0] () : memref<4xf32>
  %2 = gpu.memcpy async [%1] %t, %g : memref<4xf32>, memref<4xf32>
  call @mxc_cuda_kernel_lu_f32(%t) : (memref<4xf32>) -> ()
  %3 = gpu.dealloc async [%2] %t : memref<4xf32>
  gpu.wait [%3]
  return
}
func.func private @mxc_cuda_kernel_lu_f32(memref<4xf32>)
func.func private @mxc_kernel_lu_f32(memref<4xf32>)
