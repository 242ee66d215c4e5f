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

#include "NodeNames.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Utils/GPUUtils.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/Utils/Utils.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

#include "llvm/ADT/SetVector.h"

namespace mxc {
#define GEN_PASS_DEF_GPUPARALLELDIMSFIRSTPASS
#define GEN_PASS_DEF_GPUCOLLAPSEPARALLELLOOPSPASS
#define GEN_PASS_DEF_GPUCHECKHOSTCODEPASS
#define GEN_PASS_DEF_GPUEXPANDMATHPASS
#define GEN_PASS_DEF_GPUSINKCONSTANTSPASS
#define GEN_PASS_DEF_GPUDEVICETEMPORARIESPASS
#define GEN_PASS_DEF_GPULAUNCHESONHOSTPASS
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
    IRRewriter rewriter(&getContext());
    // All-parallel ops on contiguous buffers: dimensions that every operand
    // walks contiguously are merged (an elementwise op on NCHW buffers
    // becomes one dimension), so threads index the buffers directly instead
    // of recomputing indices with div / rem, and neighbouring threads' (or a
    // thread's unrolled) accesses are provably adjacent.
    SmallVector<linalg::LinalgOp> flat;
    getOperation().walk([&](linalg::LinalgOp op) {
      if (isa<linalg::GenericOp, linalg::CopyOp>(op) && op.getNumLoops() > 1 &&
          op.getNumParallelLoops() == op.getNumLoops() &&
          !op->getParentOfType<scf::ParallelOp>() &&
          llvm::all_of(op.getIndexingMapsArray(),
                       [](AffineMap m) { return m.isProjectedPermutation(); }) &&
          llvm::all_of(op->getOperands(), [](Value v) {
            auto t = dyn_cast<MemRefType>(v.getType());
            return !t || (t.getLayout().isIdentity() && t.hasStaticShape());
          }))
        flat.push_back(op);
    });
    for (linalg::LinalgOp op : flat) {
      SmallVector<AffineMap> maps = op.getIndexingMapsArray();
      SmallVector<ReassociationIndices> groups = {{0}};
      for (int64_t d = 1; d < int64_t(op.getNumLoops()); ++d) {
        SmallVector<ReassociationIndices> grown = groups;
        grown.back().push_back(d);
        if (linalg::areDimSequencesPreserved(maps, grown))
          groups = std::move(grown);
        else
          groups.push_back({d});
      }
      if (groups.size() == op.getNumLoops())
        continue;
      rewriter.setInsertionPoint(op);
      FailureOr<linalg::CollapseResult> collapsed =
          linalg::collapseOpIterationDims(op, groups, rewriter);
      if (failed(collapsed))
        continue; // stays as it is: collapsed later as a loop nest
      rewriter.replaceOp(op, collapsed->results);
    }
    SmallVector<linalg::GenericOp> generics;
    getOperation().walk([&](linalg::GenericOp g) { generics.push_back(g); });
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
  using GPUCollapseParallelLoopsPassBase::GPUCollapseParallelLoopsPassBase;
  void runOnOperation() override {
    SmallVector<scf::ParallelOp> outermost;
    getOperation().walk([&](scf::ParallelOp p) {
      if (!p->getParentOfType<scf::ParallelOp>() && !p->getParentOfType<scf::ForOp>() &&
          p.getInitVals().empty())
        outermost.push_back(p);
    });
    IRRewriter rewriter(&getContext());
    for (scf::ParallelOp p : outermost) {
      p = unrollByVectorWidth(p);
      if (p.getNumLoops() < 2)
        continue;
      std::vector<unsigned> all;
      for (unsigned i = 0; i < p.getNumLoops(); ++i)
        all.push_back(i);
      rewriter.setInsertionPoint(p);
      collapseParallelLoops(rewriter, p, {all});
    }
  }

  /// The value of an index computed from constants (the collapsed loop's
  /// bounds are products of the original ones), or nullopt.
  static std::optional<int64_t> constantIndex(Value v) {
    if (std::optional<int64_t> c = getConstantIntValue(v))
      return c;
    Operation *def = v.getDefiningOp();
    if (!def || def->getNumOperands() != 2 ||
        !isa<arith::MulIOp, arith::AddIOp, arith::SubIOp>(def))
      return std::nullopt;
    std::optional<int64_t> a = constantIndex(def->getOperand(0));
    std::optional<int64_t> b = constantIndex(def->getOperand(1));
    if (!a || !b)
      return std::nullopt;
    if (isa<arith::MulIOp>(def))
      return *a * *b;
    return isa<arith::AddIOp>(def) ? *a + *b : *a - *b;
  }

