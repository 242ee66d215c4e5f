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
    (to be written with the pass: IR before and after)
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
    (to be written with the pass: IR before and after)
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
    (to be written with the pass: IR before and after)
  }];
}

def MXPlanMemoryPass : Pass<"mx-plan-memory", "mlir::ModuleOp"> {
  let summary = "Place every intermediate buffer in one arena (inplace + co-share)";
  let description = [{
    (to be written with the pass: IR before and after)
  }];
  let options = [
    Option<"strategy", "strategy", "std::string", /*default=*/"\"both\"",
           "none | inplace | coshare | both">,
  ];
}

#endif // MXC_DIALECT_MX_TRANSFORMS_PASSES_TD
