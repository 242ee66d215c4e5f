//===- MXDialect.cpp - mx dialect -----------------------------------------===//
#include "mxc/Dialect/MX/IR/MXDialect.h"
#include "mxc/Dialect/MX/IR/MXOps.h"
#include "MXGradients.h"

#include "mxc/Dialect/MX/IR/MXInterfaces.cpp.inc"

using namespace mlir;
using namespace mxc::mx;

#include "mxc/Dialect/MX/IR/MXDialect.cpp.inc"

void MXDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "mxc/Dialect/MX/IR/MXOps.cpp.inc"
      >();
  // Gradient rules (GradientOpInterface), one file per op family.
  registerTensorGradients(*this);
  registerNNGradients(*this);
}
