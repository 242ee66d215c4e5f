//===- PlanMemory.cpp - mx-plan-memory: one arena, inplace + co-share -----===//
//
// The analysis (MemoryPlanner) and the rewrite (applyMemoryPlan) described in
// include/mxc/Compiler/Transforms/MemoryPlan.h, and the pass that runs them
// on every public function with a body.
//
//===----------------------------------------------------------------------===//
#include "mxc/Compiler/Transforms/MemoryPlan.h"
#include "mxc/Compiler/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/AffineMap.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/Support/MathExtras.h"

#include <map>

namespace mxc {
#define GEN_PASS_DEF_MXPLANMEMORYPASS
#include "mxc/Compiler/Transforms/Passes.h.inc"
} // namespace mxc

using namespace mlir;
using namespace mxc;

std::optional<MemoryStrategy> mxc::parseMemoryStrategy(StringRef name) {
  return llvm::StringSwitch<std::optional<MemoryStrategy>>(name)
      .Case("none", MemoryStrategy::None)
      .Case("inplace", MemoryStrategy::Inplace)
      .Case("coshare", MemoryStrategy::Coshare)
      .Case("both", MemoryStrategy::Both)
      .Default(std::nullopt);
}

StringRef mxc::stringifyMemoryStrategy(MemoryStrategy strategy) {
  switch (strategy) {
  case MemoryStrategy::None:
    return "none";
  case MemoryStrategy::Inplace:
    return "inplace";
  case MemoryStrategy::Coshare:
    return "coshare";
  case MemoryStrategy::Both:
    return "both";
  }
  return "both";
}

namespace {

/// Bytes of one element of a memref, or nullopt for element types the arena
/// cannot hold (no fixed size known here).
std::optional<int64_t> elementBytes(Type type) {
  if (type.isIndex())
    return 8;
  if (type.isIntOrFloat())
    return int64_t(llvm::divideCeil(type.getIntOrFloatBitWidth(), 8));
  return std::nullopt;
}

/// The buffer a memref value is a view of: follows view-like ops (cast,
/// subview, collapse/expand_shape, reinterpret_cast, view, ...) back.
Value rootOf(Value v) {
  while (Operation *def = v.getDefiningOp()) {
    auto view = dyn_cast<ViewLikeOpInterface>(def);
    if (!view || view.getViewSource() == v)
      break;
    v = view.getViewSource();
  }
  return v;
}

/// Statically known byte size of a memref type (identity layout), or -1.
int64_t staticBytes(MemRefType type) {
  if (!type.hasStaticShape())
    return -1;
  auto eb = elementBytes(type.getElementType());
  if (!eb)
    return -1;
  return type.getNumElements() * *eb;
}

} // namespace

struct MemoryPlanner::Impl {
  func::FuncOp func;
  std::vector<Operation *> steps;
  llvm::DenseMap<Operation *, unsigned> stepOf;

  struct Buffer {
    memref::AllocOp alloc;
    int64_t bytes = 0;
    unsigned start = 0, end = 0;
    std::vector<unsigned> accessSteps; ///< sorted, unique
  };
  std::vector<Buffer> buffers;
  llvm::DenseMap<Value, unsigned> bufferOf; ///< alloc result -> buffer
  unsigned numUnplanned = 0;

  /// The nodes of the dependency DAG: maximal runs of consecutive top-level
  /// ops with the same location, i.e. the ops one MXNet node lowered to
  /// (its fill, its loop nest, its kernel call ...), which an executor runs
  /// as one unit, in order. runOf[step] -> node.
  std::vector<unsigned> runOf;
  unsigned numRuns = 0;
  /// Columns of the reachability bitsets: the nodes that access a buffer.
  llvm::DenseMap<unsigned, unsigned> columnOf;
  unsigned numColumns = 0;
  /// ancestors[node]: columns (nodes) from which `node` is reachable.
  std::vector<llvm::BitVector> ancestors;
  /// Per buffer: its access steps as columns.
  std::vector<llvm::BitVector> userColumns;
  /// Inplace candidates: output buffer -> input buffers of its first step,
  /// an elementwise op.
  llvm::DenseMap<unsigned, SmallVector<unsigned, 2>> inplaceInputs;

