//===- Passes.h - mx conversion passes --------------------------*- C++ -*-===//
#ifndef MXC_CONVERSION_PASSES_H
#define MXC_CONVERSION_PASSES_H

#include "mlir/Pass/Pass.h"

namespace mxc {
#define GEN_PASS_DECL
#include "mxc/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "mxc/Conversion/Passes.h.inc"
} // namespace mxc

#endif // MXC_CONVERSION_PASSES_H
