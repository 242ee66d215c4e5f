//===- Elementwise.cpp - mx -> linalg: Elementwise ops -------------------------------===//
#include "Patterns.h"

using namespace mlir;

void mxc::conversion::populateElementwisePatternsAndLegality(
    TypeConverter &typeConverter, RewritePatternSet &patterns,
    ConversionTarget &target) {}
