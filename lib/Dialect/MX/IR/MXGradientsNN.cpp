//===- MXGradientsNN.cpp - gradient rules ------------------------------===//
#include "MXGradients.h"
#include "mxc/Dialect/MX/IR/MXDialect.h"
#include "mxc/Dialect/MX/IR/MXOps.h"

using namespace mlir;

void mxc::mx::registerNNGradients(MXDialect &dialect) { (void)dialect; }