  /// A step's buffer argument, or a reshape of one: it starts where the
  /// plan buffer does (16-byte aligned).
  static bool isWholeStepBuffer(Value v) {
    while (Operation *def = v.getDefiningOp()) {
      if (!isa<memref::CollapseShapeOp, memref::ExpandShapeOp>(def))
        return false;
      v = def->getOperand(0);
    }
    auto arg = cast<BlockArgument>(v);
    return arg.getOwner()->isEntryBlock() && isa<func::FuncOp>(arg.getOwner()->getParentOp());
  }

  /// A loop whose innermost dimension runs over a multiple of 4 and whose
  /// body has no nested region becomes a loop over a quarter as many
  /// innermost iterations whose body holds the 4 iterations op by op (4
  /// loads of a buffer side by side, ...): iterations of an scf.parallel are
  /// independent, so any interleaving is valid. With the buffers' 16-byte
  /// alignment stated inside the body (the runtime's pools and the arena
  /// align buffers to 64 bytes; executors check), LLVM's load/store
  /// vectorizer makes 4 contiguous accesses one 128-bit access
  /// (ld.global.v4 / st.global.v4): 4 elements a thread, as IREE assigns.
  /// Returns the loop that replaces `p` (or `p`).
  scf::ParallelOp unrollByVectorWidth(scf::ParallelOp p) {
    const int64_t kWidth = elementsPerThread;
    if (kWidth < 2)
      return p;
    unsigned inner = p.getNumLoops() - 1;
    std::optional<int64_t> lb = constantIndex(p.getLowerBound()[inner]);
    std::optional<int64_t> ub = constantIndex(p.getUpperBound()[inner]);
    std::optional<int64_t> step = constantIndex(p.getStep()[inner]);
    if (!lb || !ub || !step || *lb != 0 || *step != 1 || *ub % kWidth != 0 || *ub < kWidth)
      return p;
    Block *body = p.getBody();
    for (Operation &op : body->without_terminator())
      if (op.getNumRegions() != 0)
        return p;
    OpBuilder b(p);
    Location loc = p.getLoc();
    SmallVector<Value> lbs(p.getLowerBound()), ubs(p.getUpperBound()), steps(p.getStep());
    ubs[inner] = arith::ConstantIndexOp::create(b, loc, *ub / kWidth);
    auto wide = scf::ParallelOp::create(b, loc, lbs, ubs, steps);
    b.setInsertionPoint(wide.getBody()->getTerminator());
    // The buffers' alignment, stated inside the loop so that it travels
    // into the outlined kernel.
    IRMapping aligned;
    llvm::SetVector<Value> memrefs;
    for (Operation &op : body->without_terminator())
      for (Value v : op.getOperands())
        if (auto t = dyn_cast<MemRefType>(v.getType());
            t && t.getLayout().isIdentity() && isWholeStepBuffer(v))
          memrefs.insert(v);
    for (Value m : memrefs)
      aligned.map(m, memref::AssumeAlignmentOp::create(b, loc, m, 16).getResult());
    for (unsigned d = 0; d < inner; ++d)
      aligned.map(p.getInductionVars()[d], wide.getInductionVars()[d]);
    Value k = wide.getInductionVars()[inner];
    Value base = arith::MulIOp::create(b, loc, k, arith::ConstantIndexOp::create(b, loc, kWidth));
    SmallVector<IRMapping> lanes(kWidth, aligned);
    for (int64_t j = 0; j < kWidth; ++j) {
      Value iv = j == 0 ? base
                        : arith::AddIOp::create(b, loc, base,
                                                arith::ConstantIndexOp::create(b, loc, j))
                              .getResult();
      lanes[j].map(p.getInductionVars()[inner], iv);
    }
    for (Operation &op : body->without_terminator())
      for (int64_t j = 0; j < kWidth; ++j)
        b.clone(op, lanes[j]);
    p.erase();
    return wide;
  }
};

