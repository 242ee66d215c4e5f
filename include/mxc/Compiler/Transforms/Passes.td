//===- Passes.td - mxc code generation passes --------------*- tablegen -*-===//
//
// The compiler's own rewrites between the graph passes (mx dialect, tensors)
// and LLVM, on upstream dialects: the entry ABI (tensors -> caller buffers),
// the float and math choices made before bufferization, memory planning and
// step outlining on the bufferized form, and the memref clean-ups before
// loops. One .cpp each in lib/Compiler/Transforms; lit tests in
// test/Compiler/Transforms. mxc::lowerToBuffers and mxc::lowerToLLVMDialect
// (lib/Compiler/Pipeline.cpp) run them by name, in this order:
//
//   mxc-entry-abi, [mxc-reassociate-reductions], [mxc-approximate-math],
//   mxc-empty-tensor-per-use, (one-shot bufferization), mx-plan-memory, mx-outline-steps,
//   (kernel-call ABI, buffer deallocation), mxc-strided-copies-to-linalg,
//   mxc-free-after-last-use, (loops, LLVM)
//
//===----------------------------------------------------------------------===//
#ifndef MXC_COMPILER_TRANSFORMS_PASSES_TD
#define MXC_COMPILER_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def EntryABIPass : Pass<"mxc-entry-abi", "mlir::ModuleOp"> {
  let summary = "Turn @main on tensors into the compiled entry on caller buffers";
  let description = [{
    Rewrites `@main(tensors) -> (tensors)` (statically shaped) into
    `@<entry>(memref inputs..., memref outputs...)` with no results, the
    entry ABI of include/mxc/Compiler/Pipeline.h. Each input is read through
    `bufferization.to_tensor restrict`; each output buffer enters as
    `to_tensor restrict writable` and the result is materialized into that
    tensor (so one-shot bufferization sees every write to the caller's
    buffer; eliminate-empty-tensors then lets the producer write there
    directly), then the tensor into the buffer (a self-copy that folds
    away). Every argument gets `llvm.noalias` (the caller's buffers never
    overlap), the function `llvm.emit_c_interface`.

    The names the plan gives the entry's buffers are kept before the
    argument and result attributes go: `mx.buffer_names` (each input's and
    result's `mx.name`, else `arg<i>` / `output<i>`) and `mx.num_inputs`.
    mxc::extractPlan reads them. A dynamic shape or a non-tensor type is an
    error at @main.

    Before (`--mxc-entry-abi=entry=f`):

    ```mlir
    func.func @main(%x: tensor<4xf32> {mx.name = "data"})
        -> (tensor<4xf32> {mx.name = "out"}) {
      %0 = math.exp %x : tensor<4xf32>
      return %0 : tensor<4xf32>
    }
    ```

    After:

    ```mlir
    func.func @f(%x: memref<4xf32> {llvm.noalias}, %out: memref<4xf32> {llvm.noalias})
        attributes {llvm.emit_c_interface, mx.buffer_names = ["data", "out"],
                    mx.num_inputs = 1 : i64} {
      %t = bufferization.to_tensor %x restrict : memref<4xf32> to tensor<4xf32>
      %o = bufferization.to_tensor %out restrict writable : memref<4xf32> to tensor<4xf32>
      %0 = math.exp %t : tensor<4xf32>
      %1 = bufferization.materialize_in_destination %0 in %o
          : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
      bufferization.materialize_in_destination %1 in writable %out
          : (tensor<4xf32>, memref<4xf32>) -> ()
      return
    }
    ```
  }];
  let options = [
    Option<"entry", "entry", "std::string", /*default=*/"\"mxc_main\"",
           "Symbol of the compiled entry (@main is renamed to it)">,
  ];
  let dependentDialects = ["mlir::bufferization::BufferizationDialect",
                           "mlir::LLVM::LLVMDialect"];
}

