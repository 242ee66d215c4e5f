//===- MXRTDialect.cpp - mxrt dialect -------------------------------------===//
#include "mxc/Dialect/MXRT/IR/MXRTDialect.h"
#include "mxc/Dialect/MXRT/IR/MXRTOps.h"

using namespace mlir;
using namespace mxc::mxrt;

#include "mxc/Dialect/MXRT/IR/MXRTDialect.cpp.inc"

void MXRTDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "mxc/Dialect/MXRT/IR/MXRTOps.cpp.inc"
      >();
}