struct GPUExpandMathPass : mxc::impl::GPUExpandMathPassBase<GPUExpandMathPass> {
  void runOnOperation() override {
    SmallVector<math::TruncOp> truncs;
    getOperation().walk([&](math::TruncOp t) { truncs.push_back(t); });
    for (math::TruncOp t : truncs) {
      OpBuilder b(t);
      Location loc = t.getLoc();
      Value x = t.getOperand();
      Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(x.getType()));
      Value negative = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, x, zero);
      Value up = math::CeilOp::create(b, loc, x);
      Value down = math::FloorOp::create(b, loc, x);
      t.replaceAllUsesWith(arith::SelectOp::create(b, loc, negative, up, down).getResult());
      t.erase();
    }
  }
};

struct GPUSinkConstantsPass : mxc::impl::GPUSinkConstantsPassBase<GPUSinkConstantsPass> {
  void runOnOperation() override {
    SmallVector<gpu::LaunchOp> launches;
    getOperation().walk([&](gpu::LaunchOp l) { launches.push_back(l); });
    for (gpu::LaunchOp l : launches)
      if (failed(sinkOperationsIntoLaunchOp(
              l, [](Operation *op) { return isa<memref::GetGlobalOp>(op); })))
        return signalPassFailure();
  }
};

/// A call of one of the runtime's GPU library kernels (cuBLAS, cuDNN, the
/// host twins), which take device pointers.
bool isLibraryCall(Operation *op) {
  auto call = dyn_cast<func::CallOp>(op);
  return call && call.getCallee().starts_with(mxc::kGpuTwinPrefix);
}

bool isIdentityLayout(MemRefType t) { return t.getLayout().isIdentity(); }

/// Whether `g` reads a constant global (a library kernel writing a copy of
/// a mutable one would lose its writes).
bool isConstantGlobal(memref::GetGlobalOp g) {
  auto global = SymbolTable::lookupNearestSymbolFrom<memref::GlobalOp>(g, g.getNameAttr());
  return global && global.getConstant();
}

/// Whether a library call reads `v`, directly or through views of it (the
/// kernel calls take rank-1 views of their buffers).
bool readByLibraryCall(Value v) {
  for (Operation *user : v.getUsers()) {
    if (isLibraryCall(user))
      return true;
    if (isa<ViewLikeOpInterface>(user) && user->getNumResults() == 1 &&
        readByLibraryCall(user->getResult(0)))
      return true;
  }
  return false;
}

struct GPUDeviceTemporariesPass
    : mxc::impl::GPUDeviceTemporariesPassBase<GPUDeviceTemporariesPass> {
  void runOnOperation() override {
    func::FuncOp f = getOperation();
    if (f.isExternal())
      return;
    SmallVector<memref::AllocOp> allocs;
    SmallVector<memref::GetGlobalOp> constants; // read by a library kernel
    for (Operation &op : f.front()) {
      if (auto a = dyn_cast<memref::AllocOp>(op))
        if (a.getType().hasStaticShape() && isIdentityLayout(a.getType()) &&
            a.getDynamicSizes().empty() && a.getSymbolOperands().empty())
          allocs.push_back(a);
      if (auto g = dyn_cast<memref::GetGlobalOp>(op))
        if (g.getType().hasStaticShape() && isIdentityLayout(g.getType()) &&
            isConstantGlobal(g) && readByLibraryCall(g.getResult()))
          constants.push_back(g);
    }
    if (allocs.empty() && constants.empty())
      return;
    OpBuilder b(&f.front(), f.front().begin());
    Location loc = f.getLoc();
    Type token = gpu::AsyncTokenType::get(f.getContext());
    Value stream = gpu::WaitOp::create(b, loc, token, ValueRange{}).getAsyncToken();
    SmallVector<Value> buffers;
    for (memref::AllocOp a : allocs) {
      b.setInsertionPoint(a);
      auto alloc = gpu::AllocOp::create(b, a.getLoc(), a.getType(), token, ValueRange{stream},
                                        ValueRange{}, ValueRange{}, UnitAttr());
      a.getResult().replaceAllUsesWith(alloc.getMemref());
      a.erase();
      buffers.push_back(alloc.getMemref());
    }
    // A constant a library kernel (a host twin, ...) reads: copied into a
    // device buffer first, which every reader of the constant then reads
    // (kernels too: otherwise mxc-gpu-sink-constants gives them a copy in
    // their module).
    for (memref::GetGlobalOp g : constants) {
      b.setInsertionPointAfter(g);
      auto alloc = gpu::AllocOp::create(b, g.getLoc(), g.getType(), token, ValueRange{stream},
                                        ValueRange{}, ValueRange{}, UnitAttr());
      // (the stream orders the copy before the call that reads it)
      gpu::MemcpyOp::create(b, g.getLoc(), token, ValueRange{stream}, alloc.getMemref(),
                            g.getResult());
      g.getResult().replaceUsesWithIf(alloc.getMemref(), [&](OpOperand &use) {
        return !isa<gpu::MemcpyOp>(use.getOwner());
      });
      buffers.push_back(alloc.getMemref());
    }
    // Given back one after the other on the stream, then the stream waited
    // for (once: in a stream batch the batch's end waits instead).
    f.walk([&](func::ReturnOp r) {
      OpBuilder rb(r);
      Value last = stream;
      for (Value m : buffers)
        last = gpu::DeallocOp::create(rb, r.getLoc(), token, ValueRange{last}, m).getAsyncToken();
      gpu::WaitOp::create(rb, r.getLoc(), Type(), ValueRange{last});
    });
  }
};