def EmptyTensorPerUsePass : Pass<"mxc-empty-tensor-per-use", "mlir::ModuleOp"> {
  let summary = "Give every use of a tensor.empty its own tensor.empty";
  let description = [{
    CSE merges the `tensor.empty` ops of equal shape that the lowerings
    create as destinations, so one `tensor.empty` becomes the destination of
    several independent ops (each inference BatchNorm's scale vector, the
    outputs of parallel branches of the same shape). One-shot bufferization
    gives that value one buffer and lets each op write it in place once the
    previous contents are dead *in program order*: results of independent
    MXNet nodes then share a buffer, which orders them (write-after-read,
    write-after-write) in the dependency DAG that memory planning builds and
    in the plan's steps, and two branches of a graph can no longer run at
    the same time on the engine. Memory planning's co-share is the one
    place that may let buffers share memory, under its parallel-safety
    condition (include/mxc/Compiler/Transforms/MemoryPlan.h).

    Run right before one-shot bufferization (after the last CSE): a
    `tensor.empty` with several uses, or with one use inside a nested
    region, is replaced by one clone per use, placed in the op's own block
    just before the op that holds the user (a loop's use keeps one
    allocation outside the loop), with that op's location (memory planning
    groups the ops of one MXNet node by location). A single use in the same
    block is left where it is.

    ```mlir
    %e = tensor.empty() : tensor<64xf32>
    %a = linalg.generic ... outs(%e : tensor<64xf32>)
    %b = linalg.generic ... outs(%e : tensor<64xf32>)
    // after
    %e0 = tensor.empty() : tensor<64xf32>
    %a = linalg.generic ... outs(%e0 : tensor<64xf32>)
    %e1 = tensor.empty() : tensor<64xf32>
    %b = linalg.generic ... outs(%e1 : tensor<64xf32>)
    ```
  }];
  let dependentDialects = ["mlir::tensor::TensorDialect"];
}

def FuseElementwiseOpsPass
    : Pass<"mxc-fuse-elementwise-ops", "mlir::ModuleOp"> {
  let summary = "linalg's elementwise fusion, without recomputing broadcast producers";
  let description = [{
    The patterns of upstream `linalg-fuse-elementwise-ops` (producer-into-
    consumer fusion of elementwise linalg.generic ops, folding reshapes by
    expansion, bubbling expand_shape up, constant folding), with one more
    condition on a fusion: a producer whose body computes something is not
    fused into a consumer that reads it through a broadcasting indexing map
    (mxc::fusionRecomputesProducer, include/mxc/Conversion/LinalgFusion.h),
    since the fused op would compute it once per consumer element. The
    upstream pass fused BatchNorm's per-channel `1 / sqrt(moving_var + eps)`
    into the loop over every element (a square root and a division per
    element). As upstream, a producer with other users is not fused.

    ```mlir
    %inv = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]}
        ins(%var : tensor<8xf32>) outs(%e : tensor<8xf32>) { ... math.sqrt, arith.divf ... }
    %y = linalg.generic {indexing_maps = [#id4, #chan, #id4], ...}
        ins(%x, %inv : tensor<1x8x4x4xf32>, tensor<8xf32>) outs(...) { ... }
    ```

    stays two ops (upstream fuses them into one whose body takes the square
    root per element).
  }];
  let dependentDialects = ["mlir::linalg::LinalgDialect",
                           "mlir::tensor::TensorDialect",
                           "mlir::affine::AffineDialect"];
}

