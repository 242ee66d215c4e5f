//===- Fused.cpp - mx -> linalg: mx.fused as one loop nest ----------------===//
//
// An mx.fused region (mx-fuse-elementwise) is lowered on its own: its body is
// copied into a scratch function, converted with the families' own patterns
// (the same ones convert-mx-to-linalg uses), and the resulting
// linalg.generic ops are fused producer-into-consumer with linalg's
// elementwise fusion (fuseElementwiseOps; a producer whose value is also a
// result of the group stays a result of the fused op). For the groups the
// pass makes (elementwise and broadcast ops, BatchNorm's per-channel
// arithmetic) this leaves one linalg.generic over the data, with one result
// per value the group yields, plus the per-channel generics it broadcasts
// (a producer that computes something is not fused into a consumer that
// broadcasts it: LinalgFusion.h); the scratch function's body then replaces
// the mx.fused op.
// If the body does not convert, the error names the op of the group that
// cannot be lowered, its node and the reason.
//
//===----------------------------------------------------------------------===//
#include "Patterns.h"
#include "RecordingPattern.h"

#include "mxc/Conversion/LinalgFusion.h"
#include "mxc/Dialect/MX/IR/MXOps.h"
#include "mxc/Dialect/MXRT/IR/MXRTDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/IR/Dominance.h"
#include "mlir/Transforms/CSE.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Analysis/TopologicalSortUtils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

using namespace mlir;
namespace mx = mxc::mx;

