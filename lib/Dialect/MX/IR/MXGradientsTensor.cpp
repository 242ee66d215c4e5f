//===- MXGradientsTensor.cpp - gradient rules of the tensor ops -----------===//
//
// GradientOpInterface external models (MXNet's FGradient) for the
// elementwise, broadcast, scalar, reduction, data movement, linear-algebra
// and softmax-family ops, each composed of `mx` ops (GradientUtils.h) so the
// backward pass lowers and fuses like the forward one. Conventions follow
// MXNet 1.9.1's backward kernels: broadcast operands get the head gradient
// summed over their broadcast axes; maximum/minimum send the gradient to the
// lhs on ties (ge / le); max/min reductions to every maximal element; clip
// passes it inside [a_min, a_max] inclusive; abs uses sign(0) = 0.
//
// SoftmaxOutput ignores the head gradient (unless out_grad) and returns
// MXNet's built-in loss gradient (softmax_output-inl.h):
//   (softmax(data) - onehot(label)) * grad_scale / norm
// with label smoothing, use_ignore and the null/batch/valid normalisations
// exactly as MXNet computes them (multi_output also divides by the spatial
// size unless normalization is valid).
//
// Non-differentiable ops (comparisons, argmax, one_hot, zeros_like,
// ones_like, BlockGrad) have a rule that returns no operand gradient.
// BatchNorm and Dropout have no rule here: mx-autodiff replaces them by
// their training forms (batch statistics; a dropout_mask multiplication)
// made of ops that do.
//
//===----------------------------------------------------------------------===//
#include "GradientUtils.h"
#include "MXGradients.h"
#include "mxc/Dialect/MX/IR/MXDialect.h"
#include "mxc/Dialect/MX/IR/MXOps.h"

#include <cmath>

using namespace mlir;
using namespace mxc::mx;

