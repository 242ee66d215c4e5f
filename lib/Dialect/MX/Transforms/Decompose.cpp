//===- Decompose.cpp - mx-decompose: composites into primitive mx ops -----===//
//
// Each composite op (mx::isComposite) is replaced by the primitive ops that
// mx::decomposeComposite builds in front of it. The samplers _random_uniform
// and _random_normal are drawn from the function's rng_seed argument
// (RngSeed.h; created here when the graph has a sampler): mx.random_uniform
// with a stream from the sampler's position among the graph's samplers,
// normal by Box-Muller from two such streams, computed in f32 (f64 for f64
// results) and cast; _sample_multinomial by comparing one stream with the
// distributions' cumulative sums, _shuffle by the argsort of one stream.
//
//===----------------------------------------------------------------------===//
#include "../IR/GradientUtils.h"
#include "RngSeed.h"
#include "mxc/Dialect/MX/IR/MXOps.h"
#include "mxc/Dialect/MX/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include <cmath>

namespace mxc::mx {
#define GEN_PASS_DEF_MXDECOMPOSEPASS
#include "mxc/Dialect/MX/Transforms/Passes.h.inc"
} // namespace mxc::mx

using namespace mlir;
namespace mx = mxc::mx;

namespace {

/// The sampler `op` (no operands) from the counter-based generator.
LogicalResult drawSampler(Operation *op, unsigned index) {
  auto func = op->getParentOfType<func::FuncOp>();
  if (!func)
    return op->emitError() << "a sampler outside a function";
  Value seed = mx::getOrCreateRngSeed(func);
  OpBuilder b(op);
  mx::GradBuilder g(b, op->getLoc());
  auto type = cast<RankedTensorType>(op->getResult(0).getType());
  Type work = type.getElementType().isF64() ? b.getF64Type() : b.getF32Type();
  auto workType = RankedTensorType::get(type.getShape(), work);
  // The stream is the sampler's position among the graph's samplers, not
  // its name: as MXNet's parallel generator, the numbers depend on the seed
  // only (a graph built again, with other automatic names, draws the same).
  uint64_t base = mx::fnv1a64("_random") + 2 * uint64_t(index);
  auto uniform = [&](double low, double high, uint64_t salt) -> Value {
    return mx::RandomUniformOp::create(
        b, op->getLoc(), workType, seed, b.getF64FloatAttr(low),
        b.getF64FloatAttr(high), b.getI64IntegerAttr(int64_t(base + salt)));
  };
  if (auto mn = dyn_cast<mx::SampleMultinomialOp>(op)) {
    // SampleMultinomialKernel: the first index j with u < cdf[j] = the
    // count of cdf entries <= u (at most k - 1); per distribution (B of
    // them, k classes) n draws, the cdf by a dot with an upper-triangular
    // matrix of ones.
    Value p = mn.getData();
    auto pType = cast<RankedTensorType>(p.getType());
    ArrayRef<int64_t> d = pType.getShape();
    Type pw = pType.getElementType().isF64() ? b.getF64Type() : b.getF32Type();
    int64_t k = d.back(), batch = 1, n = 1;
    for (int64_t e : d.drop_back())
      batch *= e;
    for (int64_t e : mn.getShape())
      n *= e;
    auto drawType = RankedTensorType::get({batch, n, 1}, pw);
    Value u = mx::RandomUniformOp::create(b, op->getLoc(), drawType, seed,
                                          b.getF64FloatAttr(0.0), b.getF64FloatAttr(1.0),
                                          b.getI64IntegerAttr(int64_t(base)));
    StringRef workName = pw.isF64() ? "float64" : "float32";
    auto arange = [&](int64_t len) {
      return g.op("mx._arange", {},
                  {g.f64("start", 0.0), g.f64("stop", double(len)), g.f64("step", 1.0),
                   g.str("dtype", workName)});
    };
    Value upper = g.cmp("lesser_equal", g.reshape(arange(k), {k, 1}),
                        g.reshape(arange(k), {1, k})); // (k, k): i <= j
    Value probs = g.reshape(g.cast(p, pw), {batch, k});
    Value cdf = g.reshape(g.op("mx.dot", {probs, upper}), {batch, 1, k});
    Value count = g.sum(g.cmp("lesser_equal", cdf, u), {2}, false); // (batch, n)
    Value idx = g.scalarOp("mx._minimum_scalar", count, double(k - 1));
    Type outElt = type.getElementType();
    SmallVector<Value> outs{g.cast(g.reshape(idx, type.getShape()), outElt)};
    if (mn.getGetProb()) {
      // log(p[index]) by a one_hot product, so that the gradient reaches p
      Value hot = g.op("mx.one_hot", idx, {g.i64("depth", k), g.str("dtype", workName)});
      Value picked = g.sum(g.mul(hot, g.reshape(probs, {batch, 1, k})), {2}, false);
      auto probType = cast<RankedTensorType>(op->getResult(1).getType());
      outs.push_back(g.cast(g.reshape(g.log(picked), probType.getShape()),
                            probType.getElementType()));
    }
    if (g.failed())
      return failure();
    op->replaceAllUsesWith(outs);
    op->erase();
    return success();
  }
  if (auto sh = dyn_cast<mx::ShuffleOp>(op)) {
    // a uniformly random permutation: the argsort of uniform keys
    int64_t len = type.getShape().empty() ? 1 : type.getShape()[0];
    Value keys = mx::RandomUniformOp::create(
        b, op->getLoc(), RankedTensorType::get({len}, b.getF64Type()), seed,
        b.getF64FloatAttr(0.0), b.getF64FloatAttr(1.0), b.getI64IntegerAttr(int64_t(base)));
    Value perm = g.op("mx.argsort", keys, {g.i64("axis", 0), g.str("dtype", "float64")});
    Value out = type.getShape().empty()
                    ? sh.getData()
                    : g.op("mx.take", {sh.getData(), perm}, {g.i64("axis", 0)});
    if (g.failed() || !out)
      return failure();
    op->getResult(0).replaceAllUsesWith(out);
    op->erase();
    return success();
  }
  Value out;
  if (auto u = dyn_cast<mx::RandomUniformSamplerOp>(op)) {
    out = uniform(u.getLow().convertToDouble(), u.getHigh().convertToDouble(),
                  0);
  } else {
    auto n = cast<mx::RandomNormalSamplerOp>(op);
    // Box-Muller: sqrt(-2 log u1) cos(2 pi u2), u1 in (0, 1]
    Value u1 = uniform(1.0, 0.0, 0); // 1 - u: never 0
    Value u2 = uniform(0.0, 2.0 * M_PI, 1);
    Value r = g.op("mx.sqrt", g.mulS(g.log(u1), -2.0));
    Value z = g.mul(r, g.op("mx.cos", u2));
    out = g.addS(g.mulS(z, n.getScale().convertToDouble()),
                 n.getLoc().convertToDouble());
  }
  out = g.cast(out, type.getElementType());
  if (g.failed() || !out)
    return failure();
  op->getResult(0).replaceAllUsesWith(out);
  op->erase();
  return success();
}

struct MXDecomposePass
    : public mx::impl::MXDecomposePassBase<MXDecomposePass> {
  void runOnOperation() override {
    SmallVector<Operation *> samplers;
    getOperation().walk([&](Operation *op) {
      if (isa<mx::RandomUniformSamplerOp, mx::RandomNormalSamplerOp,
              mx::SampleMultinomialOp, mx::ShuffleOp>(op))
        samplers.push_back(op);
    });
    for (auto [i, op] : llvm::enumerate(samplers))
      if (failed(drawSampler(op, static_cast<unsigned>(i))))
        return signalPassFailure();
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
