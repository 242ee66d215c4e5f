//===- MXInterfaces.h - mx op interfaces ------------------------*- C++ -*-===//
#ifndef MXC_DIALECT_MX_IR_MXINTERFACES_H
#define MXC_DIALECT_MX_IR_MXINTERFACES_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpDefinition.h"

#include "mxc/Dialect/MX/IR/MXInterfaces.h.inc"

#endif // MXC_DIALECT_MX_IR_MXINTERFACES_H
