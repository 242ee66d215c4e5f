//===- Pooling.cpp - mx -> linalg: Pooling ops -------------------------------===//
#include "Patterns.h"

using namespace mlir;

void mxc::conversion::populatePoolingPatternsAndLegality(
    TypeConverter &typeConverter, RewritePatternSet &patterns,
    ConversionTarget &target) {}
