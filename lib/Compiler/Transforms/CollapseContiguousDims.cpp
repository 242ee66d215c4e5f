//===- CollapseContiguousDims.cpp - mxc-collapse-contiguous-dims ----------===//
//
// Merges the loop dimensions of a linalg.generic that every operand reads
// contiguously (or not at all), so that the innermost loop, the one LLVM
// vectorizes, is as long as the data allows. See the pass description in
// Passes.td.
//
//===----------------------------------------------------------------------===//
#include "mxc/Compiler/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mxc {
#define GEN_PASS_DEF_COLLAPSECONTIGUOUSDIMSPASS
#include "mxc/Compiler/Transforms/Passes.h.inc"
} // namespace mxc

using namespace mlir;

namespace {

/// mxc-parallel-loops' default min-chunks (Passes.td).
constexpr int64_t kMinOuterIterations = 64;

/// A memref of static shape with the identity layout (a step's argument,
/// an arena view): any run of its dimensions collapses into a view.
bool isDenseStatic(Value v) {
  auto t = dyn_cast<MemRefType>(v.getType());
  return t && t.hasStaticShape() && t.getLayout().isIdentity();
}

/// The runs of adjacent loop dimensions of `op` to merge (each of two or
/// more); none when the op is not one this pass takes.
SmallVector<ReassociationIndices> collapsibleRuns(linalg::LinalgOp linalgOp) {
  auto op = dyn_cast<linalg::GenericOp>(linalgOp.getOperation());
  if (!op || !op.hasPureBufferSemantics() || op.getNumLoops() < 2)
    return {};
  for (Value v : op->getOperands())
    if (!isDenseStatic(v))
      return {};
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  if (!llvm::all_of(maps, [](AffineMap m) { return m.isProjectedPermutation(); }))
    return {};
  if (!op.getBody()->getOps<linalg::IndexOp>().empty())
    return {};
  SmallVector<utils::IteratorType> iters = op.getIteratorTypesArray();
  SmallVector<ReassociationIndices> runs;
  ReassociationIndices run{0};
  auto close = [&] {
    if (run.size() > 1)
      runs.push_back(run);
  };
  for (int64_t d = 1, n = op.getNumLoops(); d < n; ++d) {
    ReassociationIndices longer = run;
    longer.push_back(d);
    if (iters[d] == iters[run.front()] &&
        linalg::areDimSequencesPreserved(maps, {longer})) {
      run = std::move(longer);
      continue;
    }
    close();
    run = {d};
  }
  close();
  // mxc-parallel-loops hands the kernel threads the shortest prefix of the
  // loops whose iterations reach its min-chunks (64); a prefix that takes
  // the innermost loop too leaves no loop to vectorise (each element's
  // indices by division). So the innermost run is merged only where the
  // loops before it still reach that many iterations, or where everything
  // becomes one loop (a range of its own): a batch-1 BatchNorm over
  // 1x3x224x224 stays (1, 3, 224, 224), not (1, 3, 50176) (0.07 -> 0.27 ms
  // measured).
  if (!runs.empty() && runs.back().back() == int64_t(op.getNumLoops()) - 1) {
    SmallVector<int64_t> ranges = op.getStaticLoopRanges();
    int64_t loops = op.getNumLoops(), outer = 1;
    for (const ReassociationIndices &r : runs)
      loops -= int64_t(r.size()) - 1;
    for (int64_t d = 0; d < runs.back().front(); ++d)
      outer *= ranges[d];
    if (loops > 1 && outer < kMinOuterIterations)
      runs.pop_back();
  }
  return runs;
}

/// Reads an input through its own unit dimensions where the map has a
/// constant 0 there (a broadcast: the bias 1xCx1x1 of an NCHW op, read as
/// (0, d1, 0, 0)): the input collapsed to its other dimensions, read as
/// (d1). The map is then a projected permutation, which collapsibleRuns
/// needs.
void dropBroadcastUnitDims(linalg::GenericOp op) {
  if (!op.hasPureBufferSemantics())
    return;
  OpBuilder b(op);
  MLIRContext *ctx = op.getContext();
  SmallVector<AffineMap> maps = op.getIndexingMapsArray();
  bool changed = false;
  for (OpOperand *in : op.getDpsInputOperands()) {
    if (!isDenseStatic(in->get()))
      continue;
    auto type = cast<MemRefType>(in->get().getType());
    AffineMap map = maps[in->getOperandNumber()];
    if (type.getRank() != map.getNumResults())
      continue;
    SmallVector<AffineExpr> kept;
    SmallVector<int64_t> shape;
    SmallVector<ReassociationIndices> groups;
    ReassociationIndices pending;
    for (auto [i, e] : llvm::enumerate(map.getResults())) {
      auto c = dyn_cast<AffineConstantExpr>(e);
      pending.push_back(int64_t(i));
      if (c && c.getValue() == 0 && type.getDimSize(i) == 1)
        continue;
      kept.push_back(e);
      shape.push_back(type.getDimSize(i));
      groups.push_back(std::move(pending));
      pending.clear();
    }
    if (kept.size() == map.getNumResults())
      continue;
    if (!groups.empty())
      groups.back().append(pending.begin(), pending.end());
    auto collapsed = memref::CollapseShapeOp::create(
        b, op.getLoc(), MemRefType::get(shape, type.getElementType()),
        in->get(), groups);
    in->set(collapsed);
    maps[in->getOperandNumber()] =
        AffineMap::get(map.getNumDims(), 0, kept, ctx);
    changed = true;
  }
  if (changed)
    op.setIndexingMapsAttr(b.getAffineMapArrayAttr(maps));
}

struct CollapseContiguousDimsPass
    : mxc::impl::CollapseContiguousDimsPassBase<CollapseContiguousDimsPass> {
  void runOnOperation() override {
    getOperation().walk(dropBroadcastUnitDims);
    RewritePatternSet patterns(&getContext());
    linalg::populateCollapseDimensions(patterns, collapsibleRuns);
    // One rewrite per op: the collapsed op has no run left to merge.
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
