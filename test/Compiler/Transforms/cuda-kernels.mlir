// mxc-cuda-kernels: the CUDA target's kernels. Planned steps (functions on
// static memrefs) become one-dimensional grids of blocks (of 256 threads here; 128 by default), outlined
// into gpu.module's with the nvvm target and converted to NVVM with one bare
// pointer a buffer; the steps keep only the launches. (The binaries, the
// host lowering and the runtime's launches are checked on a GPU by
// scripts/gpu-check.sh; every kernel's PTX goes through ptxas in
// test/python/test_gpu_target.py.)
// RUN: mxc-opt %s --pass-pipeline="builtin.module(mxc-cuda-kernels{chip=sm_90 block-size=256})" | FileCheck %s

// Tests a fused broadcast + exp over a rank-3 buffer: the dimensions every
// operand walks contiguously are merged (2x3 -> 6 rows of 1000), the rows'
// 1000 elements unrolled by 4 (250 threads a row, 1500 in all: 6 blocks of
// 256), the 4 loads of each buffer side by side after the buffers' 16-byte
// alignment, so that LLVM makes them one 128-bit load; a bounds check; exp is
// libdevice's.
// CHECK-LABEL: func.func @step0
// CHECK-DAG:     %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG:     %[[C256:.*]] = arith.constant 256 : index
// CHECK-DAG:     %[[C6:.*]] = arith.constant 6 : index
// CHECK-DAG:     %[[X:.*]] = memref.collapse_shape %arg0 {{\[\[}}0, 1], [2]] : memref<2x3x1000xf32> into memref<6x1000xf32>
// CHECK-DAG:     %[[Y:.*]] = memref.collapse_shape %arg2 {{\[\[}}0, 1], [2]] : memref<2x3x1000xf32> into memref<6x1000xf32>
// CHECK:         gpu.launch_func @step0_kernel::@step0_kernel blocks in (%[[C6]], %[[C1]], %[[C1]]) threads in (%[[C256]], %[[C1]], %[[C1]]) args(%[[X]] : memref<6x1000xf32>, %arg1 : memref<1000xf32>, %[[Y]] : memref<6x1000xf32>)
// CHECK-NEXT:    return
// CHECK:       gpu.module @step0_kernel [#nvvm.target<O = 3, chip = "sm_90", features = "+ptx80">]
// CHECK:         llvm.func @__nv_expf(f32) -> f32
// CHECK:         llvm.func @step0_kernel(%[[A0:.*]]: !llvm.ptr, %[[A1:.*]]: !llvm.ptr, %[[A2:.*]]: !llvm.ptr) attributes {{{.*}}nvvm.kernel, nvvm.maxntid = array<i32: 256, 1, 1>}
// CHECK-DAG:     %[[C1500:.*]] = llvm.mlir.constant(1500 : index) : i64
// CHECK-DAG:     nvvm.read.ptx.sreg.ctaid.x
// CHECK-DAG:     nvvm.read.ptx.sreg.tid.x
// CHECK:         llvm.icmp "ult" %{{.*}}, %[[C1500]] : i64
// CHECK:         llvm.intr.assume %{{.*}} ["align"(%[[A0]], %{{.*}} : !llvm.ptr, i64)]
// CHECK:         llvm.intr.assume %{{.*}} ["align"(%[[A1]], %{{.*}} : !llvm.ptr, i64)]
// CHECK:         llvm.intr.assume %{{.*}} ["align"(%[[A2]], %{{.*}} : !llvm.ptr, i64)]
// CHECK-COUNT-4: llvm.load %{{.*}} : !llvm.ptr -> f32
// CHECK-COUNT-4: llvm.load %{{.*}} : !llvm.ptr -> f32
// CHECK-COUNT-4: llvm.call @__nv_expf
// CHECK-COUNT-4: llvm.store
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#bc = affine_map<(d0, d1, d2) -> (d2)>
func.func @step0(%x: memref<2x3x1000xf32>, %b: memref<1000xf32>, %y: memref<2x3x1000xf32>) {
  linalg.generic {indexing_maps = [#id3, #bc, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x, %b : memref<2x3x1000xf32>, memref<1000xf32>) outs(%y : memref<2x3x1000xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %s = arith.addf %a, %c : f32
    %e = math.exp %s : f32
    linalg.yield %e : f32
  }
  return
}

// Tests a sum over axis 0: the fill and the reduction are two launches, and
// the reduction runs its 32 rows in a loop inside each of the 100 threads (the
// parallel dimension first), not as a host loop around launches.
// CHECK-LABEL: func.func @step1
// CHECK:         gpu.launch_func @step1_kernel::@step1_kernel blocks in
// CHECK-SAME:      args(%arg1 : memref<100xf32>)
// CHECK:         gpu.launch_func @step1_kernel_0::@step1_kernel blocks in
// CHECK-SAME:      args(%arg0 : memref<32x100xf32>, %arg1 : memref<100xf32>)
// CHECK:       gpu.module @step1_kernel_0
// CHECK:         llvm.icmp "ult" %{{.*}}, %{{.*}} : i64
// CHECK:       ^bb2(%[[K:.*]]: i64):
// CHECK:         llvm.icmp "slt" %[[K]], %{{.*}} : i64
// CHECK:         llvm.fadd
// CHECK:         llvm.br ^bb2
#r = affine_map<(d0, d1) -> (d0, d1)>
#r0 = affine_map<(d0, d1) -> (d1)>
func.func @step1(%x: memref<32x100xf32>, %y: memref<100xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%y : memref<100xf32>)
  linalg.generic {indexing_maps = [#r, #r0], iterator_types = ["reduction", "parallel"]}
      ins(%x : memref<32x100xf32>) outs(%y : memref<100xf32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %a, %o : f32
    linalg.yield %s : f32
  }
  return
}

// Tests a sum over every dimension into a 0-d buffer: no parallel dimension,
// so each op runs on one thread of a one-block launch.
// CHECK-LABEL: func.func @step2
// CHECK-COUNT-2: gpu.launch_func
// CHECK-NOT:     memref.
// CHECK:         return
#all = affine_map<(d0, d1) -> (d0, d1)>
#none = affine_map<(d0, d1) -> ()>
func.func @step2(%x: memref<4x5xf32>, %y: memref<f32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%y : memref<f32>)
  linalg.generic {indexing_maps = [#all, #none], iterator_types = ["reduction", "reduction"]}
      ins(%x : memref<4x5xf32>) outs(%y : memref<f32>) {
  ^bb0(%a: f32, %o: f32):
    %s = arith.addf %a, %o : f32
    linalg.yield %s : f32
  }
  return
}

// Tests a contiguous copy (a reshape's memref.copy): a kernel too.
// CHECK-LABEL: func.func @step3
// CHECK:         gpu.launch_func
// CHECK-NOT:     memref.copy
func.func @step3(%x: memref<8x16xf32>, %y: memref<8x16xf32>) {
  memref.copy %x, %y : memref<8x16xf32> to memref<8x16xf32>
  return
}
