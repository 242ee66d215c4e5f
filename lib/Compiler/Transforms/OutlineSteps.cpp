//===- OutlineSteps.cpp - mx-outline-steps: one kernel function a step ----===//
//
// Splits a planned entry (after mx-plan-memory) into steps, each outlined
// into its own function over the buffers it reads and writes; the entry
// becomes a straight line of calls, which is the execution plan. See the
// pass description in Passes.td.
//
//===----------------------------------------------------------------------===//
#include "mxc/Compiler/Transforms/MemoryPlan.h"
#include "mxc/Compiler/Transforms/Passes.h"

#include "NodeNames.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"

namespace mxc {
#define GEN_PASS_DEF_MXOUTLINESTEPSPASS
#include "mxc/Compiler/Transforms/Passes.h.inc"
} // namespace mxc

using namespace mlir;

namespace {

/// Side-effect free ops without regions: cloned into every step that needs
/// them, never steps of their own.
bool isCloneable(Operation *op) {
  return op->getNumRegions() == 0 && isMemoryEffectFree(op) &&
         !op->hasTrait<OpTrait::IsTerminator>();
}

/// Byte range of an arena view with a constant shift; nullopt otherwise.
std::optional<std::pair<int64_t, int64_t>> arenaRange(Value v, Value arena) {
  auto view = v.getDefiningOp<memref::ViewOp>();
  if (!view || view.getSource() != arena)
    return std::nullopt;
  auto shift = getConstantIntValue(view.getByteShift());
  auto type = dyn_cast<MemRefType>(view.getType());
  if (!shift || !type || !type.hasStaticShape() ||
      !type.getElementType().isIntOrFloat())
    return std::nullopt;
  int64_t bytes = type.getNumElements() *
                  int64_t(llvm::divideCeil(
                      type.getElementType().getIntOrFloatBitWidth(), 8));
  return std::make_pair(*shift, *shift + bytes);
}

struct Outliner {
  func::FuncOp func;
  Block &block;
  Value arena;

  /// Steps: contiguous runs of non-cloneable top-level ops.
  std::vector<SmallVector<Operation *>> steps;
  /// Arena views some earlier step wrote.
  llvm::DenseSet<Value> writtenSoFar;
  llvm::DenseMap<Operation *, unsigned> stepOf;

  explicit Outliner(func::FuncOp f)
      : func(f), block(f.front()), arena(f.getArguments().back()) {}

  /// A buffer: an entry argument, or a view of the arena at a constant
  /// offset.
  bool isBuffer(Value v) const {
    if (auto arg = dyn_cast<BlockArgument>(v))
      return arg.getOwner() == &block;
    return arenaRange(v, arena).has_value();
  }

  /// The top-level op of the entry that defines `v` (nullptr: an argument).
  Operation *topDef(Value v) const {
    Operation *def = v.getDefiningOp();
    if (!def)
      def = cast<BlockArgument>(v).getOwner()->getParentOp();
    if (def == const_cast<func::FuncOp &>(func).getOperation())
      return nullptr;
    return block.findAncestorOpInBlock(*def);
  }

  void formSteps() {
    std::optional<Location> loc;
    for (Operation &op : block.without_terminator()) {
      if (isCloneable(&op))
        continue;
      if (!loc || op.getLoc() != *loc)
        steps.emplace_back();
      loc = op.getLoc();
      steps.back().push_back(&op);
    }
    renumber();
  }

  void renumber() {
    stepOf.clear();
    for (auto [i, s] : llvm::enumerate(steps))
      for (Operation *op : s)
        stepOf[op] = i;
  }

  /// Values used inside step `s` and defined outside it.
  llvm::SetVector<Value> externalValues(unsigned s) const {
    llvm::SetVector<Value> out;
    for (Operation *top : steps[s])
      top->walk([&](Operation *op) {
        for (Value v : op->getOperands()) {
          Operation *def = topDef(v);
          if (def && stepOf.lookup(def) == s && stepOf.count(def))
            continue;
          if (!def && !isa<BlockArgument>(v))
            continue;
          if (auto arg = dyn_cast<BlockArgument>(v);
              arg && arg.getOwner() != &block)
            continue; // a block argument of a region inside the step
          out.insert(v);
        }
      });
    return out;
  }

  /// Merges steps until no value but a buffer (or something computed from
  /// buffers and constants alone) crosses from one step to another.
  void mergeCrossingSteps() {
    bool changed = true;
    while (changed) {
      changed = false;
      for (unsigned s = 0; s < steps.size() && !changed; ++s) {
        llvm::SmallVector<Value> work(externalValues(s).takeVector());
        llvm::DenseSet<Value> seen;
        while (!work.empty() && !changed) {
          Value v = work.pop_back_val();
          if (!seen.insert(v).second || isBuffer(v))
            continue;
          Operation *def = topDef(v);
          if (!def)
            continue;
          if (isCloneable(def)) {
            for (Value operand : def->getOperands())
              work.push_back(operand);
            continue;
          }
          // Defined by another step: merge it and everything between. (A
          // cloneable op over this step's own values is cloned after them.)
          unsigned d = stepOf.lookup(def);
          if (d == s)
            continue;
          unsigned lo = std::min(d, s), hi = std::max(d, s);
          for (unsigned k = lo + 1; k <= hi; ++k)
            steps[lo].append(steps[k].begin(), steps[k].end());
          steps.erase(steps.begin() + lo + 1, steps.begin() + hi + 1);
          renumber();
          changed = true;
        }
      }
    }
  }

