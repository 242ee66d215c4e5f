//===- MXOps.cpp - mx dialect operations ----------------------------------===//
#include "mxc/Dialect/MX/IR/MXOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace mxc::mx;

#define GET_OP_CLASSES
#include "mxc/Dialect/MX/IR/MXOps.cpp.inc"
