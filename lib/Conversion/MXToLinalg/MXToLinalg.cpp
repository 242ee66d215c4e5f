//===- MXToLinalg.cpp - the convert-mx-to-linalg pass ---------------------===//
#include "mxc/Conversion/Passes.h"
#include "mxc/Dialect/MX/IR/MXDialect.h"

#include "Patterns.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mxc {
#define GEN_PASS_DEF_CONVERTMXTOLINALGPASS
#include "mxc/Conversion/Passes.h.inc"
} // namespace mxc

using namespace mlir;

namespace {
struct ConvertMXToLinalgPass
    : mxc::impl::ConvertMXToLinalgPassBase<ConvertMXToLinalgPass> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    ConversionTarget target(*ctx);
    target.addLegalDialect<linalg::LinalgDialect, tensor::TensorDialect,
                           arith::ArithDialect, math::MathDialect,
                           func::FuncDialect, bufferization::BufferizationDialect,
                           memref::MemRefDialect, scf::SCFDialect>();
    target.addLegalOp<ModuleOp>();
    TypeConverter typeConverter;
    typeConverter.addConversion([](Type t) { return t; });
    RewritePatternSet patterns(ctx);
    mxc::conversion::populateElementwisePatternsAndLegality(typeConverter, patterns, target);
    mxc::conversion::populateLinearPatternsAndLegality(typeConverter, patterns, target);
    mxc::conversion::populateConvPatternsAndLegality(typeConverter, patterns, target);
    mxc::conversion::populatePoolingPatternsAndLegality(typeConverter, patterns, target);
    mxc::conversion::populateNormalizationPatternsAndLegality(typeConverter, patterns, target);
    mxc::conversion::populateReductionPatternsAndLegality(typeConverter, patterns, target);
    mxc::conversion::populateDataMovementPatternsAndLegality(typeConverter, patterns, target);
    if (failed(applyPartialConversion(getOperation(), target, std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace
