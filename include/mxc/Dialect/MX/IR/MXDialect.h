//===- MXDialect.h - mx dialect ---------------------------------*- C++ -*-===//
#ifndef MXC_DIALECT_MX_IR_MXDIALECT_H
#define MXC_DIALECT_MX_IR_MXDIALECT_H

#include "mlir/IR/Dialect.h"

#include "mxc/Dialect/MX/IR/MXDialect.h.inc"

#endif // MXC_DIALECT_MX_IR_MXDIALECT_H
