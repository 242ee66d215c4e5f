//===- Passes.td - mx graph passes -------------------------*- tablegen -*-===//
//
// The graph passes of the paper: prune, autodiff, fuse elementwise (on `mx`
// ops, tensors) and plan memory (on the bufferized form). One .cpp each in
// lib/Dialect/MX/Transforms; lit tests in test/Dialect/MX/Transforms.
// mxc::runGraphPasses (lib/Compiler/Pipeline.cpp) composes the first three
// with these option names; lowerToLLVMDialect runs mx-plan-memory.
//
//===----------------------------------------------------------------------===//
#ifndef MXC_DIALECT_MX_TRANSFORMS_PASSES_TD
#define MXC_DIALECT_MX_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def MXPrunePass : Pass<"mx-prune", "mlir::ModuleOp"> {
  let summary = "Keep only what the requested outputs of @main need";
  let description = [{
    Prunes `@main` to what its heads need. With `outputs=node[:i],...` the
    results become those values first (feature extraction: the trailing
    layers are skipped). A head is an MXNet node name (the op's NameLoc) with
    an optional output index (default 0), an output name as MXNet's
    `list_outputs` spells it (`fc1_output`, `bn_mean`) or an argument name;
    the results' `mx.name` become the output names. An unknown node or an
    index out of range is an error at that node.

    `mode=inference` (the default) also drops what only training needs:
    `SoftmaxOutput` becomes its forward form (`softmax` over axis 1 with
    `multi_output`, the last axis with `preserve_shape`, else the trailing
    axes flattened), so its label is no longer read; `Dropout` becomes its
    input (a used mask becomes `ones_like`), `BlockGrad` and `identity` their
    input; `BatchNorm` stays, marked `use_global_stats` (moving statistics).
    `mode=training` keeps all of these.

    Then ops nothing uses are erased, and the arguments no op uses are
    removed with their attributes (the compiled entry no longer takes them).

    Before (`--mx-prune="outputs=relu1"`):

    ```mlir
    func.func @main(%data: tensor<1x8xf32> {mx.name = "data"},
                    %w: tensor<4x8xf32> {mx.name = "fc_weight"},
                    %label: tensor<1xf32> {mx.name = "softmax_label"})
        -> (tensor<1x4xf32> {mx.name = "softmax_output"}) {
      %0 = mx.relu %data : (tensor<1x8xf32>) -> tensor<1x8xf32> loc("relu1")
      %1 = mx.FullyConnected %0, %w {no_bias = true, num_hidden = 4 : i64}
          : (tensor<1x8xf32>, tensor<4x8xf32>) -> tensor<1x4xf32> loc("fc")
      %2 = mx.SoftmaxOutput %1, %label
          : (tensor<1x4xf32>, tensor<1xf32>) -> tensor<1x4xf32> loc("softmax")
      return %2 : tensor<1x4xf32>
    }
    ```

    After:

    ```mlir
    func.func @main(%data: tensor<1x8xf32> {mx.name = "data"})
        -> (tensor<1x8xf32> {mx.name = "relu1_output"}) {
      %0 = mx.relu %data : (tensor<1x8xf32>) -> tensor<1x8xf32> loc("relu1")
      return %0 : tensor<1x8xf32>
    }
    ```

    Without `outputs`, the same input keeps its head and only the label goes:
    `%2 = mx.softmax %1 {axis = 1 : i64}` replaces the SoftmaxOutput.
  }];
  let options = [
    ListOption<"outputs", "outputs", "std::string",
               "Heads to keep, as node[:i] (default: @main's results)">,
    Option<"mode", "mode", "std::string", /*default=*/"\"inference\"",
           "inference (drop what only training needs) or training">,
  ];
}

