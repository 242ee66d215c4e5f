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
                         ValueRange inputs, Value init,
                         ArrayRef<int64_t> staticArgs) {
  build(b, state, TypeRange{init.getType()},
        FlatSymbolRefAttr::get(b.getContext(), callee), inputs, init,
        b.getDenseI64ArrayAttr(staticArgs));
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
  bool onTensors = isa<RankedTensorType>(getInit().getType());
  if (onTensors != static_cast<bool>(getResult()))
    return emitOpError(onTensors
                           ? "on tensors must return the updated destination"
                           : "on memrefs must not return a value");
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
  if (isa<MemRefType>(getInit().getType()))
    effects.emplace_back(MemoryEffects::Write::get(), &getInitMutable(),
                         SideEffects::DefaultResource::get());
}

//===----------------------------------------------------------------------===//
// BufferizableOpInterface
//===----------------------------------------------------------------------===//

bool KernelCallOp::bufferizesToMemoryRead(
    OpOperand &operand, const bufferization::AnalysisState &) {
  // The kernel overwrites its destination without reading it.
  return operand.getOperandNumber() != getInitMutable().getOperandNumber();
}

bool KernelCallOp::bufferizesToMemoryWrite(
    OpOperand &operand, const bufferization::AnalysisState &) {
  return operand.getOperandNumber() == getInitMutable().getOperandNumber();
}

bufferization::AliasingValueList
KernelCallOp::getAliasingValues(OpOperand &operand,
                                const bufferization::AnalysisState &) {
  if (operand.getOperandNumber() != getInitMutable().getOperandNumber())
    return {};
  return {{getResult(), bufferization::BufferRelation::Equivalent}};
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

  FailureOr<Value> dest =
      bufferization::getBuffer(rewriter, getInit(), options, state);
  if (failed(dest))
    return failure();
  // A strided destination: the kernel writes a fresh buffer, copied into the
  // destination after the call.
  auto destType = cast<MemRefType>(dest->getType());
  bool direct = isContiguous(destType);
  Value out = *dest;
  if (!direct) {
    FailureOr<Value> alloc = allocLike(rewriter, loc, destType, options);
    if (failed(alloc))
      return failure();
    out = *alloc;
  }
  KernelCallOp::create(rewriter, loc, TypeRange(), getCalleeAttr(), inputs, out,
                       getStaticArgsAttr());
  if (!direct && failed(options.createMemCpy(rewriter, loc, out, *dest)))
    return failure();
  bufferization::replaceOpWithBufferizedValues(rewriter, getOperation(), *dest);
  return success();
}
