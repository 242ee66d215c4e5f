//===- MXInterfaces.td - mx op interfaces ------------------*- tablegen -*-===//
#ifndef MXC_DIALECT_MX_IR_MXINTERFACES_TD
#define MXC_DIALECT_MX_IR_MXINTERFACES_TD

include "mlir/IR/OpBase.td"

def MX_GradientOpInterface : OpInterface<"GradientOpInterface"> {
  let cppNamespace = "::mxc::mx";
  let description = [{
    The gradient rule of an `mx` op (MXNet's FGradient): given the gradient of
    the loss with respect to each result, build, at the builder's insertion
    point, the gradient with respect to each operand, as `mx` ops.

    `outGrads` has one value per result; the mx-autodiff pass passes zeros
    (of the result's type) for a result no gradient reaches, so a rule never
    sees a null value there. `inGrads` is resized to the number of operands
    by the caller and filled with nulls; a rule sets the entries of operands
    it differentiates (same type as the operand) and leaves the others null
    (integer operands, labels, indices, non-differentiable ops). A rule that
    cannot handle a configuration emits an error at the op (which names the
    MXNet node) and returns failure.

    Rules live next to their op family (lib/Dialect/MX/IR/MXGradients*.cpp)
    and are attached to the ops when the dialect loads; an op without a rule
    is reported by mx-autodiff as "no gradient for <op>".
  }];
  let methods = [
    InterfaceMethod<[{Builds the operand gradients from the result gradients.}],
      "::llvm::LogicalResult", "buildGradient",
      (ins "::mlir::OpBuilder &":$builder,
           "::mlir::ValueRange":$outGrads,
           "::llvm::SmallVectorImpl<::mlir::Value> &":$inGrads)>,
  ];
}

#endif // MXC_DIALECT_MX_IR_MXINTERFACES_TD