struct GPULaunchesOnHostPass : mxc::impl::GPULaunchesOnHostPassBase<GPULaunchesOnHostPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    // Ops only a GPU runs (thread synchronisation, shared memory, warp
    // shuffles): a host loop over the threads would not mean the same. (Ids
    // and sizes are the launch body's arguments after
    // convert-parallel-loops-to-gpu; their ops are refused too.)
    WalkResult refused = module.walk([&](Operation *op) {
      if (isa_and_nonnull<gpu::GPUDialect>(op->getDialect()) &&
          !isa<gpu::LaunchOp, gpu::TerminatorOp, gpu::AllocOp, gpu::DeallocOp, gpu::MemcpyOp,
               gpu::WaitOp>(op)) {
        op->emitError() << op->getName() << " cannot run as a host loop (GPU kernel emulation)";
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (refused.wasInterrupted())
      return signalPassFailure();
    SmallVector<gpu::LaunchOp> launches;
    module.walk([&](gpu::LaunchOp l) { launches.push_back(l); });
    for (gpu::LaunchOp launch : launches)
      if (failed(toLoops(launch)))
        return signalPassFailure();
    // Device temporaries as host ones; the async tokens go with their ops.
    SmallVector<Operation *> asyncOps;
    module.walk([&](Operation *op) {
      if (isa<gpu::AllocOp, gpu::DeallocOp, gpu::MemcpyOp, gpu::WaitOp>(op))
        asyncOps.push_back(op);
    });
    llvm::SmallPtrSet<Operation *, 16> replaced(asyncOps.begin(), asyncOps.end());
    for (Operation *op : asyncOps) {
      for (Value r : op->getResults())
        if (isa<gpu::AsyncTokenType>(r.getType()))
          for (Operation *user : r.getUsers())
            if (!replaced.contains(user)) {
              user->emitError() << "an asynchronous token reaches " << user->getName()
                                << ", which the GPU kernel emulation cannot run";
              return signalPassFailure();
            }
      OpBuilder b(op);
      if (auto a = dyn_cast<gpu::AllocOp>(op)) {
        auto alloc = memref::AllocOp::create(b, a.getLoc(), a.getType(), a.getDynamicSizes(),
                                             a.getSymbolOperands());
        a.getMemref().replaceAllUsesWith(alloc.getResult());
      } else if (auto d = dyn_cast<gpu::DeallocOp>(op)) {
        memref::DeallocOp::create(b, d.getLoc(), d.getMemref());
      } else if (auto c = dyn_cast<gpu::MemcpyOp>(op)) {
        memref::CopyOp::create(b, c.getLoc(), c.getSrc(), c.getDst());
      }
    }
    for (Operation *op : llvm::reverse(asyncOps)) {
      for (Value r : op->getResults())
        r.dropAllUses(); // tokens: their users are erased too
      op->erase();
    }
    // The library kernels' GPU twins as the CPU kernels they mirror.
    SymbolTable symbols(module);
    for (auto f : llvm::make_early_inc_range(module.getOps<func::FuncOp>())) {
      StringRef name = f.getSymName();
      if (!f.isExternal() || !name.starts_with(mxc::kGpuTwinPrefix))
        continue;
      std::string cpu = mxc::cpuKernelOf(name);
      if (auto existing = symbols.lookup<func::FuncOp>(cpu)) {
        if (failed(SymbolTable::replaceAllSymbolUses(f, existing.getSymNameAttr(), module)))
          return signalPassFailure();
        symbols.erase(f);
      } else if (failed(symbols.rename(f, cpu))) {
        return signalPassFailure();
      }
    }
  }

  /// scf.parallel (grid z, y, x, block z, y, x) { the launch body }.
  LogicalResult toLoops(gpu::LaunchOp launch) {
    if (launch.getAsyncToken() || !launch.getAsyncDependencies().empty() ||
        launch.getDynamicSharedMemorySize() || launch.getClusterSizeX() ||
        launch.getNumWorkgroupAttributions() || launch.getNumPrivateAttributions())
      return launch.emitError() << "an asynchronous, clustered or shared-memory launch "
                                   "cannot run as a host loop (GPU kernel emulation)";
    OpBuilder b(launch);
    Location loc = launch.getLoc();
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    gpu::KernelDim3 grid = launch.getGridSizeOperandValues();
    gpu::KernelDim3 block = launch.getBlockSizeOperandValues();
    SmallVector<Value> ubs = {grid.z, grid.y, grid.x, block.z, block.y, block.x};
    auto par = scf::ParallelOp::create(b, loc, SmallVector<Value>(6, zero), ubs,
                                       SmallVector<Value>(6, one));
    SmallVector<Value> iv(par.getInductionVars());
    if (reverse) {
      OpBuilder rb = OpBuilder::atBlockBegin(par.getBody());
      for (auto [i, ub] : llvm::enumerate(ubs)) {
        Value last = arith::SubIOp::create(rb, loc, ub, one);
        iv[i] = arith::SubIOp::create(rb, loc, last, iv[i]);
      }
    }
    IRMapping map;
    gpu::KernelDim3 bid = launch.getBlockIds(), tid = launch.getThreadIds();
    gpu::KernelDim3 gsz = launch.getGridSize(), bsz = launch.getBlockSize();
    map.map(bid.z, iv[0]);
    map.map(bid.y, iv[1]);
    map.map(bid.x, iv[2]);
    map.map(tid.z, iv[3]);
    map.map(tid.y, iv[4]);
    map.map(tid.x, iv[5]);
    for (auto [arg, v] : llvm::zip(SmallVector<Value>{gsz.x, gsz.y, gsz.z, bsz.x, bsz.y, bsz.z},
                                   SmallVector<Value>{grid.x, grid.y, grid.z, block.x, block.y,
                                                      block.z}))
      map.map(arg, v);
    // The body (one block or a CFG) as a region of its own; gpu.terminator
    // ends a thread: scf.yield.
    b.setInsertionPoint(par.getBody()->getTerminator());
    auto exec = scf::ExecuteRegionOp::create(b, loc, TypeRange{});
    launch.getBody().cloneInto(&exec.getRegion(), map);
    SmallVector<Operation *> ends;
    exec.getRegion().walk([&](gpu::TerminatorOp t) { ends.push_back(t); });
    for (Operation *t : ends) {
      OpBuilder tb(t);
      scf::YieldOp::create(tb, t->getLoc());
      t->erase();
    }
    launch.erase();
    return success();
  }
};

/// Ops a step may keep on the host: launches, the buffers' views and
/// address arithmetic, constants, returns, its temporaries' device
/// allocations.
bool allowedOnHost(Operation *op) {
  if (isa<gpu::LaunchFuncOp, func::ReturnOp, gpu::AllocOp, gpu::DeallocOp, gpu::WaitOp,
          gpu::MemcpyOp>(op))
    return true;
  // The runtime's GPU library kernels (cuBLAS), called from the host.
  if (auto call = dyn_cast<func::CallOp>(op))
    return call.getCallee().starts_with(mxc::kGpuTwinPrefix);
  if (op->getNumRegions() != 0)
    return false; // loops, ifs, generic ops: they would run on the host
  // Views (memref.view, reinterpret_cast, subview, ...) and arithmetic.
  return isMemoryEffectFree(op);
}

struct GPUCheckHostCodePass
    : mxc::impl::GPUCheckHostCodePassBase<GPUCheckHostCodePass> {
  using Base::Base;

  void runOnOperation() override {
    bool ok = true;
    for (auto func : getOperation().getOps<func::FuncOp>()) {
      if (func.isExternal())
        continue;
      func->walk<WalkOrder::PreOrder>([&](Operation *op) {
        // A tensor constant bufferized into a global lives in host memory:
        // a kernel given it would read host addresses.
        if (auto global = dyn_cast<memref::GetGlobalOp>(op)) {
          // (copied to the device first: mxc-gpu-device-temporaries)
          if (!global->use_empty() &&
              llvm::all_of(global->getUsers(), [](Operation *u) { return isa<gpu::MemcpyOp>(u); }))
            return WalkResult::skip();
          InFlightDiagnostic diag = op->emitError();
          if (mxc::nodeNames(op->getLoc()).empty())
            diag << "step @" << func.getSymName() << ": ";
          diag << "the constant @" << global.getName()
               << " would be read on the GPU from host memory (constant tensors have no "
                  "GPU placement yet)";
          ok = false;
          return WalkResult::skip();
        }
        if (op == func.getOperation() || allowedOnHost(op) ||
            (launches && isa<gpu::LaunchOp>(op)))
          return op == func.getOperation() ? WalkResult::advance() : WalkResult::skip();
        // The diagnostic's location names the MXNet node(s), when known.
        InFlightDiagnostic diag = op->emitError();
        if (mxc::nodeNames(op->getLoc()).empty())
          diag << "step @" << func.getSymName() << ": ";
        diag << op->getName()
             << " has no GPU lowering yet (--target cuda compiles elementwise, "
                           "broadcast and reduction steps into kernels, GEMM and convolution "
                           "through cuBLAS / cuDNN; the other library calls are CPU-only so "
                           "far)";
        ok = false;
        return WalkResult::skip();
      });
    }
    if (!ok)
      signalPassFailure();
  }
};


} // namespace

