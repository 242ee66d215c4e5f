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

/// The graph's rng_seed argument (created at the first sampler), or null
/// after an error for a sampler outside a function.
Value samplerSeed(Operation *op) {
  auto func = op->getParentOfType<func::FuncOp>();
  if (!func) {
    op->emitError() << "a sampler outside a function";
    return {};
  }
  return mx::getOrCreateRngSeed(func);
}

/// Samplers compute in float32, float64 for float64 results.
Type workType(OpBuilder &b, RankedTensorType result) {
  return result.getElementType().isF64() ? b.getF64Type() : b.getF32Type();
}

/// `out` (the work type) cast to the sampler's result type replaces it.
LogicalResult replaceSampler(Operation *op, mx::GradBuilder &g, Value out) {
  out = g.cast(out, cast<RankedTensorType>(op->getResult(0).getType()).getElementType());
  if (g.failed() || !out)
    return failure();
  op->getResult(0).replaceAllUsesWith(out);
  op->erase();
  return success();
}

double asDouble(const APFloat &v) { return v.convertToDouble(); }
double asDouble(uint64_t v) { return double(int64_t(v)); }

/// Draws of the distributions of sample_op.h, on tensors of the result's
/// shape S (each parameter broadcast to S), computed in `work` (float32,
/// float64 for float64 results, as _random_normal). Each call takes a new
/// stream of the sampler (`base` + a running salt). Rejection samplers draw
/// a fixed number of candidates along a leading axis and take the first
/// accepted one (the first candidate when none is).
struct Draws {
  mx::GradBuilder &g;
  OpBuilder &b;
  Location loc;
  Value seed;
  uint64_t base;
  Type work;
  SmallVector<int64_t> shape; // S
  unsigned salt = 0;

  StringRef workName() { return work.isF64() ? "float64" : "float32"; }
  SmallVector<int64_t> withLead(int64_t k) {
    SmallVector<int64_t> s{k};
    s.append(shape.begin(), shape.end());
    return s;
  }
  /// (1, S...): a parameter against the candidate axis.
  Value lead(Value v) { return g.reshape(v, withLead(1)); }
  /// (n, 1, ...): 0, 1, ..., n - 1 along the candidate axis.
  Value column(int64_t n) {
    SmallVector<int64_t> col(shape.size() + 1, 1);
    col[0] = n;
    return g.reshape(arange(n), col);
  }
  /// uniform numbers of `s` in [low, high) (low > high: (high, low])
  Value uniform(ArrayRef<int64_t> s, double low, double high) {
    return mx::RandomUniformOp::create(b, loc, RankedTensorType::get(s, work), seed,
                                       b.getF64FloatAttr(low), b.getF64FloatAttr(high),
                                       b.getI64IntegerAttr(int64_t(base + salt++)));
  }
  /// standard normal numbers of `s` (Box-Muller; both of a pair's numbers,
  /// r cos t and r sin t, when the leading extent is even)
  Value normal(ArrayRef<int64_t> s) {
    bool pairs = !s.empty() && s[0] % 2 == 0;
    SmallVector<int64_t> half(s);
    if (pairs)
      half[0] /= 2;
    Value r = g.op("mx.sqrt", g.mulS(g.log(uniform(half, 1.0, 0.0)), -2.0)); // u in (0, 1]
    Value t = uniform(half, 0.0, 2.0 * M_PI);
    Value z = g.mul(r, g.op("mx.cos", t));
    if (!pairs)
      return z;
    return g.op("mx.Concat", {z, g.mul(r, g.op("mx.sin", t))},
                {g.i64("num_args", 2), g.i64("dim", 0)});
  }
  Value arange(int64_t n) {
    return g.op("mx._arange", {},
                {g.f64("start", 0.0), g.f64("stop", double(n)), g.f64("step", 1.0),
                 g.str("dtype", workName())});
  }
  Value where(Value c, Value x, Value y) { return g.op("mx.where", {c, x, y}); }
  Value recip(Value v) { return g.scalarOp("mx._rdiv_scalar", v, 1.0); }
  Value maxS(Value v, double s) { return g.scalarOp("mx._maximum_scalar", v, s); }
  /// candidates (K, S...) and their acceptance (1.0 / 0.0): the first
  /// accepted candidate of each element
  Value first(Value accepted, Value candidates) {
    int64_t k = cast<RankedTensorType>(candidates.getType()).getDimSize(0);
    Value rank = g.rsubS(column(k), double(k)); // K, K-1, ..., 1
    Value idx = g.op("mx.argmax", g.mul(accepted, rank),
                     {g.i64("axis", 0), g.boolean("keepdims", false)});
    return g.op("mx.pick", {candidates, idx}, {g.i64("axis", 0), g.boolean("keepdims", false)});
  }

