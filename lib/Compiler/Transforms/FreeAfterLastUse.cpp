//===- FreeAfterLastUse.cpp - mxc-free-after-last-use ---------------------===//
//
// Each memref.dealloc of an allocation of its block moves to just after the
// allocation's last use, so that ownership-based deallocation (which frees
// at the end of the block) does not keep every allocation live at once. See
// the pass description in Passes.td.
//
//===----------------------------------------------------------------------===//
#include "mxc/Compiler/Transforms/Passes.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "llvm/ADT/SmallPtrSet.h"

namespace mxc {
#define GEN_PASS_DEF_FREEAFTERLASTUSEPASS
#include "mxc/Compiler/Transforms/Passes.h.inc"
} // namespace mxc

using namespace mlir;

namespace {

/// Moves `dealloc` after the last op of its block that uses its allocation
/// (anything computed from it counts); leaves it where it is if the
/// allocation is of another block or used outside this one.
void moveAfterLastUse(memref::DeallocOp dealloc) {
  Value memref = dealloc.getMemref();
  auto alloc = memref.getDefiningOp<memref::AllocOp>();
  Block *block = dealloc->getBlock();
  if (!alloc || alloc->getBlock() != block)
    return;
  Operation *last = alloc;
  SmallVector<Value> worklist{memref};
  llvm::SmallPtrSet<Value, 8> seen{memref};
  while (!worklist.empty()) {
    Value v = worklist.pop_back_val();
    for (Operation *user : v.getUsers()) {
      if (user == dealloc)
        continue;
      Operation *inBlock = block->findAncestorOpInBlock(*user);
      if (!inBlock)
        return; // used outside this block: leave the dealloc alone
      if (last->isBeforeInBlock(inBlock))
        last = inBlock;
      for (Value r : user->getResults())
        if (seen.insert(r).second)
          worklist.push_back(r);
    }
  }
  if (last->isBeforeInBlock(dealloc))
    dealloc->moveAfter(last);
}

struct FreeAfterLastUsePass
    : mxc::impl::FreeAfterLastUsePassBase<FreeAfterLastUsePass> {
  void runOnOperation() override {
    getOperation().walk([](memref::DeallocOp d) { moveAfterLastUse(d); });
  }
};

} // namespace
