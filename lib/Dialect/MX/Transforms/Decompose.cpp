//===- Decompose.cpp - mx-decompose: composites into primitive mx ops -----===//
//
// Each composite op (mx::isComposite) is replaced by the primitive ops that
// mx::decomposeComposite builds in front of it.
//
//===----------------------------------------------------------------------===//
#include "mxc/Dialect/MX/IR/MXOps.h"
#include "mxc/Dialect/MX/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mxc::mx {
#define GEN_PASS_DEF_MXDECOMPOSEPASS
#include "mxc/Dialect/MX/Transforms/Passes.h.inc"
} // namespace mxc::mx

using namespace mlir;
namespace mx = mxc::mx;

namespace {
struct MXDecomposePass
    : public mx::impl::MXDecomposePassBase<MXDecomposePass> {
  void runOnOperation() override {
    SmallVector<Operation *> composites;
    getOperation().walk([&](Operation *op) {
      if (mx::isComposite(op))
        composites.push_back(op);
    });
    OpBuilder b(&getContext());
    for (Operation *op : composites) {
      SmallVector<Value> results;
      if (failed(mx::decomposeComposite(b, op, results)))
        return signalPassFailure();
      op->replaceAllUsesWith(results);
      op->erase();
      // results nobody reads (a hidden mean / std): their ops go too
      for (Value v : llvm::reverse(results))
        if (Operation *def = v.getDefiningOp(); def && isOpTriviallyDead(def))
          def->erase();
    }
  }
};
} // namespace
