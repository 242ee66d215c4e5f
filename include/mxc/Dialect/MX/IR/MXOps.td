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
// mxc's own ops (not MXNet operators): training forms (mx-autodiff), the
// backward ops of layers whose gradient is not a composition of mx ops, and
// the fused region of mx-fuse-elementwise.
include "mxc/Dialect/MX/IR/MXTrainingOps.td"
include "mxc/Dialect/MX/IR/MXBackwardOps.td"
include "mxc/Dialect/MX/IR/MXFusedOps.td"

#endif // MXC_DIALECT_MX_IR_MXOPS_TD
