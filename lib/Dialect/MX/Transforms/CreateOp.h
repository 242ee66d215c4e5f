//===- CreateOp.h - building mx ops by name in the graph passes -*- C++ -*-===//
//
// The graph passes (Prune, FuseElementwise, FuseConvolution) create mx ops
// with explicit result types and attributes, without the ops' builders
// (which infer types and need every attribute).
//
//===----------------------------------------------------------------------===//
#ifndef MXC_LIB_DIALECT_MX_TRANSFORMS_CREATEOP_H
#define MXC_LIB_DIALECT_MX_TRANSFORMS_CREATEOP_H

#include "mlir/IR/Builders.h"

namespace mxc::mx {

/// Creates `OpTy` with explicit result types, operands and attributes.
template <typename OpTy>
mlir::Operation *createOp(mlir::OpBuilder &b, mlir::Location loc,
                          mlir::TypeRange results, mlir::ValueRange operands,
                          llvm::ArrayRef<mlir::NamedAttribute> attrs = {}) {
  mlir::OperationState state(loc, OpTy::getOperationName());
  state.addTypes(results);
  state.addOperands(operands);
  state.addAttributes(attrs);
  return b.create(state);
}

} // namespace mxc::mx

#endif // MXC_LIB_DIALECT_MX_TRANSFORMS_CREATEOP_H
