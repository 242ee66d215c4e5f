//===- MXFusedOps.cpp - mx.fused and mx.yield -----------------------------===//
#include "mxc/Dialect/MX/IR/MXOps.h"

#include "mlir/IR/Builders.h"

using namespace mlir;
using namespace mxc::mx;

void FusedOp::build(OpBuilder &builder, OperationState &state,
                    TypeRange resultTypes, ValueRange inputs) {
  state.addOperands(inputs);
  state.addTypes(resultTypes);
  Region *body = state.addRegion();
  Block *block = new Block();
  body->push_back(block);
  for (Value in : inputs)
    block->addArgument(in.getType(), in.getLoc());
}

LogicalResult FusedOp::verify() {
  Block &block = getBodyBlock();
  if (block.getNumArguments() != getInputs().size())
    return emitOpError() << "has " << getInputs().size()
                         << " inputs but its body takes "
                         << block.getNumArguments() << " arguments";
  for (auto [i, pair] :
       llvm::enumerate(llvm::zip(getInputs(), block.getArguments()))) {
    auto [in, arg] = pair;
    if (in.getType() != arg.getType())
      return emitOpError() << "input " << i << " has type " << in.getType()
                           << " but body argument " << i << " has type "
                           << arg.getType();
  }
  auto yield = dyn_cast<YieldOp>(block.getTerminator());
  if (!yield)
    return emitOpError() << "body must end with mx.yield";
  if (yield.getValues().size() != getNumResults())
    return emitOpError() << "yields " << yield.getValues().size()
                         << " values for " << getNumResults() << " results";
  for (auto [i, pair] :
       llvm::enumerate(llvm::zip(yield.getValues(), getResultTypes()))) {
    auto [v, t] = pair;
    if (v.getType() != t)
      return emitOpError() << "yields " << v.getType() << " for result " << i
                           << " of type " << t;
  }
  return success();
}