def MXAutodiffPass : Pass<"mx-autodiff", "mlir::ModuleOp"> {
  let summary = "Build forward results plus argument gradients (MXNet backward)";
  let description = [{
    Turns `@main` into MXNet's training step, `forward(is_train=True)`
    followed by `backward(out_grads)`:

    - Training forms replace inference forms: BatchNorm (unless
      `use_global_stats`) normalises with the batch mean and (biased)
      variance, composed of mx ops, and its moving statistics are updated as
      MXNet does (`moving * momentum + batch_stat * (1 - momentum)`), returned
      as extra results; Dropout becomes `data * mx.dropout_mask(rng_seed)`, a
      counter-based mask that the backward reuses (the same SSA value);
      LeakyReLU `rrelu` draws its slopes with `mx.random_uniform(rng_seed)`.
    - New arguments: one head gradient per result (`mx.kind = "head_grad"`,
      `mx.name = "<result>_grad"`), the previous gradient of every argument
      with grad_req `add` (`mx.kind = "grad_in"`, `"<arg>_grad"`), and
      `rng_seed` (`tensor<1xi64>`, `mx.kind = "rng_seed"`) if there is a
      Dropout or an rrelu.
    - New results, after the original ones: the gradient of every argument
      with grad_req `write` or `add` (`mx.kind = "grad"`, `"<arg>_grad"`),
      then the updated auxiliary states (`mx.kind = "aux_out"`, named as the
      aux argument).

    The gradient is built in reverse op order from each op's
    GradientOpInterface rule, for the ops on a path from a differentiated
    argument to a result; a value with several uses gets the sum of their
    gradients (elemwise_add). `wrt` defaults to every argument of kind
    "param"; `grad-req` is `write`, `add` or `null` for all of them, and
    `name=req` entries set one argument (data arguments included). An op on
    the path without a rule is an error at its node ("no gradient for
    <MXNet op>").

    Before:

    ```mlir
    func.func @main(%x: tensor<2x3xf32> {mx.kind = "data", mx.name = "data"},
                    %w: tensor<3xf32> {mx.kind = "param", mx.name = "w"})
        -> (tensor<2x3xf32> {mx.name = "out"}) {
      %0 = mx.broadcast_mul %x, %w : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
      %1 = mx.tanh %0 : (tensor<2x3xf32>) -> tensor<2x3xf32>
      return %1 : tensor<2x3xf32>
    }
    ```

    After `mx-autodiff`:

    ```mlir
    func.func @main(%x: tensor<2x3xf32> {mx.kind = "data", mx.name = "data"},
                    %w: tensor<3xf32> {mx.kind = "param", mx.name = "w"},
                    %g: tensor<2x3xf32> {mx.kind = "head_grad", mx.name = "out_grad"})
        -> (tensor<2x3xf32> {mx.name = "out"},
            tensor<3xf32> {mx.kind = "grad", mx.name = "w_grad"}) {
      %0 = mx.broadcast_mul %x, %w : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
      %1 = mx.tanh %0 : (tensor<2x3xf32>) -> tensor<2x3xf32>
      %2 = mx.square %1 : (tensor<2x3xf32>) -> tensor<2x3xf32>
      %3 = mx._rminus_scalar %2 {is_int = false} : (tensor<2x3xf32>) -> tensor<2x3xf32>
      %4 = mx.elemwise_mul %g, %3 : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
      %5 = mx.elemwise_mul %4, %x : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
      %6 = mx.sum %5 {axis = array<i64: 0>, keepdims = true} : (tensor<2x3xf32>) -> tensor<1x3xf32>
      %7 = mx.Reshape %6 {shape = array<i64: 3>} : (tensor<1x3xf32>) -> tensor<3xf32>
      return %1, %7 : tensor<2x3xf32>, tensor<3xf32>
    }
    ```
  }];
  let options = [
    ListOption<"wrt", "wrt", "std::string",
               "Arguments (mx.name) to differentiate (default: every param)">,
    ListOption<"gradReq", "grad-req", "std::string",
               "write|add|null for all arguments, or name=req entries">,
  ];
}

def MXFuseElementwisePass : Pass<"mx-fuse-elementwise", "mlir::ModuleOp"> {
  let summary = "Group maximal elementwise/broadcast chains into mx.fused ops";
  let description = [{
    Groups maximal connected sets of elementwise, broadcast and
    tensor-scalar ops (also Activation, relu, LeakyReLU but rrelu, clip,
    where, Cast, identity, BlockGrad, and BatchNorm whose mean/var results
    are unused: in inference form a per-channel scale and shift) into one
    `mx.fused` op each. The region holds the original ops; `mx.yield` gives
    the group's values used outside it, which become the results. Single ops
    stay as they are. A group never makes a cycle: an op does not join a
    group if a path leaves the joined group and comes back into it (through
    other ops or other groups).

    With `split-bias` (default), a Convolution or FullyConnected with a bias
    whose only user is fusible loses its bias to a `broadcast_add` (the bias
    reshaped to `(1, F, 1, ...)` for channel-first convolution) that joins
    the tail, so the library kernel computes the product and one loop nest
    the bias, BatchNorm and activation. convert-mx-to-linalg lowers each
    `mx.fused` to one `linalg.generic`.

    Before:

    ```mlir
    %c = mx.Convolution %x, %w, %b {kernel = array<i64: 3, 3>, num_filter = 8 : i64, pad = array<i64: 1, 1>}
        : (tensor<1x3x8x8xf32>, tensor<8x3x3x3xf32>, tensor<8xf32>) -> tensor<1x8x8x8xf32>
    %o, %m, %v = mx.BatchNorm %c, %g, %be, %mm, %mv {use_global_stats = true} : (...) -> (...)
    %r = mx.Activation %o {act_type = "relu"} : (tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
    ```

    After:

    ```mlir
    %rb = mx.Reshape %b {shape = array<i64: 1, 8, 1, 1>} : (tensor<8xf32>) -> tensor<1x8x1x1xf32>
    %c = mx.Convolution %x, %w {kernel = array<i64: 3, 3>, no_bias = true, num_filter = 8 : i64, pad = array<i64: 1, 1>}
        : (tensor<1x3x8x8xf32>, tensor<8x3x3x3xf32>) -> tensor<1x8x8x8xf32>
    %r = mx.fused %c, %rb, %g, %be, %mm, %mv : (...) -> tensor<1x8x8x8xf32> {
    ^bb0(%a0: tensor<1x8x8x8xf32>, %a1: tensor<1x8x1x1xf32>, %a2: tensor<8xf32>, ...):
      %0 = mx.broadcast_add %a0, %a1 : (tensor<1x8x8x8xf32>, tensor<1x8x1x1xf32>) -> tensor<1x8x8x8xf32>
      %o, %m, %v = mx.BatchNorm %0, %a2, ... {use_global_stats = true} : (...) -> (...)
      %1 = mx.Activation %o {act_type = "relu"} : (tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
      mx.yield %1 : tensor<1x8x8x8xf32>
    }
    ```
  }];
  let options = [
    Option<"splitBias", "split-bias", "bool", /*default=*/"true",
           "Move a Convolution/FullyConnected bias into its fused tail">,
  ];
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
    (mxc/Dialect/MX/Transforms/MemoryPlan.h), which `mxc memory-report` uses.

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
    it. Arguments get `llvm.noalias` unless they are arena views that overlap
    another buffer of the same step (an in-place elementwise step). The entry
    becomes its buffers' views and one `func.call` per step with
    `mx.step = i`, `mx.reads = R` (the first R operands are read, the rest
    written) and `mx.nodes` (the MXNet node names of its location); it still
    runs as an ordinary function, and it is also the execution plan
    (mxc::extractPlan in lib/Compiler/Plan.cpp serialises it).

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

#endif // MXC_DIALECT_MX_TRANSFORMS_PASSES_TD