  explicit Impl(func::FuncOp f) : func(f) {
    if (!func.getBody().hasOneBlock())
      return;
    Block &block = func.front();
    std::optional<Location> previous;
    for (Operation &op : block) {
      stepOf[&op] = steps.size();
      steps.push_back(&op);
      bool named = !isa<UnknownLoc>(op.getLoc());
      if (!named || !previous || *previous != op.getLoc())
        ++numRuns;
      runOf.push_back(numRuns - 1);
      previous = named ? std::optional<Location>(op.getLoc()) : std::nullopt;
    }
    collectBuffers();
    buildDependencies();
    findInplaceCandidates();
  }

  unsigned stepOfUser(Operation *user) {
    Operation *top = func.front().findAncestorOpInBlock(*user);
    assert(top && "user outside the function body");
    return stepOf.lookup(top);
  }

  void collectBuffers() {
    SmallVector<memref::AllocOp> allocs;
    func.walk([&](memref::AllocOp a) { allocs.push_back(a); });
    for (memref::AllocOp alloc : allocs) {
      MemRefType type = alloc.getType();
      int64_t bytes = staticBytes(type);
      if (bytes < 0)
        continue; // dynamic: not ours (and not counted as unplanned)
      if (!type.getLayout().isIdentity() || type.getMemorySpace() ||
          !alloc.getSymbolOperands().empty()) {
        ++numUnplanned;
        continue;
      }
      Buffer buf;
      buf.alloc = alloc;
      buf.bytes = bytes;
      unsigned allocStep = stepOfUser(alloc);
      bool escapes = false;
      std::optional<unsigned> first, last;
      SmallVector<Value> worklist{alloc.getResult()};
      llvm::SmallPtrSet<Value, 16> seen{alloc.getResult()};
      std::vector<unsigned> access;
      while (!worklist.empty() && !escapes) {
        Value v = worklist.pop_back_val();
        for (Operation *user : v.getUsers()) {
          if (isa<memref::DeallocOp>(user))
            continue;
          if (user->hasTrait<OpTrait::IsTerminator>()) {
            escapes = true; // returned, yielded out of a loop iteration, ...
            break;
          }
          unsigned s = stepOfUser(user);
          last = last ? std::max(*last, s) : s;
          if (!isa<ViewLikeOpInterface>(user)) {
            first = first ? std::min(*first, s) : s;
            access.push_back(s);
          }
          for (Value r : user->getResults())
            if (seen.insert(r).second)
              worklist.push_back(r);
        }
      }
      if (escapes) {
        ++numUnplanned;
        continue;
      }
      buf.start = first ? *first : allocStep;
      buf.end = std::max(buf.start, last ? *last : allocStep);
      llvm::sort(access);
      access.erase(llvm::unique(access), access.end());
      buf.accessSteps = std::move(access);
      bufferOf[alloc.getResult()] = buffers.size();
      buffers.push_back(std::move(buf));
    }
    for (Buffer &b : buffers)
      for (unsigned s : b.accessSteps)
        if (columnOf.try_emplace(runOf[s], numColumns).second)
          ++numColumns;
  }

