//===- Decompose.cpp - mx-decompose: composites into primitive mx ops -----===//
//
// Each composite op (mx::isComposite) is replaced by the primitive ops that
// mx::decomposeComposite builds in front of it. The samplers _random_uniform
// and _random_normal are drawn from the function's rng_seed argument
// (RngSeed.h; created here when the graph has a sampler): mx.random_uniform
// with a stream from the sampler's position among the graph's samplers,
// normal by Box-Muller from two such streams, computed in f32 (f64 for f64
// results) and cast.
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
      if (isa<mx::RandomUniformSamplerOp, mx::RandomNormalSamplerOp>(op))
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
