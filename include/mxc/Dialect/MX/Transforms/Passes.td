//===- Passes.td - mx graph passes -------------------------*- tablegen -*-===//
//
// The graph passes of the paper on `mx` ops (tensors): prune, autodiff, fuse
// elementwise. One .cpp each in lib/Dialect/MX/Transforms; lit tests in
// test/Dialect/MX/Transforms. mxc::runGraphPasses (lib/Compiler/Pipeline.cpp)
// composes them with these option names. Memory planning and step outlining
// work on the bufferized form: include/mxc/Compiler/Transforms/Passes.td.
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
    Option<"libraryBatchNorm", "library-batch-norm", "bool", "false",
           "Training BatchNorm as mx.BatchNorm_train / mx.BatchNorm_backward "
           "(one library kernel each: cuDNN on the GPU) where the kernels "
           "take it, instead of the composed mx ops">,
  ];
}

def MXSplitTrainingPass : Pass<"mx-split-training", "mlir::ModuleOp"> {
  let summary = "Keep the forward or the backward half of mx-autodiff's training step";
  let description = [{
    Splits the training step that mx-autodiff builds into MXNet CachedOp's
    two halves, so that a recorded forward keeps its intermediates for the
    backward instead of the backward computing them again:

    - `part=forward`: the ops that the heads and the updated auxiliary
      states need (and nothing else); the head_grad and grad_in arguments
      are dropped; results: the heads, the `aux_out` results, then every
      value of this half that the backward half reads (`mx.kind =
      "residual"`, `mx.name = "residual<i>"`).
    - `part=backward`: every other op; arguments: the original arguments
      that it reads and every head gradient (their names and kinds kept, in
      their order), then one argument per
      forward value it reads (`mx.kind = "residual"`, `mx.name =
      "fwd<j>"`: result j of the forward half, a head, an aux_out or a
      residual); results: the `grad` results.

    Both halves are cut from the same training step by the same rule, so
    the residuals agree between two compilations of one graph. Ops with
    regions are not split (an error).

    After `mx-autodiff` (head gradient `%g`), `part=backward`:

    ```mlir
    func.func @main(%x: tensor<2x3xf32> {mx.kind = "data", mx.name = "data"},
                    %g: tensor<2x3xf32> {mx.kind = "head_grad", mx.name = "out_grad"},
                    %r: tensor<2x3xf32> {mx.kind = "residual", mx.name = "fwd0"})
        -> (tensor<3xf32> {mx.kind = "grad", mx.name = "w_grad"})
    ```
  }];
  let options = [
    Option<"part", "part", "std::string", /*default=*/"\"forward\"",
           "forward | backward">,
  ];
}

def MXDecomposePass : Pass<"mx-decompose", "mlir::ModuleOp"> {
  let summary = "Rewrite composite layers into primitive mx operators";
  let description = [{
    Replaces LayerNorm, InstanceNorm, GroupNorm, L2Normalization, moments,
    batch_take, argmax_channel, repeat, tile and channel-last Convolution /
    Pooling by the mean / sum / broadcast / sqrt / pick / argmax / Reshape /
    transpose operators that compute them (MXNet 1.9.1's
    forward formulas; MXDecompose.cpp), so that mx-autodiff differentiates
    the primitives and mx-fuse-elementwise fuses their elementwise parts.
    The samplers `_random_uniform` / `_random_normal` become
    `mx.random_uniform` of the function's rng_seed argument (added when the
    graph has none; mx-autodiff reuses it). The graph pipeline runs it after
    mx-prune.
  }];
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


