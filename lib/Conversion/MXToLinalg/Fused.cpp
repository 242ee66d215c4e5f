//===- Fused.cpp - mx -> linalg: Fused family (skeleton) ------------------===//
#include "Patterns.h"

#include "mxc/Dialect/MX/IR/MXOps.h"

using namespace mlir;

void mxc::conversion::populateFusedPatternsAndLegality(
    TypeConverter &typeConverter, RewritePatternSet &patterns,
    ConversionTarget &target) {
  (void)typeConverter;
  (void)patterns;
  (void)target;
}
