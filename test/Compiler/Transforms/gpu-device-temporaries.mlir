// mxc-gpu-device-temporaries (the CUDA target): a buffer a step allocates for
// itself (static shape, in the entry block) is allocated on the device,
// asynchronously on the step's stream, and given back before each return,
// the stream then waited for (mgpuMemAlloc / mgpuMemFree after gpu-to-llvm,
// served by the runtime's device pool). A dynamically shaped one is left for
// mxc-gpu-check-host-code to refuse. A constant (a host global) that a
// library kernel reads, through a view, is copied into a device buffer
// first, which its readers then read (gpu.memcpy: mgpuMemcpy). test/python/gpu/test_gpu_target.py
// compiles diag over other axes (which needs one) for sm_90.
// RUN: mxc-opt %s --pass-pipeline="builtin.module(func.func(mxc-gpu-device-temporaries))" | FileCheck %s

// CHECK-LABEL: func.func @step
// CHECK:         %[[S:.*]] = gpu.wait async
// CHECK:         %[[T:.*]], %{{.*}} = gpu.alloc async [%[[S]]] () : memref<4x6xf32>
// CHECK-NOT:     memref.alloc
// CHECK:         linalg.transpose ins(%{{.*}} : memref<6x4xf32>) outs(%[[T]] : memref<4x6xf32>)
// CHECK:         %[[D:.*]] = gpu.dealloc async [%[[S]]] %[[T]] : memref<4x6xf32>
// CHECK-NEXT:    gpu.wait [%[[D]]]
// CHECK-NEXT:    return

func.func @step(%in: memref<6x4xf32>, %out: memref<4x6xf32>) {
  %t = memref.alloc() : memref<4x6xf32>
  linalg.transpose ins(%in : memref<6x4xf32>) outs(%t : memref<4x6xf32>) permutation = [1, 0]
  memref.copy %t, %out : memref<4x6xf32> to memref<4x6xf32>
  return
}

// Two temporaries: given back one after the other, one wait.
// CHECK-LABEL: func.func @two
// CHECK:         %[[S:.*]] = gpu.wait async
// CHECK:         %[[A:.*]], %{{.*}} = gpu.alloc async [%[[S]]]
// CHECK:         %[[B:.*]], %{{.*}} = gpu.alloc async [%[[S]]]
// CHECK:         %[[D1:.*]] = gpu.dealloc async [%[[S]]] %[[A]]
// CHECK-NEXT:    %[[D2:.*]] = gpu.dealloc async [%[[D1]]] %[[B]]
// CHECK-NEXT:    gpu.wait [%[[D2]]]
// CHECK-NEXT:    return
func.func @two(%in: memref<6x4xf32>, %out: memref<6x4xf32>) {
  %a = memref.alloc() : memref<4x6xf32>
  %b = memref.alloc() : memref<6x4xf32>
  linalg.transpose ins(%in : memref<6x4xf32>) outs(%a : memref<4x6xf32>) permutation = [1, 0]
  linalg.transpose ins(%a : memref<4x6xf32>) outs(%b : memref<6x4xf32>) permutation = [1, 0]
  memref.copy %b, %out : memref<6x4xf32> to memref<6x4xf32>
  return
}

// CHECK-LABEL: func.func @dynamic
// CHECK-NOT:     gpu.alloc
// CHECK:         memref.alloc(%{{.*}}) : memref<?xf32>
func.func @dynamic(%n: index) {
  %t = memref.alloc(%n) : memref<?xf32>
  return
}

// CHECK-LABEL: func.func @none
// CHECK-NOT:     gpu.wait
func.func @none(%x: memref<4xf32>) {
  return
}

memref.global "private" constant @anchors : memref<2x4xf32> = dense<1.0>
memref.global "private" @mutable : memref<8xf32> = dense<0.0>
func.func private @mxc_cuda_kernel_proposal_f32(memref<8xf32>)

// CHECK-LABEL: func.func @constant_for_a_library_kernel
// CHECK:         %[[S:.*]] = gpu.wait async
// CHECK:         %[[G:.*]] = memref.get_global @anchors : memref<2x4xf32>
// CHECK:         %[[D:.*]], %{{.*}} = gpu.alloc async [%[[S]]] () : memref<2x4xf32>
// CHECK:         gpu.memcpy async [%[[S]]] %[[D]], %[[G]] : memref<2x4xf32>, memref<2x4xf32>
// CHECK:         %[[V:.*]] = memref.collapse_shape %[[D]]
// CHECK:         call @mxc_cuda_kernel_proposal_f32(%[[V]])
// CHECK:         gpu.dealloc async [%[[S]]] %[[D]]
func.func @constant_for_a_library_kernel() {
  %g = memref.get_global @anchors : memref<2x4xf32>
  %v = memref.collapse_shape %g [[0, 1]] : memref<2x4xf32> into memref<8xf32>
  call @mxc_cuda_kernel_proposal_f32(%v) : (memref<8xf32>) -> ()
  return
}

// A mutable global is not copied (the host-code check refuses it).
// CHECK-LABEL: func.func @mutable_global
// CHECK-NOT:     gpu.memcpy
func.func @mutable_global() {
  %g = memref.get_global @mutable : memref<8xf32>
  call @mxc_cuda_kernel_proposal_f32(%g) : (memref<8xf32>) -> ()
  return
}
