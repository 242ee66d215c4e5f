//===- MXOps.td - mx dialect operations --------------------*- tablegen -*-===//
//
// The op definitions are generated from one table (scripts/gen_mx_ops.py)
// into MXGeneratedOps.td; hand-written ops, if any, go below the include.
//
//===----------------------------------------------------------------------===//
#ifndef MXC_DIALECT_MX_IR_MXOPS_TD
#define MXC_DIALECT_MX_IR_MXOPS_TD

include "mxc/Dialect/MX/IR/MXBase.td"
include "mxc/Dialect/MX/IR/MXGeneratedOps.td"

#endif // MXC_DIALECT_MX_IR_MXOPS_TD
