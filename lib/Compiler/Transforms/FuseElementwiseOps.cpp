//===- FuseElementwiseOps.cpp - mxc-fuse-elementwise-ops ------------------===//
//
// Upstream linalg elementwise fusion with a control function that keeps
// broadcast producers that compute something out of their consumers. See
// the pass description in Passes.td.
//
//===----------------------------------------------------------------------===//
#include "mxc/Compiler/Transforms/Passes.h"
#include "mxc/Conversion/LinalgFusion.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mxc {
#define GEN_PASS_DEF_FUSEELEMENTWISEOPSPASS
#include "mxc/Compiler/Transforms/Passes.h.inc"
} // namespace mxc

using namespace mlir;

namespace {

struct FuseElementwiseOpsPass
    : mxc::impl::FuseElementwiseOpsPassBase<FuseElementwiseOpsPass> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    // Upstream's default (a producer used only by this consumer), and no
    // per-element recomputation of a broadcast producer.
    linalg::ControlFusionFn control = [](OpOperand *fused) {
      Operation *producer = fused->get().getDefiningOp();
      return producer && producer->hasOneUse() &&
             !mxc::fusionRecomputesProducer(fused);
    };
    RewritePatternSet patterns(ctx);
    linalg::populateElementwiseOpsFusionPatterns(patterns, control);
    linalg::populateFoldReshapeOpsByExpansionPatterns(patterns, control);
    tensor::populateBubbleUpExpandShapePatterns(patterns);
    affine::AffineApplyOp::getCanonicalizationPatterns(patterns, ctx);
    linalg::GenericOp::getCanonicalizationPatterns(patterns, ctx);
    tensor::ExpandShapeOp::getCanonicalizationPatterns(patterns, ctx);
    tensor::CollapseShapeOp::getCanonicalizationPatterns(patterns, ctx);
    linalg::populateConstantFoldLinalgOperations(patterns, control);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
