//===- MXGradientsTensor.cpp - gradient rules ------------------------------===//
#include "MXGradients.h"
#include "mxc/Dialect/MX/IR/MXDialect.h"
#include "mxc/Dialect/MX/IR/MXOps.h"

using namespace mlir;

void mxc::mx::registerTensorGradients(MXDialect &dialect) { (void)dialect; }
