//===- MXOps.td - mx dialect operations --------------------*- tablegen -*-===//
#ifndef MXC_DIALECT_MX_IR_MXOPS_TD
#define MXC_DIALECT_MX_IR_MXOPS_TD

include "mxc/Dialect/MX/IR/MXBase.td"

def MX_identity : MX_Op<"identity", [Pure, SameOperandsAndResultType]> {
  let summary = "Returns a copy of the input";
  let arguments = (ins MX_Tensor:$data);
  let results = (outs MX_Tensor:$output);
  let assemblyFormat = "$data attr-dict `:` type($output)";
}

#endif // MXC_DIALECT_MX_IR_MXOPS_TD
