//===- Prune.cpp - mx-prune: keep what the requested outputs need ---------===//
//
// On @main:
//   1. `outputs=node[:i],...` replaces the results by those values (result
//      mx.name = MXNet's output name, "<node>_output"); a head may also be
//      spelled as MXNet's output name ("fc1_output", "bn_mean") or name an
//      argument ("data").
//   2. mode=inference rewrites what only training needs: SoftmaxOutput ->
//      softmax over the axes its forward pass normalises (so the label is no
//      longer read), Dropout -> its input (a used mask -> ones), BlockGrad
//      and identity -> their input, BatchNorm marked use_global_stats (the
//      form the lowering computes).
//   3. Ops whose results nothing uses are erased (Dropout and LeakyReLU,
//      whose random generator effect nothing observes then, included), then
//      the arguments no remaining op uses, with their attributes.
//
//===----------------------------------------------------------------------===//
#include "mxc/Dialect/MX/IR/MXOps.h"
#include "mxc/Dialect/MX/Transforms/Passes.h"

#include "CreateOp.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/StringMap.h"

namespace mxc::mx {
#define GEN_PASS_DEF_MXPRUNEPASS
#include "mxc/Dialect/MX/Transforms/Passes.h.inc"
} // namespace mxc::mx

using namespace mlir;
namespace mx = mxc::mx;