namespace {

/// Converts the mx ops of `func` (a scratch function) to linalg with every
/// family but this one. On failure, `reason` names the op that could not be
/// lowered (its MXNet operator and node) and why.
LogicalResult convertBody(func::FuncOp func, std::string &reason) {
  MLIRContext *ctx = func.getContext();
  ConversionTarget target(*ctx);
  target.addLegalDialect<linalg::LinalgDialect, tensor::TensorDialect,
                         arith::ArithDialect, math::MathDialect,
                         func::FuncDialect, bufferization::BufferizationDialect,
                         memref::MemRefDialect, scf::SCFDialect,
                         mxc::mxrt::MXRTDialect>();
  target.addIllegalDialect<mx::MXDialect>();
  TypeConverter typeConverter;
  typeConverter.addConversion([](Type t) { return t; });
  RewritePatternSet patterns(ctx);
  using namespace mxc::conversion;
  populateAllFamilies(typeConverter, patterns, target, /*withFused=*/false);
  FailureReasons reasons;
  recordFailureReasons(patterns, reasons);
  std::optional<Location> failedLoc;
  LogicalResult result = success();
  {
    // The failure is reported by the caller, at the mx.fused op.
    ScopedDiagnosticHandler quiet(ctx, [&](Diagnostic &diag) {
      if (!failedLoc)
        failedLoc = diag.getLocation();
      if (reason.empty())
        reason = diag.str();
      return success();
    });
    result = applyPartialConversion(func, target, std::move(patterns));
  }
  if (failed(result) && failedLoc) {
    Operation *failedOp = nullptr;
    func.walk([&](Operation *op) {
      if (!failedOp && isa_and_nonnull<mx::MXDialect>(op->getDialect()) &&
          op->getLoc() == *failedLoc)
        failedOp = op;
    });
    if (failedOp) {
      std::string node;
      if (auto name = dyn_cast<NameLoc>(failedOp->getLoc()))
        node = " (node '" + name.getName().str() + "')";
      auto it = reasons.find(failedOp);
      reason = mxnetOpName(failedOp) + node + ": " +
               (it != reasons.end() ? it->second
                                             : "no lowering for this operator");
    }
  }
  return result;
}

/// Whether a value computed by `from` reaches `to` (an op after it in the
/// same block) through operands.
bool reaches(Operation *from, Operation *to) {
  SmallVector<Operation *> worklist{to};
  llvm::DenseSet<Operation *> seen;
  while (!worklist.empty()) {
    Operation *op = worklist.pop_back_val();
    for (Value v : op->getOperands()) {
      Operation *def = v.getDefiningOp();
      if (!def || def->getBlock() != to->getBlock() ||
          !seen.insert(def).second)
        continue;
      if (def == from)
        return true;
      if (from->isBeforeInBlock(def))
        worklist.push_back(def);
    }
  }
  return false;
}

/// What one fusion step did.
enum class Fusion { None, Fused, FusedKeepingProducer };

/// One producer-into-consumer fusion of two linalg.generic ops of `block`,
/// if any is possible. A producer with other users keeps its values as
/// results of the fused op (those users then read them from it), unless one
/// of those users leads to the consumer (that would be a cycle); producers
/// used only by the consumer go first. FusedKeepingProducer: the consumer
/// still reads the producer through another operand, so the producer stays
/// and its body now also stands in the fused op.
Fusion fuseOnePair(Block &block) {
  for (bool singleUseOnly : {true, false}) {
    for (Operation &op : block) {
      auto consumer = dyn_cast<linalg::GenericOp>(op);
      if (!consumer)
        continue;
      for (OpOperand &operand : consumer->getOpOperands()) {
        if (!linalg::areElementwiseOpsFusable(&operand) ||
            mxc::fusionRecomputesProducer(&operand))
          continue;
        Operation *producer = operand.get().getDefiningOp();
        if (producer->getBlock() != &block)
          continue;
        bool onlyConsumer = llvm::all_of(
            producer->getUsers(), [&](Operation *u) { return u == consumer; });
        if (singleUseOnly && !onlyConsumer)
          continue;
        if (!onlyConsumer &&
            llvm::any_of(producer->getUsers(), [&](Operation *u) {
              return u != consumer && u->getBlock() == &block &&
                     u->isBeforeInBlock(consumer) && reaches(u, consumer);
            }))
          continue;
        IRRewriter rewriter(consumer.getContext());
        rewriter.setInsertionPoint(consumer);
        FailureOr<linalg::ElementwiseOpFusionResult> fused =
            linalg::fuseElementwiseOps(rewriter, &operand);
        if (failed(fused))
          continue;
        // A consumer that reads the producer's value through more than one
        // operand (broadcast_mul(%x, %x)) only has `operand` fused: the
        // fused op still reads the producer's value through the other ones.
        // Those reads must stay on the producer (a later round fuses them):
        // redirecting them to the fused op's own copy of the value would make
        // the op use its own result, a cycle that is not valid SSA (and
        // crashed the topological sort and the canonicalizations after it).
        Operation *fusedOp = fused->fusedOp;
        for (auto [orig, replacement] : fused->replacements)
          rewriter.replaceUsesWithIf(orig, replacement, [&](OpOperand &use) {
            return use.getOwner() != fusedOp;
          });
        rewriter.eraseOp(consumer);
        bool kept = !producer->use_empty();
        if (!kept)
          rewriter.eraseOp(producer);
        // Users of the producer's kept values that came before the consumer
        // now read the fused op: restore def-before-use.
        (void)sortTopologically(&block);
        return kept ? Fusion::FusedKeepingProducer : Fusion::Fused;
      }
    }
  }
  return Fusion::None;
}

/// Fuses the linalg.generic ops of `func` producer-into-consumer until no
/// pair fuses, then removes what became dead.
void fuseGenerics(func::FuncOp func) {
  MLIRContext *ctx = func.getContext();
  auto cleanUp = [&] {
    // Also merges the operands of a generic that read the same value through
    // the same indexing map (broadcast_mul(%x, %x)), so that a producer of
    // such a value is fused (and computed) once.
    RewritePatternSet patterns(ctx);
    linalg::GenericOp::getCanonicalizationPatterns(patterns, ctx);
    tensor::EmptyOp::getCanonicalizationPatterns(patterns, ctx);
    linalg::populateEraseUnusedOperandsAndResultsPatterns(patterns);
    (void)applyPatternsGreedily(func, std::move(patterns));
  };
  cleanUp();
  Block &block = func.getBody().front();
  // Once a producer stayed (FusedKeepingProducer), its body stands twice in
  // the fused op when its other operand is fused as well: from then on,
  // merged operands and CSE after each fusion make such copies one. Without
  // this they doubled with each level of the group (BilinearSampler's four
  // corners ran the compiler out of memory).
  bool duplicates = false;
  for (Fusion f; (f = fuseOnePair(block)) != Fusion::None;) {
    duplicates |= f == Fusion::FusedKeepingProducer;
    if (!duplicates)
      continue;
    cleanUp();
    IRRewriter rewriter(ctx);
    DominanceInfo dominance(func);
    mlir::eliminateCommonSubExpressions(rewriter, dominance, func);
  }
  cleanUp();
}

struct ConvertFused final : OpConversionPattern<mx::FusedOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(mx::FusedOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    MLIRContext *ctx = op.getContext();
    Location loc = op.getLoc();
    // The body as a scratch function (args = inputs, return = yield).
    OwningOpRef<ModuleOp> scratch = ModuleOp::create(loc);
    OpBuilder b = OpBuilder::atBlockEnd(scratch->getBody());
    auto func = func::FuncOp::create(
        b, loc, "fused",
        FunctionType::get(ctx, op.getInputs().getTypes(), op.getResultTypes()));
    Block *entry = func.addEntryBlock();
    IRMapping map;
    for (auto [arg, farg] :
         llvm::zip(op.getBodyBlock().getArguments(), entry->getArguments()))
      map.map(arg, farg);
    b.setInsertionPointToEnd(entry);
    for (Operation &inner : op.getBodyBlock().without_terminator())
      b.clone(inner, map);
    SmallVector<Value> results;
    for (Value v : op.getBodyBlock().getTerminator()->getOperands())
      results.push_back(map.lookupOrDefault(v));
    func::ReturnOp::create(b, loc, results);

    std::string reason;
    if (failed(convertBody(func, reason)))
      return rewriter.notifyMatchFailure(op, "in the fused group: " + reason);
    fuseGenerics(func);

    // Splice the lowered body in place of the op.
    IRMapping outer;
    for (auto [farg, in] : llvm::zip(entry->getArguments(), adaptor.getInputs()))
      outer.map(farg, in);
    Block &body = func.getBody().front();
    for (Operation &inner : body.without_terminator())
      rewriter.clone(inner, outer);
    SmallVector<Value> replacements;
    for (Value v : body.getTerminator()->getOperands())
      replacements.push_back(outer.lookupOrDefault(v));
    rewriter.replaceOp(op, replacements);
    return success();
  }
};

} // namespace

void mxc::conversion::populateFusedPatternsAndLegality(
    TypeConverter &typeConverter, RewritePatternSet &patterns,
    ConversionTarget &target) {
  target.addIllegalOp<mx::FusedOp, mx::YieldOp>();
  patterns.add<ConvertFused>(typeConverter, patterns.getContext());
}