  /// The dependency DAG of the top-level ops: SSA uses (not of allocations,
  /// views or pure ops, which order nothing), and on each buffer
  /// or argument (by root) read-after-write, write-after-read and
  /// write-after-write. Ops without memory effect information (calls) read
  /// and write every memref operand. Then ancestor bitsets over columns.
  void buildDependencies() {
    unsigned n = steps.size();
    std::vector<SmallVector<unsigned, 4>> preds(n);
    struct RootState {
      std::optional<unsigned> lastWriter;
      SmallVector<unsigned, 4> readers;
    };
    llvm::DenseMap<Value, RootState> roots;
    for (unsigned i = 0; i < n; ++i) {
      // Reads and writes of this step, by root.
      llvm::MapVector<Value, std::pair<bool, bool>> accesses;
      auto note = [&](Value v, bool read, bool write) {
        auto &rw = accesses[rootOf(v)];
        rw.first |= read;
        rw.second |= write;
      };
      steps[i]->walk([&](Operation *op) {
        for (Value operand : op->getOperands()) {
          // SSA edge from the step defining the value.
          Operation *def = operand.getDefiningOp();
          if (!def)
            def = operand.getParentBlock()->getParentOp();
          // An allocation, a view or a pure computation (constants, index
          // arithmetic) orders nothing: what a step reads of a buffer is
          // ordered by the accesses to its root below. (An edge from such an
          // op would make the whole run it sits in an ancestor.)
          if (def && def != func) {
            Operation *top = func.front().findAncestorOpInBlock(*def);
            if (top && (isa<memref::AllocOp, ViewLikeOpInterface>(top) ||
                        isPure(top)))
              top = nullptr;
            if (top) {
              unsigned d = stepOf.lookup(top);
              if (d != i)
                preds[i].push_back(d);
            }
          }
        }
        if (isa<ViewLikeOpInterface, memref::DeallocOp>(op))
          return;
        auto effects = dyn_cast<MemoryEffectOpInterface>(op);
        if (!effects && op->hasTrait<OpTrait::HasRecursiveMemoryEffects>())
          return; // its nested ops are visited on their own
        for (Value operand : op->getOperands()) {
          if (!isa<BaseMemRefType>(operand.getType()))
            continue;
          if (!effects) {
            note(operand, true, true);
            continue;
          }
          SmallVector<MemoryEffects::EffectInstance> list;
          effects.getEffectsOnValue(operand, list);
          for (auto &e : list)
            note(operand, isa<MemoryEffects::Read>(e.getEffect()),
                 isa<MemoryEffects::Write>(e.getEffect()));
        }
      });
      for (auto &[root, rw] : accesses) {
        RootState &st = roots[root];
        if (rw.first || rw.second)
          if (st.lastWriter)
            preds[i].push_back(*st.lastWriter);
        if (rw.second) {
          for (unsigned r : st.readers)
            if (r != i)
              preds[i].push_back(r);
          st.readers.clear();
          st.lastWriter = i;
        } else if (rw.first) {
          st.readers.push_back(i);
        }
      }
    }
    // Runs are contiguous, so every edge between runs goes forward.
    ancestors.assign(numRuns, llvm::BitVector(numColumns));
    for (unsigned i = 0; i < n; ++i) {
      unsigned r = runOf[i];
      for (unsigned p : preds[i]) {
        unsigned pr = runOf[p];
        if (pr == r)
          continue;
        assert(pr < r && "dependency against the order of the ops");
        ancestors[r] |= ancestors[pr];
        auto it = columnOf.find(pr);
        if (it != columnOf.end())
          ancestors[r].set(it->second);
      }
    }
    userColumns.assign(buffers.size(), llvm::BitVector(numColumns));
    for (unsigned b = 0; b < buffers.size(); ++b)
      for (unsigned s : buffers[b].accessSteps)
        userColumns[b].set(columnOf.lookup(runOf[s]));
  }

  /// The planned buffer `v` is a whole view of (same bytes, identity
  /// layout, offset 0 by construction), if any.
  std::optional<unsigned> wholeBuffer(Value v) {
    auto type = dyn_cast<MemRefType>(v.getType());
    if (!type || !type.getLayout().isIdentity())
      return std::nullopt;
    auto it = bufferOf.find(rootOf(v));
    if (it == bufferOf.end() || staticBytes(type) != buffers[it->second].bytes)
      return std::nullopt;
    return it->second;
  }

