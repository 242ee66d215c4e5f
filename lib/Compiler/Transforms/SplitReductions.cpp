//===- SplitReductions.cpp - mxc-split-reductions -------------------------===//
//
// Long reductions with few outputs become a partial reduction over C chunks
// an output (C times the GPU threads) and a final reduction of the chunks.
// See the pass description in Passes.td.
//
//===----------------------------------------------------------------------===//
#include "mxc/Compiler/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/PatternMatch.h"

namespace mxc {
#define GEN_PASS_DEF_SPLITREDUCTIONSPASS
#include "mxc/Compiler/Transforms/Passes.h.inc"
} // namespace mxc

using namespace mlir;

namespace {

/// The combiner of a reduction body `yield combiner(expr, acc)` (acc: the
/// output's block argument, used only there) and its neutral element.
struct Combiner {
  Operation *op = nullptr;
  TypedAttr neutral;
};

std::optional<Combiner> matchCombiner(linalg::GenericOp g) {
  Block &body = g.getRegion().front();
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  if (yield.getNumOperands() != 1)
    return std::nullopt;
  BlockArgument acc = body.getArgument(g.getNumDpsInputs());
  Operation *op = yield.getOperand(0).getDefiningOp();
  if (!op || op->getBlock() != &body || op->getNumOperands() != 2 || op->getNumResults() != 1 ||
      !acc.hasOneUse() || acc.getUses().begin()->getOwner() != op ||
      op->getOperand(0) == op->getOperand(1))
    return std::nullopt;
  std::optional<TypedAttr> neutral = arith::getNeutralElement(op);
  if (!neutral)
    return std::nullopt;
  return Combiner{op, *neutral};
}

struct SplitReductionsPass : mxc::impl::SplitReductionsPassBase<SplitReductionsPass> {
  using SplitReductionsPassBase::SplitReductionsPassBase;

  /// The number of outputs (the product of the parallel loops' extents) and
  /// of elements each reduces (the reduction loops').
  static std::pair<int64_t, int64_t> outputsAndReduced(linalg::GenericOp g) {
    int64_t outputs = 1, reduced = 1;
    SmallVector<utils::IteratorType> its = g.getIteratorTypesArray();
    SmallVector<int64_t> ranges = g.getStaticLoopRanges();
    for (size_t i = 0; i < ranges.size(); ++i)
      (its[i] == utils::IteratorType::parallel ? outputs : reduced) *= ranges[i];
    return {outputs, reduced};
  }

  /// Whether `g` is worth splitting and can be (before any rewrite).
  bool candidate(linalg::GenericOp g) const {
    if (!g.hasPureTensorSemantics() || g.getNumDpsInits() != 1 || g.getNumResults() != 1 ||
        g.getNumReductionLoops() == 0)
      return false;
    for (Value v : g->getOperands())
      if (auto t = dyn_cast<ShapedType>(v.getType()); !t || !t.hasStaticShape())
        return false;
    if (!g.getRegion().front().getOps<linalg::IndexOp>().empty())
      return false;
    if (!llvm::all_of(g.getIndexingMapsArray(),
                      [](AffineMap m) { return m.isProjectedPermutation(); }))
      return false;
    auto [outputs, reduced] = outputsAndReduced(g);
    if (reduced < minReduction || outputs >= targetThreads)
      return false;
    return matchCombiner(g).has_value();
  }

  /// Merges adjacent loops of one iterator type that every operand walks
  /// contiguously; returns the op to split (g, or its collapsed form).
  linalg::GenericOp collapse(IRRewriter &rewriter, linalg::GenericOp g) {
    SmallVector<AffineMap> maps = g.getIndexingMapsArray();
    SmallVector<utils::IteratorType> its = g.getIteratorTypesArray();
    SmallVector<ReassociationIndices> groups = {{0}};
    for (int64_t d = 1; d < int64_t(its.size()); ++d) {
      SmallVector<ReassociationIndices> grown = groups;
      grown.back().push_back(d);
      if (its[d] == its[groups.back().front()] && linalg::areDimSequencesPreserved(maps, grown))
        groups = std::move(grown);
      else
        groups.push_back({d});
    }
    if (groups.size() == its.size())
      return g;
    rewriter.setInsertionPoint(g);
    FailureOr<linalg::CollapseResult> collapsed =
        linalg::collapseOpIterationDims(cast<linalg::LinalgOp>(g.getOperation()), groups,
                                        rewriter);
    if (failed(collapsed))
      return g;
    rewriter.replaceOp(g, collapsed->results);
    return dyn_cast<linalg::GenericOp>(collapsed->collapsedOp.getOperation());
  }

