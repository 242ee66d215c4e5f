//===- MXOps.h - mx dialect operations --------------------------*- C++ -*-===//
#ifndef MXC_DIALECT_MX_IR_MXOPS_H
#define MXC_DIALECT_MX_IR_MXOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "mxc/Dialect/MX/IR/MXDialect.h"
#include "mxc/Dialect/MX/IR/MXInterfaces.h"

#define GET_OP_CLASSES
#include "mxc/Dialect/MX/IR/MXOps.h.inc"

#endif // MXC_DIALECT_MX_IR_MXOPS_H
