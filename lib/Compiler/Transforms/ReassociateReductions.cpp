//===- ReassociateReductions.cpp - mxc-reassociate-reductions -------------===//
//
// `reassoc` on the float arithmetic of reduction bodies, so that LLVM's loop
// vectorizer vectorizes floating-point reductions. See the pass description
// in Passes.td.
//
//===----------------------------------------------------------------------===//
#include "mxc/Compiler/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"

namespace mxc {
#define GEN_PASS_DEF_REASSOCIATEREDUCTIONSPASS
#include "mxc/Compiler/Transforms/Passes.h.inc"
} // namespace mxc

using namespace mlir;

namespace {

struct ReassociateReductionsPass
    : mxc::impl::ReassociateReductionsPassBase<ReassociateReductionsPass> {
  void runOnOperation() override {
    MLIRContext *ctx = &getContext();
    getOperation().walk([&](linalg::LinalgOp op) {
      if (op.getNumReductionLoops() == 0)
        return;
      op->walk([&](arith::ArithFastMathInterface fm) {
        arith::FastMathFlags flags = arith::FastMathFlags::none;
        if (auto attr = fm.getFastMathFlagsAttr())
          flags = attr.getValue();
        fm->setAttr(fm.getFastMathAttrName(),
                    arith::FastMathFlagsAttr::get(
                        ctx, flags | arith::FastMathFlags::reassoc));
      });
    });
  }
};

} // namespace
