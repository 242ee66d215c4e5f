//===- MXRTOps.cpp - mxrt dialect operations ------------------------------===//
//
// mxrt.kernel_call: builder, verifier, memory effects and bufferization.
//
//===----------------------------------------------------------------------===//
#include "mxc/Dialect/MXRT/IR/MXRTOps.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace mxc::mxrt;

#define GET_OP_CLASSES
#include "mxc/Dialect/MXRT/IR/MXRTOps.cpp.inc"

void KernelCallOp::build(OpBuilder &b, OperationState &state, StringRef callee,
                         ValueRange inputs, ValueRange inits,
                         ArrayRef<int64_t> staticArgs, bool accumulate) {
  build(b, state, inits.getTypes(),
        FlatSymbolRefAttr::get(b.getContext(), callee), inputs, inits,
        b.getDenseI64ArrayAttr(staticArgs),
        accumulate ? b.getUnitAttr() : UnitAttr());
}

/// Whether the kernel can take `type` as it is: statically shaped, with
/// contiguous row-major strides (any offset).
static bool isContiguous(MemRefType type) {
  if (type.getLayout().isIdentity())
    return true;
  if (!type.hasStaticShape())
    return false;
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)))
    return false;
  int64_t expected = 1;
  for (int64_t i = type.getRank() - 1; i >= 0; --i) {
    if (strides[i] != expected)
      return false;
    expected *= type.getDimSize(i);
  }
  return true;
}

LogicalResult KernelCallOp::verify() {
  if (getInits().empty())
    return emitOpError("needs at least one destination");
  bool onTensors = isa<RankedTensorType>(getInit().getType());
  for (Value init : getInits())
    if (isa<RankedTensorType>(init.getType()) != onTensors)
      return emitOpError("destinations must be all tensors or all memrefs");
  if (onTensors && getOutputs().size() != getInits().size())
    return emitOpError("on tensors must return the updated destination")
           << (getInits().size() > 1 ? "s" : "");
  if (!onTensors && !getOutputs().empty())
    return emitOpError("on memrefs must not return a value");
  Type elementType = cast<ShapedType>(getInit().getType()).getElementType();
  for (OpOperand &operand : getOperation()->getOpOperands()) {
    Type type = operand.get().getType();
    unsigned i = operand.getOperandNumber();
    if (onTensors) {
      auto t = dyn_cast<RankedTensorType>(type);
      if (!t)
        return emitOpError("operand #")
               << i << " must be a ranked tensor like the destination";
      if (!t.hasStaticShape())
        return emitOpError("operand #") << i << " must have a static shape";
    } else {
      auto m = dyn_cast<MemRefType>(type);
      if (!m)
        return emitOpError("operand #")
               << i << " must be a memref like the destination";
      if (!isContiguous(m))
        return emitOpError("operand #")
               << i << " must be a statically shaped, contiguous row-major "
               << "memref";
    }
    if (cast<ShapedType>(type).getElementType() != elementType)
      return emitOpError("operand #")
             << i << " must have the destination's element type "
             << elementType;
  }
  return success();
}

void KernelCallOp::getEffects(
    SmallVectorImpl<SideEffects::EffectInstance<MemoryEffects::Effect>>
        &effects) {
  // On tensors the op is pure; on memrefs it reads the inputs and writes the
  // destination.
  for (OpOperand &operand : getInputsMutable())
    if (isa<MemRefType>(operand.get().getType()))
      effects.emplace_back(MemoryEffects::Read::get(), &operand,
                           SideEffects::DefaultResource::get());
  for (OpOperand &operand : getInitsMutable()) {
    if (!isa<MemRefType>(operand.get().getType()))
      continue;
    if (getAccumulate() && &operand == &getInitsMutable()[0])
      effects.emplace_back(MemoryEffects::Read::get(), &operand,
                           SideEffects::DefaultResource::get());
    effects.emplace_back(MemoryEffects::Write::get(), &operand,
                         SideEffects::DefaultResource::get());
  }
}

//===----------------------------------------------------------------------===//
// BufferizableOpInterface
//===----------------------------------------------------------------------===//

bool KernelCallOp::bufferizesToMemoryRead(
    OpOperand &operand, const bufferization::AnalysisState &) {
  // The kernel overwrites its destinations without reading them first, but
  // for an accumulating kernel's first one.
  if (getAccumulate() && &operand == &getInitsMutable()[0])
    return true;
  return !isDpsInit(&operand);
}

bool KernelCallOp::bufferizesToMemoryWrite(
    OpOperand &operand, const bufferization::AnalysisState &) {
  return isDpsInit(&operand);
}

bufferization::AliasingValueList
KernelCallOp::getAliasingValues(OpOperand &operand,
                                const bufferization::AnalysisState &) {
  if (!isDpsInit(&operand))
    return {};
  return {
      {getTiedOpResult(&operand), bufferization::BufferRelation::Equivalent}};
}

/// A fresh identity-layout buffer of `type`'s shape and element type.
static FailureOr<Value>
allocLike(OpBuilder &b, Location loc, MemRefType type,
          const bufferization::BufferizationOptions &options) {
  return options.createAlloc(
      b, loc, MemRefType::get(type.getShape(), type.getElementType()),
      ValueRange());
}

LogicalResult
KernelCallOp::bufferize(RewriterBase &rewriter,
                        const bufferization::BufferizationOptions &options,
                        bufferization::BufferizationState &state) {
  if (!getResult())
    return success(); // already on memrefs
  Location loc = getLoc();
  SmallVector<Value> inputs;
  for (Value input : getInputs()) {
    FailureOr<Value> buffer =
        bufferization::getBuffer(rewriter, input, options, state);
    if (failed(buffer))
      return failure();
    auto type = cast<MemRefType>(buffer->getType());
    if (isContiguous(type)) {
      inputs.push_back(*buffer);
      continue;
    }
    // A strided view: the kernel reads a contiguous copy.
    FailureOr<Value> copy = allocLike(rewriter, loc, type, options);
    if (failed(copy) ||
        failed(options.createMemCpy(rewriter, loc, *buffer, *copy)))
      return failure();
    inputs.push_back(*copy);
  }

  // A strided destination: the kernel writes a fresh buffer, copied into the
  // destination after the call.
  SmallVector<Value> dests, outs;
  SmallVector<std::pair<Value, Value>> copiesBack;
  for (Value init : getInits()) {
    FailureOr<Value> dest =
        bufferization::getBuffer(rewriter, init, options, state);
    if (failed(dest))
      return failure();
    dests.push_back(*dest);
    auto destType = cast<MemRefType>(dest->getType());
    if (isContiguous(destType)) {
      outs.push_back(*dest);
      continue;
    }
    FailureOr<Value> alloc = allocLike(rewriter, loc, destType, options);
    if (failed(alloc))
      return failure();
    // An accumulating kernel reads its output: the fresh buffer starts as a
    // copy of the destination.
    if (getAccumulate() && outs.empty() &&
        failed(options.createMemCpy(rewriter, loc, *dest, *alloc)))
      return failure();
    outs.push_back(*alloc);
    copiesBack.push_back({*alloc, *dest});
  }
  KernelCallOp::create(rewriter, loc, TypeRange(), getCalleeAttr(), inputs,
                       outs, getStaticArgsAttr(), getAccumulateAttr());
  for (auto [from, to] : copiesBack)
    if (failed(options.createMemCpy(rewriter, loc, from, to)))
      return failure();
  bufferization::replaceOpWithBufferizedValues(rewriter, getOperation(), dests);
  return success();
}
