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

/// The last notifyMatchFailure reason given for each op.
using FailureReasons = llvm::DenseMap<Operation *, std::string>;

/// Forwards every notification to the conversion rewriter's own listener and
/// also records match failure reasons for the op being matched.
struct ReasonRecorder : RewriterBase::ForwardingListener {
  ReasonRecorder(OpBuilder::Listener *inner, Operation *op,
                 FailureReasons &reasons)
      : ForwardingListener(inner), op(op), reasons(reasons) {}
  void
  notifyMatchFailure(Location loc,
                     function_ref<void(Diagnostic &)> reasonCallback) override {
    Diagnostic diag(loc, DiagnosticSeverity::Remark);
    reasonCallback(diag);
    reasons[op] = diag.str();
    ForwardingListener::notifyMatchFailure(loc, reasonCallback);
  }
  Operation *op;
  FailureReasons &reasons;
};

/// A pattern that runs `inner` with a ReasonRecorder installed.
class RecordingPattern : public RewritePattern {
public:
  static std::unique_ptr<RecordingPattern>
  wrap(std::unique_ptr<RewritePattern> inner, FailureReasons &reasons) {
    SmallVector<StringRef> generated;
    for (OperationName name : inner->getGeneratedOps())
      generated.push_back(name.getStringRef());
    MLIRContext *ctx = inner->getContext();
    PatternBenefit benefit = inner->getBenefit();
    std::unique_ptr<RecordingPattern> p;
    if (auto root = inner->getRootKind())
      p.reset(
          new RecordingPattern(root->getStringRef(), benefit, ctx, generated));
    else if (auto iface = inner->getRootInterfaceID())
      p.reset(new RecordingPattern(MatchInterfaceOpTypeTag(), *iface, benefit,
                                   ctx, generated));
    else if (auto trait = inner->getRootTraitID())
      p.reset(new RecordingPattern(MatchTraitOpTypeTag(), *trait, benefit, ctx,
                                   generated));
    else
      p.reset(
          new RecordingPattern(MatchAnyOpTypeTag(), benefit, ctx, generated));
    p->setHasBoundedRewriteRecursion(inner->hasBoundedRewriteRecursion());
    p->setDebugName(inner->getDebugName());
    p->inner = std::move(inner);
    p->reasons = &reasons;
    return p;
  }

  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    OpBuilder::Listener *previous = rewriter.getListener();
    ReasonRecorder recorder(previous, op, *reasons);
    rewriter.setListener(&recorder);
    LogicalResult result = inner->matchAndRewrite(op, rewriter);
    rewriter.setListener(previous);
    return result;
  }

private:
  using RewritePattern::RewritePattern;
  std::unique_ptr<RewritePattern> inner;
  FailureReasons *reasons = nullptr;
};

/// "Convolution" for `mx.Convolution`.
std::string mxnetOpName(Operation *op) {
  if (const mxc::mx::OpSpec *spec =
          mxc::mx::lookupMLIROp(op->getName().getStringRef()))
    return spec->mxnetName;
  return op->getName().getStringRef().str();
}

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
    mxc::conversion::populateElementwisePatternsAndLegality(typeConverter,
                                                            patterns, target);
    mxc::conversion::populateLinearPatternsAndLegality(typeConverter, patterns,
                                                       target);
    mxc::conversion::populateConvPatternsAndLegality(typeConverter, patterns,
                                                     target);
    mxc::conversion::populatePoolingPatternsAndLegality(typeConverter, patterns,
                                                        target);
    mxc::conversion::populateNormalizationPatternsAndLegality(typeConverter,
                                                              patterns, target);
    mxc::conversion::populateReductionPatternsAndLegality(typeConverter,
                                                          patterns, target);
    mxc::conversion::populateDataMovementPatternsAndLegality(typeConverter,
                                                             patterns, target);
    mxc::conversion::populateTrainingPatternsAndLegality(typeConverter,
                                                         patterns, target);
    mxc::conversion::populateBackwardPatternsAndLegality(typeConverter,
                                                         patterns, target);
    mxc::conversion::populateFusedPatternsAndLegality(typeConverter, patterns,
                                                      target);
    FailureReasons reasons;
    for (auto &pattern : patterns.getNativePatterns())
      pattern = RecordingPattern::wrap(std::move(pattern), reasons);

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
    Operation *failedOp = nullptr;
    getOperation()->walk([&](Operation *op) {
      if (failedOp || !isa_and_nonnull<mxc::mx::MXDialect>(op->getDialect()))
        return;
      if (!failedLoc || op->getLoc() == *failedLoc)
        failedOp = op;
    });
    if (!failedOp) {
      if (failed(converted)) {
        emitError(*failedLoc) << "cannot lower this operation";
        signalPassFailure();
      }
      return;
    }
    auto it = reasons.find(failedOp);
    InFlightDiagnostic diag = failedOp->emitError()
                              << "cannot lower " << mxnetOpName(failedOp)
                              << ": ";
    if (it != reasons.end())
      diag << it->second;
    else
      diag << "no lowering for this operator";
    signalPassFailure();
  }
};
} // namespace
