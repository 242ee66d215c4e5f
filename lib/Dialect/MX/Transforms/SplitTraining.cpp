//===- SplitTraining.cpp - mx-split-training: one half of a training step -===//
//
// mx-autodiff makes @main MXNet's whole training step: forward(is_train) and
// backward(out_grads) in one function. A recorded forward (autograd.record()
// around a hybridized Gluon block, MXNet's CachedOp) needs the two halves
// apart: the forward runs when the block is called, the backward when
// backward() reaches it, with the head gradients that only exist then.
// This pass keeps one half of the step:
//
//   forward:  the ops the heads and the aux_out results need; results: the
//             heads, the aux_out results, then the forward values that the
//             backward half reads (mx.kind "residual", mx.name "residual<i>");
//             the head_grad / grad_in arguments go.
//   backward: every other op, in order (and the views - Reshape,
//             slice_axis, ... - of forward values it reads, again);
//             arguments: the original arguments
//             it reads and every head_grad (names and kinds kept, in their
//             order), then one per forward value it
//             reads (mx.kind "residual", mx.name "fwd<j>": result j of the
//             forward half); results: the grad results.
//
// The cut is a function of the training step only, so two compilations of
// one graph (one per half) agree on the residuals.
//
//===----------------------------------------------------------------------===//
#include "mxc/Dialect/MX/IR/MXOps.h"
#include "mxc/Dialect/MX/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"

#include <functional>

namespace mxc::mx {
#define GEN_PASS_DEF_MXSPLITTRAININGPASS
#include "mxc/Dialect/MX/Transforms/Passes.h.inc"
} // namespace mxc::mx

using namespace mlir;

namespace {

StringRef attrOr(func::FuncOp f, unsigned i, StringRef name, bool result,
                 StringRef dflt) {
  auto a = result ? f.getResultAttrOfType<StringAttr>(i, name)
                  : f.getArgAttrOfType<StringAttr>(i, name);
  return a ? a.getValue() : dflt;
}

struct MXSplitTrainingPass
    : mxc::mx::impl::MXSplitTrainingPassBase<MXSplitTrainingPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    if (part != "forward" && part != "backward") {
      module.emitError() << "mx-split-training: part '" << part
                         << "': expected forward or backward";
      return signalPassFailure();
    }
    auto func = module.lookupSymbol<func::FuncOp>("main");
    if (!func || func.isExternal()) {
      module.emitError() << "mx-split-training: no @main";
      return signalPassFailure();
    }
    Block &block = func.front();
    auto ret = cast<func::ReturnOp>(block.getTerminator());
    for (Operation &op : block.without_terminator())
      if (op.getNumRegions() != 0) {
        op.emitError() << "mx-split-training: an op with regions ("
                       << op.getName() << ") cannot be split";
        return signalPassFailure();
      }

    // Results by kind: heads ("") and aux_out are the forward's, grad the
    // backward's.
    SmallVector<unsigned> fwdResults, gradResults;
    for (unsigned i = 0; i < func.getNumResults(); ++i) {
      StringRef kind = attrOr(func, i, "mx.kind", true, "");
      if (kind == "grad")
        gradResults.push_back(i);
      else
        fwdResults.push_back(i);
    }
    // The forward half: what the heads and aux_out results need.
    llvm::DenseSet<Operation *> forward;
    SmallVector<Value> work;
    for (unsigned i : fwdResults)
      work.push_back(ret.getOperand(i));
    while (!work.empty()) {
      Value v = work.pop_back_val();
      Operation *def = v.getDefiningOp();
      if (!def || !forward.insert(def).second)
        continue;
      for (Value operand : def->getOperands())
        work.push_back(operand);
    }
    for (Operation *op : forward)
      for (Value operand : op->getOperands())
        if (auto arg = dyn_cast<BlockArgument>(operand)) {
          StringRef kind =
              attrOr(func, arg.getArgNumber(), "mx.kind", false, "data");
          if (kind == "head_grad" || kind == "grad_in") {
            op->emitError() << "mx-split-training: a forward value reads the "
                               "head gradient '"
                            << attrOr(func, arg.getArgNumber(), "mx.name",
                                      false, "")
                            << "'";
            return signalPassFailure();
          }
        }
    // Forward values the backward half reads, in the order of first use.
    llvm::SetVector<Value> crossing;
    llvm::SetVector<unsigned> backwardArgs;
    // Every head gradient stays an argument (read or not: the caller passes
    // one per head, in order).
    for (unsigned i = 0; i < block.getNumArguments(); ++i)
      if (attrOr(func, i, "mx.kind", false, "data") == "head_grad")
        backwardArgs.insert(i);
    // Views (Reshape, slice_axis, ...) of what the backward has anyway are
    // computed again there instead of crossing: no buffer of their own, and
    // no result that is a view of another result (or of an argument).
    llvm::SetVector<Operation *> remat;
    auto isView = [](Operation *op) {
      return isa<mxc::mx::ReshapeOp, mxc::mx::SliceAxisOp, mxc::mx::FlattenOp,
                 mxc::mx::ExpandDimsOp, mxc::mx::SqueezeOp>(op);
    };
    std::function<void(Value)> noteUse = [&](Value v) {
      if (auto arg = dyn_cast<BlockArgument>(v)) {
        backwardArgs.insert(arg.getArgNumber());
        return;
      }
      Operation *def = v.getDefiningOp();
      if (!forward.contains(def))
        return;
      if (isView(def)) {
        if (remat.insert(def))
          for (Value operand : def->getOperands())
            noteUse(operand);
        return;
      }
      crossing.insert(v);
    };
    for (Operation &op : block.without_terminator())
      if (!forward.contains(&op))
        for (Value operand : op.getOperands())
          noteUse(operand);
    for (unsigned i : gradResults)
      noteUse(ret.getOperand(i));
    // Forward results: the heads and aux_out results, then the crossing
    // values that are not among them.
    SmallVector<Value> fwdValues;
    for (unsigned i : fwdResults)
      fwdValues.push_back(ret.getOperand(i));
    SmallVector<Value> residuals;
    llvm::DenseMap<Value, unsigned> fwdIndex; // crossing value -> result
    for (Value v : crossing) {
      auto it = llvm::find(fwdValues, v);
      if (it != fwdValues.end()) {
        fwdIndex[v] = unsigned(it - fwdValues.begin());
        continue;
      }
      fwdIndex[v] = fwdValues.size() + residuals.size();
      residuals.push_back(v);
    }

