//===- EmptyTensorPerUse.cpp - mxc-empty-tensor-per-use -------------------===//
//
// Gives every use of a tensor.empty its own tensor.empty, so that one-shot
// bufferization allocates a buffer per destination instead of writing
// independent results one after another into one buffer. See the pass
// description in Passes.td.
//
//===----------------------------------------------------------------------===//
#include "mxc/Compiler/Transforms/Passes.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"

namespace mxc {
#define GEN_PASS_DEF_EMPTYTENSORPERUSEPASS
#include "mxc/Compiler/Transforms/Passes.h.inc"
} // namespace mxc

using namespace mlir;

namespace {

struct EmptyTensorPerUsePass
    : mxc::impl::EmptyTensorPerUsePassBase<EmptyTensorPerUsePass> {
  void runOnOperation() override {
    SmallVector<tensor::EmptyOp> empties;
    getOperation().walk([&](tensor::EmptyOp op) { empties.push_back(op); });
    for (tensor::EmptyOp op : empties) {
      // Each use gets a copy in the op's own block, just before the op of
      // that block that holds the user (a loop's use keeps its allocation
      // outside the loop), with that op's location: memory planning groups
      // the ops of one MXNet node by location, so the allocation stays in
      // its node's run, not in the run of the node where CSE left the
      // shared op. The dynamic sizes dominate the op, hence every copy.
      SmallVector<OpOperand *> uses;
      for (OpOperand &use : op->getUses())
        uses.push_back(&use);
      if (uses.size() < 2 && (uses.empty() || uses[0]->getOwner()->getBlock() ==
                                                   op->getBlock()))
        continue; // nothing shared, already beside its user
      for (OpOperand *use : uses) {
        Operation *at = op->getBlock()->findAncestorOpInBlock(*use->getOwner());
        if (!at)
          continue; // in another block of the region: keeps the original
        OpBuilder b(at);
        Operation *copy = b.clone(*op);
        copy->setLoc(at->getLoc());
        use->set(copy->getResult(0));
      }
      if (op->use_empty())
        op->erase();
    }
  }
};

} // namespace