  Value uniformOf(Value low, Value high) {
    return g.add(low, g.mul(g.sub(high, low), uniform(shape, 0.0, 1.0)));
  }
  Value normalOf(Value mu, Value sigma) { return g.add(mu, g.mul(sigma, normal(shape))); }
  Value exponentialOf(Value lam) {
    return g.div(g.neg(g.log(uniform(shape, 1.0, 0.0))), lam);
  }
  /// SampleGamma (sampler.h): Marsaglia-Tsang with d = a - 1/3 (a + 2/3 for
  /// a < 1, then times u^(1/a)); 16 candidates (each accepted with
  /// probability about 0.95 or more for d >= 2/3).
  Value gammaOf(Value a, Value beta) {
    const int64_t k = 16;
    Value small = g.cmpS("lesser", a, 1.0);
    Value d = g.add(g.addS(a, -1.0 / 3.0), small);
    Value root = g.mulS(g.op("mx.sqrt", d), 3.0); // sqrt(9 d)
    Value d1 = lead(d), root1 = lead(root);
    Value z = normal(withLead(k));
    Value x = g.addS(g.div(z, root1), 1.0);
    Value v = g.mul(g.mul(x, x), x);
    Value bound = g.add(g.mulS(g.square(z), 0.5),
                        g.mul(d1, g.add(g.rsubS(v, 1.0), g.log(v))));
    Value accepted = g.mul(g.cmp("greater", z, g.neg(root1)),
                           g.cmp("lesser", g.log(uniform(withLead(k), 1.0, 0.0)), bound));
    Value sample = g.mul(first(accepted, g.mul(d1, v)), beta);
    // a < 1: times u^(1/a) (a = 0 gives 0); 1 / a only where a < 1
    Value inv = recip(g.add(g.mul(a, small), g.rsubS(small, 1.0))); // a or 1
    Value boost = g.op("mx.broadcast_power", {uniform(shape, 1.0, 0.0), inv});
    return where(small, g.mul(sample, boost), sample);
  }
  /// log(k!) for integers 0 <= k < 10 (a sum of log i over i <= k)
  Value logFactorialSmall(Value k) {
    // (no zeros_like start: it would split the fused group around it)
    Value sum = g.mulS(g.cmpS("greater_equal", k, 2.0), std::log(2.0));
    for (int i = 3; i < 10; ++i)
      sum = g.add(sum, g.mulS(g.cmpS("greater_equal", k, double(i)), std::log(double(i))));
    return sum;
  }
  /// Poisson: rate < 10 by inverting the CDF (48 terms: the tail beyond
  /// has probability < 1e-16); rate >= 10 by PTRS (Hormann 1993, as numpy),
  /// 32 candidates (each accepted with probability > 0.75), its log-density
  /// test in Stirling's form (k - lam - k log1p((k - lam) / lam) - log(2 pi k)
  /// / 2 - the Stirling error), which float32 computes without the
  /// cancellation of k log lam - lgamma(k + 1) at large rates.
  Value poissonOf(Value lam) {
    int64_t n = 1;
    for (int64_t e : shape)
      n *= e;
    const int64_t terms = 48, k = 32;
    Value j = column(terms);
    Value lam1 = lead(lam);
    Value logLam = lead(g.log(maxS(lam, 1e-30)));
    // lgamma of the (terms, 1, ...) column only
    Value logPmf = g.sub(g.sub(g.mul(j, logLam), lam1), g.op("mx.gammaln", g.addS(j, 1.0)));
    Value pmf = g.reshape(g.exp(logPmf), {terms, n});
    Value lower = g.cmp("greater_equal", g.reshape(arange(terms), {terms, 1}),
                        g.reshape(arange(terms), {1, terms})); // j <= i
    Value cdf = g.op("mx.dot", {lower, pmf});                  // (terms, n)
    // u scaled by the computed total (1 - the tail, up to rounding), so
    // that rounding never sends u past the last term
    Value total = g.op("mx.slice_axis", cdf,
                       {g.i64("axis", 0), g.i64("begin", terms - 1), g.i64("end", terms)});
    Value count = g.sum(g.cmp("lesser_equal", cdf, g.mul(uniform({1, n}, 0.0, 1.0), total)),
                        {0}, false);
    Value byCdf = g.reshape(g.scalarOp("mx._minimum_scalar", count, double(terms - 1)), shape);
    // PTRS
    Value safeLam = maxS(lam, 10.0); // the rates it serves (others are discarded)
    Value slam = g.op("mx.sqrt", safeLam);
    Value bb = g.addS(g.mulS(slam, 2.53), 0.931);
    Value aa = g.addS(g.mulS(bb, 0.02483), -0.059);
    Value invAlpha = g.addS(g.mulS(recip(g.addS(bb, -3.4)), 1.1328), 1.1239);
    Value vr = g.addS(g.mulS(recip(g.addS(bb, -2.0)), -3.6224), 0.9277);
    Value u = uniform(withLead(k), -0.5, 0.5);
    Value vv = uniform(withLead(k), 1.0, 0.0);
    Value us = g.rsubS(g.abs(u), 0.5);
    Value safeLam1 = lead(safeLam);
    Value cand = g.op("mx.floor", g.add(g.mul(g.add(g.div(lead(g.mulS(aa, 2.0)), us), lead(bb)), u),
                                        g.addS(safeLam1, 0.43)));
    Value quick = g.mul(g.cmpS("greater_equal", us, 0.07), g.cmp("lesser_equal", vv, lead(vr)));
    Value bad = g.op("mx.broadcast_maximum",
                     {g.cmpS("lesser", cand, 0.0),
                      g.mul(g.cmpS("lesser", us, 0.013), g.cmp("greater", vv, us))});
    Value lhs = g.sub(g.add(g.log(vv), lead(g.log(invAlpha))),
                      g.log(g.add(g.div(lead(aa), g.square(us)), lead(bb))));
    // log of the Poisson probability of cand
    Value kk = maxS(cand, 0.0);
    Value smallK = g.sub(g.sub(g.mul(kk, lead(g.log(safeLam))), safeLam1), logFactorialSmall(kk));
    Value big = maxS(kk, 10.0);
    Value dk = g.sub(big, safeLam1);
    Value stirlingError = g.add(g.sub(g.mulS(recip(big), 1.0 / 12.0),
                                      g.mulS(recip(g.mul(g.square(big), big)), 1.0 / 360.0)),
                                g.mulS(recip(g.mul(g.square(g.square(big)), big)), 1.0 / 1260.0));
    Value bigK = g.sub(g.sub(g.sub(dk, g.mul(big, g.op("mx.log1p", g.div(dk, safeLam1)))),
                             g.mulS(g.log(g.mulS(big, 2.0 * M_PI)), 0.5)),
                       stirlingError);
    Value rhs = where(g.cmpS("lesser", kk, 10.0), smallK, bigK);
    Value slow = g.mul(g.rsubS(bad, 1.0), g.cmp("lesser_equal", lhs, rhs));
    Value accepted = g.op("mx.broadcast_maximum", {quick, slow});
    Value byPtrs = first(accepted, cand);
    return where(g.cmpS("lesser", lam, 10.0), byCdf, byPtrs);
  }
  /// SampleNegativeBinomial: Poisson of a gamma(k, (1 - p) / p) rate
  Value negativeBinomialOf(Value k, Value p) {
    return poissonOf(gammaOf(k, g.div(g.rsubS(p, 1.0), p)));
  }
  /// SampleGeneralizedNegativeBinomial: Poisson of a gamma(1 / alpha,
  /// alpha mu) rate, of mu for alpha = 0
  Value generalizedNegativeBinomialOf(Value mu, Value alpha) {
    Value zero = g.cmpS("equal", alpha, 0.0);
    Value safe = g.add(alpha, zero); // alpha or 1
    return poissonOf(where(zero, mu, gammaOf(recip(safe), g.mul(safe, mu))));
  }
};

