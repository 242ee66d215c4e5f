//===- MXBackwardOps.td - hand-written mx ops ------------------*- tablegen -*-===//
#ifndef MXC_DIALECT_MX_IR_MXBACKWARDOPS_TD
#define MXC_DIALECT_MX_IR_MXBACKWARDOPS_TD

include "mxc/Dialect/MX/IR/MXBase.td"

#endif // MXC_DIALECT_MX_IR_MXBACKWARDOPS_TD
