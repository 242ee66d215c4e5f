//===- Linear.cpp - mx -> linalg: Linear ops -------------------------------===//
#include "Patterns.h"

using namespace mlir;

void mxc::conversion::populateLinearPatternsAndLegality(
    TypeConverter &typeConverter, RewritePatternSet &patterns,
    ConversionTarget &target) {}