  /// Elementwise steps: an all-parallel linalg op whose output (identity map,
  /// payload not reading it) is a buffer first touched there, and an input
  /// (identity map, same shape, same element size) that is another buffer
  /// the op reads only through identity maps.
  void findInplaceCandidates() {
    for (unsigned i = 0; i < steps.size(); ++i) {
      auto op = dyn_cast<linalg::LinalgOp>(steps[i]);
      if (!op || !op.hasPureBufferSemantics() ||
          op.getNumLoops() != op.getNumParallelLoops())
        continue;
      for (OpOperand &init : op.getDpsInitsMutable()) {
        std::optional<unsigned> y = wholeBuffer(init.get());
        if (!y || buffers[*y].start != i ||
            !op.getMatchingIndexingMap(&init).isIdentity() ||
            op.payloadUsesValueFromOperand(&init))
          continue;
        auto initType = cast<MemRefType>(init.get().getType());
        for (OpOperand *input : op.getDpsInputOperands()) {
          std::optional<unsigned> x = wholeBuffer(input->get());
          if (!x || *x == *y || !op.getMatchingIndexingMap(input).isIdentity())
            continue;
          auto inType = cast<MemRefType>(input->get().getType());
          if (inType.getShape() != initType.getShape() ||
              elementBytes(inType.getElementType()) !=
                  elementBytes(initType.getElementType()))
            continue;
          // Every use of x's storage by this op is an identity-map read.
          bool onlyIdentityReads = true;
          for (OpOperand &other : op->getOpOperands()) {
            if (&other == input || !isa<BaseMemRefType>(other.get().getType()))
              continue;
            auto it = bufferOf.find(rootOf(other.get()));
            if (it == bufferOf.end() || it->second != *x)
              continue;
            if (!op.isDpsInput(&other) ||
                !op.getMatchingIndexingMap(&other).isIdentity() ||
                other.get().getType() != input->get().getType())
              onlyIdentityReads = false;
          }
          if (onlyIdentityReads)
            inplaceInputs[*y].push_back(*x);
        }
      }
    }
  }
};

MemoryPlanner::MemoryPlanner(func::FuncOp func)
    : impl(std::make_unique<Impl>(func)) {}
MemoryPlanner::~MemoryPlanner() = default;

