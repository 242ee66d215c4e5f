//===- Conv.cpp - mx -> linalg: Conv ops -------------------------------===//
#include "Patterns.h"

using namespace mlir;

void mxc::conversion::populateConvPatternsAndLegality(
    TypeConverter &typeConverter, RewritePatternSet &patterns,
    ConversionTarget &target) {}
