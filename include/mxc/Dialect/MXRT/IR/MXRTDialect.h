//===- MXRTDialect.h - mxrt dialect -----------------------------*- C++ -*-===//
#ifndef MXC_DIALECT_MXRT_IR_MXRTDIALECT_H
#define MXC_DIALECT_MXRT_IR_MXRTDIALECT_H

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Dialect.h"

#include "mxc/Dialect/MXRT/IR/MXRTDialect.h.inc"

#endif // MXC_DIALECT_MXRT_IR_MXRTDIALECT_H