  /// The buffer `v` is a view of, if it is one (else nullptr-valued Value).
  Value bufferOf(Value v, const llvm::DenseSet<Value> &buffers) const {
    while (true) {
      if (buffers.contains(v))
        return v;
      Operation *def = v.getDefiningOp();
      auto view = def ? dyn_cast<ViewLikeOpInterface>(def) : nullptr;
      if (!view || view.getViewSource() == v)
        return Value();
      v = view.getViewSource();
    }
  }

  LogicalResult outline(unsigned s, OpBuilder &moduleBuilder,
                        SymbolTable &symbols) {
    // The step's buffers and the cloneable ops it needs.
    llvm::SetVector<Value> bufferList;
    llvm::DenseSet<Operation *> needed;
    SmallVector<Value> work(externalValues(s).takeVector());
    llvm::DenseSet<Value> seen;
    // Keep first-use order: process the external values in order.
    for (size_t i = 0; i < work.size(); ++i) {
      Value v = work[i];
      if (!seen.insert(v).second)
        continue;
      if (isBuffer(v)) {
        bufferList.insert(v);
        continue;
      }
      Operation *def = topDef(v);
      if (def && stepOf.count(def) && stepOf.lookup(def) == s)
        continue; // computed inside the step (a view of its own allocation)
      if (!def || !isCloneable(def))
        return func.emitError() << "internal error: mx-outline-steps: a value "
                                   "crosses steps";
      needed.insert(def);
      for (Value operand : def->getOperands())
        work.push_back(operand);
    }
    llvm::DenseSet<Value> buffers(bufferList.begin(), bufferList.end());

    // Reads and writes, by buffer.
    llvm::DenseSet<Value> read, written;
    auto touchAll = [&](Operation *op) {
      for (Value operand : op->getOperands())
        if (Value b = bufferOf(operand, buffers)) {
          read.insert(b);
          written.insert(b);
        }
    };
    for (Operation *top : steps[s])
      top->walk([&](Operation *op) {
        auto iface = dyn_cast<MemoryEffectOpInterface>(op);
        if (!iface) {
          if (!op->hasTrait<OpTrait::HasRecursiveMemoryEffects>())
            touchAll(op);
          return;
        }
        SmallVector<MemoryEffects::EffectInstance> effects;
        iface.getEffects(effects);
        for (auto &e : effects) {
          Value v = e.getValue();
          if (!v) {
            if (isa<MemoryEffects::Write, MemoryEffects::Read>(e.getEffect()))
              touchAll(op);
            continue;
          }
          Value b = bufferOf(v, buffers);
          if (!b)
            continue;
          if (isa<MemoryEffects::Write>(e.getEffect()))
            written.insert(b);
          else if (isa<MemoryEffects::Read>(e.getEffect()))
            read.insert(b);
        }
      });
    // A view read before any step wrote it holds nothing to read (a pooling
    // window operand that only gives the loop bounds, a workspace): it
    // counts as written here, so that the plan says who defines it.
    for (Value b : bufferList)
      if (read.contains(b) && !isa<BlockArgument>(b) &&
          !writtenSoFar.contains(b))
        written.insert(b);
    for (Value b : bufferList)
      if (written.contains(b))
        writtenSoFar.insert(b);
    SmallVector<Value> operands;
    for (Value b : bufferList)
      if (!written.contains(b))
        operands.push_back(b);
    int64_t numReads = operands.size();
    for (Value b : bufferList)
      if (written.contains(b))
        operands.push_back(b);

    // The kernel function.
    MLIRContext *ctx = func.getContext();
    Location loc = steps[s].front()->getLoc();
    SmallVector<Type> types;
    for (Value b : operands)
      types.push_back(b.getType());
    std::string name = (func.getSymName() + "_step" + Twine(s)).str();
    auto kernel = func::FuncOp::create(moduleBuilder, loc, name,
                                       FunctionType::get(ctx, types, {}));
    symbols.insert(kernel);
    kernel.setPrivate();
    kernel->setAttr("mx.step", moduleBuilder.getI64IntegerAttr(s));
    // An operand that is exactly another one (the same arena bytes, the same
    // type: an elementwise op's output placed in place of its input) is
    // used through that one's argument in the body: one pointer for the
    // loads and the stores, which LLVM vectorises as it does separate noalias
    // buffers (two pointers to the same bytes are neither noalias nor known
    // equal, and the loops stay scalar: 5x slower on a tanh). Its own
    // argument stays in the signature (the plan lists both buffers).
    SmallVector<std::optional<std::pair<int64_t, int64_t>>> ranges;
    for (Value b : operands)
      ranges.push_back(arenaRange(b, arena));
    // Likewise an input and an output of the entry that the caller passes
    // the same buffer for (kInPlaceAttrName: an optimizer update's weight).
    ArrayRef<int64_t> pairs;
    if (auto attr = func->getAttrOfType<DenseI64ArrayAttr>(mxc::kInPlaceAttrName))
      pairs = attr.asArrayRef();
    auto inPlacePair = [&](Value x, Value y) {
      auto ax = dyn_cast<BlockArgument>(x), ay = dyn_cast<BlockArgument>(y);
      if (!ax || !ay || ax.getOwner() != &block || ay.getOwner() != &block)
        return false;
      int64_t i = ax.getArgNumber(), j = ay.getArgNumber();
      for (size_t k = 0; k + 1 < pairs.size(); k += 2)
        if ((pairs[k] == i && pairs[k + 1] == j) ||
            (pairs[k] == j && pairs[k + 1] == i))
          return true;
      return false;
    };
    SmallVector<unsigned> twinOf(operands.size());
    for (auto [i, b] : llvm::enumerate(operands)) {
      twinOf[i] = i;
      for (unsigned j = 0; j < i; ++j)
        if (twinOf[j] == j && operands[j].getType() == b.getType() &&
            ((ranges[i] && ranges[j] == ranges[i]) ||
             inPlacePair(operands[j], b))) {
          twinOf[i] = j;
          break;
        }
    }
    for (auto [i, b] : llvm::enumerate(operands)) {
      bool noalias = twinOf[i] == i;
      if (const auto &range = ranges[i])
        for (unsigned j = 0; j < operands.size(); ++j) {
          if (j == i || twinOf[j] != j)
            continue; // itself, or a twin (its argument is not used)
          const auto &r2 = ranges[j];
          if (r2 && r2->first < range->second && range->first < r2->second)
            noalias = false;
        }
      if (b == arena || !isa<MemRefType>(b.getType()))
        noalias = false;
      if (noalias)
        kernel.setArgAttr(i, LLVM::LLVMDialect::getNoAliasAttrName(),
                          UnitAttr::get(ctx));
    }
    Block *body = kernel.addEntryBlock();
    OpBuilder b = OpBuilder::atBlockBegin(body);
    IRMapping map;
    for (auto [i, v] : llvm::enumerate(operands))
      map.map(v, body->getArgument(twinOf[i]));
    for (Operation &op : block.without_terminator())
      if (needed.contains(&op) ||
          (stepOf.count(&op) && stepOf.lookup(&op) == s))
        b.clone(op, map);
    func::ReturnOp::create(b, loc);

    // The call in the entry, before its terminator.
    OpBuilder e(block.getTerminator());
    auto call = func::CallOp::create(e, loc, kernel, operands);
    call->setAttr("mx.step", e.getI64IntegerAttr(s));
    call->setAttr("mx.reads", e.getI64IntegerAttr(numReads));
    SmallVector<Attribute> names;
    SmallVector<std::string> all;
    for (Operation *op : steps[s])
      for (const std::string &n : mxc::nodeNames(op->getLoc()))
        if (!llvm::is_contained(all, n))
          all.push_back(n);
    for (const std::string &n : all)
      names.push_back(e.getStringAttr(n));
    call->setAttr("mx.nodes", e.getArrayAttr(names));
    return success();
  }

