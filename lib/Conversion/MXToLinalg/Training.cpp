//===- Training.cpp - mx -> linalg: Training family (skeleton) ------------------===//
#include "Patterns.h"

#include "mxc/Dialect/MX/IR/MXOps.h"

using namespace mlir;

void mxc::conversion::populateTrainingPatternsAndLegality(
    TypeConverter &typeConverter, RewritePatternSet &patterns,
    ConversionTarget &target) {
  (void)typeConverter;
  (void)patterns;
  (void)target;
}