    auto named = [&](StringRef name, StringRef kind) {
      NamedAttrList l;
      l.set("mx.name", StringAttr::get(ctx, name));
      l.set("mx.kind", StringAttr::get(ctx, kind));
      return l.getDictionary(ctx);
    };

    if (part == "forward") {
      SmallVector<Operation *> drop;
      for (Operation &op : block.without_terminator())
        if (!forward.contains(&op))
          drop.push_back(&op);
      SmallVector<Value> results(fwdValues);
      SmallVector<DictionaryAttr> resAttrs;
      for (unsigned i : fwdResults)
        resAttrs.push_back(func.getResultAttrDict(i));
      for (auto [k, v] : llvm::enumerate(residuals)) {
        results.push_back(v);
        resAttrs.push_back(named("residual" + std::to_string(k), "residual"));
      }
      ret->setOperands(results);
      for (Operation *op : llvm::reverse(drop))
        op->erase();
      // The gradient inputs go (nothing of the forward reads them).
      llvm::BitVector erase(block.getNumArguments());
      for (unsigned i = 0; i < block.getNumArguments(); ++i) {
        StringRef kind = attrOr(func, i, "mx.kind", false, "data");
        if (kind == "head_grad" || kind == "grad_in")
          erase.set(i);
      }
      SmallVector<Type> resultTypes;
      for (Value v : results)
        resultTypes.push_back(v.getType());
      if (failed(func.eraseArguments(erase)))
        return signalPassFailure();
      func.setType(
          FunctionType::get(ctx, func.getArgumentTypes(), resultTypes));
      func.setAllResultAttrs(resAttrs);
      return;
    }

    // part == backward: a new @main of the other ops.
    SmallVector<Type> argTypes;
    SmallVector<DictionaryAttr> argAttrs;
    SmallVector<unsigned> args(backwardArgs.begin(), backwardArgs.end());
    llvm::sort(args);
    for (unsigned i : args) {
      argTypes.push_back(block.getArgument(i).getType());
      argAttrs.push_back(func.getArgAttrDict(i));
    }
    for (Value v : crossing) {
      argTypes.push_back(v.getType());
      argAttrs.push_back(
          named("fwd" + std::to_string(fwdIndex[v]), "residual"));
    }
    SmallVector<Type> resultTypes;
    SmallVector<DictionaryAttr> resAttrs;
    for (unsigned i : gradResults) {
      resultTypes.push_back(ret.getOperand(i).getType());
      resAttrs.push_back(func.getResultAttrDict(i));
    }
    OpBuilder b(func);
    auto back = func::FuncOp::create(b, func.getLoc(), "main",
                                     FunctionType::get(ctx, argTypes,
                                                       resultTypes));
    // Function-level attributes (not the signature's) carry over.
    for (NamedAttribute a : func->getAttrs())
      if (a.getName() != func.getSymNameAttrName() &&
          a.getName() != func.getFunctionTypeAttrName() &&
          a.getName() != func.getArgAttrsAttrName() &&
          a.getName() != func.getResAttrsAttrName())
        back->setAttr(a.getName(), a.getValue());
    Block *entry = back.addEntryBlock();
    IRMapping map;
    for (auto [k, i] : llvm::enumerate(args))
      map.map(block.getArgument(i), entry->getArgument(k));
    for (auto [k, v] : llvm::enumerate(crossing))
      map.map(v, entry->getArgument(args.size() + k));
    OpBuilder body = OpBuilder::atBlockEnd(entry);
    for (Operation &op : block.without_terminator())
      if (remat.contains(&op))
        body.clone(op, map);
    for (Operation &op : block.without_terminator())
      if (!forward.contains(&op))
        body.clone(op, map);
    SmallVector<Value> results;
    for (unsigned i : gradResults)
      results.push_back(map.lookup(ret.getOperand(i)));
    func::ReturnOp::create(body, ret.getLoc(), results);
    back.setAllArgAttrs(argAttrs);
    back.setAllResultAttrs(resAttrs);
    func.erase();
  }
};

} // namespace
