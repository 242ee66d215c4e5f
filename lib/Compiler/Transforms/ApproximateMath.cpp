//===- ApproximateMath.cpp - mxc-approximate-math -------------------------===//
//
// f32 (and f16/bf16, computed in f32) exp, log, tanh, erf as MLIR's
// polynomial approximations, which LLVM vectorizes. See the pass description
// in Passes.td.
//
//===----------------------------------------------------------------------===//
#include "mxc/Compiler/Transforms/Passes.h"

#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mxc {
#define GEN_PASS_DEF_APPROXIMATEMATHPASS
#include "mxc/Compiler/Transforms/Passes.h.inc"
} // namespace mxc

using namespace mlir;

namespace {

struct ApproximateMathPass
    : mxc::impl::ApproximateMathPassBase<ApproximateMathPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    auto which = [](StringRef name) {
      name.consume_front("math."); // the patterns ask with the op name
      return llvm::is_contained(
          {"exp", "expm1", "log", "log1p", "log2", "tanh", "erf"}, name);
    };
    populateMathF32ExpansionPatterns(patterns, which);
    populateMathPolynomialApproximationPatterns(patterns, which);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns)))) {
      getOperation().emitError()
          << "internal error: math approximation did not converge";
      signalPassFailure();
    }
  }
};

} // namespace
