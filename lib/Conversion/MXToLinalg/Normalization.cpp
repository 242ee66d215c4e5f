//===- Normalization.cpp - mx -> linalg: Normalization ops -------------------------------===//
#include "Patterns.h"

using namespace mlir;

void mxc::conversion::populateNormalizationPatternsAndLegality(
    TypeConverter &typeConverter, RewritePatternSet &patterns,
    ConversionTarget &target) {}