namespace {

//===----------------------------------------------------------------------===//
// Attribute access (by MXNet name, with the op's defaults already applied by
// createMXOp / the importer; absent optional attributes give `dflt`).
//===----------------------------------------------------------------------===//

double attrF(Operation *op, StringRef name, double dflt) {
  if (auto a = op->getAttrOfType<FloatAttr>(name))
    return a.getValueAsDouble();
  return dflt;
}
int64_t attrI(Operation *op, StringRef name, int64_t dflt) {
  if (auto a = op->getAttrOfType<IntegerAttr>(name))
    return a.getInt();
  return dflt;
}
bool attrB(Operation *op, StringRef name, bool dflt) {
  if (auto a = op->getAttrOfType<BoolAttr>(name))
    return a.getValue();
  return dflt;
}
StringRef attrS(Operation *op, StringRef name, StringRef dflt) {
  if (auto a = op->getAttrOfType<StringAttr>(name))
    return a.getValue();
  return dflt;
}

RankedTensorType typeOf(Value v) { return cast<RankedTensorType>(v.getType()); }
bool isFloatTensor(Value v) {
  return isa<FloatType>(typeOf(v).getElementType());
}

LogicalResult unsupported(Operation *op, const Twine &what) {
  const OpSpec *spec = lookupMLIROp(op->getName().getStringRef());
  return op->emitError() << "no gradient for "
                         << (spec ? spec->mxnetName
                                  : op->getName().getStringRef())
                         << " with " << what;
}

using Grads = SmallVectorImpl<Value>;
using RuleFn = LogicalResult (*)(Operation *, GradBuilder &, ValueRange,
                                 Grads &);

/// The external model: runs `Fn` with a GradBuilder at the op's location.
template <RuleFn Fn>
struct Rule {
  template <typename OpTy>
  struct Model
      : public GradientOpInterface::ExternalModel<Model<OpTy>, OpTy> {
    LogicalResult buildGradient(Operation *op, OpBuilder &b,
                                ValueRange outGrads, Grads &inGrads) const {
      GradBuilder g(b, op->getLoc());
      if (inGrads.size() != op->getNumOperands())
        inGrads.resize(op->getNumOperands());
      if (failed(Fn(op, g, outGrads, inGrads)) || g.failed())
        return failure();
      for (auto [i, v] : llvm::enumerate(inGrads))
        if (v && v.getType() != op->getOperand(i).getType())
          return op->emitError()
                 << "internal error: gradient of operand " << i << " has type "
                 << v.getType() << ", expected "
                 << op->getOperand(i).getType();
      return success();
    }
  };
  template <typename... Ops>
  static void attach(MLIRContext *ctx) {
    (Ops::template attachInterface<Model<Ops>>(*ctx), ...);
  }
};

//===----------------------------------------------------------------------===//
// Rules
//===----------------------------------------------------------------------===//

LogicalResult noGradient(Operation *, GradBuilder &, ValueRange, Grads &) {
  return success();
}

LogicalResult identityGrad(Operation *op, GradBuilder &g, ValueRange og,
                           Grads &in) {
  in[0] = og[0];
  return success();
}

/// _contrib_gradientmultiplier: the gradient times `scalar`.
LogicalResult gradientMultiplierGrad(Operation *op, GradBuilder &g, ValueRange og,
                                     Grads &in) {
  in[0] = g.mulS(og[0], attrF(op, "scalar", 1.0));
  return success();
}

/// Reshape, Flatten, expand_dims: the gradient reshaped back.
LogicalResult reshapeGrad(Operation *op, GradBuilder &g, ValueRange og,
                          Grads &in) {
  in[0] = g.reshape(og[0], typeOf(op->getOperand(0)).getShape());
  return success();
}

/// reshape_like: the gradient reshaped back to lhs; rhs (only its shape is
/// read) gets none, MXNet's zeros_like.
LogicalResult reshapeLikeGrad(Operation *op, GradBuilder &g, ValueRange og,
                              Grads &in) {
  in[0] = g.reshape(og[0], typeOf(op->getOperand(0)).getShape());
  return success();
}

/// Binary arithmetic, elementwise or broadcast (the name tells which op).
LogicalResult binaryGrad(Operation *op, GradBuilder &g, ValueRange og,
                         Grads &in) {
  StringRef name = op->getName().getStringRef();
  name.consume_front("mx.");
  name.consume_front("elemwise_");
  name.consume_front("broadcast_");
  name.consume_front("_"); // _hypot
  Value a = op->getOperand(0), b = op->getOperand(1), y = op->getResult(0);
  Value dy = og[0];
  // integer arithmetic: MXNet's gradients in the integer type for add / sub
  // / mul / maximum / minimum; mxc gives the others none
  if (!isFloatTensor(a) && name != "add" && name != "sub" && name != "mul" &&
      name != "maximum" && name != "minimum")
    return success();
  Value da, db;
  if (name == "add") {
    da = dy;
    db = dy;
  } else if (name == "sub") {
    da = dy;
    db = g.neg(dy);
  } else if (name == "mul") {
    da = g.mul(dy, b);
    db = g.mul(dy, a);
  } else if (name == "div") {
    da = g.div(dy, b);
    db = g.neg(g.div(g.mul(dy, y), b));
  } else if (name == "maximum") {
    da = g.mul(dy, g.cmp("greater_equal", a, b));
    db = g.mul(dy, g.cmp("lesser", a, b));
  } else if (name == "minimum") {
    da = g.mul(dy, g.cmp("lesser_equal", a, b));
    db = g.mul(dy, g.cmp("greater", a, b));
  } else if (name == "power") {
    // d/da a^b = b * a^(b-1); d/db a^b = a^b * log(a).
    da = g.mul(dy, g.mul(b, g.op("mx.broadcast_power", {a, g.addS(b, -1)})));
    db = g.mul(dy, g.mul(y, g.log(a)));
  } else if (name == "hypot") {
    // d/da hypot(a, b) = a / hypot(a, b) (mshadow_op::hypot_grad_left)
    da = g.mul(dy, g.div(a, y));
    db = g.mul(dy, g.div(b, y));
  } else if (name == "mod") {
    // mshadow_op::mod_grad / mod_rgrad: 1 and -floor(a / b)
    da = dy;
    db = g.mul(dy, g.neg(g.op("mx.floor", g.div(a, b))));
  } else {
    return unsupported(op, "this operator");
  }
  in[0] = g.reduceToShape(da, typeOf(a));
  in[1] = g.reduceToShape(db, typeOf(b));
  return success();
}

/// Ops with a scalar operand.
LogicalResult scalarGrad(Operation *op, GradBuilder &g, ValueRange og,
                         Grads &in) {
  StringRef name = op->getName().getStringRef();
  Value x = op->getOperand(0), y = op->getResult(0), dy = og[0];
  // integers: MXNet's gradients in the integer type for + - * of a scalar;
  // mxc gives the others none
  bool integer = !isFloatTensor(x) || !isFloatTensor(y);
  // (an integer x with a float y, or a bool x: the gradient would have y's
  // type, not x's; those get none)
  if (integer && typeOf(x).getElementType() != typeOf(y).getElementType())
    return success();
  if (integer && !llvm::is_contained({StringRef("mx._plus_scalar"),
                                      StringRef("mx._minus_scalar"),
                                      StringRef("mx._rminus_scalar"),
                                      StringRef("mx._mul_scalar")},
                                     name))
    return success();
  double s = attrF(op, "scalar", 1.0);
  if (integer && name == "mx._mul_scalar") {
    in[0] = g.op("mx._mul_scalar", dy, {g.f64("scalar", s), g.boolean("is_int", true)});
    return success();
  }
  Value dx;
  if (name == "mx._plus_scalar" || name == "mx._minus_scalar")
    dx = dy;
  else if (name == "mx._rminus_scalar")
    dx = g.neg(dy);
  else if (name == "mx._mul_scalar")
    dx = g.mulS(dy, s);
  else if (name == "mx._div_scalar")
    dx = g.mulS(dy, 1.0 / s);
  else if (name == "mx._rdiv_scalar") // y = s / x: dy/dx = -y / x
    dx = g.neg(g.div(g.mul(dy, y), x));
  else if (name == "mx._power_scalar") // y = x^s
    dx = g.mul(dy, g.mulS(g.powS(x, s - 1), s));
  else if (name == "mx._rpower_scalar") // y = s^x
    dx = g.mulS(g.mul(dy, y), std::log(s));
  else if (name == "mx._maximum_scalar")
    dx = g.mul(dy, g.cmpS("greater_equal", x, s));
  else if (name == "mx._minimum_scalar")
    dx = g.mul(dy, g.cmpS("lesser_equal", x, s));
  else if (name == "mx._hypot_scalar") // x / hypot(x, s)
    dx = g.mul(dy, g.div(x, y));
  else if (name == "mx._mod_scalar") // d/dx (x mod s) = 1
    dx = dy;
  else if (name == "mx._rmod_scalar") // d/dx (s mod x) = -floor(s / x)
    dx = g.mul(dy, g.neg(g.op("mx.floor", g.op("mx._rdiv_scalar", x,
                                                 {g.f64("scalar", s)}))));
  else
    return unsupported(op, "this operator");
  in[0] = dx;
  return success();
}

/// The digamma function psi(x) of mx ops: for x >= 1/2, psi(x + 6) by its
/// asymptotic series (error below 1e-10) less sum_{k<6} 1 / (x + k); below
/// 1/2 the reflection psi(x) = psi(1 - x) - pi / tan(pi x).
Value digamma(GradBuilder &g, Value x) {
  Value reflect = g.cmpS("lesser", x, 0.5);
  Value z = g.op("mx.where", {reflect, g.rsubS(x, 1.0), x});
  Value t = g.addS(z, 6.0);
  auto rcp = [&](Value v) {
    return g.op("mx._rdiv_scalar", v,
                {g.f64("scalar", 1.0), g.boolean("is_int", false)});
  };
  Value it = rcp(t), it2 = g.square(it);
  // ln t - 1/(2t) - it2 (1/12 - it2 (1/120 - it2 (1/252 - it2 / 240)))
  Value series = g.rsubS(g.mulS(it2, 1.0 / 240.0), 1.0 / 252.0);
  series = g.rsubS(g.mul(it2, series), 1.0 / 120.0);
  series = g.rsubS(g.mul(it2, series), 1.0 / 12.0);
  Value psi = g.sub(g.sub(g.log(t), g.mulS(it, 0.5)), g.mul(it2, series));
  for (int k = 0; k < 6; ++k)
    psi = g.sub(psi, rcp(g.addS(z, double(k))));
  Value pix = g.mulS(x, M_PI);
  Value cot = g.div(g.op("mx.cos", pix, {}), g.op("mx.sin", pix, {}));
  return g.op("mx.where", {reflect, g.sub(psi, g.mulS(cot, M_PI)), psi});
}

/// The derivative dy/dx of a unary function as a value (x input, y output).
Value unaryDerivative(GradBuilder &g, StringRef fn, Value x, Value y) {
  if (fn == "negative")
    return g.mulS(g.onesLike(x), -1);
  if (fn == "abs") // sign(x), 0 at 0
    return g.sub(g.cmpS("greater", x, 0), g.cmpS("lesser", x, 0));
  if (fn == "square")
    return g.mulS(x, 2);
  if (fn == "sqrt")
    return g.op("mx._rdiv_scalar", g.mulS(y, 2),
                {g.f64("scalar", 1.0), g.boolean("is_int", false)});
  if (fn == "exp")
    return y;
  if (fn == "log")
    return g.op("mx._rdiv_scalar", x,
                {g.f64("scalar", 1.0), g.boolean("is_int", false)});
  if (fn == "relu") // relu_grad: IsNan(y) ? y : y > 0 (NaN propagates)
    return g.op("mx.where", {g.cmp("not_equal", y, y), y,
                             g.cmpS("greater", y, 0)});
  if (fn == "sigmoid")
    return g.mul(y, g.rsubS(y, 1));
  if (fn == "tanh")
    return g.rsubS(g.square(y), 1);
  // Rounding: zero almost everywhere (MXNet's zero gradients / _backward_sign).
  if (fn == "sign" || fn == "round" || fn == "rint" || fn == "floor" ||
      fn == "ceil" || fn == "trunc" || fn == "fix")
    return g.zerosLike(x);
  if (fn == "reciprocal") // -1 / x^2 = -y^2
    return g.mulS(g.square(y), -1);
  if (fn == "rsqrt") // -0.5 x^-1.5 = -0.5 y^3
    return g.mulS(g.mul(g.square(y), y), -0.5);
  if (fn == "log1p")
    return g.op("mx._rdiv_scalar", g.addS(x, 1),
                {g.f64("scalar", 1.0), g.boolean("is_int", false)});
  if (fn == "expm1")
    return g.addS(y, 1);
  if (fn == "log2")
    return g.op("mx._rdiv_scalar", x,
                {g.f64("scalar", 1.0 / std::log(2.0)), g.boolean("is_int", false)});
  if (fn == "log10")
    return g.op("mx._rdiv_scalar", x,
                {g.f64("scalar", 1.0 / std::log(10.0)), g.boolean("is_int", false)});
  if (fn == "sin")
    return g.op("mx.cos", x, {});
  if (fn == "cos")
    return g.mulS(g.op("mx.sin", x, {}), -1);
  // The rest of MXNet's trigonometric and power functions, as its
  // mshadow_op::*_grad (tan from the output, the others from the input).
  auto rcp = [&](Value v) {
    return g.op("mx._rdiv_scalar", v,
                {g.f64("scalar", 1.0), g.boolean("is_int", false)});
  };
  auto rsqrt = [&](Value v) { return g.op("mx.rsqrt", v, {}); };
  if (fn == "tan") // 1 + tan^2
    return g.addS(g.square(y), 1);
  if (fn == "arcsin") // 1 / sqrt(1 - x^2)
    return rsqrt(g.rsubS(g.square(x), 1));
  if (fn == "arccos")
    return g.mulS(rsqrt(g.rsubS(g.square(x), 1)), -1);
  if (fn == "arctan") // 1 / (1 + x^2)
    return rcp(g.addS(g.square(x), 1));
  if (fn == "sinh")
    return g.op("mx.cosh", x, {});
  if (fn == "cosh")
    return g.op("mx.sinh", x, {});
  if (fn == "arcsinh") // 1 / sqrt(x^2 + 1)
    return rsqrt(g.addS(g.square(x), 1));
  if (fn == "arccosh") // 1 / sqrt(x^2 - 1)
    return rsqrt(g.addS(g.square(x), -1));
  if (fn == "arctanh") // 1 / (1 - x^2)
    return rcp(g.rsubS(g.square(x), 1));
  if (fn == "degrees")
    return g.mulS(g.onesLike(x), 180.0 / M_PI);
  if (fn == "radians")
    return g.mulS(g.onesLike(x), M_PI / 180.0);
  if (fn == "cbrt") // 1 / (3 y^2)
    return rcp(g.mulS(g.square(y), 3));
  if (fn == "rcbrt") // -1 / (3 x cbrt(x)) = -y / (3 x)
    return g.div(g.mulS(y, -1.0 / 3.0), x);
  // Special functions (mshadow_op::gamma_grad / gammaln_grad / erf_grad /
  // erfinv_grad): digamma as a composite.
  if (fn == "gamma") // Gamma(x) psi(x)
    return g.mul(y, digamma(g, x));
  if (fn == "gammaln") // psi(x)
    return digamma(g, x);
  if (fn == "erf") // 2 / sqrt(pi) exp(-x^2)
    return g.mulS(g.exp(g.mulS(g.square(x), -1)), 2.0 / std::sqrt(M_PI));
  if (fn == "erfinv") // sqrt(pi) / 2 exp(erfinv(x)^2)
    return g.mulS(g.exp(g.square(y)), std::sqrt(M_PI) / 2.0);
  if (fn == "softrelu") // log(1 + exp(x)) -> sigmoid(x)
    return g.sigmoid(x);
  if (fn == "softsign") // x / (1 + |x|) -> 1 / (1 + |x|)^2
    return g.op("mx._rdiv_scalar", g.square(g.addS(g.abs(x), 1)),
                {g.f64("scalar", 1.0), g.boolean("is_int", false)});
  return {};
}

LogicalResult unaryGrad(Operation *op, GradBuilder &g, ValueRange og,
                        Grads &in) {
  StringRef fn = op->getName().getStringRef();
  fn.consume_front("mx.");
  if (fn == "Activation")
    fn = attrS(op, "act_type", "");
  Value x = op->getOperand(0), y = op->getResult(0);
  if (!isFloatTensor(x))
    return success();
  if (fn == "negative") {
    in[0] = g.neg(og[0]);
    return success();
  }
  Value d = unaryDerivative(g, fn, x, y);
  if (!d && !g.failed())
    return unsupported(op, "act_type '" + fn + "'");
  in[0] = g.mul(og[0], d);
  return success();
}

/// hard_sigmoid: alpha where 0 < alpha x + beta < 1, else 0
/// (_backward_hard_sigmoid).
LogicalResult hardSigmoidGrad(Operation *op, GradBuilder &g, ValueRange og,
                              Grads &in) {
  double alpha = attrF(op, "alpha", 0.2), beta = attrF(op, "beta", 0.5);
  Value x = op->getOperand(0);
  Value t = g.addS(g.mulS(x, alpha), beta);
  Value inside = g.mul(g.cmpS("greater", t, 0), g.cmpS("lesser", t, 1));
  in[0] = g.mul(og[0], g.mulS(inside, alpha));
  return success();
}

/// smooth_l1: sigma^2 x inside |x| <= 1/sigma^2, sign(x) outside -- that is
/// clip(sigma^2 x, -1, 1) (mshadow_op::smooth_l1_gradient).
LogicalResult smoothL1Grad(Operation *op, GradBuilder &g, ValueRange og,
                           Grads &in) {
  double sigma = attrF(op, "scalar", 1.0);
  Value d = g.mulS(op->getOperand(0), sigma * sigma);
  d = g.scalarOp("mx._minimum_scalar", d, 1.0);
  d = g.scalarOp("mx._maximum_scalar", d, -1.0);
  in[0] = g.mul(og[0], d);
  return success();
}

/// LeakyReLU: leaky, elu, selu, prelu, gelu (with mx.erf); rrelu is replaced
/// by its training form (random slopes, mx.random_uniform) in mx-autodiff.
LogicalResult leakyReluGrad(Operation *op, GradBuilder &g, ValueRange og,
                            Grads &in) {
  StringRef act = attrS(op, "act_type", "leaky");
  double slope = attrF(op, "slope", 0.25);
  Value x = op->getOperand(0), y = op->getResult(0), dy = og[0];
  Value pos = g.cmpS("greater", x, 0);
  if (act == "leaky") {
    // x > 0 ? 1 : slope
    in[0] = g.mul(dy, g.addS(g.mulS(pos, 1 - slope), slope));
    return success();
  }
  if (act == "elu" || act == "selu") {
    // elu: x > 0 ? 1 : y + slope; selu: lambda * (x > 0 ? 1 : alpha e^x) =
    // x > 0 ? lambda : y + lambda * alpha (float constants as in MXNet).
    double alpha = act == "elu"
                       ? slope
                       : double(float(1.6732632423543772848170429916717));
    double lambda =
        act == "elu" ? 1.0 : double(float(1.0507009873554804934193349852946));
    Value neg = g.addS(y, lambda * alpha);
    Value d = g.op("mx.where", {pos, g.mulS(g.onesLike(x), lambda), neg});
    in[0] = g.mul(dy, d);
    return success();
  }
  if (act == "prelu" && op->getNumOperands() == 2) {
    Value gamma = op->getOperand(1);
    auto xt = typeOf(x), gt = typeOf(gamma);
    // MXNet's expand_shape (as the forward): gamma's extents, right-aligned,
    // on data axes 0 and 1 where they match (or are 1); a view of gamma
    // with 1 on every other axis broadcasts.
    SmallVector<int64_t> view(xt.getRank(), 1);
    ArrayRef<int64_t> gs = gt.getShape(), xs = xt.getShape();
    int64_t s = static_cast<int64_t>(gs.size()) - 1;
    for (int64_t i = xt.getRank() - 1; i >= 0 && s >= 0; --i) {
      if (i > 1 || (xs[i] != gs[s] && gs[s] != 1))
        continue;
      view[i] = gs[s--];
    }
    if (s != -1)
      return unsupported(op, "a gamma shape that does not broadcast to data's axes 0 and 1");
    Value gv = g.reshape(gamma, view);
    // x > 0 ? 1 : gamma
    Value notPos = g.rsubS(pos, 1);
    Value d = g.add(pos, g.mul(notPos, gv));
    in[0] = g.mul(dy, d);
    // dgamma = sum over all but the channel axis of dy * x * (x <= 0)
    Value dg = g.mul(dy, g.mul(x, notPos));
    auto viewType = RankedTensorType::get(view, xt.getElementType());
    in[1] = g.reshape(g.reduceToShape(dg, viewType), gt.getShape());
    return success();
  }
  if (act == "gelu") {
    // d/dx 0.5 x (1 + erf(x / sqrt 2)) =
    //   0.5 (1 + erf(x / sqrt 2)) + x exp(-x^2 / 2) / sqrt(2 pi)
    OpBuilder &b = g.builder();
    Value scaled = g.mulS(x, M_SQRT1_2);
    if (!scaled)
      return failure();
    Value erf = ErfOp::create(b, g.location(), scaled);
    Value cdf = g.mulS(g.addS(erf, 1.0), 0.5);
    Value pdf = g.mulS(g.exp(g.mulS(g.square(x), -0.5)),
                       1.0 / std::sqrt(2.0 * M_PI));
    in[0] = g.mul(dy, g.add(cdf, g.mul(x, pdf)));
    return success();
  }
  return unsupported(op, "act_type '" + act + "'");
}

LogicalResult clipGrad(Operation *op, GradBuilder &g, ValueRange og,
                       Grads &in) {
  Value x = op->getOperand(0);
  if (!isFloatTensor(x))
    return success();
  Value inside = g.mul(g.cmpS("greater_equal", x, attrF(op, "a_min", 0)),
                       g.cmpS("lesser_equal", x, attrF(op, "a_max", 0)));
  in[0] = g.mul(og[0], inside);
  return success();
}

LogicalResult castGrad(Operation *op, GradBuilder &g, ValueRange og,
                       Grads &in) {
  // _backward_cast: the head gradient cast back to the input's type,
  // integers included (an integer argument's gradient is asked for by name)
  Value x = op->getOperand(0);
  in[0] = g.cast(og[0], typeOf(x).getElementType());
  return success();
}

/// The axes a sum/mean/max/min reduces (sorted, non-negative).
SmallVector<int64_t> reducedAxes(Operation *op, int64_t rank) {
  auto axisAttr = op->getAttrOfType<DenseI64ArrayAttr>("axis");
  bool exclude = attrB(op, "exclude", false);
  SmallVector<bool> reduced(rank, false);
  if (!axisAttr || axisAttr.empty()) {
    reduced.assign(rank, true);
  } else {
    for (int64_t a : axisAttr.asArrayRef())
      reduced[a < 0 ? a + rank : a] = true;
    if (exclude)
      for (auto &&r : reduced)
        r = !r;
  }
  SmallVector<int64_t> axes;
  for (int64_t i = 0; i < rank; ++i)
    if (reduced[i])
      axes.push_back(i);
  return axes;
}

LogicalResult reduceGrad(Operation *op, GradBuilder &g, ValueRange og,
                         Grads &in) {
  StringRef name = op->getName().getStringRef();
  Value x = op->getOperand(0), y = op->getResult(0);
  // integers: sum's gradient (MXNet's, in the integer type); the others none
  if (!isFloatTensor(x) && name != "mx.sum")
    return success();
  auto xt = typeOf(x);
  SmallVector<int64_t> axes = reducedAxes(op, xt.getRank());
  SmallVector<int64_t> keep(xt.getShape());
  int64_t count = 1;
  for (int64_t a : axes) {
    count *= keep[a];
    keep[a] = 1;
  }
  Value dyKeep = g.reshape(og[0], keep);
  if (name == "mx.sum" || name == "mx.mean") {
    Value d = g.broadcastLike(dyKeep, x);
    in[0] = name == "mx.mean" ? g.mulS(d, 1.0 / double(count)) : d;
    return success();
  }
  if (name == "mx.nansum") { // NaN elements get none
    in[0] = g.mul(g.broadcastLike(dyKeep, x), g.cmp("equal", x, x));
    return success();
  }
  if (name == "mx.prod" || name == "mx.nanprod") {
    // out / x (ReduceAxesBackwardUseInOut<rdiv>: inf / nan at x = 0, as
    // MXNet); nanprod: 0 at NaN elements (nanprod_grad)
    Value d = g.div(g.reshape(y, keep), x);
    if (name == "mx.nanprod")
      d = g.op("mx.where", {g.cmp("equal", x, x), d, g.zerosLike(x)});
    in[0] = g.mul(d, dyKeep);
    return success();
  }
  // max / min: every element equal to the extreme gets the gradient.
  Value mask = g.cmp("equal", x, g.reshape(y, keep));
  in[0] = g.mul(mask, dyKeep);
  return success();
}

/// dot and batch_dot: with A = op(a), B = op(b) (op = transpose or not),
/// dA = dY B^T and dB = A^T dY, expressed with the same op's transpose
/// flags. dot's operands are viewed as matrices (leading axes of lhs and
/// trailing axes of rhs flattened; vectors as 1xK / Kx1).
LogicalResult dotGrad(Operation *op, GradBuilder &g, ValueRange og,
                      Grads &in) {
  bool batch = op->getName().getStringRef() == "mx.batch_dot";
  StringRef opName = batch ? "mx.batch_dot" : "mx.dot";
  bool ta = attrB(op, "transpose_a", false), tb = attrB(op, "transpose_b", false);
  Value a = op->getOperand(0), b = op->getOperand(1), dy = og[0];
  auto at = typeOf(a), bt = typeOf(b);
  Value a2 = a, b2 = b, dy2 = dy;
  if (!batch) {
    // MXNet's 2-D views (DotForward_): lhs (rest, last), transposed
    // (first, rest); rhs (first, rest), transposed (rest, last).
    auto numel = [](ArrayRef<int64_t> s) {
      int64_t n = 1;
      for (int64_t e : s)
        n *= e;
      return n;
    };
    SmallVector<int64_t> as, bs;
    if (at.getRank() == 1)
      as = {1, at.getDimSize(0)};
    else if (ta)
      as = {at.getDimSize(0), numel(at.getShape().drop_front())};
    else
      as = {numel(at.getShape().drop_back()), at.getShape().back()};
    if (bt.getRank() == 1)
      bs = {bt.getDimSize(0), 1};
    else if (tb)
      bs = {numel(bt.getShape().drop_back()), bt.getShape().back()};
    else
      bs = {bt.getDimSize(0), numel(bt.getShape().drop_front())};
    int64_t m = ta ? as[1] : as[0], n = tb ? bs[0] : bs[1];
    a2 = g.reshape(a, as);
    b2 = g.reshape(b, bs);
    dy2 = g.reshape(dy, {m, n});
  }
  auto mm = [&](Value l, Value r, bool t1, bool t2) {
    return g.op(opName, {l, r},
                {g.boolean("transpose_a", t1), g.boolean("transpose_b", t2)});
  };
  Value da, db;
  if (!ta && !tb) {
    da = mm(dy2, b2, false, true);
    db = mm(a2, dy2, true, false);
  } else if (!ta && tb) {
    da = mm(dy2, b2, false, false);
    db = mm(dy2, a2, true, false);
  } else if (ta && !tb) {
    da = mm(b2, dy2, false, true);
    db = mm(a2, dy2, false, false);
  } else {
    da = mm(b2, dy2, true, true);
    db = mm(dy2, a2, true, true);
  }
  in[0] = g.reshape(da, at.getShape());
  in[1] = g.reshape(db, bt.getShape());
  return success();
}

/// broadcast_to / broadcast_axis / broadcast_like: the gradient summed back
/// to the input's shape (broadcast_like's rhs, only read for its shape, gets
/// none).
LogicalResult broadcastToGrad(Operation *op, GradBuilder &g, ValueRange og,
                              Grads &in) {
  in[0] = g.reduceToShape(og[0], typeOf(op->getOperand(0)));
  return success();
}

/// The gradient of a gather along `axis` of a tensor of type `aType` at
/// `idx` (take, Embedding): one_hot of the in-range index (truncated, then
/// clipped or wrapped, as the forward) times the head gradient, contracted
/// over the index positions by one dot: repeated indices add up, as MXNet's
/// _backward_take / _backward_Embedding (AddTakeGrad).
static Value gatherGrad(Operation *op, GradBuilder &g, Value dy, Value idx,
                        RankedTensorType aType, int64_t axis, bool wrap) {
  StringRef dtype = getMXNetDTypeName(aType.getElementType());
  ArrayRef<int64_t> a = aType.getShape();
  int64_t rank = aType.getRank(), n = a[axis];
  ArrayRef<int64_t> idxShape = GradBuilder::typeOf(idx).getShape();
  int64_t m = idxShape.size(), count = 1, rest = 1;
  for (int64_t x : idxShape)
    count *= x;
  SmallVector<int64_t> others; // a's shape without the axis
  for (int64_t d = 0; d < rank; ++d)
    if (d != axis) {
      others.push_back(a[d]);
      rest *= a[d];
    }
  Value i = g.cast(idx, Float64Type::get(op->getContext()));
  i = g.op("mx.trunc", i, {});
  if (wrap) // i - n * floor(i / n): Python's modulo, as MXNet's wrap
    i = g.sub(i, g.mulS(g.op("mx.floor", g.mulS(i, 1.0 / double(n)), {}),
                        double(n)));
  else
    i = g.op("mx.clip", i, {g.f64("a_min", 0.0), g.f64("a_max", double(n - 1))});
  Value hot = g.op("mx.one_hot", g.reshape(i, {count}),
                   {g.i64("depth", n), g.str("dtype", dtype)}); // (count, n)
  // dy: a[:axis] x idx x a[axis+1:] -> idx x a[:axis] x a[axis+1:]
  SmallVector<int64_t> perm;
  for (int64_t d = axis; d < axis + m; ++d)
    perm.push_back(d);
  for (int64_t d = 0; d < axis; ++d)
    perm.push_back(d);
  for (int64_t d = axis + m; d < rank - 1 + m; ++d)
    perm.push_back(d);
  if (!llvm::is_sorted(perm))
    dy = g.op("mx.transpose", dy, {g.shape("axes", perm)});
  dy = g.reshape(dy, {count, rest});
  Value da = g.op("mx.dot", {hot, dy}, {g.boolean("transpose_a", true)});
  SmallVector<int64_t> lead{n};
  lead.append(others.begin(), others.end());
  da = g.reshape(da, lead); // n x a[:axis] x a[axis+1:]
  if (axis != 0) {
    SmallVector<int64_t> back;
    for (int64_t d = 1; d <= axis; ++d)
      back.push_back(d);
    back.push_back(0);
    for (int64_t d = axis + 1; d < rank; ++d)
      back.push_back(d);
    da = g.op("mx.transpose", da, {g.shape("axes", back)});
  }
  return da;
}

LogicalResult takeGrad(Operation *op, GradBuilder &g, ValueRange og,
                       Grads &in) {
  auto take = cast<TakeOp>(op);
  RankedTensorType aType = typeOf(take.getA());
  int64_t axis = static_cast<int64_t>(take.getAxis());
  if (axis < 0)
    axis += aType.getRank();
  if (isFloatTensor(take.getA())) {
    in[0] = gatherGrad(op, g, og[0], take.getIndices(), aType, axis,
                       take.getMode() == "wrap");
    return success();
  }
  // integer data (a gradient asked for by name): scattered in f64, cast back
  Type f64 = Float64Type::get(op->getContext());
  Value d = gatherGrad(op, g, g.cast(og[0], f64), take.getIndices(),
                       RankedTensorType::get(aType.getShape(), f64), axis,
                       take.getMode() == "wrap");
  in[0] = g.cast(d, aType.getElementType());
  return success();
}

LogicalResult embeddingGrad(Operation *op, GradBuilder &g, ValueRange og,
                            Grads &in) {
  auto emb = cast<EmbeddingOp>(op);
  in[1] = gatherGrad(op, g, og[0], emb.getData(), typeOf(emb.getWeight()),
                     /*axis=*/0, /*wrap=*/false);
  return success();
}

/// topk (ret_typ value / both): MXNet's _backward_topk, the values' head
/// gradient added at the positions they were taken from, zero elsewhere;
/// indices and masks have no gradient. Built as one_hot(positions, n) * dy
/// summed over the k axis (O(k * n) per row) on the data seen as
/// (outer, n, inner).
LogicalResult topkGrad(Operation *op, GradBuilder &g, ValueRange og,
                       Grads &in) {
  auto t = cast<TopkOp>(op);
  StringRef ret = t.getRetTyp();
  if (ret != "value" && ret != "both")
    return success();
  RankedTensorType dt = typeOf(t.getData());
  ArrayRef<int64_t> shape = dt.getShape();
  OrderRows rows = orderRows(shape, t.getAxis());
  int64_t outer = rows.outer, n = rows.n, inner = rows.inner;
  int64_t k = typeOf(og[0]).getNumElements() / (outer * inner);
  Value pos = g.reshape(g.cast(t->getResult(1), dt.getElementType()),
                        {outer, k, inner});
  Value hot = g.op("mx.one_hot", pos,
                   {g.i64("depth", n),
                    g.str("dtype", getMXNetDTypeName(dt.getElementType()))});
  Value picked = g.mul(hot, g.reshape(og[0], {outer, k, inner, 1}));
  Value sum = g.op("mx.sum", picked, {g.shape("axis", {1})}); // outer, inner, n
  sum = g.op("mx.transpose", sum, {g.shape("axes", {0, 2, 1})});
  in[0] = g.reshape(sum, shape);
  return success();
}

/// _contrib_box_nms (nms_backward): each result row's gradient back at its
/// source row, from the hidden positions (batch * num + i, or -1): per
/// batch a one_hot of the positions local to it (out of range for -1) and
/// a batch_dot with the head gradient.
LogicalResult boxNmsGrad(Operation *op, GradBuilder &g, ValueRange og, Grads &in) {
  auto nms = cast<ContribBoxNmsOp>(op);
  RankedTensorType dt = typeOf(nms.getData());
  ArrayRef<int64_t> d = dt.getShape();
  int64_t num = d[d.size() - 2], width = d.back(), batch = 1;
  for (int64_t e : d.drop_back(2))
    batch *= e;
  StringRef dtype = getMXNetDTypeName(dt.getElementType());
  Value pos = g.reshape(nms->getResult(1), {batch, num});
  Value start = g.mulS(g.op("mx._arange", {},
                            {g.f64("start", 0.0), g.f64("stop", double(batch)),
                             g.f64("step", 1.0), g.str("dtype", dtype)}),
                       double(num));
  Value local = g.sub(pos, g.reshape(start, {batch, 1}));
  Value hot = g.op("mx.one_hot", local, {g.i64("depth", num), g.str("dtype", dtype)});
  Value grad = g.op("mx.batch_dot", {hot, g.reshape(og[0], {batch, num, width})},
                    {g.boolean("transpose_a", true)});
  in[0] = g.reshape(grad, d);
  return success();
}

/// _linalg_syevd (la_op-inl.h syevd_backward): with T = dU U^T,
/// dA = U^T (diag(dL) + F) U, F_ij = (T_ij - T_ji) / (2 (L_i - L_j)) off
/// the diagonal; a missing head gradient counts as zero.
LogicalResult syevdGrad(Operation *op, GradBuilder &g, ValueRange og, Grads &in) {
  auto sy = cast<LinalgSyevdOp>(op);
  RankedTensorType at = typeOf(sy.getA());
  ArrayRef<int64_t> d = at.getShape();
  int64_t n = d.back(), batch = n ? at.getNumElements() / (n * n) : 0;
  StringRef dtype = getMXNetDTypeName(at.getElementType());
  Value u = g.reshape(sy->getResult(0), {batch, n, n});
  Value l = g.reshape(sy->getResult(1), {batch, n});
  Value idx = g.op("mx._arange", {}, {g.f64("start", 0.0), g.f64("stop", double(n)),
                                      g.f64("step", 1.0), g.str("dtype", dtype)});
  Value eye = g.cmp("equal", g.reshape(idx, {1, n, 1}), g.reshape(idx, {1, 1, n}));
  Value mid;
  if (og[1])
    mid = g.mul(eye, g.reshape(og[1], {batch, 1, n}));
  if (og[0]) {
    Value t = g.op("mx.batch_dot", {g.reshape(og[0], {batch, n, n}), u},
                   {g.boolean("transpose_b", true)});
    Value anti = g.sub(t, g.op("mx.transpose", t, {g.shape("axes", {0, 2, 1})}));
    Value diff = g.sub(g.reshape(l, {batch, n, 1}), g.reshape(l, {batch, 1, n}));
    Value f = g.div(anti, g.add(g.mulS(diff, 2.0), eye)); // diagonal: 0 / 1
    mid = mid ? g.add(mid, f) : f;
  }
  if (!mid)
    return success();
  Value left = g.op("mx.batch_dot", {u, mid}, {g.boolean("transpose_a", true)});
  in[0] = g.reshape(g.op("mx.batch_dot", {left, u}), d);
  return success();
}

/// _linalg_inverse (inverse_backward): dA = -Y^T dY Y^T; _linalg_det
/// (det_backward): dA = dDet * det * A^-T; _linalg_slogdet: dA = dLogabsdet
/// * A^-T (none through the sign). A^-T from the op's inverse.
LogicalResult luGrad(Operation *op, GradBuilder &g, ValueRange og, Grads &in) {
  Value a = op->getOperand(0);
  RankedTensorType at = typeOf(a);
  ArrayRef<int64_t> d = at.getShape();
  int64_t n = d.back(), batch = n ? at.getNumElements() / (n * n) : 0;
  auto tr = [&](Value v) { return g.op("mx.transpose", v, {g.shape("axes", {0, 2, 1})}); };
  if (isa<LinalgInverseOp>(op)) {
    if (!og[0])
      return success();
    Value yt = tr(g.reshape(op->getResult(0), {batch, n, n}));
    Value dy = g.reshape(og[0], {batch, n, n});
    in[0] = g.reshape(g.neg(g.op("mx.batch_dot", {g.op("mx.batch_dot", {yt, dy}), yt})), d);
    return success();
  }
  Value scale;
  if (isa<LinalgDetOp>(op)) {
    if (!og[0])
      return success();
    scale = g.mul(g.reshape(og[0], {batch, 1, 1}), g.reshape(op->getResult(0), {batch, 1, 1}));
  } else {
    if (!og[1])
      return success();
    scale = g.reshape(og[1], {batch, 1, 1});
  }
  Value invT = tr(g.op("mx._linalg_inverse", g.reshape(a, {batch, n, n})));
  in[0] = g.reshape(g.mul(invT, scale), d);
  return success();
}

/// _contrib_bipartite_matching, _contrib_MultiBox{Target,Detection},
/// _contrib_{Multi,}Proposal: zero for every input, as MXNet's backward.
LogicalResult zeroGrad(Operation *op, GradBuilder &g, ValueRange og, Grads &in) {
  for (unsigned i = 0; i < op->getNumOperands(); ++i)
    in[i] = g.zerosLike(op->getOperand(i));
  return success();
}

/// reverse: the head gradient reversed along the same axes.
LogicalResult reverseGrad(Operation *op, GradBuilder &g, ValueRange og,
                          Grads &in) {
  in[0] = g.op("mx.reverse", og[0],
               {g.shape("axis", cast<ReverseOp>(op).getAxis())});
  return success();
}

/// pick: the output gradient at the picked element of each position, zero
/// elsewhere (MXNet's _backward_pick): one_hot of the clipped index, its
/// one-hot axis moved to `axis`, times the gradient; none for the index.
LogicalResult pickGrad(Operation *op, GradBuilder &g, ValueRange og,
                       Grads &in) {
  auto pick = cast<PickOp>(op);
  RankedTensorType dataType = typeOf(pick.getData());
  int64_t rank = dataType.getRank();
  int64_t axis = static_cast<int64_t>(pick.getAxis());
  if (axis < 0)
    axis += rank;
  int64_t extent = dataType.getShape()[axis];
  if (pick.getMode() == "wrap")
    return op->emitError() << "pick: the gradient of mode='wrap' is not "
                              "supported (mode='clip' has one)";
  Type elt = dataType.getElementType();
  StringRef dtype = elt.isF32()    ? "float32"
                    : elt.isF64()  ? "float64"
                    : elt.isF16()  ? "float16"
                    : elt.isBF16() ? "bfloat16"
                                   : "";
  if (dtype.empty())
    return op->emitError() << "pick: no gradient for data of type " << elt;
  SmallVector<int64_t> drop(dataType.getShape());
  drop.erase(drop.begin() + axis);
  SmallVector<int64_t> keep(dataType.getShape());
  keep[axis] = 1;
  Value idx = g.op("mx.clip", pick.getIndex(),
                   {g.f64("a_min", 0.0), g.f64("a_max", double(extent - 1))});
  Value hot = g.op("mx.one_hot", g.reshape(idx, drop.empty() ? ArrayRef<int64_t>{1}
                                                             : ArrayRef<int64_t>(drop)),
                   {g.i64("depth", extent), g.str("dtype", dtype)});
  if (drop.empty()) {
    hot = g.reshape(hot, {extent});
  } else if (axis != rank - 1) {
    SmallVector<int64_t> perm;
    for (int64_t d = 0; d < rank - 1; ++d) {
      if (d == axis)
        perm.push_back(rank - 1);
      perm.push_back(d);
    }
    hot = g.op("mx.transpose", hot, {g.shape("axes", perm)});
  }
  in[0] = g.mul(hot, g.reshape(og[0], keep));
  return success();
}

LogicalResult transposeGrad(Operation *op, GradBuilder &g, ValueRange og,
                            Grads &in) {
  int64_t rank = typeOf(op->getOperand(0)).getRank();
  SmallVector<int64_t> axes;
  if (auto a = op->getAttrOfType<DenseI64ArrayAttr>("axes"))
    axes.assign(a.asArrayRef().begin(), a.asArrayRef().end());
  if (axes.empty())
    for (int64_t i = rank - 1; i >= 0; --i)
      axes.push_back(i);
  SmallVector<int64_t> inv(rank);
  for (int64_t i = 0; i < rank; ++i)
    inv[axes[i] < 0 ? axes[i] + rank : axes[i]] = i;
  in[0] = g.op("mx.transpose", og[0], {g.shape("axes", inv)});
  return success();
}

/// SwapAxis: the same swap on the gradient.
LogicalResult swapAxisGrad(Operation *op, GradBuilder &g, ValueRange og,
                           Grads &in) {
  in[0] = g.op("mx.SwapAxis", og[0],
               {g.i64("dim1", attrI(op, "dim1", 0)),
                g.i64("dim2", attrI(op, "dim2", 0))});
  return success();
}

/// A slice of `v` along `axis`: [begin, end).
Value sliceAxis(GradBuilder &g, Value v, int64_t axis, int64_t begin,
                int64_t end) {
  return g.op("mx.slice_axis", v,
              {g.i64("axis", axis), g.i64("begin", begin), g.i64("end", end)});
}

LogicalResult sliceAxisGrad(Operation *op, GradBuilder &g, ValueRange og,
                            Grads &in) {
  Value x = op->getOperand(0);
  auto xt = typeOf(x);
  int64_t rank = xt.getRank();
  int64_t axis = attrI(op, "axis", 0);
  if (axis < 0)
    axis += rank;
  int64_t n = xt.getDimSize(axis);
  int64_t begin = attrI(op, "begin", 0);
  if (begin < 0)
    begin += n;
  int64_t end = attrI(op, "end", n);
  if (end < 0)
    end += n;
  SmallVector<Value> parts;
  if (begin > 0)
    parts.push_back(g.zerosLike(sliceAxis(g, x, axis, 0, begin)));
  parts.push_back(og[0]);
  if (end < n)
    parts.push_back(g.zerosLike(sliceAxis(g, x, axis, end, n)));
  if (parts.size() == 1) {
    in[0] = og[0];
    return success();
  }
  in[0] = g.op("mx.Concat", parts,
               {g.i64("num_args", int64_t(parts.size())), g.i64("dim", axis)});
  return success();
}

/// slice family (matrix_op-inl.h SliceOpBackward, _backward_slice_assign):
///   slice                 dx = _slice_assign(zeros_like(x), dy)
///   _slice_assign         dlhs = _slice_assign_scalar(dy, 0), drhs = slice(dy)
///   _slice_assign_scalar  ddata = _slice_assign_scalar(dy, 0)
/// all with the op's begin / end / step.
LogicalResult sliceFamilyGrad(Operation *op, GradBuilder &g, ValueRange og,
                              Grads &in) {
  SmallVector<NamedAttribute> region;
  for (StringRef name : {"begin", "end", "step"})
    if (auto a = op->getAttrOfType<StringAttr>(name))
      region.push_back(g.str(name, a.getValue()));
  auto zeroed = [&](Value v) {
    SmallVector<NamedAttribute> attrs(region);
    attrs.push_back(g.f64("scalar", 0.0));
    return g.op("mx._slice_assign_scalar", v, attrs);
  };
  if (isa<SliceOp>(op)) {
    // A slice of the spatial axes of 4-D / 5-D data, step 1: its gradient is
    // Pad's constant 0 border, one pass over the result (_slice_assign into
    // zeros: a fill and a copy, 7x the time for a 512 x 512 x 3 x 3 weight's
    // centre taps, mx-autodiff's convolution rewrite).
    auto xt = typeOf(op->getOperand(0));
    auto attr = [&](StringRef name) {
      auto a = op->getAttrOfType<StringAttr>(name);
      return a ? a.getValue() : StringRef();
    };
    FailureOr<SliceGeometry> geo = failure();
    if (xt.hasStaticShape())
      geo = sliceGeometry(std::nullopt, "slice", xt.getShape(), attr("begin"),
                          attr("end"), attr("step"));
    int64_t rank = xt.getRank();
    // (Pad takes floating-point data only: an integer array's gradient is
    // _slice_assign's)
    bool padded = succeeded(geo) && (rank == 4 || rank == 5) &&
                  isa<FloatType>(xt.getElementType());
    SmallVector<int64_t> padWidth;
    for (int64_t i = 0; padded && i < rank; ++i) {
      int64_t before = geo->first[i], after = xt.getDimSize(i) - before - geo->size[i];
      // (an empty slice: _slice_assign, Pad has nothing to read)
      padded = geo->step[i] == 1 && geo->size[i] > 0 && after >= 0 &&
               (i >= 2 || before + after == 0);
      padWidth.append({before, after});
    }
    if (padded) {
      in[0] = g.op("mx.Pad", og[0],
                   {g.str("mode", "constant"), g.shape("pad_width", padWidth),
                    g.f64("constant_value", 0.0)});
      return success();
    }
    in[0] = g.op("mx._slice_assign",
                 {g.zerosLike(op->getOperand(0)), og[0]}, region);
  } else if (isa<SliceAssignOp>(op)) {
    in[0] = zeroed(og[0]);
    in[1] = g.op("mx.slice", og[0], region);
  } else {
    in[0] = zeroed(og[0]);
  }
  return success();
}

/// depth_to_space / space_to_depth: the inverse operator on the gradient.
LogicalResult depthSpaceGrad(Operation *op, GradBuilder &g, ValueRange og,
                             Grads &in) {
  StringRef inverse = isa<DepthToSpaceOp>(op) ? "mx.space_to_depth"
                                              : "mx.depth_to_space";
  in[0] = g.op(inverse, og[0], {g.i64("block_size", attrI(op, "block_size", 1))});
  return success();
}

/// slice_like: the gradient padded with zeros back to data's extents, one
/// axis at a time (zeros of the missing part: a zero slice of data,
/// broadcast); shape_like gets none.
LogicalResult sliceLikeGrad(Operation *op, GradBuilder &g, ValueRange og,
                            Grads &in) {
  Value x = op->getOperand(0), cur = og[0];
  ArrayRef<int64_t> full = typeOf(x).getShape();
  int64_t rank = full.size();
  Value zero1 = x; // data sliced to extent 1 on every axis, zeroed
  for (int64_t a = 0; a < rank; ++a)
    zero1 = sliceAxis(g, zero1, a, 0, 1);
  zero1 = g.zerosLike(zero1);
  for (int64_t a = 0; a < rank; ++a) {
    SmallVector<int64_t> shape(typeOf(cur).getShape());
    if (shape[a] == full[a])
      continue;
    shape[a] = full[a] - shape[a];
    Value zeros = g.op("mx.broadcast_to", zero1, {g.shape("shape", shape)});
    cur = g.op("mx.Concat", {cur, zeros}, {g.i64("num_args", 2), g.i64("dim", a)});
  }
  in[0] = cur;
  return success();
}

/// Pad: one padded axis at a time, the gradient's centre; edge and reflect
/// add each border element's gradient where it was read from (edge: the
/// border's sum at the first / last element; reflect: the border reversed at
/// 1..before and n-1-after..n-2), as MXNet's pad backward kernels.
LogicalResult padGrad(Operation *op, GradBuilder &g, ValueRange og,
                      Grads &in) {
  auto pad = cast<PadOp>(op);
  ArrayRef<int64_t> shape = typeOf(pad.getData()).getShape();
  ArrayRef<int64_t> width = pad.getPadWidth();
  StringRef mode = pad.getMode();
  Value cur = og[0];
  for (int64_t d = 0; d < int64_t(shape.size()); ++d) {
    int64_t before = width[2 * d], after = width[2 * d + 1], n = shape[d];
    if (!before && !after)
      continue;
    Value centre = sliceAxis(g, cur, d, before, before + n);
    if (mode != "constant") {
      // addend of extent n along d: zeros, the contribution, zeros
      auto placed = [&](Value part, int64_t at) {
        int64_t len = typeOf(part).getShape()[d];
        SmallVector<Value> parts;
        if (at > 0)
          parts.push_back(g.zerosLike(sliceAxis(g, centre, d, 0, at)));
        parts.push_back(part);
        if (at + len < n)
          parts.push_back(g.zerosLike(sliceAxis(g, centre, d, at + len, n)));
        if (parts.size() == 1)
          return part;
        return g.op("mx.Concat", parts,
                    {g.i64("num_args", int64_t(parts.size())), g.i64("dim", d)});
      };
      auto border = [&](int64_t from, int64_t to, bool first) {
        Value part = sliceAxis(g, cur, d, from, to);
        if (mode == "edge")
          return placed(g.op("mx.sum", part,
                             {g.shape("axis", {d}), g.boolean("keepdims", true)}),
                        first ? 0 : n - 1);
        part = g.op("mx.reverse", part, {g.shape("axis", {d})});
        return placed(part, first ? 1 : n - 1 - (to - from));
      };
      if (before)
        centre = g.add(centre, border(0, before, true));
      if (after)
        centre = g.add(centre, border(before + n, before + n + after, false));
    }
    cur = centre;
  }
  in[0] = cur;
  return success();
}

LogicalResult concatGrad(Operation *op, GradBuilder &g, ValueRange og,
                         Grads &in) {
  int64_t rank = typeOf(op->getResult(0)).getRank();
  int64_t dim = attrI(op, "dim", 1);
  if (dim < 0)
    dim += rank;
  int64_t offset = 0;
  for (auto [i, v] : llvm::enumerate(op->getOperands())) {
    int64_t e = typeOf(v).getDimSize(dim);
    in[i] = sliceAxis(g, og[0], dim, offset, offset + e);
    offset += e;
  }
  return success();
}

LogicalResult softmaxGrad(Operation *op, GradBuilder &g, ValueRange og,
                          Grads &in) {
  bool isLog = op->getName().getStringRef() == "mx.log_softmax";
  // softmax with use_length: masked elements are 0 in y, so y * (dy -
  // sum(dy * y)) gives them no gradient and sums over the valid prefix only;
  // `length` gets none.
  if (isLog && attrB(op, "use_length", false))
    return unsupported(op, "use_length");
  Value x = op->getOperand(0), y = op->getResult(0);
  int64_t rank = typeOf(x).getRank();
  int64_t axis = attrI(op, "axis", -1);
  if (axis < 0)
    axis += rank;
  double t = attrF(op, "temperature", 1.0);
  // mx.softmax_backward (MXBackwardOps.td): (dy - exp(y) * sum(dy)) for
  // log_softmax, y * (dy - sum(dy * y)) for softmax, then / t; one op so
  // that the CUDA target calls cuDNN's gradient for it.
  Value dy = og[0];
  Value dx = SoftmaxBackwardOp::create(g.builder(), op->getLoc(), y.getType(), dy,
                                       y, g.builder().getI64IntegerAttr(axis),
                                       g.builder().getBoolAttr(isLog));
  if (t != 1.0)
    dx = g.mulS(dx, 1.0 / t);
  in[0] = g.cast(dx, typeOf(x).getElementType());
  return success();
}

LogicalResult whereGrad(Operation *op, GradBuilder &g, ValueRange og,
                        Grads &in) {
  Value c = op->getOperand(0), dy = og[0];
  if (!isFloatTensor(dy))
    return success();
  Value zero = g.zerosLike(dy);
  in[1] = g.op("mx.where", {c, dy, zero});
  in[2] = g.op("mx.where", {c, zero, dy});
  return success();
}

/// SoftmaxOutput: MXNet's built-in gradient (see the file comment).
/// *RegressionOutput (RegressionBackward): (output - label), or its sign
/// for MAE, times grad_scale / num_output; the head gradient is ignored and
/// the label gets none.
LogicalResult regressionOutputGrad(Operation *op, GradBuilder &g, ValueRange,
                                   Grads &in) {
  Value label = op->getOperand(1), y = op->getResult(0);
  RankedTensorType lt = typeOf(label), yt = typeOf(y);
  double numOutput = double(lt.getNumElements()) / double(lt.getShape()[0]);
  double scale = attrF(op, "grad_scale", 1.0) / numOutput;
  Value d = g.sub(y, g.reshape(label, yt.getShape()));
  if (isa<MAERegressionOutputOp>(op))
    d = g.op("mx.sign", d, {});
  in[0] = g.mulS(d, scale);
  return success();
}

/// SVMOutput (svm_output.cc L1_SVM / L2_SVM) on rows of data's last axis:
/// m = +1 at the label's class, -1 elsewhere; the L1-SVM's gradient is
/// -m * c * [margin - m*x > 0], the L2-SVM's -2 * m * c * max(margin - m*x, 0)
/// (c: regularization_coefficient). The head gradient is ignored and the
/// label gets none.
LogicalResult svmOutputGrad(Operation *op, GradBuilder &g, ValueRange,
                            Grads &in) {
  Value label = op->getOperand(1), y = op->getResult(0);
  RankedTensorType yt = typeOf(y);
  ArrayRef<int64_t> ys = yt.getShape();
  int64_t cols = ys.back(), rows = yt.getNumElements() / std::max<int64_t>(cols, 1);
  double margin = attrF(op, "margin", 1.0);
  double coef = attrF(op, "regularization_coefficient", 1.0);
  StringRef dtype = getMXNetDTypeName(yt.getElementType());
  Value oh = g.op("mx.one_hot", g.reshape(label, {rows}),
                  {g.i64("depth", cols), g.f64("on_value", 1.0),
                   g.f64("off_value", -1.0), g.str("dtype", dtype)});
  Value x = g.reshape(y, {rows, cols});
  // slack = margin - m * x
  Value slack = g.scalarOp("mx._rminus_scalar", g.mul(oh, x), margin);
  Value d;
  if (attrB(op, "use_linear", false))
    d = g.mulS(g.mul(oh, g.cmpS("greater", slack, 0.0)), -coef);
  else
    d = g.mulS(g.mul(oh, g.scalarOp("mx._maximum_scalar", slack, 0.0)),
               -2.0 * coef);
  in[0] = g.reshape(d, ys);
  return success();
}

LogicalResult softmaxOutputGrad(Operation *op, GradBuilder &g, ValueRange og,
                                Grads &in) {
  Value x = op->getOperand(0), label = op->getOperand(1),
        p = op->getResult(0), dy = og[0];
  auto xt = typeOf(x), lt = typeOf(label);
  ArrayRef<int64_t> xs = xt.getShape();
  double scale = attrF(op, "grad_scale", 1.0);
  double ignore = attrF(op, "ignore_label", -1.0);
  bool useIgnore = attrB(op, "use_ignore", false);
  bool outGrad = attrB(op, "out_grad", false);
  double alpha = attrF(op, "smooth_alpha", 0.0);
  StringRef norm = attrS(op, "normalization", "null");
  StringRef dtype = getMXNetDTypeName(xt.getElementType());
  auto numel = [](ArrayRef<int64_t> s) {
    int64_t n = 1;
    for (int64_t e : s)
      n *= e;
    return n;
  };

  if (lt.getShape() == xs) { // probabilities as labels
    Value d = g.mulS(g.sub(p, label), scale);
    in[0] = outGrad ? g.mul(d, dy) : d;
    return success();
  }
  /// count of labels != ignore_label, at least 1, as a (1,) tensor.
  auto validCount = [&]() {
    Value valid = g.cmpS("not_equal", label, ignore);
    SmallVector<int64_t> all;
    for (int64_t i = 0; i < lt.getRank(); ++i)
      all.push_back(i);
    Value cnt = g.op("mx.sum", valid, {g.shape("axis", all)});
    return g.scalarOp("mx._maximum_scalar", cnt, 1.0);
  };

  if (attrB(op, "multi_output", false)) {
    if (xt.getRank() < 2)
      return unsupported(op, "multi_output on rank < 2 data");
    int64_t n = xs[0], k = xs[1], s = numel(xs.drop_front(2));
    if (lt.getNumElements() != n * s)
      return unsupported(op, "this label shape");
    if (alpha != 0.0)
      return unsupported(op, "smooth_alpha and multi_output");
    Value l2 = g.reshape(label, {n, s});
    Value oh = g.op("mx.one_hot", l2,
                    {g.i64("depth", k), g.str("dtype", dtype)}); // (n, s, k)
    oh = g.op("mx.transpose", oh, {g.shape("axes", {0, 2, 1})});
    Value d = g.sub(g.reshape(p, {n, k, s}), oh);
    if (useIgnore)
      d = g.mul(d, g.reshape(g.cmpS("not_equal", l2, ignore), {n, 1, s}));
    if (norm == "valid") {
      d = g.div(d, g.reshape(validCount(), {1, 1, 1}));
      d = g.mulS(d, scale);
    } else {
      d = g.mulS(d, scale / double(s) / double(norm == "batch" ? n : 1));
    }
    d = g.reshape(d, xs);
    in[0] = outGrad ? g.mul(d, dy) : d;
    return success();
  }

  SmallVector<int64_t> s2;
  if (attrB(op, "preserve_shape", false))
    s2 = {numel(xs.drop_back()), xs.back()};
  else
    s2 = {xs[0], numel(xs.drop_front())};
  int64_t rows = lt.getNumElements();
  if (rows != s2[0])
    return unsupported(op, "this label shape");
  Value l1 = g.reshape(label, {rows});
  double on = 1.0, off = 0.0;
  if (alpha != 0.0) {
    on = 1.0 - alpha;
    off = s2[1] > 1 ? alpha / double(s2[1] - 1) : 0.0;
  }
  Value oh = g.op("mx.one_hot", l1,
                  {g.i64("depth", s2[1]), g.f64("on_value", on),
                   g.f64("off_value", off), g.str("dtype", dtype)});
  Value d = g.sub(g.reshape(p, s2), oh);
  if (useIgnore)
    d = g.mul(d, g.reshape(g.cmpS("not_equal", l1, ignore), {rows, 1}));
  if (norm == "valid")
    d = g.mulS(g.div(d, g.reshape(validCount(), {1, 1})), scale);
  else
    d = g.mulS(d, scale / double(norm == "batch" ? rows : 1));
  d = g.reshape(d, xs);
  in[0] = outGrad ? g.mul(d, dy) : d;
  return success();
}

} // namespace