def CollapseContiguousDimsPass
    : Pass<"mxc-collapse-contiguous-dims", "mlir::ModuleOp"> {
  let summary = "Merge loop dimensions that every operand of a linalg.generic reads contiguously";
  let description = [{
    A linalg.generic on memrefs of static shape and the identity layout
    (a step's buffers, after mx-outline-steps) whose indexing maps are
    projected permutations gets each maximal run of adjacent loop
    dimensions of one iterator type that every operand either reads as
    adjacent dimensions in the same order or does not read at all
    (upstream `linalg::areDimSequencesPreserved`) merged into one loop
    (`linalg::collapseOpIterationDims`; the operands become
    memref.collapse_shape views). An input read through a constant 0 on
    its unit dimensions (a bias 1xCx1x1 over NCHW, `(0, d1, 0, 0)`) is
    first read as a view without them (`(d1)`). The innermost loop is the
    one LLVM's loop vectorizer vectorizes: LeNet's 64x50x8x8 bias + tanh
    (8 elements a row against 16-lane vectors) ran 3.7x faster with H and W
    merged. The innermost run is merged only where the loops before it
    reach 64 iterations (mxc-parallel-loops' min-chunks: a prefix that
    takes the innermost loop leaves nothing to vectorise) or everything
    becomes one loop. Ops whose body reads linalg.index, and operands with
    other layouts (subviews), are left alone. On memrefs, so that nothing is
    copied: on tensors the reshapes kept results from being written in
    their destinations.

    Before:

    ```mlir
    linalg.generic {indexing_maps = [#id4, #chan4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
        ins(%x, %b : memref<64x50x8x8xf32>, memref<1x50x1x1xf32>) outs(%y : memref<64x50x8x8xf32>)
    ```
    (`#chan4 = (d0, d1, d2, d3) -> (0, d1, 0, 0)`)

    After:

    ```mlir
    %bc = memref.collapse_shape %b [[0, 1, 2, 3]] : memref<1x50x1x1xf32> into memref<50xf32>
    %xc = memref.collapse_shape %x [[0], [1], [2, 3]] : memref<64x50x8x8xf32> into memref<64x50x64xf32>
    %yc = memref.collapse_shape %y [[0], [1], [2, 3]] : memref<64x50x8x8xf32> into memref<64x50x64xf32>
    linalg.generic {indexing_maps = [#id3, #chan3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
        ins(%xc, %bc : memref<64x50x64xf32>, memref<50xf32>) outs(%yc : memref<64x50x64xf32>)
    ```
  }];
  let dependentDialects = ["mlir::linalg::LinalgDialect",
                           "mlir::memref::MemRefDialect"];
}

def ReassociateReductionsPass
    : Pass<"mxc-reassociate-reductions", "mlir::ModuleOp"> {
  let summary = "Let LLVM reassociate the float arithmetic of reductions";
  let description = [{
    Adds the `reassoc` fast-math flag to every arith op with fast-math flags
    in the body of a linalg op with a reduction loop (sum, mean, softmax
    denominators, GEMM-like contractions left in linalg), keeping the flags
    it had. LLVM's loop vectorizer needs it to vectorize a floating-point
    reduction (partial sums per vector lane, as MXNet's own vectorized
    kernels compute them); results differ from a sequential sum by rounding.
    Elementwise ops are left alone. Runs on tensors or memrefs.
    (PipelineOptions::fastReductions.)

    Before:

    ```mlir
    linalg.generic {indexing_maps = [#id, #red], iterator_types = ["parallel", "reduction"]}
        ins(%x : tensor<4x8xf32>) outs(%acc : tensor<4xf32>) {
    ^bb0(%in: f32, %out: f32):
      %s = arith.addf %in, %out : f32
      linalg.yield %s : f32
    } -> tensor<4xf32>
    ```

    After:

    ```mlir
      %s = arith.addf %in, %out fastmath<reassoc> : f32
    ```
  }];
}

def ApproximateMathPass : Pass<"mxc-approximate-math", "mlir::ModuleOp"> {
  let summary = "f32/f16 exp, log, tanh, erf as vectorizable polynomials";
  let description = [{
    Replaces `math.exp`, `expm1`, `log`, `log1p`, `log2`, `tanh` and `erf`
    on f32 (and on f16/bf16, computed in f32) by MLIR's polynomial
    approximations (populateMathPolynomialApproximationPatterns), which
    LLVM vectorizes; libm calls would stay scalar. Other math ops and f64
    stay as they are (convert-math-to-libm later). (PipelineOptions::
    approximateMath.)

    Before:

    ```mlir
    %0 = math.tanh %x : f32
    ```

    After: arithmetic only (clamped rational approximation),

    ```mlir
    %c = arith.constant ... : f32
    %0 = arith.cmpf ...
    %1 = arith.select ...
    %2 = math.fma ...
    ...
    %r = arith.divf %p, %q : f32
    ```
  }];
  let dependentDialects = ["mlir::arith::ArithDialect",
                           "mlir::math::MathDialect",
                           "mlir::vector::VectorDialect"];
}

def StridedCopiesToLinalgPass
    : Pass<"mxc-strided-copies-to-linalg", "mlir::ModuleOp"> {
  let summary = "Copy between non-contiguous memrefs with linalg.copy";
  let description = [{
    Replaces each `memref.copy` whose source or target has a non-identity
    layout (a padded copy into a subview, say) by `linalg.copy`, which
    becomes loops LLVM vectorizes, instead of a call of the generic
    element-by-element `memrefCopy` of the MLIR runner utils. Copies between
    identity layouts stay `memref.copy` (a memcpy).

    Before:

    ```mlir
    %v = memref.subview %big[0, 1] [4, 4] [1, 1]
        : memref<6x6xf32> to memref<4x4xf32, strided<[6, 1], offset: 1>>
    memref.copy %src, %v : memref<4x4xf32> to memref<4x4xf32, strided<[6, 1], offset: 1>>
    ```

    After:

    ```mlir
    linalg.copy ins(%src : memref<4x4xf32>)
        outs(%v : memref<4x4xf32, strided<[6, 1], offset: 1>>)
    ```
  }];
  let options = [
    Option<"all", "all", "bool", /*default=*/"false",
           "Every memref.copy, contiguous ones too (the CUDA target: a copy "
           "between device buffers must become a kernel)">
  ];
  let dependentDialects = ["mlir::linalg::LinalgDialect"];
}

def FreeAfterLastUsePass : Pass<"mxc-free-after-last-use", "mlir::ModuleOp"> {
  let summary = "Move each dealloc to just after its allocation's last use";
  let description = [{
    Moves each `memref.dealloc` of a `memref.alloc` of the same block to just
    after the last op of that block that uses the allocation, anything
    computed from it (views, casts, extracted pointers) counting as a use
    (an op nested in a region counts as its ancestor in the block).
    Ownership-based deallocation (buffer-deallocation-pipeline) frees
    everything at the end of the block, so without this every allocation
    that memory planning left (dynamic shapes) would be live at once. A
    dealloc whose allocation is used outside the block, or that already
    follows the last use, stays.

    Before:

    ```mlir
    %a = memref.alloc(%n) : memref<?xf32>
    linalg.fill ins(%cst : f32) outs(%a : memref<?xf32>)
    %b = memref.alloc(%n) : memref<?xf32>
    linalg.copy ins(%a : memref<?xf32>) outs(%b : memref<?xf32>)
    linalg.copy ins(%b : memref<?xf32>) outs(%out : memref<?xf32>)
    memref.dealloc %a : memref<?xf32>
    memref.dealloc %b : memref<?xf32>
    ```

    After:

    ```mlir
    %a = memref.alloc(%n) : memref<?xf32>
    linalg.fill ins(%cst : f32) outs(%a : memref<?xf32>)
    %b = memref.alloc(%n) : memref<?xf32>
    linalg.copy ins(%a : memref<?xf32>) outs(%b : memref<?xf32>)
    memref.dealloc %a : memref<?xf32>
    linalg.copy ins(%b : memref<?xf32>) outs(%out : memref<?xf32>)
    memref.dealloc %b : memref<?xf32>
    ```
  }];
}

def MXPlanMemoryPass : Pass<"mx-plan-memory", "mlir::ModuleOp"> {
  let summary = "Place every intermediate buffer in one arena (inplace + co-share)";
  let description = [{
    Runs on the bufferized form (after one-shot-bufferize, before
    buffer-deallocation). In every public function with a body, each
    statically shaped `memref.alloc` (intermediates, kernel workspaces, allocs
    nested in loops) whose aliases stay inside the function becomes a
    `memref.view` into one arena, a new trailing `memref<Nxi8>` argument
    (`llvm.noalias`); its deallocs disappear and the function gets
    `mx.arena_size = N : i64`. The caller passes a 64-byte aligned buffer of
    N bytes (mxc exports it as `<entry>_arena_size`); nothing is allocated
    per call.

    Liveness is from the first op that touches a buffer (through any alias:
    subview, collapse/expand_shape, cast, reinterpret_cast, view, extracted
    pointers) to its last use, in the order of the function's top-level ops.
    Strategies (Chen et al. 2015, section 3.3, as MXNet's NNVM plans memory):

    - `none`: every buffer its own offset (the naive allocation).
    - `inplace`: a reference count per buffer; when the count of an input of
      an elementwise step (all-parallel linalg op, identity maps on that input
      and on its output) reaches zero at that step, the output takes the
      input's storage.
    - `coshare`: storages whose buffers are all dead go to a free pool; a
      later buffer takes a pooled storage of similar size (within 16x,
      growing it if needed) only if every op that used the storage is an
      ancestor of the new buffer's first writer in the dependency DAG of the
      top-level ops (SSA and read/write conflicts), so that even a parallel
      executor could not run them at the same time.
    - `both`: inplace, then co-share.

    Offsets are 64-byte aligned. The same analysis is a library
    (mxc/Compiler/Transforms/MemoryPlan.h), which `mxc memory-report` uses.

    Before (strategy=both):

    ```mlir
    func.func @f(%x: memref<64xf32>, %out: memref<64xf32>) {
      %a = memref.alloc() {alignment = 64 : i64} : memref<64xf32>
      linalg.generic {...} ins(%x : memref<64xf32>) outs(%a : memref<64xf32>) {...}   // exp
      %b = memref.alloc() {alignment = 64 : i64} : memref<64xf32>
      linalg.generic {...} ins(%a : memref<64xf32>) outs(%b : memref<64xf32>) {...}   // relu: a dies
      linalg.generic {...} ins(%b : memref<64xf32>) outs(%out : memref<64xf32>) {...}
      memref.dealloc %a : memref<64xf32>
      memref.dealloc %b : memref<64xf32>
      return
    }
    ```

    After: `%b` takes `%a`'s storage in place, the arena holds 256 bytes:

    ```mlir
    func.func @f(%x: memref<64xf32>, %out: memref<64xf32>,
                 %arena: memref<256xi8> {llvm.noalias})
        attributes {mx.arena_size = 256 : i64} {
      %c0 = arith.constant 0 : index
      %a = memref.view %arena[%c0][] : memref<256xi8> to memref<64xf32>
      linalg.generic {...} ins(%x : memref<64xf32>) outs(%a : memref<64xf32>) {...}
      %c0_0 = arith.constant 0 : index
      %b = memref.view %arena[%c0_0][] : memref<256xi8> to memref<64xf32>
      linalg.generic {...} ins(%a : memref<64xf32>) outs(%b : memref<64xf32>) {...}
      linalg.generic {...} ins(%b : memref<64xf32>) outs(%out : memref<64xf32>) {...}
      return
    }
    ```
  }];
  let options = [
    Option<"strategy", "strategy", "std::string", /*default=*/"\"both\"",
           "none | inplace | coshare | both">,
    Option<"printPlan", "print-plan", "bool", /*default=*/"false",
           "Emit a remark per buffer (size, live steps, storage, offset) and "
           "one per function (arena size, lower bound)">,
  ];
  let dependentDialects = ["mlir::arith::ArithDialect",
                           "mlir::memref::MemRefDialect"];
}

def MXOutlineStepsPass : Pass<"mx-outline-steps", "mlir::ModuleOp"> {
  let summary = "Outline each step of a planned entry into its own kernel function";
  let description = [{
    Runs after `mx-plan-memory` (every intermediate a `memref.view` of the
    trailing arena argument), before kernel calls and linalg ops are lowered.
    In every public function with `mx.arena_size`, the top-level ops with
    memory effects are grouped into **steps**: maximal runs of consecutive
    ops with the same location, i.e. the ops one MXNet node (or one fused
    group, whose location names all of its nodes) lowered to -- its fill,
    its loop nest, its `mxrt.kernel_call`s. These are exactly the nodes of
    the dependency DAG that `mx-plan-memory` co-shares storage by, so an
    executor may run any two steps that the buffers they read and write do
    not order.

    Each step becomes `func.func @<entry>_step<i>(buffers...)`: one memref
    argument per **buffer** the step touches -- an entry argument (input or
    output) or an arena view (`memref.view %arena[constant]`) -- first those
    it only reads, then those it writes, in order of first use. Side-effect
    free ops the step needs (constants, views of its buffers) are cloned into
    it. A buffer that is exactly another one of the step (the same arena
    bytes and type: an elementwise output planned in place of its input) is
    used in the body through that one's argument (its own stays in the
    signature, unused): LLVM vectorises loads and stores through one pointer,
    not through two pointers it can neither call noalias nor prove equal.
    Arguments get `llvm.noalias` unless they are arena views that overlap
    another used buffer of the same step. The entry
    becomes its buffers' views and one `func.call` per step with
    `mx.step = i`, `mx.reads = R` (the first R operands are read, the rest
    written) and `mx.nodes` (the MXNet node names of its location); it still
    runs as an ordinary function, and it is also the execution plan
    (mxc::extractPlan in lib/Compiler/Pipeline.cpp serialises it).

    Before:

    ```mlir
    func.func @f(%x: memref<64xf32>, %out: memref<64xf32>, %arena: memref<256xi8>)
        attributes {mx.arena_size = 256 : i64} {
      %c0 = arith.constant 0 : index
      %a = memref.view %arena[%c0][] : memref<256xi8> to memref<64xf32>
      linalg.generic ... ins(%x) outs(%a)     loc("exp0")
      linalg.generic ... ins(%a) outs(%out)   loc("relu0")
      return
    }
    ```

    After:

    ```mlir
    func.func @f_step0(%x: memref<64xf32> {llvm.noalias},
                       %a: memref<64xf32> {llvm.noalias}) attributes {mx.step = 0} {
      linalg.generic ... ins(%x) outs(%a)
      return
    }
    func.func @f_step1(...)
    func.func @f(%x: memref<64xf32>, %out: memref<64xf32>, %arena: memref<256xi8>) ... {
      %c0 = arith.constant 0 : index
      %a = memref.view %arena[%c0][] : memref<256xi8> to memref<64xf32>
      call @f_step0(%x, %a) {mx.nodes = ["exp0"], mx.reads = 1, mx.step = 0}
      call @f_step1(%a, %out) {mx.nodes = ["relu0"], mx.reads = 1, mx.step = 1}
      return
    }
    ```

    A value other than a buffer that one step defines and another uses (a
    dynamically sized allocation, say) cannot cross steps: the two steps are
    merged into one.
  }];
  let dependentDialects = ["mlir::func::FuncDialect",
                           "mlir::memref::MemRefDialect"];
}

def ParallelLoopsPass : Pass<"mxc-parallel-loops", "mlir::ModuleOp"> {
  let summary = "Run the outermost scf.parallel of each function on the kernel threads";
  let description = [{
    Outlines each `scf.parallel` that is directly in a function body (not
    nested in another loop) and has no reductions into a function
    `@<func>_par<N>(%ctx: !llvm.ptr, %lo: index, %hi: index)` and replaces
    it with a call of the runtime's `mxc_parallel_for(fn, ctx, n, cost)`
    (runtime/src/kernels/parallel.h): the runtime calls the outlined function
    on chunks [lo, hi) of the loop's first dimensions, linearised (`n`
    iterations), from the kernel threads of the process's thread budget;
    `cost`, the loop's innermost iteration count (nested `scf.for`s of
    constant trip count multiply it), lets the runtime run small loops on the
    calling thread.

    The dimensions handed to the runtime are the shortest prefix whose
    (constant) trip counts reach `min-chunks` iterations, so that a batch-1
    NCHW loop is split over channels rather than not at all; the remaining
    dimensions stay an `scf.parallel` inside the outlined function. Values the
    loop uses from outside are passed through `ctx`, an array of 8-byte slots
    on the caller's stack: constants are cloned instead, a memref travels as
    its aligned pointer, offset, sizes and strides (any strided layout,
    static or dynamic), an index, integer or float as itself. A loop that
    uses a value of another type (or a memref of another memory space or
    layout) stays as it is. Runs on loops from `convert-linalg-to-parallel-
    loops`, before `expand-strided-metadata` and the conversion to LLVM.

    Before:

    ```mlir
    func.func @f_step0(%x: memref<64x256xf32>, %y: memref<64x256xf32>) {
      scf.parallel (%i, %j) = (%c0, %c0) to (%c64, %c256) step (%c1, %c1) {
        %v = memref.load %x[%i, %j] : memref<64x256xf32>
        %e = math.exp %v : f32
        memref.store %e, %y[%i, %j] : memref<64x256xf32>
      }
      return
    }
    ```

    After (schematically):

    ```mlir
    func.func @f_step0(%x: memref<64x256xf32>, %y: memref<64x256xf32>) {
      %ctx = llvm.alloca %c1 x !llvm.array<12 x i64> : (i64) -> !llvm.ptr
      // the pointer, offset, sizes and strides of %x and %y into %ctx
      %fn = func.constant @f_step0_par0 : (!llvm.ptr, index, index) -> ()
      call @mxc_parallel_for(%fn, %ctx, %c64, %c16384) : ...
      return
    }
    func.func private @f_step0_par0(%ctx: !llvm.ptr, %lo: index, %hi: index) {
      // %x, %y rebuilt from %ctx
      scf.for %i = %lo to %hi step %c1 {
        scf.parallel (%j) = (%c0) to (%c256) step (%c1) { ... }
      }
      return
    }
    ```
  }];
  let options = [
    Option<"minChunks", "min-chunks", "int64_t", /*default=*/"64",
           "Hand the runtime at least this many iterations where the "
           "constant trip counts allow (more dimensions are linearised "
           "until they do)">
  ];
  let dependentDialects = ["mlir::LLVM::LLVMDialect",
                           "mlir::func::FuncDialect",
                           "mlir::arith::ArithDialect",
                           "mlir::memref::MemRefDialect",
                           "mlir::scf::SCFDialect"];
}