MemoryPlan MemoryPlanner::plan(MemoryStrategy strategy) const {
  const Impl &a = *impl;
  MemoryPlan plan;
  plan.strategy = strategy;
  plan.numSteps = a.steps.size();
  plan.numUnplanned = a.numUnplanned;
  const bool inplace =
      strategy == MemoryStrategy::Inplace || strategy == MemoryStrategy::Both;
  const bool coshare =
      strategy == MemoryStrategy::Coshare || strategy == MemoryStrategy::Both;
  unsigned n = a.steps.size();
  std::vector<SmallVector<unsigned, 2>> byStart(n), byEnd(n);
  for (unsigned b = 0; b < a.buffers.size(); ++b) {
    const auto &buf = a.buffers[b];
    PlannedBuffer p;
    p.alloc = buf.alloc;
    p.bytes = buf.bytes;
    p.start = buf.start;
    p.end = buf.end;
    plan.buffers.push_back(p);
    byStart[buf.start].push_back(b);
    byEnd[buf.end].push_back(b);
  }

  struct Storage {
    int64_t bytes = 0;
    unsigned end = 0;
    llvm::BitVector users;
    bool pooled = false;
  };
  std::vector<Storage> storages;
  std::multimap<int64_t, unsigned> pool; // bytes -> storage
  // No executor respecting the DAG can run a previous user of `s` at the
  // same time as step i: each is in step i's node (run in order) or in an
  // ancestor node.
  auto safe = [&](unsigned s, unsigned i) {
    unsigned r = a.runOf[i];
    llvm::BitVector rest = storages[s].users;
    rest.reset(a.ancestors[r]);
    auto it = a.columnOf.find(r);
    if (it != a.columnOf.end())
      rest.reset(it->second);
    return rest.none();
  };
  constexpr int64_t kMatchRange = 16; // NNVM's MXNET_EXEC_MATCH_RANGE
  for (unsigned i = 0; i < n; ++i) {
    llvm::SmallDenseSet<unsigned, 4> takenInplace;
    for (unsigned b : byStart[i]) {
      PlannedBuffer &p = plan.buffers[b];
      int chosen = -1;
      if (inplace) {
        auto it = a.inplaceInputs.find(b);
        if (it != a.inplaceInputs.end()) {
          for (unsigned x : it->second) {
            unsigned s = plan.buffers[x].storage;
            if (a.buffers[x].start < i && storages[s].end == i &&
                !storages[s].pooled && !takenInplace.contains(s) &&
                storages[s].bytes >= p.bytes && safe(s, i)) {
              chosen = s;
              takenInplace.insert(s);
              p.inplaceOf = x;
              break;
            }
          }
        }
      }
      if (chosen < 0 && coshare && !pool.empty()) {
        auto begin = pool.lower_bound(p.bytes / kMatchRange);
        auto mid = pool.lower_bound(p.bytes);
        auto end = pool.upper_bound(p.bytes * kMatchRange);
        auto found = pool.end();
        for (auto it = mid; it != end && found == pool.end(); ++it)
          if (safe(it->second, i))
            found = it;
        for (auto it = mid; it != begin && found == pool.end();) {
          --it;
          if (safe(it->second, i))
            found = it;
        }
        if (found != pool.end()) {
          chosen = found->second;
          pool.erase(found);
          storages[chosen].pooled = false;
          p.shared = true;
        }
      }
      if (chosen < 0) {
        chosen = storages.size();
        Storage s;
        s.users.resize(a.numColumns);
        storages.push_back(std::move(s));
      }
      Storage &s = storages[chosen];
      s.bytes = std::max(s.bytes, p.bytes);
      s.end = std::max(s.end, p.end);
      s.users |= a.userColumns[b];
      p.storage = chosen;
    }
    if (!coshare)
      continue;
    for (unsigned b : byEnd[i]) {
      unsigned s = plan.buffers[b].storage;
      if (storages[s].end == i && !storages[s].pooled) {
        storages[s].pooled = true;
        pool.emplace(storages[s].bytes, s);
      }
    }
  }

  int64_t offset = 0;
  for (Storage &s : storages) {
    plan.storageBytes.push_back(s.bytes);
    plan.storageOffset.push_back(offset);
    offset += llvm::alignTo(s.bytes, kArenaAlignment);
  }
  plan.arenaBytes = offset;
  for (PlannedBuffer &p : plan.buffers)
    p.offset = plan.storageOffset[p.storage];

  // Lower bound: live across i, plus the larger of dying at i / born at i.
  std::vector<int64_t> crossDiff(n + 1, 0), dying(n, 0), born(n, 0);
  for (const auto &buf : a.buffers) {
    born[buf.start] += buf.bytes;
    if (buf.end > buf.start) {
      dying[buf.end] += buf.bytes;
      crossDiff[buf.start + 1] += buf.bytes;
      crossDiff[buf.end] -= buf.bytes;
    }
  }
  int64_t cross = 0;
  for (unsigned i = 0; i < n; ++i) {
    cross += crossDiff[i];
    plan.lowerBound =
        std::max(plan.lowerBound, cross + std::max(dying[i], born[i]));
  }
  return plan;
}