void mxc::mx::registerTensorGradients(MXDialect &dialect) {
  MLIRContext *ctx = dialect.getContext();
  Rule<noGradient>::attach<
      BroadcastEqualOp, BroadcastNotEqualOp, BroadcastGreaterOp,
      BroadcastGreaterEqualOp, BroadcastLesserOp, BroadcastLesserEqualOp,
      EqualScalarOp, NotEqualScalarOp, GreaterScalarOp, GreaterEqualScalarOp,
      LesserScalarOp, LesserEqualScalarOp, BroadcastLogicalAndOp, BroadcastLogicalOrOp,
      BroadcastLogicalXorOp, LogicalAndScalarOp, LogicalOrScalarOp, LogicalXorScalarOp,
      ArgmaxOp, OneHotOp, ZerosLikeOp,
      OnesLikeOp, BlockGradOp, DropoutMaskOp, RandomUniformOp, ShapeArrayOp,
      SizeArrayOp, ZerosOp, OnesOp, FullOp, ArangeOp, EyeOp, ArangeLikeOp>(ctx);
  Rule<identityGrad>::attach<IdentityOp, IdentityWithAttrLikeRhsOp, ContribRoundSteOp,
                             ContribSignSteOp>(ctx);
  Rule<gradientMultiplierGrad>::attach<ContribGradientMultiplierOp>(ctx);
  Rule<reshapeGrad>::attach<ReshapeOp, FlattenOp, ExpandDimsOp, SqueezeOp>(ctx);
  Rule<reshapeLikeGrad>::attach<ReshapeLikeOp>(ctx);
  Rule<pickGrad>::attach<PickOp>(ctx);
  Rule<takeGrad>::attach<TakeOp>(ctx);
  Rule<embeddingGrad>::attach<EmbeddingOp>(ctx);
  Rule<broadcastToGrad>::attach<BroadcastToOp, BroadcastAxisOp,
                                BroadcastLikeOp>(ctx);
  Rule<reverseGrad>::attach<ReverseOp>(ctx);
  Rule<topkGrad>::attach<TopkOp>(ctx);
  Rule<boxNmsGrad>::attach<ContribBoxNmsOp>(ctx);
  Rule<syevdGrad>::attach<LinalgSyevdOp>(ctx);
  Rule<luGrad>::attach<LinalgInverseOp, LinalgDetOp, LinalgSlogdetOp>(ctx);
  Rule<zeroGrad>::attach<ContribBipartiteMatchingOp, ContribMultiBoxTargetOp,
                         ContribMultiBoxDetectionOp, ContribProposalOp,
                         ContribMultiProposalOp>(ctx);
  Rule<binaryGrad>::attach<ElemwiseAddOp, ElemwiseSubOp, ElemwiseMulOp,
                           ElemwiseDivOp, BroadcastAddOp, BroadcastSubOp,
                           BroadcastMulOp, BroadcastDivOp, BroadcastMaximumOp,
                           BroadcastMinimumOp, BroadcastPowerOp, HypotOp,
                           BroadcastHypotOp, ModOp, BroadcastModOp>(ctx);
  Rule<scalarGrad>::attach<PlusScalarOp, MinusScalarOp, RminusScalarOp,
                           MulScalarOp, DivScalarOp, RdivScalarOp,
                           PowerScalarOp, RpowerScalarOp, MaximumScalarOp,
                           MinimumScalarOp, HypotScalarOp, ModScalarOp,
                           RmodScalarOp>(ctx);
  Rule<unaryGrad>::attach<NegativeOp, AbsOp, SquareOp, SqrtOp, ExpOp, LogOp,
                          ReluOp, SigmoidOp, TanhOp, ActivationOp, SignOp,
                          RoundOp, RintOp, FloorOp, CeilOp, TruncOp, FixOp,
                          ReciprocalOp, RsqrtOp, Log1pOp, Expm1Op, Log2Op,
                          Log10Op, SinOp, CosOp, TanOp, ArcsinOp, ArccosOp,
                          ArctanOp, SinhOp, CoshOp, ArcsinhOp, ArccoshOp,
                          ArctanhOp, DegreesOp, RadiansOp, CbrtOp, RcbrtOp,
                          GammaOp, GammalnOp, ErfOp, ErfinvOp,
                          SoftsignOp>(
      ctx);
  Rule<hardSigmoidGrad>::attach<HardSigmoidOp>(ctx);
  Rule<smoothL1Grad>::attach<SmoothL1Op>(ctx);
  Rule<leakyReluGrad>::attach<LeakyReLUOp>(ctx);
  Rule<clipGrad>::attach<ClipOp>(ctx);
  Rule<castGrad>::attach<CastOp>(ctx);
  Rule<reduceGrad>::attach<SumOp, MeanOp, MaxOp, MinOp, ProdOp, NansumOp,
                           NanprodOp>(ctx);
  Rule<depthSpaceGrad>::attach<DepthToSpaceOp, SpaceToDepthOp>(ctx);
  Rule<sliceLikeGrad>::attach<SliceLikeOp>(ctx);
  Rule<padGrad>::attach<PadOp>(ctx);
  Rule<dotGrad>::attach<DotOp, BatchDotOp>(ctx);
  Rule<transposeGrad>::attach<TransposeOp>(ctx);
  Rule<swapAxisGrad>::attach<SwapAxisOp>(ctx);
  Rule<sliceAxisGrad>::attach<SliceAxisOp>(ctx);
  Rule<sliceFamilyGrad>::attach<SliceOp, SliceAssignOp, SliceAssignScalarOp>(
      ctx);
  Rule<concatGrad>::attach<ConcatOp>(ctx);
  Rule<softmaxGrad>::attach<SoftmaxOp, LogSoftmaxOp>(ctx);
  Rule<whereGrad>::attach<WhereOp>(ctx);
  Rule<softmaxOutputGrad>::attach<SoftmaxOutputOp>(ctx);
  Rule<svmOutputGrad>::attach<SVMOutputOp>(ctx);
  Rule<regressionOutputGrad>::attach<LinearRegressionOutputOp,
                                     MAERegressionOutputOp,
                                     LogisticRegressionOutputOp>(ctx);
}
