//===- MXToLinalg.cpp - the convert-mx-to-linalg pass ---------------------===//
//
// The pass: target, type converter, the families' populate calls, and the
// error that reaches the user when an op cannot be lowered. MLIR's dialect
// conversion only logs a pattern's notifyMatchFailure reason in debug builds,
// so each pattern is wrapped to record the reason, and an `mx` op left
// behind is reported once, at its location (the MXNet node name), as
// "cannot lower Convolution: <reason>".
//
//===----------------------------------------------------------------------===//
#include "mxc/Conversion/Passes.h"
#include "mxc/Dialect/MX/IR/MXDialect.h"
#include "mxc/Dialect/MX/IR/MXOpTable.h"
#include "mxc/Dialect/MXRT/IR/MXRTDialect.h"

#include "Patterns.h"
#include "RecordingPattern.h"

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
    target
        .addLegalDialect<linalg::LinalgDialect, tensor::TensorDialect,
                         arith::ArithDialect, math::MathDialect,
                         func::FuncDialect, bufferization::BufferizationDialect,
                         memref::MemRefDialect, scf::SCFDialect,
                         mxc::mxrt::MXRTDialect>();
    target.addLegalOp<ModuleOp>();
    TypeConverter typeConverter;
    typeConverter.addConversion([](Type t) { return t; });
    RewritePatternSet patterns(ctx);
    mxc::conversion::populateAllFamilies(typeConverter, patterns, target,
                                         /*withFused=*/true);
    mxc::conversion::FailureReasons reasons;
    mxc::conversion::recordFailureReasons(patterns, reasons);

    // The driver's "failed to legalize operation" (the conversion stops at
    // the first op it cannot legalize and rolls everything back) is replaced
    // by one error that names the operator and the pattern's reason.
    std::optional<Location> failedLoc;
    LogicalResult converted = success();
    {
      ScopedDiagnosticHandler handler(ctx, [&](Diagnostic &diag) {
        if (diag.getSeverity() != DiagnosticSeverity::Error ||
            !StringRef(diag.str()).starts_with("failed to legalize operation"))
          return failure(); // not ours: pass it on
        if (!failedLoc)
          failedLoc = diag.getLocation();
        return success(); // swallowed; reported below
      });
      converted =
          applyPartialConversion(getOperation(), target, std::move(patterns));
    }
    if (failed(converted) && !failedLoc) {
      signalPassFailure(); // an error was already reported
      return;
    }
    // The op to report: the one the driver failed on, or else the first mx
    // op left behind (one no pattern lowers and no family marked illegal).
    // Gradient ops carry their forward node's location: among the ops at
    // that location, one with a recorded reason is the one that failed.
    Operation *failedOp = nullptr, *withReason = nullptr;
    getOperation()->walk([&](Operation *op) {
      if (withReason || !isa_and_nonnull<mxc::mx::MXDialect>(op->getDialect()))
        return;
      if (!failedLoc || op->getLoc() == *failedLoc) {
        if (!failedOp)
          failedOp = op;
        if (reasons.count(op))
          withReason = op;
      }
    });
    if (withReason)
      failedOp = withReason;
    if (!failedOp) {
      if (failed(converted)) {
        emitError(*failedLoc) << "cannot lower this operation";
        signalPassFailure();
      }
      return;
    }
    auto it = reasons.find(failedOp);
    InFlightDiagnostic diag = failedOp->emitError()
                              << "cannot lower " << mxc::conversion::mxnetOpName(failedOp)
                              << ": ";
    if (it != reasons.end())
      diag << it->second;
    else
      diag << "no lowering for this operator";
    signalPassFailure();
  }
};
} // namespace
