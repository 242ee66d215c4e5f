//===- RecordingPattern.h - pattern failure reasons for user errors -*- C++ -*-===//
//
// MLIR's dialect conversion only logs a pattern's notifyMatchFailure reason in
// debug builds. convert-mx-to-linalg and the lowering of mx.fused wrap each
// pattern in a RecordingPattern, which records the last reason given for each
// op, so that the error reaching the user names the operator and the reason.
// populateAllFamilies adds every op family's patterns (Patterns.h).
//
//===----------------------------------------------------------------------===//
#ifndef MXC_LIB_CONVERSION_MXTOLINALG_RECORDINGPATTERN_H
#define MXC_LIB_CONVERSION_MXTOLINALG_RECORDINGPATTERN_H

#include "Patterns.h"

#include "mxc/Dialect/MX/IR/MXOpTable.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/DenseMap.h"

#include <string>

namespace mxc::conversion {

using llvm::function_ref;
using llvm::SmallVector;
using llvm::StringRef;
using mlir::Diagnostic;
using mlir::DiagnosticSeverity;
using mlir::Location;
using mlir::LogicalResult;
using mlir::MLIRContext;
using mlir::OpBuilder;
using mlir::Operation;
using mlir::OperationName;
using mlir::PatternBenefit;
using mlir::PatternRewriter;
using mlir::RewriterBase;
using mlir::RewritePattern;

/// The last notifyMatchFailure reason given for each op.
using FailureReasons = llvm::DenseMap<mlir::Operation *, std::string>;

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

/// "Convolution" for `mx.Convolution`; ops outside MXNet's table by their
/// MLIR name.
inline std::string mxnetOpName(Operation *op) {
  if (const mxc::mx::OpSpec *spec =
          mxc::mx::lookupMLIROp(op->getName().getStringRef()))
    return spec->mxnetName;
  return op->getName().getStringRef().str();
}

/// Every op family's patterns and legality; the mx.fused family (whose
/// lowering converts its body with the others) only with `withFused`.
inline void populateAllFamilies(mlir::TypeConverter &typeConverter,
                                mlir::RewritePatternSet &patterns,
                                mlir::ConversionTarget &target,
                                bool withFused) {
  populateElementwisePatternsAndLegality(typeConverter, patterns, target);
  populateLinearPatternsAndLegality(typeConverter, patterns, target);
  populateConvPatternsAndLegality(typeConverter, patterns, target);
  populatePoolingPatternsAndLegality(typeConverter, patterns, target);
  populateNormalizationPatternsAndLegality(typeConverter, patterns, target);
  populateReductionPatternsAndLegality(typeConverter, patterns, target);
  populateDataMovementPatternsAndLegality(typeConverter, patterns, target);
  populateTrainingPatternsAndLegality(typeConverter, patterns, target);
  populateBackwardPatternsAndLegality(typeConverter, patterns, target);
  populateCreationPatternsAndLegality(typeConverter, patterns, target);
  populateOrderingPatternsAndLegality(typeConverter, patterns, target);
  if (withFused)
    populateFusedPatternsAndLegality(typeConverter, patterns, target);
}

/// Wraps every pattern of `patterns` in a RecordingPattern.
inline void recordFailureReasons(mlir::RewritePatternSet &patterns,
                                 FailureReasons &reasons) {
  for (auto &pattern : patterns.getNativePatterns())
    pattern = RecordingPattern::wrap(std::move(pattern), reasons);
}

} // namespace mxc::conversion

#endif // MXC_LIB_CONVERSION_MXTOLINALG_RECORDINGPATTERN_H
