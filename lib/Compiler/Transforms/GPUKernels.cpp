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
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"
#include "mlir/Pass/PassRegistry.h"
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
      func->walk<WalkOrder::PreOrder>([&](Operation *op) {
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

std::string mxc::cudaKernelsPipeline(llvm::StringRef chip, llvm::StringRef features) {
  return ("mxc-strided-copies-to-linalg{all=true},"
          "func.func(mxc-gpu-parallel-dims-first, convert-linalg-to-parallel-loops,"
          "  mxc-gpu-collapse-parallel-loops,"
          "  scf-parallel-loop-tiling{parallel-loop-tile-sizes=256 no-min-max-bounds=true},"
          "  gpu-map-parallel-loops, convert-parallel-loops-to-gpu, lower-affine, canonicalize,"
          "  gpu-launch-sink-index-computations),"
          "gpu-kernel-outlining, canonicalize, mxc-gpu-check-host-code,"
          "nvvm-attach-target{chip=" +
          chip + " features=" + features +
          " O=3},"
          "gpu.module(convert-scf-to-cf, convert-gpu-to-nvvm{use-bare-ptr-memref-call-conv=true},"
          "  canonicalize, cse, reconcile-unrealized-casts)")
      .str();
}

namespace {
struct CudaKernelsOptions : PassPipelineOptions<CudaKernelsOptions> {
  Option<std::string> chip{*this, "chip", llvm::cl::desc("NVIDIA architecture"),
                           llvm::cl::init("sm_90")};
  Option<std::string> features{*this, "features", llvm::cl::desc("PTX ISA"),
                               llvm::cl::init("+ptx80")};
};
} // namespace

void mxc::registerCudaKernelsPipeline() {
  PassPipelineRegistration<CudaKernelsOptions>(
      "mxc-cuda-kernels",
      "The CUDA target's kernels: planned steps' linalg ops -> gpu.module's in NVVM",
      [](OpPassManager &pm, const CudaKernelsOptions &o) {
        if (failed(parsePassPipeline(mxc::cudaKernelsPipeline(o.chip, o.features), pm)))
          llvm::report_fatal_error("mxc-cuda-kernels: bad pipeline text");
      });
}