def MXFuseConvolutionPass : Pass<"mx-fuse-convolution", "mlir::ModuleOp"> {
  let summary = "Fold a BatchNorm in inference form, relu / clip and a residual add into the Convolution before them";
  let description = [{
    The CPU counterpart of MXNet's oneDNN subgraph fusion (`_sg_mkldnn_conv`,
    src/operator/subgraph/mkldnn/mkldnn_conv_property.h): a 2-D NCHW f32
    `Convolution`, followed along single-use values by any of

      1. a `BatchNorm` (axis 1) whose hidden `mean` / `var` results are
         unused (inference form: it normalises with the moving statistics),
      2. `Activation(relu)`, `relu` or `clip`,
      3. an `elemwise_add` / `broadcast_add` of a tensor of the same type,
      4. after an add with no activation before it, `Activation(relu)`,
         `relu` or `clip` (`act_after_sum`: a ResNet block's end),

    becomes one `mx.Convolution_fused` (at least one of them must be there,
    except with `constant-params`, below).
    The BatchNorm turns into the per-filter `scale = gamma / sqrt(moving_var
    + eps)` (`1 / sqrt(...)` with `fix_gamma`) and `shift = beta -
    moving_mean * scale`, computed by ordinary `mx` ops on the parameters
    (vectors of num_filter elements). The last matched op's result may have
    any number of uses; the values in between have one (so in a training
    graph, where the backward pass reads them, the chain stops early). The
    runtime kernel applies the epilogue inside the convolution (oneDNN
    post-ops) instead of another pass over the output.

    Before:

    ```mlir
    %c = mx.Convolution %x, %w {kernel = array<i64: 3, 3>, no_bias = true, num_filter = 8 : i64, pad = array<i64: 1, 1>} : (...) -> tensor<1x8x8x8xf32>
    %o, %m, %v = mx.BatchNorm %c, %g, %be, %mm, %mv {use_global_stats = true} : (...) -> (...)
    %r = mx.clip %o {a_min = 0.0 : f64, a_max = 6.0 : f64} : (tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
    ```

    After:

    ```mlir
    %s = ... gamma / sqrt(moving_var + eps) ...
    %t = ... beta - moving_mean * %s ...
    %r = mx.Convolution_fused %x, %w scale %s shift %t {act = "clip", act_max = 6.0 : f64, kernel = array<i64: 3, 3>, num_filter = 8 : i64, pad = array<i64: 1, 1>} : (...) -> tensor<1x8x8x8xf32>
    ```

    Modules with `mxc.kernel_calls = false` are left alone (the fused op
    has only the runtime kernel's lowering).

    With `constant-params` (the caller promises that the function's
    arguments of kind `param` / `aux` do not change between runs), a fused
    op whose weight is such an argument gets `constant_weights`: its kernel
    re-lays the weights once and keeps them (docs/runtime.md); a convolution
    with such a weight and none of the ops above becomes a fused op too, for
    that alone.
  }];
  let options = [
    Option<"constantParams", "constant-params", "bool", /*default=*/"false",
           "The function's param / aux arguments hold the same values on every "
           "run (mxc run, AOT models): mark fused convolutions whose weight is "
           "such an argument `constant_weights`">,
  ];
}

def MXPropagateConvLayoutPass
    : Pass<"mx-propagate-conv-layout", "mlir::ModuleOp"> {
  let summary = "Keep tensors that pass only between fused convolutions in the runtime's blocked channel layout";
  let description = [{
    oneDNN's direct convolutions compute on a blocked channel layout
    (nChw8c on AVX2, nChw16c on AVX-512: images of channel blocks, each
    block (H, W, 8 or 16) with its channels innermost). A convolution kernel
    called on NCHW re-lays its input into that layout and its output back on
    every call; between two convolutions both re-layouts are wasted. This
    pass (after mx-fuse-convolution) finds the values that can stay blocked
    from one kernel to the next. Ops that carry the layout:
    `mx.Convolution_fused` (data, sum, output), a 2-D NCHW f32 max / avg
    `mx.Pooling` (data and output each), an `mx.Concat` along the channels
    whose parts all have a multiple of 16 channels (a copy of the same
    bytes in both layouts), and an inference-form `mx.BatchNorm` on axis 1
    with the relu / clip after it (data and output each). Values that must
    share a layout are joined in classes: a convolution's sum and output
    (the sum is accumulated in the output's buffer), a Concat's parts and
    result. A class is blocked when each of its values is a static 4-D f32
    tensor with a multiple of 16 channels (the bytes of its NCHW form
    whichever block the runtime picks), written by one of those ops, not a
    function result, and read only where they accept a blocked operand.

    Marks: `blocked_data` / `blocked_output` on `mx.Convolution_fused`; the
    discardable unit attributes `mx.blocked_data` / `mx.blocked_output` on
    a Pooling with a blocked side (lowered to the runtime's
    `mxc_kernel_pooling_f32` instead of generated loops). A BatchNorm (+
    activation) with a blocked side becomes a depthwise 1x1
    `mx.Convolution_fused` (weights of ones, the BatchNorm's scale and
    shift, the activation): ResNet-v2's pre-activation between blocks. The
    tensor types do not change: the layout is a contract between the
    kernels (runtime/src/kernels/kernels.h, flags 32 / 64), which convert
    from and to NCHW where oneDNN does not run them. Modules with
    `mxc.kernel_calls = false` are left alone.

    Before / after (`%a` feeds only the second convolution):

    ```mlir
    %a = mx.Convolution_fused %x, %w1 scale %s1 {act = "relu", kernel = array<i64: 1, 1>, num_filter = 32 : i64} : (...) -> tensor<1x32x8x8xf32>
    %b = mx.Convolution_fused %a, %w2 scale %s2 {kernel = array<i64: 3, 3>, num_filter = 16 : i64, pad = array<i64: 1, 1>} : (...) -> tensor<1x16x8x8xf32>

    %a = mx.Convolution_fused %x, %w1 scale %s1 {act = "relu", blocked_output, kernel = array<i64: 1, 1>, num_filter = 32 : i64} : (...) -> tensor<1x32x8x8xf32>
    %b = mx.Convolution_fused %a, %w2 scale %s2 {blocked_data, kernel = array<i64: 3, 3>, num_filter = 16 : i64, pad = array<i64: 1, 1>} : (...) -> tensor<1x16x8x8xf32>
    ```
  }];
}

#endif // MXC_DIALECT_MX_TRANSFORMS_PASSES_TD