LogicalResult mxc::applyMemoryPlan(func::FuncOp func,
                                       const MemoryPlan &plan) {
  auto module = func->getParentOfType<ModuleOp>();
  if (module && !SymbolTable::symbolKnownUseEmpty(func, module))
    return func.emitError() << "cannot plan the memory of @" << func.getName()
                            << ": it is called, and planning adds an arena "
                               "argument";
  MLIRContext *ctx = func.getContext();
  OpBuilder b(ctx);
  auto arenaType = MemRefType::get({plan.arenaBytes}, IntegerType::get(ctx, 8));
  NamedAttrList attrs;
  attrs.set(LLVM::LLVMDialect::getNoAliasAttrName(), UnitAttr::get(ctx));
  unsigned index = func.getNumArguments();
  if (failed(func.insertArgument(index, arenaType, attrs.getDictionary(ctx),
                                 func.getLoc())))
    return func.emitError() << "cannot add the arena argument";
  Value arena = func.getArgument(index);
  for (const PlannedBuffer &p : plan.buffers) {
    memref::AllocOp alloc = p.alloc;
    b.setInsertionPoint(alloc);
    Value shift = arith::ConstantIndexOp::create(b, alloc.getLoc(), p.offset);
    Value view = memref::ViewOp::create(b, alloc.getLoc(), alloc.getType(),
                                        arena, shift, ValueRange{});
    for (Operation *user : llvm::make_early_inc_range(alloc->getUsers()))
      if (isa<memref::DeallocOp>(user))
        user->erase();
    alloc.getResult().replaceAllUsesWith(view);
    alloc.erase();
  }
  func->setAttr(kArenaSizeAttrName,
                IntegerAttr::get(IntegerType::get(ctx, 64), plan.arenaBytes));
  return success();
}

namespace {

std::string describeType(MemRefType type) {
  std::string s;
  llvm::raw_string_ostream os(s);
  for (int64_t d : type.getShape())
    os << d << "x";
  os << type.getElementType();
  return s;
}

struct MXPlanMemoryPass
    : mxc::impl::MXPlanMemoryPassBase<MXPlanMemoryPass> {
  using Base::Base;

  void runOnOperation() override {
    std::optional<MemoryStrategy> strat = parseMemoryStrategy(strategy);
    if (!strat) {
      getOperation().emitError()
          << "mx-plan-memory: unknown strategy '" << strategy
          << "' (expected none, inplace, coshare or both)";
      return signalPassFailure();
    }
    SmallVector<func::FuncOp> funcs;
    for (auto func : getOperation().getOps<func::FuncOp>())
      if (!func.isExternal() && func.isPublic() &&
          !func->hasAttr(kArenaSizeAttrName))
        funcs.push_back(func);
    for (func::FuncOp func : funcs) {
      if (!func.getBody().hasOneBlock()) {
        func.emitError() << "mx-plan-memory: @" << func.getName()
                         << " must have a single block";
        return signalPassFailure();
      }
      MemoryPlan plan = MemoryPlanner(func).plan(*strat);
      if (printPlan)
        printRemarks(func, plan);
      if (failed(applyMemoryPlan(func, plan)))
        return signalPassFailure();
    }
  }

  void printRemarks(func::FuncOp func, const MemoryPlan &plan) {
    for (unsigned i = 0; i < plan.buffers.size(); ++i) {
      const PlannedBuffer &p = plan.buffers[i];
      memref::AllocOp alloc = p.alloc;
      InFlightDiagnostic d =
          alloc.emitRemark()
          << "buffer " << i << " (" << describeType(alloc.getType()) << ", "
          << p.bytes << " bytes) steps [" << p.start << ", " << p.end
          << "] -> storage " << p.storage << " at offset " << p.offset;
      if (p.inplaceOf >= 0)
        d << " (in place of buffer " << p.inplaceOf << ")";
      else if (p.shared)
        d << " (co-shared)";
    }
    func.emitRemark() << "arena of @" << func.getName() << ": "
                      << plan.arenaBytes << " bytes in "
                      << plan.storageBytes.size() << " storages for "
                      << plan.buffers.size() << " buffers (strategy "
                      << stringifyMemoryStrategy(plan.strategy)
                      << "), lower bound " << plan.lowerBound << " bytes, "
                      << plan.numUnplanned << " allocations left";
  }
};

} // namespace
