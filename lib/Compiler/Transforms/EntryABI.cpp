//===- EntryABI.cpp - mxc-entry-abi: @main on tensors -> caller buffers ---===//
//
// The compiled entry's ABI (include/mxc/Compiler/Pipeline.h): memref inputs,
// then one memref per result written in place, no results. See the pass
// description in Passes.td.
//
//===----------------------------------------------------------------------===//
#include "mxc/Compiler/Transforms/Passes.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"

namespace mxc {
#define GEN_PASS_DEF_ENTRYABIPASS
#include "mxc/Compiler/Transforms/Passes.h.inc"
} // namespace mxc

using namespace mlir;

namespace {

/// The memref type a tensor argument or result crosses the entry with.
FailureOr<MemRefType> boundaryType(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || !tensor.hasStaticShape())
    return failure();
  return MemRefType::get(tensor.getShape(), tensor.getElementType());
}

/// Rewrites `@main(tensors) -> (tensors)` into `@<entry>(memref inputs...,
/// memref outputs...)`: inputs are read through `to_tensor restrict`, each
/// result is stored with `materialize_in_destination` into `to_tensor restrict
/// writable` of its caller-provided buffer (eliminate-empty-tensors then makes
/// the producing op write there directly, no copy, where that is safe).
LogicalResult convertEntryToMemrefABI(ModuleOp module, StringRef entry) {
  auto func = module.lookupSymbol<func::FuncOp>("main");
  if (!func)
    return module.emitError() << "no function @main to compile";
  if (!func.getBody().hasOneBlock())
    return func.emitError() << "@main must have a single block";
  MLIRContext *ctx = module.getContext();
  FunctionType type = func.getFunctionType();
  SmallVector<Type> argTypes;
  for (Type t : llvm::concat<const Type>(type.getInputs(), type.getResults())) {
    FailureOr<MemRefType> m = boundaryType(t);
    if (failed(m))
      return func.emitError()
             << "cannot compile a function with argument or result type " << t
             << " (statically shaped tensors only)";
    argTypes.push_back(*m);
  }

  Block &block = func.front();
  OpBuilder b(ctx);
  b.setInsertionPointToStart(&block);
  for (BlockArgument arg : block.getArguments()) {
    Type tensorType = arg.getType();
    arg.setType(argTypes[arg.getArgNumber()]);
    auto toTensor = bufferization::ToTensorOp::create(
        b, arg.getLoc(), tensorType, arg, /*restrict=*/true,
        /*writable=*/false);
    arg.replaceAllUsesExcept(toTensor.getResult(), toTensor);
  }
  // Each output buffer enters as a writable tensor (`to_tensor restrict
  // writable`) and the result is materialized into that tensor, not into the
  // memref: one-shot bufferization then sees every write to the caller's
  // buffer. With a memref destination, eliminate-empty-tensors hands the
  // buffer to the tensor.empty at the start of the result's def chain even
  // when a value on that chain has other users (a zero-filled accumulator
  // shared by several reductions after CSE); the analysis cannot see that
  // the final copy into the memref clobbers them, and two gradients came out
  // equal.
  // The tensor form has no uses, so a final memref-form copy of it into the
  // same buffer (a self-copy, folded away) keeps it alive.
  SmallVector<Value> outs, outTensors;
  for (auto [i, t] :
       llvm::enumerate(ArrayRef(argTypes).drop_front(type.getNumInputs()))) {
    BlockArgument out = block.addArgument(t, func.getLoc());
    outs.push_back(out);
    outTensors.push_back(bufferization::ToTensorOp::create(
        b, func.getLoc(), type.getResult(i), out, /*restrict=*/true,
        /*writable=*/true));
  }

  auto ret = cast<func::ReturnOp>(block.getTerminator());
  b.setInsertionPoint(ret);
  // A result that is a fill other ops also use (a zero gradient, such as a
  // label's, CSE-merged with a reduction's zero accumulator of the same
  // shape) gets a fill of its own: materializing the shared one into the
  // caller's buffer while the accumulator is written in place is a
  // read-after-write conflict one-shot bufferization refuses.
  // Likewise a result that is also inserted into another tensor (a Concat
  // operand: an RNN's last state, a residual of a recorded forward) gets a
  // copy of its own: eliminate-empty-tensors puts its producer in the
  // Concat's destination (another result's buffer), and materializing it
  // here too made one-shot bufferization copy that whole destination, read
  // before anything wrote it.
  for (OpOperand &operand : ret->getOpOperands()) {
    Value v = operand.get();
    auto fill = v.getDefiningOp<linalg::FillOp>();
    if (fill && !v.hasOneUse()) {
      operand.set(b.clone(*fill)->getResult(0));
      continue;
    }
    bool inserted = llvm::any_of(v.getUses(), [](OpOperand &use) {
      auto insert = dyn_cast<tensor::InsertSliceOp>(use.getOwner());
      return insert && use.getOperandNumber() == 0;
    });
    if (inserted) {
      auto t = cast<RankedTensorType>(v.getType());
      Value empty = tensor::EmptyOp::create(b, ret.getLoc(), t.getShape(),
                                            t.getElementType());
      operand.set(linalg::CopyOp::create(b, ret.getLoc(), v, empty)
                      .getResult(0));
    }
  }
  for (auto [value, out, outTensor] :
       llvm::zip(ret.getOperands(), outs, outTensors)) {
    auto inDest = bufferization::MaterializeInDestinationOp::create(
        b, ret.getLoc(), outTensor.getType(), value, outTensor,
        /*restrict=*/false, /*writable=*/false);
    bufferization::MaterializeInDestinationOp::create(
        b, ret.getLoc(), TypeRange(), inDest.getResult(), out,
        /*restrict=*/false, /*writable=*/true);
  }
  func::ReturnOp::create(b, ret.getLoc());
  ret.erase();

  // The plan names its argument and output buffers after them
  // (extractPlan): keep the names the attributes are about to lose.
  SmallVector<Attribute> names;
  for (unsigned i = 0; i < type.getNumInputs(); ++i) {
    auto n = func.getArgAttrOfType<StringAttr>(i, "mx.name");
    names.push_back(n ? n : b.getStringAttr("arg" + Twine(i)));
  }
  for (unsigned i = 0; i < type.getNumResults(); ++i) {
    auto n = func.getResultAttrOfType<StringAttr>(i, "mx.name");
    names.push_back(n ? n : b.getStringAttr("output" + Twine(i)));
  }
  func->setAttr(mxc::kBufferNamesAttrName, b.getArrayAttr(names));
  func->setAttr(mxc::kNumInputsAttrName,
                b.getI64IntegerAttr(type.getNumInputs()));

  func.setType(FunctionType::get(ctx, argTypes, {}));
  func.removeArgAttrsAttr();
  func.removeResAttrsAttr();
  // The caller's buffers never overlap (CompiledGraph::run's contract):
  // noalias lets LLVM keep accumulators in registers and vectorize. But an
  // input and an output declared in place (kInPlaceAttrName) are one
  // buffer.
  llvm::SmallDenseSet<int64_t> inPlace;
  if (auto pairs = func->getAttrOfType<DenseI64ArrayAttr>(mxc::kInPlaceAttrName))
    inPlace.insert(pairs.asArrayRef().begin(), pairs.asArrayRef().end());
  for (unsigned i = 0; i < argTypes.size(); ++i)
    if (!inPlace.contains(i))
      func.setArgAttr(i, LLVM::LLVMDialect::getNoAliasAttrName(),
                      UnitAttr::get(ctx));
  func.setSymName(entry);
  func->setAttr(LLVM::LLVMDialect::getEmitCWrapperAttrName(),
                UnitAttr::get(ctx));
  return success();
}

struct EntryABIPass : mxc::impl::EntryABIPassBase<EntryABIPass> {
  using Base::Base;

  void runOnOperation() override {
    if (failed(convertEntryToMemrefABI(getOperation(), entry)))
      signalPassFailure();
  }
};

} // namespace
