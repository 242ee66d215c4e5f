//===- MXDialect.cpp - mx dialect -----------------------------------------===//
#include "mxc/Dialect/MX/IR/MXDialect.h"
#include "mxc/Dialect/MX/IR/MXOps.h"

using namespace mlir;
using namespace mxc::mx;

#include "mxc/Dialect/MX/IR/MXDialect.cpp.inc"

void MXDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "mxc/Dialect/MX/IR/MXOps.cpp.inc"
      >();
}
