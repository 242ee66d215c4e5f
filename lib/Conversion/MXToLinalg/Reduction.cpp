//===- Reduction.cpp - mx -> linalg: Reduction ops -------------------------------===//
#include "Patterns.h"

using namespace mlir;

void mxc::conversion::populateReductionPatternsAndLegality(
    TypeConverter &typeConverter, RewritePatternSet &patterns,
    ConversionTarget &target) {}
