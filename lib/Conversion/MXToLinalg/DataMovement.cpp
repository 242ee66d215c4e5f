//===- DataMovement.cpp - mx -> linalg: DataMovement ops -------------------------------===//
#include "Patterns.h"

using namespace mlir;

void mxc::conversion::populateDataMovementPatternsAndLegality(
    TypeConverter &typeConverter, RewritePatternSet &patterns,
    ConversionTarget &target) {}