def GPUParallelDimsFirstPass
    : Pass<"mxc-gpu-parallel-dims-first", "mlir::func::FuncOp"> {
  let summary = "Interchange linalg.generic loops so that parallel ones are outermost";
  let description = [{
    For the CUDA target, before `convert-linalg-to-parallel-loops`: a
    `linalg.generic` whose iterators mix reductions before parallel dimensions
    (softmax over axis 0: `["reduction", "parallel"]`) is interchanged so
    that every parallel dimension comes first. The parallel dimensions then
    form one `scf.parallel` (GPU threads) with the reductions as `scf.for`
    loops inside each thread, instead of a host loop around launches.

    An all-parallel op on contiguous buffers has the dimensions that every
    operand walks contiguously merged (`linalg::collapseOpIterationDims`): an
    elementwise op on NCHW buffers becomes one dimension, so threads index
    the buffers directly (no div / rem) and adjacent accesses are provably
    adjacent.

    A linalg op without any parallel dimension (a fill of a 0-d buffer, a
    reduction over every dimension) is wrapped in a one-iteration
    `scf.parallel`: it runs on one GPU thread, correct but slow (a tree
    reduction is future work).
  }];
  let dependentDialects = ["mlir::linalg::LinalgDialect", "mlir::arith::ArithDialect",
                           "mlir::scf::SCFDialect"];
}