  LogicalResult run(OpBuilder &moduleBuilder, SymbolTable &symbols) {
    formSteps();
    mergeCrossingSteps();
    for (unsigned s = 0; s < steps.size(); ++s)
      if (failed(outline(s, moduleBuilder, symbols)))
        return failure();
    // The original ops go (uses inside a step come after their
    // definitions: erase backwards), then cloneable ops nothing uses.
    for (auto &step : llvm::reverse(steps))
      for (Operation *op : llvm::reverse(step)) {
        op->dropAllUses();
        op->erase();
      }
    SmallVector<Operation *> rest;
    for (Operation &op : block.without_terminator())
      rest.push_back(&op);
    for (Operation *op : llvm::reverse(rest))
      if (isCloneable(op) && op->use_empty())
        op->erase();
    return success();
  }
};

struct MXOutlineStepsPass
    : public mxc::impl::MXOutlineStepsPassBase<MXOutlineStepsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    SmallVector<func::FuncOp> entries;
    for (auto f : module.getOps<func::FuncOp>())
      if (f.isPublic() && !f.isExternal() &&
          f->hasAttr(mxc::kArenaSizeAttrName))
        entries.push_back(f);
    for (func::FuncOp f : entries) {
      if (!f.getBody().hasOneBlock() || f.getNumArguments() == 0) {
        f.emitError() << "mx-outline-steps: @" << f.getSymName()
                      << " must have one block and an arena argument";
        return signalPassFailure();
      }
      OpBuilder moduleBuilder = OpBuilder::atBlockEnd(module.getBody());
      Outliner o(f);
      if (failed(o.run(moduleBuilder, symbols)))
        return signalPassFailure();
    }
  }
};

} // namespace