namespace {

/// The MXNet node name of `op` (its NameLoc), or "".
std::string nodeName(Operation *op) {
  Location loc = op->getLoc();
  if (auto name = dyn_cast<NameLoc>(loc))
    return name.getName().str();
  if (auto fused = dyn_cast<FusedLoc>(loc))
    for (Location l : fused.getLocations())
      if (auto name = dyn_cast<NameLoc>(l))
        return name.getName().str();
  return "";
}

/// The suffix MXNet's list_outputs gives result `index` of `op`
/// (FListOutputNames; "output" for single-output nodes, else "output<i>").
std::string outputSuffix(Operation *op, unsigned index) {
  ArrayRef<StringRef> names;
  static const StringRef bn[] = {"output", "mean", "var"};
  static const StringRef withMask[] = {"output", "mask"};
  static const StringRef lrn[] = {"output", "tmp_norm"};
  if (isa<mx::BatchNormOp>(op))
    names = bn;
  else if (isa<mx::DropoutOp, mx::LeakyReLUOp>(op))
    names = withMask;
  else if (isa<mx::LRNOp>(op))
    names = lrn;
  if (index < names.size())
    return names[index].str();
  if (op->getNumResults() == 1)
    return "output";
  return "output" + std::to_string(index);
}

using mxc::mx::createOp;

struct MXPrunePass : mxc::mx::impl::MXPrunePassBase<MXPrunePass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (mode != "inference" && mode != "training") {
      module.emitError() << "mx-prune: mode '" << mode
                         << "': expected inference or training";
      return signalPassFailure();
    }
    auto func = module.lookupSymbol<func::FuncOp>("main");
    if (!func || func.isExternal())
      return; // nothing to prune
    if (!func.getBody().hasOneBlock()) {
      func.emitError() << "mx-prune: @main must have a single block";
      return signalPassFailure();
    }
    if (!outputs.empty() && failed(selectOutputs(func)))
      return signalPassFailure();
    if (mode == "inference")
      rewriteForInference(func);
    eraseDeadOps(func);
    eraseUnusedArguments(func);
  }

  /// Replaces @main's results by the `outputs` heads.
  LogicalResult selectOutputs(func::FuncOp func) {
    MLIRContext *ctx = func.getContext();
    Block &block = func.front();
    llvm::StringMap<Operation *> nodes;
    llvm::StringMap<std::pair<Value, std::string>> outputNames;
    for (Operation &op : block.without_terminator()) {
      std::string name = nodeName(&op);
      if (name.empty())
        continue;
      nodes.try_emplace(name, &op);
      for (unsigned i = 0; i < op.getNumResults(); ++i) {
        std::string full = name + "_" + outputSuffix(&op, i);
        outputNames.try_emplace(full, op.getResult(i), full);
      }
    }
    llvm::StringMap<BlockArgument> args;
    for (BlockArgument arg : block.getArguments())
      if (auto n = func.getArgAttrOfType<StringAttr>(arg.getArgNumber(),
                                                     "mx.name"))
        args.try_emplace(n.getValue(), arg);

    SmallVector<Value> values;
    SmallVector<std::string> names;
    for (const std::string &spec : outputs) {
      StringRef text = StringRef(spec).trim();
      StringRef node = text;
      std::optional<unsigned> index;
      auto [head, tail] = text.rsplit(':');
      unsigned parsed;
      if (!tail.empty() && head != text && !tail.getAsInteger(10, parsed)) {
        node = head;
        index = parsed;
      } else if (text.contains(':')) {
        return emitError(NameLoc::get(StringAttr::get(ctx, node)))
               << "mx-prune outputs entry '" << text
               << "': expected node[:index] with a non-negative integer index";
      }
      if (node.empty())
        return emitError(func.getLoc())
               << "mx-prune outputs entry '" << text << "': empty node name";
      auto loc = NameLoc::get(StringAttr::get(ctx, node));
      if (auto it = nodes.find(node); it != nodes.end()) {
        Operation *op = it->second;
        unsigned i = index.value_or(0);
        if (i >= op->getNumResults())
          return emitError(loc)
                 << "output index " << i << " out of range: the node has "
                 << op->getNumResults() << " output"
                 << (op->getNumResults() == 1 ? "" : "s");
        values.push_back(op->getResult(i));
        names.push_back(node.str() + "_" + outputSuffix(op, i));
        continue;
      }
      if (auto it = args.find(node); it != args.end()) {
        if (index.value_or(0) != 0)
          return emitError(loc) << "output index " << *index
                                << " out of range: an argument has 1 output";
        values.push_back(it->second);
        names.push_back(node.str());
        continue;
      }
      if (auto it = outputNames.find(node); it != outputNames.end()) {
        if (index)
          return emitError(loc) << "an output name takes no index";
        values.push_back(it->second.first);
        names.push_back(it->second.second);
        continue;
      }
      return emitError(loc)
             << "no such node in the graph (mx-prune outputs; nodes are "
                "named as in the symbol JSON)";
    }

    auto ret = cast<func::ReturnOp>(func.front().getTerminator());
    ret->setOperands(values);
    SmallVector<Type> resultTypes;
    for (Value v : values)
      resultTypes.push_back(v.getType());
    func.setType(FunctionType::get(ctx, func.getArgumentTypes(), resultTypes));
    SmallVector<DictionaryAttr> resAttrs;
    Builder b(ctx);
    for (const std::string &n : names)
      resAttrs.push_back(
          b.getDictionaryAttr(b.getNamedAttr("mx.name", b.getStringAttr(n))));
    func.setAllResultAttrs(resAttrs);
    return success();
  }

  /// Rewrites training-only forms into their inference forms.
  void rewriteForInference(func::FuncOp func) {
    SmallVector<Operation *> ops;
    func.walk([&](Operation *op) { ops.push_back(op); });
    for (Operation *op : ops) {
      OpBuilder b(op);
      if (auto so = dyn_cast<mx::SoftmaxOutputOp>(op)) {
        replaceSoftmaxOutput(b, so);
      } else if (auto drop = dyn_cast<mx::DropoutOp>(op)) {
        if (drop.getMode() == "always" && drop.getP().convertToDouble() != 0.0)
          continue; // drops at inference time too: left to the lowering
        drop.getOutput().replaceAllUsesWith(drop.getData());
        if (!drop.getMask().use_empty() &&
            drop.getMask().getType() == drop.getData().getType()) {
          Operation *ones =
              createOp<mx::OnesLikeOp>(b, drop.getLoc(), drop.getMask().getType(),
                                       drop.getData());
          drop.getMask().replaceAllUsesWith(ones->getResult(0));
        }
      } else if (isa<mx::BlockGradOp, mx::IdentityOp, mx::ContribGradientMultiplierOp>(op)) {
        op->getResult(0).replaceAllUsesWith(op->getOperand(0));
      } else if (auto bn = dyn_cast<mx::BatchNormOp>(op)) {
        bn.setUseGlobalStats(true);
      }
    }
  }

  /// SoftmaxOutput's forward result: softmax over axis 1 (multi_output),
  /// the last axis (preserve_shape), or the flattened trailing axes.
  void replaceSoftmaxOutput(OpBuilder &b, mx::SoftmaxOutputOp op) {
    Location loc = op.getLoc();
    Value data = op.getData();
    auto type = cast<RankedTensorType>(data.getType());
    int64_t rank = type.getRank();
    auto softmax = [&](Value in, int64_t axis) {
      return createOp<mx::SoftmaxOp>(
                 b, loc, in.getType(), in,
                 {b.getNamedAttr("axis", b.getI64IntegerAttr(axis))})
          ->getResult(0);
    };
    Value result;
    if (op.getMultiOutput() && rank >= 2) {
      result = softmax(data, 1);
    } else if (op.getPreserveShape() || rank == 2) {
      result = softmax(data, rank - 1);
    } else if (rank < 2) {
      return; // nothing to normalise over: left to the lowering
    } else if (!type.hasStaticShape()) {
      return; // left to the lowering
    } else {
      int64_t rest = 1;
      for (int64_t d : type.getShape().drop_front())
        rest *= d;
      auto flatType =
          RankedTensorType::get({type.getDimSize(0), rest}, type.getElementType());
      Value flat =
          createOp<mx::ReshapeOp>(
              b, loc, flatType, data,
              {b.getNamedAttr("shape", b.getDenseI64ArrayAttr({0, -1}))})
              ->getResult(0);
      Value sm = softmax(flat, 1);
      result = createOp<mx::ReshapeOp>(
                   b, loc, type, sm,
                   {b.getNamedAttr("shape",
                                   b.getDenseI64ArrayAttr(type.getShape()))})
                   ->getResult(0);
    }
    op.getOutput().replaceAllUsesWith(result);
    op.erase();
  }

  /// Erases, last to first, ops whose results nothing uses.
  void eraseDeadOps(func::FuncOp func) {
    Block &block = func.front();
    Operation *op = block.getTerminator()->getPrevNode();
    while (op) {
      Operation *prev = op->getPrevNode();
      if (op->use_empty() &&
          (isMemoryEffectFree(op) || isa<mx::DropoutOp, mx::LeakyReLUOp>(op)))
        op->erase();
      op = prev;
    }
  }

  /// Removes the arguments nothing uses (and their attributes).
  void eraseUnusedArguments(func::FuncOp func) {
    llvm::BitVector unused(func.getNumArguments());
    for (BlockArgument arg : func.getArguments())
      if (arg.use_empty())
        unused.set(arg.getArgNumber());
    if (unused.any())
      (void)func.eraseArguments(unused);
  }
};
} // namespace
