//===- GPUKernels.cpp - passes of the CUDA target -------------------------===//
//
// mxc-gpu-collapse-parallel-loops: each outermost scf.parallel of a function
// to one dimension, so that the tiling that makes GPU blocks fits any rank.
// mxc-gpu-check-host-code: after kernel outlining, nothing but launches and
// address arithmetic may remain in a step (its buffers are device memory).
// See the pass descriptions in Passes.td.
//
//===----------------------------------------------------------------------===//
#include "mxc/Compiler/Transforms/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "llvm/ADT/SetVector.h"

namespace mxc {
#define GEN_PASS_DEF_GPUCOLLAPSEPARALLELLOOPSPASS
#define GEN_PASS_DEF_GPUCHECKHOSTCODEPASS
#include "mxc/Compiler/Transforms/Passes.h.inc"
} // namespace mxc

using namespace mlir;

namespace {

struct GPUCollapseParallelLoopsPass
    : mxc::impl::GPUCollapseParallelLoopsPassBase<GPUCollapseParallelLoopsPass> {
  void runOnOperation() override {
    SmallVector<scf::ParallelOp> outermost;
    getOperation().walk([&](scf::ParallelOp p) {
      if (!p->getParentOfType<scf::ParallelOp>() && !p->getParentOfType<scf::ForOp>() &&
          p.getNumLoops() > 1 && p.getInitVals().empty())
        outermost.push_back(p);
    });
    IRRewriter rewriter(&getContext());
    for (scf::ParallelOp p : outermost) {
      std::vector<unsigned> all;
      for (unsigned i = 0; i < p.getNumLoops(); ++i)
        all.push_back(i);
      rewriter.setInsertionPoint(p);
      collapseParallelLoops(rewriter, p, {all});
    }
  }
};

/// The MXNet node names of `loc` ("conv1+relu1"), or "".
std::string nodeNames(Location loc) {
  llvm::SetVector<StringRef> names;
  loc->walk([&](Location l) {
    if (auto n = dyn_cast<NameLoc>(l))
      names.insert(n.getName().getValue());
    return WalkResult::advance();
  });
  return llvm::join(names.getArrayRef(), "+");
}

/// Ops a step may keep on the host: launches, the buffers' views and
/// address arithmetic, constants, returns.
bool allowedOnHost(Operation *op) {
  if (isa<gpu::LaunchFuncOp, func::ReturnOp>(op))
    return true;
  if (op->getNumRegions() != 0)
    return false; // loops, ifs, generic ops: they would run on the host
  // Views (memref.view, reinterpret_cast, subview, ...) and arithmetic.
  return isMemoryEffectFree(op);
}

struct GPUCheckHostCodePass
    : mxc::impl::GPUCheckHostCodePassBase<GPUCheckHostCodePass> {
  void runOnOperation() override {
    bool ok = true;
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      if (func.isExternal())
        continue;
      func.walk([&](Operation *op) {
        if (op == func.getOperation() || allowedOnHost(op))
          return op == func.getOperation() ? WalkResult::advance() : WalkResult::skip();
        std::string nodes = nodeNames(op->getLoc());
        op->emitError() << (nodes.empty() ? std::string("step @") + func.getSymName().str()
                                          : "node '" + nodes + "'")
                        << ": " << op->getName()
                        << " has no GPU lowering yet (--target cuda compiles elementwise, "
                           "broadcast and reduction steps into kernels; GEMM, convolution "
                           "and the other library calls are CPU-only so far)";
        ok = false;
        return WalkResult::skip();
      });
    }
    if (!ok)
      signalPassFailure();
  }
};

} // namespace
