//===- Passes.h - mx graph passes -------------------------------*- C++ -*-===//
#ifndef MXC_DIALECT_MX_TRANSFORMS_PASSES_H
#define MXC_DIALECT_MX_TRANSFORMS_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Pass/Pass.h"

namespace mxc::mx {

#define GEN_PASS_DECL
#include "mxc/Dialect/MX/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "mxc/Dialect/MX/Transforms/Passes.h.inc"

} // namespace mxc::mx

#endif // MXC_DIALECT_MX_TRANSFORMS_PASSES_H