/// The samplers of `_random_<d>` (scalar parameters other than uniform /
/// normal), `_random_<d>_like` and `_sample_<d>`.
LogicalResult drawDistribution(Operation *op, unsigned index) {
  Value seed = samplerSeed(op);
  if (!seed)
    return failure();
  OpBuilder b(op);
  mx::GradBuilder g(b, op->getLoc());
  auto type = cast<RankedTensorType>(op->getResult(0).getType());
  if (!type.hasStaticShape())
    return op->emitError() << "'" << op->getName() << "' needs a static shape";
  Type work = workType(b, type);
  Draws draws{g,    b,   op->getLoc(), seed, mx::fnv1a64("_random_draws") + 64 * uint64_t(index),
              work, SmallVector<int64_t>(type.getShape())};
  StringRef name = op->getName().stripDialect();
  // the distribution and its parameters as float64 tensors of the result's shape
  StringRef dist;
  SmallVector<Value> params;
  auto constant = [&](double v) {
    return g.op("mx._full", {},
                {g.shape("shape", type.getShape()), g.f64("value", v), g.str("dtype", draws.workName())});
  };
  // the scalar parameters of _random_<d> / _random_<d>_like (a
  // one-parameter distribution reads it twice and uses the first)
  SmallVector<double, 2> scalars;
#define MXC_SCALARS(OP, P0, P1)                                                            \
  if (auto o = dyn_cast<mx::OP>(op))                                                       \
    scalars = {asDouble(o.get##P0()), asDouble(o.get##P1())};
  MXC_SCALARS(RandomGammaSamplerOp, Alpha, Beta)
  MXC_SCALARS(RandomExponentialSamplerOp, Lam, Lam)
  MXC_SCALARS(RandomPoissonSamplerOp, Lam, Lam)
  MXC_SCALARS(RandomNegativeBinomialSamplerOp, K, P)
  MXC_SCALARS(RandomGeneralizedNegativeBinomialSamplerOp, Mu, Alpha)
  MXC_SCALARS(RandomUniformLikeSamplerOp, Low, High)
  MXC_SCALARS(RandomNormalLikeSamplerOp, Loc, Scale)
  MXC_SCALARS(RandomGammaLikeSamplerOp, Alpha, Beta)
  MXC_SCALARS(RandomExponentialLikeSamplerOp, Lam, Lam)
  MXC_SCALARS(RandomPoissonLikeSamplerOp, Lam, Lam)
  MXC_SCALARS(RandomNegativeBinomialLikeSamplerOp, K, P)
  MXC_SCALARS(RandomGeneralizedNegativeBinomialLikeSamplerOp, Mu, Alpha)
#undef MXC_SCALARS
  if (name.consume_front("_sample_")) {
    dist = name;
    ArrayRef<int64_t> s = type.getShape();
    for (Value p : op->getOperands()) {
      // parameters (P...) against results (P..., shape...)
      ArrayRef<int64_t> ps = cast<RankedTensorType>(p.getType()).getShape();
      SmallVector<int64_t> padded(ps);
      padded.resize(s.size(), 1);
      Value v = g.cast(g.op("mx.BlockGrad", p), work);
      v = g.reshape(v, padded);
      params.push_back(g.op("mx.broadcast_to", v, {g.shape("shape", s)}));
    }
  } else {
    name.consume_front("_random_");
    name.consume_back("_like");
    dist = name;
    for (double v : scalars)
      params.push_back(constant(v));
  }
  Value out;
  if (dist == "uniform")
    out = draws.uniformOf(params[0], params[1]);
  else if (dist == "normal")
    out = draws.normalOf(params[0], params[1]);
  else if (dist == "gamma")
    out = draws.gammaOf(params[0], params[1]);
  else if (dist == "exponential")
    out = draws.exponentialOf(params[0]);
  else if (dist == "poisson")
    out = draws.poissonOf(params[0]);
  else if (dist == "negative_binomial")
    out = draws.negativeBinomialOf(params[0], params[1]);
  else if (dist == "generalized_negative_binomial")
    out = draws.generalizedNegativeBinomialOf(params[0], params[1]);
  else
    return op->emitError() << "no sampler for '" << op->getName() << "'";
  return replaceSampler(op, g, out);
}

/// The sampler `op` (no operands) from the counter-based generator.
LogicalResult drawSampler(Operation *op, unsigned index) {
  Value seed = samplerSeed(op);
  if (!seed)
    return failure();
  OpBuilder b(op);
  mx::GradBuilder g(b, op->getLoc());
  auto type = cast<RankedTensorType>(op->getResult(0).getType());
  Type work = workType(b, type);
  auto workTensor = RankedTensorType::get(type.getShape(), work);
  // The stream is the sampler's position among the graph's samplers, not
  // its name: as MXNet's parallel generator, the numbers depend on the seed
  // only (a graph built again, with other automatic names, draws the same).
  uint64_t base = mx::fnv1a64("_random") + 2 * uint64_t(index);
  auto uniform = [&](double low, double high, uint64_t salt) -> Value {
    return mx::RandomUniformOp::create(
        b, op->getLoc(), workTensor, seed, b.getF64FloatAttr(low),
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
  return replaceSampler(op, g, out);
}

bool isDistribution(Operation *op) {
  return isa<mx::RandomGammaSamplerOp, mx::RandomExponentialSamplerOp,
             mx::RandomPoissonSamplerOp, mx::RandomNegativeBinomialSamplerOp,
             mx::RandomGeneralizedNegativeBinomialSamplerOp, mx::RandomUniformLikeSamplerOp,
             mx::RandomNormalLikeSamplerOp, mx::RandomGammaLikeSamplerOp,
             mx::RandomExponentialLikeSamplerOp, mx::RandomPoissonLikeSamplerOp,
             mx::RandomNegativeBinomialLikeSamplerOp,
             mx::RandomGeneralizedNegativeBinomialLikeSamplerOp, mx::SampleUniformOp,
             mx::SampleNormalOp, mx::SampleGammaOp, mx::SampleExponentialOp,
             mx::SamplePoissonOp, mx::SampleNegativeBinomialOp,
             mx::SampleGeneralizedNegativeBinomialOp>(op);
}

struct MXDecomposePass
    : public mx::impl::MXDecomposePassBase<MXDecomposePass> {
  void runOnOperation() override {
    SmallVector<Operation *> samplers;
    getOperation().walk([&](Operation *op) {
      if (isa<mx::RandomUniformSamplerOp, mx::RandomNormalSamplerOp,
              mx::SampleMultinomialOp, mx::ShuffleOp>(op) ||
          isDistribution(op))
        samplers.push_back(op);
    });
    for (auto [i, op] : llvm::enumerate(samplers))
      if (failed(isDistribution(op) ? drawDistribution(op, static_cast<unsigned>(i))
                                    : drawSampler(op, static_cast<unsigned>(i))))
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