  void split(IRRewriter &rewriter, linalg::GenericOp g) {
    std::optional<Combiner> comb = matchCombiner(g);
    if (!comb)
      return;
    SmallVector<int64_t> ranges = g.getStaticLoopRanges();
    SmallVector<utils::IteratorType> its = g.getIteratorTypesArray();
    int64_t outputs = outputsAndReduced(g).first;
    int d = -1; // the innermost reduction loop
    for (size_t i = 0; i < its.size(); ++i)
      if (its[i] == utils::IteratorType::reduction)
        d = int(i);
    if (d < 0)
      return;
    int64_t extent = ranges[size_t(d)];
    int64_t want = std::min<int64_t>(maxChunks, (targetThreads + outputs - 1) / outputs);
    int64_t chunks = 1;
    for (int64_t c = std::min(want, extent / 2); c >= 2; --c)
      if (extent % c == 0) {
        chunks = c;
        break;
      }
    if (chunks < 2)
      return;

    MLIRContext *ctx = g.getContext();
    Location loc = g.getLoc();
    unsigned n = g.getNumLoops();
    auto outType = cast<RankedTensorType>(g.getResult(0).getType());
    Type elt = outType.getElementType();
    if (comb->neutral.getType() != elt)
      return;
    // 1. The partial reduction: d = d_o * chunks + d_i, d_i (loop n) a new
    //    parallel loop and the partials' innermost dimension. Each input
    //    that d indexes is viewed with that dimension as (E / chunks,
    //    chunks) (tensor.expand_shape), so that every map stays a projected
    //    permutation (linalg infers loop ranges from the shapes).
    rewriter.setInsertionPoint(g);
    AffineExpr dimD = getAffineDimExpr(unsigned(d), ctx), dimI = getAffineDimExpr(n, ctx);
    SmallVector<AffineMap> maps;
    SmallVector<Value> ins;
    for (OpOperand *in : g.getDpsInputOperands()) {
      AffineMap m = g.getMatchingIndexingMap(in);
      std::optional<unsigned> at = m.getResultPosition(dimD);
      SmallVector<AffineExpr> results(m.getResults());
      Value v = in->get();
      if (at) {
        auto t = cast<RankedTensorType>(v.getType());
        SmallVector<int64_t> shape;
        SmallVector<ReassociationIndices> groups;
        for (int64_t k = 0; k < t.getRank(); ++k) {
          groups.push_back({int64_t(shape.size())});
          if (k == int64_t(*at)) {
            shape.push_back(t.getDimSize(k) / chunks);
            groups.back().push_back(int64_t(shape.size()));
            shape.push_back(chunks);
          } else {
            shape.push_back(t.getDimSize(k));
          }
        }
        v = tensor::ExpandShapeOp::create(
            rewriter, loc, RankedTensorType::get(shape, t.getElementType()), v, groups);
        results.insert(results.begin() + *at + 1, dimI);
      }
      ins.push_back(v);
      maps.push_back(AffineMap::get(n + 1, 0, results, ctx));
    }
    AffineMap outMap = g.getMatchingIndexingMap(g.getDpsInitOperand(0));
    SmallVector<AffineExpr> outResults(outMap.getResults());
    outResults.push_back(getAffineDimExpr(n, ctx));
    maps.push_back(AffineMap::get(n + 1, 0, outResults, ctx));
    SmallVector<utils::IteratorType> partialIts = its;
    partialIts.push_back(utils::IteratorType::parallel);
    SmallVector<int64_t> partialShape(outType.getShape());
    partialShape.push_back(chunks);
    Value empty = tensor::EmptyOp::create(rewriter, loc, partialShape, elt);
    Value neutral = arith::ConstantOp::create(rewriter, loc, comb->neutral);
    Value filled = linalg::FillOp::create(rewriter, loc, neutral, empty).getResult(0);
    auto partial = linalg::GenericOp::create(
        rewriter, loc, TypeRange{filled.getType()}, ins, ValueRange{filled}, maps,
        partialIts);
    rewriter.cloneRegionBefore(g.getRegion(), partial.getRegion(), partial.getRegion().end());
    // 2. The final reduction of the partials into the original output.
    int64_t rank = outType.getRank();
    AffineMap all = AffineMap::getMultiDimIdentityMap(unsigned(rank + 1), ctx);
    AffineMap kept =
        AffineMap::get(unsigned(rank + 1), 0, all.getResults().take_front(size_t(rank)), ctx);
    SmallVector<utils::IteratorType> finalIts(size_t(rank), utils::IteratorType::parallel);
    finalIts.push_back(utils::IteratorType::reduction);
    BlockArgument acc = g.getRegion().front().getArgument(g.getNumDpsInputs());
    Operation *combiner = comb->op;
    auto final = linalg::GenericOp::create(
        rewriter, loc, TypeRange{outType}, ValueRange{partial.getResult(0)},
        ValueRange{g.getDpsInits()[0]}, ArrayRef<AffineMap>{all, kept}, finalIts,
        [&](OpBuilder &b, Location l, ValueRange args) {
          IRMapping map;
          for (Value operand : combiner->getOperands())
            map.map(operand, operand == acc ? args[1] : args[0]);
          Operation *c = b.clone(*combiner, map);
          linalg::YieldOp::create(b, l, c->getResult(0));
        });
    rewriter.replaceOp(g, final.getResults());
  }

  void runOnOperation() override {
    SmallVector<linalg::GenericOp> ops;
    getOperation().walk([&](linalg::GenericOp g) {
      if (candidate(g))
        ops.push_back(g);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::GenericOp g : ops) {
      linalg::GenericOp c = collapse(rewriter, g);
      if (c)
        split(rewriter, c);
    }
  }
};

} // namespace