std::string mxc::cudaLaunchesPipeline(int64_t blockSize, int64_t elementsPerThread) {
  return (llvm::Twine("mxc-strided-copies-to-linalg{all=true},") +
          "func.func(mxc-gpu-device-temporaries, mxc-gpu-parallel-dims-first, "
          "  convert-linalg-to-parallel-loops,"
          "  mxc-gpu-expand-math,"
          "  mxc-gpu-collapse-parallel-loops{elements-per-thread=" +
          std::to_string(elementsPerThread) +
          "},"
          "  scf-parallel-loop-tiling{parallel-loop-tile-sizes=" +
          std::to_string(blockSize) +
          " no-min-max-bounds=true},"
          "  gpu-map-parallel-loops, convert-parallel-loops-to-gpu, lower-affine, canonicalize,"
          "  gpu-launch-sink-index-computations, mxc-gpu-sink-constants)")
      .str();
}

std::string mxc::cudaKernelsPipeline(llvm::StringRef chip, llvm::StringRef features,
                                     int64_t blockSize, int64_t elementsPerThread) {
  return (cudaLaunchesPipeline(blockSize, elementsPerThread) + "," +
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
  Option<int64_t> blockSize{*this, "block-size", llvm::cl::desc("Threads a block"),
                            llvm::cl::init(128)};
  Option<int64_t> elementsPerThread{*this, "elements-per-thread",
                                    llvm::cl::desc("Innermost elements a thread (unrolled)"),
                                    llvm::cl::init(4)};
};
} // namespace

void mxc::registerCudaKernelsPipeline() {
  PassPipelineRegistration<CudaKernelsOptions>(
      "mxc-cuda-kernels",
      "The CUDA target's kernels: planned steps' linalg ops -> gpu.module's in NVVM",
      [](OpPassManager &pm, const CudaKernelsOptions &o) {
        if (failed(parsePassPipeline(mxc::cudaKernelsPipeline(o.chip, o.features, o.blockSize,
                                                        o.elementsPerThread), pm)))
          llvm::report_fatal_error("mxc-cuda-kernels: bad pipeline text");
      });
}
