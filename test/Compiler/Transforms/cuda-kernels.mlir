// mxc-cuda-kernels: the CUDA target's kernels. Planned steps (functions on
// static memrefs) become one-dimensional grids of 256-thread blocks, outlined
// into gpu.module's with the nvvm target and converted to NVVM with one bare
// pointer a buffer; the steps keep only the launches. (The binaries, the
// host lowering and the runtime's launches are checked on a GPU by
// scripts/gpu-check.sh; every kernel's PTX goes through ptxas in
// test/python/test_gpu_target.py.)
// RUN: mxc-opt %s --pass-pipeline="builtin.module(mxc-cuda-kernels{chip=sm_90})" | FileCheck %s

// Tests a fused broadcast + exp over a rank-3 buffer: the loop nest is
// collapsed to 6000 threads (24 blocks), each recomputing its indices, with a
// bounds check; exp is libdevice's.
// CHECK-LABEL: func.func @step0
// CHECK-DAG:     %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG:     %[[C256:.*]] = arith.constant 256 : index
// CHECK-DAG:     %[[C24:.*]] = arith.constant 24 : index
// CHECK:         gpu.launch_func @step0_kernel::@step0_kernel blocks in (%[[C24]], %[[C1]], %[[C1]]) threads in (%[[C256]], %[[C1]], %[[C1]]) args(%arg0 : memref<2x3x1000xf32>, %arg1 : memref<1000xf32>, %arg2 : memref<2x3x1000xf32>)
// CHECK-NEXT:    return
// CHECK:       gpu.module @step0_kernel [#nvvm.target<O = 3, chip = "sm_90", features = "+ptx80">]
// CHECK:         llvm.func @__nv_expf(f32) -> f32
// CHECK:         llvm.func @step0_kernel(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr) attributes {{{.*}}nvvm.kernel, nvvm.maxntid = array<i32: 256, 1, 1>}
// CHECK-DAG:     nvvm.read.ptx.sreg.ctaid.x
// CHECK-DAG:     nvvm.read.ptx.sreg.tid.x
// CHECK:         llvm.icmp "ult" %{{.*}}, %{{.*}} : i64
// CHECK:         llvm.sdiv
// CHECK:         llvm.call @__nv_expf
// CHECK:         llvm.store
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
