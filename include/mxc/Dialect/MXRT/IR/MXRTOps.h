//===- MXRTOps.h - mxrt dialect operations ----------------------*- C++ -*-===//
#ifndef MXC_DIALECT_MXRT_IR_MXRTOPS_H
#define MXC_DIALECT_MXRT_IR_MXRTOPS_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/Dialect/Bufferization/IR/BufferizableOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/DestinationStyleOpInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "mxc/Dialect/MXRT/IR/MXRTDialect.h"

#define GET_OP_CLASSES
#include "mxc/Dialect/MXRT/IR/MXRTOps.h.inc"

#endif // MXC_DIALECT_MXRT_IR_MXRTOPS_H
