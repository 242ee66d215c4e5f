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
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "llvm/ADT/SetVector.h"

namespace mxc {
#define GEN_PASS_DEF_GPUPARALLELDIMSFIRSTPASS
#define GEN_PASS_DEF_GPUCOLLAPSEPARALLELLOOPSPASS
#define GEN_PASS_DEF_GPUCHECKHOSTCODEPASS
#include "mxc/Compiler/Transforms/Passes.h.inc"
} // namespace mxc

using namespace mlir;

namespace {

struct GPUParallelDimsFirstPass
    : mxc::impl::GPUParallelDimsFirstPassBase<GPUParallelDimsFirstPass> {
  void runOnOperation() override {
    // No parallel dimension at all (a fill of a 0-d buffer, a reduction of
    // every dimension): inside a one-iteration scf.parallel, one GPU thread.
    SmallVector<linalg::LinalgOp> serial;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (op.getNumParallelLoops() == 0 && !op->getParentOfType<scf::ParallelOp>())
        serial.push_back(op);
    });
    for (linalg::LinalgOp op : serial) {
      OpBuilder b(op);
      Location loc = op.getLoc();
      Value c0 = arith::ConstantIndexOp::create(b, loc, 0);
      Value c1 = arith::ConstantIndexOp::create(b, loc, 1);
      auto par = scf::ParallelOp::create(b, loc, ValueRange{c0}, ValueRange{c1}, ValueRange{c1});
      op->moveBefore(par.getBody()->getTerminator());
    }
    SmallVector<linalg::GenericOp> generics;
    getOperation().walk([&](linalg::GenericOp g) { generics.push_back(g); });
    IRRewriter rewriter(&getContext());
    for (linalg::GenericOp g : generics) {
      SmallVector<utils::IteratorType> its = g.getIteratorTypesArray();
      SmallVector<unsigned> perm;
      for (unsigned i = 0; i < its.size(); ++i)
        if (its[i] == utils::IteratorType::parallel)
          perm.push_back(i);
      for (unsigned i = 0; i < its.size(); ++i)
        if (its[i] != utils::IteratorType::parallel)
          perm.push_back(i);
      bool identity = true;
      for (unsigned i = 0; i < perm.size(); ++i)
        identity = identity && perm[i] == i;
      if (identity)
        continue;
      rewriter.setInsertionPoint(g);
      if (failed(linalg::interchangeGenericOp(rewriter, g, perm))) {
        g.emitError("internal error: cannot interchange the loops for the GPU");
        return signalPassFailure();
      }
    }
  }
};

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
        // The diagnostic's location names the MXNet node(s), when known.
        InFlightDiagnostic diag = op->emitError();
        if (nodeNames(op->getLoc()).empty())
          diag << "step @" << func.getSymName() << ": ";
        diag << op->getName()
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