def SplitReductionsPass : Pass<"mxc-split-reductions", "mlir::func::FuncOp"> {
  let summary = "Split long reductions with few outputs into partial and final reductions (GPU target)";
  let description = [{
    For the CUDA target, on tensors, before bufferization: a `linalg.generic`
    reduction whose parallel dimensions give fewer than `target-threads`
    outputs (BatchNorm's per-channel sums in training: 64 channels over
    64x112x112 elements; a full sum: one output) would run on that few GPU
    threads, each walking its whole reduction. Such an op, with one output,
    static shapes, no `linalg.index` and a body `yield combiner(expr, acc)`
    whose combiner has a neutral element (`arith::getNeutralElement`: addf,
    mulf, max / min, ...), becomes

    1. a partial reduction: its innermost reduction dimension d (extent E) is
       split as d = d_o * C + d_i with C a divisor of E (the largest up to
       ceil(target-threads / outputs), at most `max-chunks`); d_i is a new
       innermost parallel dimension, so C times as many threads each reduce
       E / C elements of d, neighbouring threads reading neighbouring
       elements (coalesced), into a new tensor of the output's shape x C
       filled with the neutral element;
    2. a final reduction of those C partials per output into the original
       output (its initial value kept), with the same combiner.

    Adjacent dimensions of one iterator type that every operand walks
    contiguously are merged first (BatchNorm's H and W), so that d is long.
    Reductions shorter than `min-reduction` elements and ops that do not
    match are left alone. Float sums change order (partial sums), as any
    parallel reduction does.
  }];
  let options = [
    Option<"targetThreads", "target-threads", "int64_t", /*default=*/"32768",
           "Split reductions with fewer outputs than this">,
    Option<"maxChunks", "max-chunks", "int64_t", /*default=*/"1024",
           "At most this many partial results an output">,
    Option<"minReduction", "min-reduction", "int64_t", /*default=*/"256",
           "Leave reductions of fewer elements an output alone">
  ];
  let dependentDialects = ["mlir::linalg::LinalgDialect", "mlir::arith::ArithDialect",
                           "mlir::tensor::TensorDialect"];
}

def GPUCollapseParallelLoopsPass
    : Pass<"mxc-gpu-collapse-parallel-loops", "mlir::func::FuncOp"> {
  let summary = "Collapse each outermost scf.parallel to one dimension (GPU target)";
  let description = [{
    For the CUDA target: every `scf.parallel` directly in a function body
    becomes a one-dimensional loop over the product of its trip counts (the
    indices are recomputed inside with div / rem), so that one tile size
    (`scf-parallel-loop-tiling{parallel-loop-tile-sizes=128}`, the block size) gives blocks
    of 128 threads and a grid over all the elements whatever the rank (tiling
    an N-d nest tiles only its leading dimensions, and `gpu-map-parallel-loops`
    maps at most three). Loops nested inside (reduction `scf.for`s) stay.

    Before that, a loop nest whose innermost dimension runs over a multiple of
    `elements-per-thread` (default 4) and whose body has no nested region is
    unrolled by it along that dimension, the copies of each op side by side, with the buffers'
    16-byte alignment (`memref.assume_alignment`) stated inside: LLVM's
    load/store vectorizer then makes each run of 4 contiguous accesses one
    128-bit access (4 elements a thread, as IREE assigns them).
  }];
  let options = [
    Option<"elementsPerThread", "elements-per-thread", "int64_t", /*default=*/"4",
           "Innermost elements a thread handles (the unroll factor; 1: none)">
  ];
  let dependentDialects = ["mlir::arith::ArithDialect", "mlir::scf::SCFDialect",
                           "mlir::memref::MemRefDialect"];
}

def GPUExpandMathPass : Pass<"mxc-gpu-expand-math", "mlir::func::FuncOp"> {
  let summary = "Expand math ops that the NVVM lowering does not take (GPU target)";
  let description = [{
    For the CUDA target, before the kernels are converted to NVVM:
    `convert-gpu-to-nvvm` maps most `math` ops to libdevice, but not
    `math.trunc` (MXNet's `trunc` and `fix`), which then fails LLVM
    translation. It becomes `x < 0 ? ceil(x) : floor(x)` (both libdevice
    calls; NaN and signed zeros kept: floor / ceil of -0.0 is -0.0, of NaN
    NaN).
  }];
  let dependentDialects = ["mlir::arith::ArithDialect", "mlir::math::MathDialect"];
}

def GPUSinkConstantsPass : Pass<"mxc-gpu-sink-constants", "mlir::func::FuncOp"> {
  let summary = "Move constant tensors read by GPU kernels into the kernels' module (GPU target)";
  let description = [{
    For the CUDA target, before `gpu-kernel-outlining`: a tensor constant
    bufferizes into a `memref.global` in host memory (average pooling's
    window counts without the padding, ...); a `gpu.launch` reading one
    through a `memref.get_global` defined outside it would pass the kernel a
    host address. The `memref.get_global` is moved into the launch's body,
    so that outlining clones the global into the kernel's `gpu.module` and
    the NVVM lowering makes it a global of the device module (NVPTX places it
    in `.global` memory, initialised when the module loads).
  }];
  let dependentDialects = ["mlir::gpu::GPUDialect", "mlir::memref::MemRefDialect"];
}

def GPUDeviceTemporariesPass : Pass<"mxc-gpu-device-temporaries", "mlir::func::FuncOp"> {
  let summary = "Allocate a GPU step's own temporaries in device memory (GPU target)";
  let description = [{
    For the CUDA target, before the loops become kernels: a buffer a step
    allocates for itself (a `memref.alloc` of static shape in the step's
    entry block that memory planning did not place in the arena, as the
    transposed copy a `diag` over other axes takes its diagonal from) would
    be host memory. It becomes `gpu.alloc async` on the step's stream (a
    `gpu.wait async` at the step's start), given back with `gpu.dealloc async`
    before each return and a `gpu.wait` for them; gpu-to-llvm lowers these to
    `mgpuMemAlloc` / `mgpuMemFree` / the stream calls, which the runtime
    serves from the device's caching pool (runtime/src/cuda/mgpu_wrappers.cc).
  }];
  let dependentDialects = ["mlir::gpu::GPUDialect", "mlir::memref::MemRefDialect"];
}

def GPUCheckHostCodePass : Pass<"mxc-gpu-check-host-code", "mlir::ModuleOp"> {
  let summary = "Reject GPU steps that would touch device memory on the host";
  let description = [{
    For the CUDA target, after `gpu-kernel-outlining`: the buffers of a step
    live in device memory, so each step function may only launch kernels
    (`gpu.launch_func`) and compute addresses and constants. A memory access,
    copy, allocation, loop or library call left in a step (an op with no GPU
    lowering yet, or a loop nest the GPU mapping did not take) is an error
    naming the MXNet node it came from, instead of a crash at run time.
    With `launches`, before outlining (the GPU kernel emulation), a step may
    hold `gpu.launch` ops too.
  }];
  let options = [
    Option<"launches", "launches", "bool", /*default=*/"false",
           "Accept gpu.launch (not yet outlined) in a step">,
  ];
}

def GPULaunchesOnHostPass : Pass<"mxc-gpu-launches-on-host", "mlir::ModuleOp"> {
  let summary = "Run the CUDA target's gpu.launch ops as host loops (GPU kernel emulation)";
  let description = [{
    For checking the CUDA target's kernel mapping on a machine without a GPU
    (`mxc run --emulate-gpu-kernels`, hidden): after the CUDA target's loop
    passes and `convert-parallel-loops-to-gpu` (the kernels' launches, not
    yet outlined) and `mxc-gpu-check-host-code`, each `gpu.launch` becomes a
    six-dimensional `scf.parallel` over its grid and its blocks, the launch
    body (the code each GPU thread runs, with its bounds check) inside, the
    block and thread ids its induction variables. The steps' device
    temporaries become host ones (`gpu.alloc` / `gpu.dealloc` / `gpu.memcpy`
    as `memref.alloc` / `memref.dealloc` / `memref.copy`, `gpu.wait` gone)
    and the GPU twins of the library kernels (`mxc_cuda_kernel_*`) their CPU
    kernels (`mxc_kernel_*`), so that the CPU lowering compiles the steps.
    What the GPU does differently is not emulated: the NVVM lowering and
    libdevice's math, concurrent threads (kernels that synchronise threads
    or share memory are refused; the CUDA target makes none).
  }];
  let options = [
    Option<"reverse", "reverse", "bool", /*default=*/"false",
           "Run the blocks and the threads of each launch in reverse order (a "
           "kernel whose results depend on the order of its threads races on a GPU)">,
  ];
  let dependentDialects = ["mlir::scf::SCFDialect", "mlir::memref::MemRefDialect",
                           "mlir::arith::ArithDialect"];
}

#endif // MXC_COMPILER_TRANSFORMS_PASSES_TD
