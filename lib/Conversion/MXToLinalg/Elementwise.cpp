//===- Elementwise.cpp - mx -> linalg: elementwise ops --------------------===//
//
// Unary, binary, broadcast and scalar arithmetic, Activation, LeakyReLU, clip,
// where and Cast share one template, ConvertElementwise: the op supplies its
// operands, how each is read (numpy broadcasting by default) and a scalar
// payload; the template emits one linalg.generic over the result.
// zeros_like / ones_like become linalg.fill; identity, BlockGrad and
// inference-mode Dropout forward their input.
//
// Numerics follow MXNet 1.9.1 (src/operator/mshadow_op.h): relu and maximum /
// minimum propagate NaN, comparisons give 1 / 0 in the element type, integer
// power goes through powf, softrelu is x beyond 20. Integer division by zero
// gives 0 (NumPy's result) instead of trapping. Unsigned (ui8) elements are
// computed on signless integers with unsigned arithmetic.
//
//===----------------------------------------------------------------------===//
#include "ElementUtils.h"
#include "Patterns.h"

#include "mxc/Dialect/MX/IR/MXOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <cmath>
#include <functional>

using namespace mlir;
using namespace mxc::conversion::elem;
namespace mx = mxc::mx;

namespace {

//===----------------------------------------------------------------------===//
// Scalar helpers
//===----------------------------------------------------------------------===//

/// The scalar functions the ops are made of.
enum class Fn {
  // Unary.
  Neg,
  Abs,
  Square,
  Sqrt,
  Exp,
  Log,
  Relu,
  Sigmoid,
  Tanh,
  SoftRelu,
  SoftSign,
  Sign,
  Round,
  Rint,
  Floor,
  Ceil,
  Trunc,
  Reciprocal,
  Rsqrt,
  Log1p,
  Expm1,
  Log2,
  Log10,
  Sin,
  Cos,
  Tan,
  Asin,
  Acos,
  Atan,
  Sinh,
  Cosh,
  Asinh,
  Acosh,
  Atanh,
  Degrees,
  Radians,
  Cbrt,
  Gamma,
  GammaLn,
  Erf,
  Erfinv,
  Rcbrt,
  // Binary.
  Add,
  Sub,
  Mul,
  Div,
  Max,
  Min,
  Pow,
  Eq,
  Ne,
  Gt,
  Ge,
  Lt,
  Le,
  Hypot,
  Mod,
  And,
  Or,
  Xor,
};

/// `cond ? 1 : 0` in `kind`, MXNet's comparison result.
static Value boolToElement(OpBuilder &b, Location loc, Value cond,
                           ElemKind kind) {
  return arith::SelectOp::create(b, loc, cond, constant(b, loc, kind, 1),
                                 constant(b, loc, kind, 0));
}

/// Gamma, log|Gamma| and erfinv of `x`, computed in f64 (the result
/// converted back to x's type): Lanczos' approximation (g = 7, 9 terms) with
/// the reflection formula below 1/2; Giles' erfinv polynomial refined by two
/// Newton steps on (libm's f64) erf.
static Value emitSpecial(OpBuilder &b, Location loc, Fn fn, Value x) {
  Type t = x.getType();
  Type f64 = b.getF64Type();
  Value v = t == f64 ? x : Value(arith::ExtFOp::create(b, loc, f64, x));
  auto c = [&](double d) -> Value {
    return arith::ConstantOp::create(b, loc, b.getF64FloatAttr(d));
  };
  auto add = [&](Value p, Value q) -> Value { return arith::AddFOp::create(b, loc, p, q); };
  auto sub = [&](Value p, Value q) -> Value { return arith::SubFOp::create(b, loc, p, q); };
  auto mul = [&](Value p, Value q) -> Value { return arith::MulFOp::create(b, loc, p, q); };
  auto div = [&](Value p, Value q) -> Value { return arith::DivFOp::create(b, loc, p, q); };
  auto lt = [&](Value p, Value q) -> Value {
    return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, p, q);
  };
  auto sel = [&](Value cond, Value p, Value q) -> Value {
    return arith::SelectOp::create(b, loc, cond, p, q);
  };
  Value r;
  if (fn == Fn::Gamma || fn == Fn::GammaLn) {
    static const double kLanczos[] = {
        0.99999999999980993,  676.5203681218851,     -1259.1392167224028,
        771.32342877765313,   -176.61502916214059,   12.507343278686905,
        -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7};
    Value reflect = lt(v, c(0.5));
    Value z = sel(reflect, sub(c(1.0), v), v); // >= 1/2
    Value zm1 = sub(z, c(1.0));
    Value a = c(kLanczos[0]);
    for (int i = 1; i < 9; ++i)
      a = add(a, div(c(kLanczos[i]), add(zm1, c(double(i)))));
    Value tt = add(zm1, c(7.5));
    // log Gamma(z) = log(sqrt(2 pi)) + (z - 1/2) log(t) - t + log(a)
    Value lg = add(sub(add(c(0.5 * std::log(2.0 * M_PI)),
                           mul(add(zm1, c(0.5)), math::LogOp::create(b, loc, tt))),
                       tt),
                   math::LogOp::create(b, loc, a));
    Value sinpx = math::SinOp::create(b, loc, mul(c(M_PI), v));
    if (fn == Fn::GammaLn) {
      // log|Gamma(x)| = log(pi / |sin(pi x)|) - log Gamma(1 - x)
      Value refl = sub(sub(c(std::log(M_PI)),
                           math::LogOp::create(b, loc, math::AbsFOp::create(b, loc, sinpx))),
                       lg);
      r = sel(reflect, refl, lg);
    } else {
      // Gamma(x) = pi / (sin(pi x) Gamma(1 - x))
      Value g = math::ExpOp::create(b, loc, lg);
      r = sel(reflect, div(c(M_PI), mul(sinpx, g)), g);
    }
  } else { // Erfinv
    Value w = arith::NegFOp::create(
        b, loc, math::LogOp::create(b, loc, mul(sub(c(1.0), v), add(c(1.0), v))));
    static const double kCentral[] = {2.81022636e-08,  3.43273939e-07, -3.5233877e-06,
                                      -4.39150654e-06, 0.00021858087,  -0.00125372503,
                                      -0.00417768164,  0.246640727,    1.50140941};
    static const double kTail[] = {-0.000200214257, 0.000100950558, 0.00134934322,
                                   -0.00367342844,  0.00573950773,  -0.0076224613,
                                   0.00943887047,   1.00167406,     2.83297682};
    auto poly = [&](const double *k, Value u) {
      Value p = c(k[0]);
      for (int i = 1; i < 9; ++i)
        p = add(c(k[i]), mul(p, u));
      return p;
    };
    Value central = poly(kCentral, sub(w, c(2.5)));
    Value tail = poly(kTail, sub(math::SqrtOp::create(b, loc, w), c(3.0)));
    Value y = mul(sel(lt(w, c(5.0)), central, tail), v);
    // Newton on erf(y) = x: y -= (erf(y) - x) / (2 / sqrt(pi) exp(-y^2))
    for (int i = 0; i < 2; ++i) {
      Value d = mul(c(2.0 / std::sqrt(M_PI)),
                    math::ExpOp::create(b, loc, arith::NegFOp::create(b, loc, mul(y, y))));
      Value step = div(sub(math::ErfOp::create(b, loc, y), v), d);
      // (|x| = 1 gives y = +-inf: keep it rather than inf - nan)
      Value finite = lt(math::AbsFOp::create(b, loc, y), c(INFINITY));
      y = sel(finite, sub(y, step), y);
    }
    r = y;
  }
  return t == f64 ? r : Value(arith::TruncFOp::create(b, loc, t, r));
}

/// Unary `fn` of `x` (of `kind`).
static Value emitUnary(OpBuilder &b, Location loc, Fn fn, Value x,
                       ElemKind kind) {
  bool isF = kind.isFloat();
  auto one = [&] { return constant(b, loc, kind, 1); };
  auto zero = [&] { return constant(b, loc, kind, 0); };
  switch (fn) {
  case Fn::Neg:
    return isF ? Value(arith::NegFOp::create(b, loc, x))
               : Value(arith::SubIOp::create(b, loc, zero(), x));
  case Fn::Abs:
    if (isF)
      return math::AbsFOp::create(b, loc, x);
    return kind.isUnsigned ? x : Value(math::AbsIOp::create(b, loc, x));
  case Fn::Square:
    return isF ? Value(arith::MulFOp::create(b, loc, x, x))
               : Value(arith::MulIOp::create(b, loc, x, x));
  case Fn::Sqrt:
    return math::SqrtOp::create(b, loc, x);
  case Fn::Exp:
    return math::ExpOp::create(b, loc, x);
  case Fn::Log:
    return math::LogOp::create(b, loc, x);
  case Fn::Relu: {
    // IsNan(a) || a > 0 ? a : 0
    if (!isF)
      return kind.isUnsigned ? x
                             : Value(arith::MaxSIOp::create(b, loc, x, zero()));
    Value z = zero();
    Value keep = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UGT, x, z);
    return arith::SelectOp::create(b, loc, keep, x, z);
  }
  case Fn::Sigmoid: {
    Value e = math::ExpOp::create(b, loc, arith::NegFOp::create(b, loc, x));
    return arith::DivFOp::create(b, loc, one(),
                                 arith::AddFOp::create(b, loc, one(), e));
  }
  case Fn::Tanh:
    return math::TanhOp::create(b, loc, x);
  case Fn::SoftRelu: {
    // a > 20 ? a : log1p(exp(a))
    Value big = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, x,
                                      constant(b, loc, kind, 20));
    Value soft = math::Log1pOp::create(b, loc, math::ExpOp::create(b, loc, x));
    return arith::SelectOp::create(b, loc, big, x, soft);
  }
  case Fn::SoftSign: {
    Value den =
        arith::AddFOp::create(b, loc, one(), math::AbsFOp::create(b, loc, x));
    return arith::DivFOp::create(b, loc, x, den);
  }
  case Fn::Sign: {
    // (x > 0) - (x < 0); NaN gives 0 as MXNet's mshadow_op::sign.
    if (kind.isUnsigned && !isF)
      return boolToElement(
          b, loc,
          arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, x, zero()),
          kind);
    Value gt = isF ? Value(arith::CmpFOp::create(
                         b, loc, arith::CmpFPredicate::OGT, x, zero()))
                   : Value(arith::CmpIOp::create(
                         b, loc, arith::CmpIPredicate::sgt, x, zero()));
    Value lt = isF ? Value(arith::CmpFOp::create(
                         b, loc, arith::CmpFPredicate::OLT, x, zero()))
                   : Value(arith::CmpIOp::create(
                         b, loc, arith::CmpIPredicate::slt, x, zero()));
    Value minusOne = constant(b, loc, kind, -1);
    return arith::SelectOp::create(
        b, loc, gt, one(), arith::SelectOp::create(b, loc, lt, minusOne, zero()));
  }
  case Fn::Round: // half away from zero (C's round)
    return math::RoundOp::create(b, loc, x);
  case Fn::Rint: // half to even (C's rint in the default rounding mode)
    return math::RoundEvenOp::create(b, loc, x);
  case Fn::Floor:
    return math::FloorOp::create(b, loc, x);
  case Fn::Ceil:
    return math::CeilOp::create(b, loc, x);
  case Fn::Trunc:
    return math::TruncOp::create(b, loc, x);
  case Fn::Reciprocal:
    return arith::DivFOp::create(b, loc, one(), x);
  case Fn::Rsqrt:
    return math::RsqrtOp::create(b, loc, x);
  case Fn::Log1p:
    return math::Log1pOp::create(b, loc, x);
  case Fn::Expm1:
    return math::ExpM1Op::create(b, loc, x);
  case Fn::Log2:
    return math::Log2Op::create(b, loc, x);
  case Fn::Log10:
    return math::Log10Op::create(b, loc, x);
  case Fn::Sin:
    return math::SinOp::create(b, loc, x);
  case Fn::Cos:
    return math::CosOp::create(b, loc, x);
  // The rest become libm calls (convert-math-to-libm; f16 / bf16 through
  // f32), as MXNet's mshadow_op calls the C library.
  case Fn::Tan:
    return math::TanOp::create(b, loc, x);
  case Fn::Asin:
    return math::AsinOp::create(b, loc, x);
  case Fn::Acos:
    return math::AcosOp::create(b, loc, x);
  case Fn::Atan:
    return math::AtanOp::create(b, loc, x);
  case Fn::Sinh:
    return math::SinhOp::create(b, loc, x);
  case Fn::Cosh:
    return math::CoshOp::create(b, loc, x);
  case Fn::Asinh:
    return math::AsinhOp::create(b, loc, x);
  case Fn::Acosh:
    return math::AcoshOp::create(b, loc, x);
  case Fn::Atanh:
    return math::AtanhOp::create(b, loc, x);
  case Fn::Degrees:
    return arith::MulFOp::create(b, loc, x,
                                 constant(b, loc, kind, 180.0 / M_PI));
  case Fn::Radians:
    return arith::MulFOp::create(b, loc, x,
                                 constant(b, loc, kind, M_PI / 180.0));
  case Fn::Cbrt:
    return math::CbrtOp::create(b, loc, x);
  case Fn::Rcbrt:
    return arith::DivFOp::create(b, loc, one(), math::CbrtOp::create(b, loc, x));
  case Fn::Erf: { // in f32 at least (the pipeline's approximation applies)
    Type t = x.getType();
    bool narrow = cast<FloatType>(t).getWidth() < 32;
    Value v = narrow ? Value(arith::ExtFOp::create(b, loc, b.getF32Type(), x)) : x;
    Value r = math::ErfOp::create(b, loc, v);
    return narrow ? Value(arith::TruncFOp::create(b, loc, t, r)) : r;
  }
  case Fn::Gamma:
  case Fn::GammaLn:
  case Fn::Erfinv:
    return emitSpecial(b, loc, fn, x);
  default:
    llvm_unreachable("not a unary function");
  }
}

/// Binary `fn` of `x` and `y` (both of `kind`).
static Value emitBinary(OpBuilder &b, Location loc, Fn fn, Value x, Value y,
                        ElemKind kind) {
  bool isF = kind.isFloat(), isU = kind.isUnsigned;
  auto cmp = [&](arith::CmpFPredicate fp, arith::CmpIPredicate sp,
                 arith::CmpIPredicate up) -> Value {
    Value c = isF ? Value(arith::CmpFOp::create(b, loc, fp, x, y))
                  : Value(arith::CmpIOp::create(b, loc, isU ? up : sp, x, y));
    return boolToElement(b, loc, c, kind);
  };
  using FP = arith::CmpFPredicate;
  using IP = arith::CmpIPredicate;
  switch (fn) {
  case Fn::Add:
    return isF ? Value(arith::AddFOp::create(b, loc, x, y))
               : Value(arith::AddIOp::create(b, loc, x, y));
  case Fn::Sub:
    return isF ? Value(arith::SubFOp::create(b, loc, x, y))
               : Value(arith::SubIOp::create(b, loc, x, y));
  case Fn::Mul:
    return isF ? Value(arith::MulFOp::create(b, loc, x, y))
               : Value(arith::MulIOp::create(b, loc, x, y));
  case Fn::Div: {
    if (isF)
      return arith::DivFOp::create(b, loc, x, y);
    // x / 0 would trap; give NumPy's 0 instead.
    Value zero = constant(b, loc, kind, 0);
    Value isZero = arith::CmpIOp::create(b, loc, IP::eq, y, zero);
    Value safe =
        arith::SelectOp::create(b, loc, isZero, constant(b, loc, kind, 1), y);
    Value q = isU ? Value(arith::DivUIOp::create(b, loc, x, safe))
                  : Value(arith::DivSIOp::create(b, loc, x, safe));
    return arith::SelectOp::create(b, loc, isZero, zero, q);
  }
  case Fn::Max:
    if (isF)
      return arith::MaximumFOp::create(b, loc, x, y);
    return isU ? Value(arith::MaxUIOp::create(b, loc, x, y))
               : Value(arith::MaxSIOp::create(b, loc, x, y));
  case Fn::Min:
    if (isF)
      return arith::MinimumFOp::create(b, loc, x, y);
    return isU ? Value(arith::MinUIOp::create(b, loc, x, y))
               : Value(arith::MinSIOp::create(b, loc, x, y));
  case Fn::Pow: {
    if (isF)
      return math::PowFOp::create(b, loc, x, y);
    // MXNet's math::pow for non-double types: powf on floats, truncated.
    ElemKind f32{b.getF32Type()};
    Value p = math::PowFOp::create(b, loc, convertElement(b, loc, x, kind, f32),
                                   convertElement(b, loc, y, kind, f32));
    return convertElement(b, loc, p, f32, kind);
  }
  case Fn::Eq:
    return cmp(FP::OEQ, IP::eq, IP::eq);
  case Fn::Ne:
    return cmp(FP::UNE, IP::ne, IP::ne);
  case Fn::Gt:
    return cmp(FP::OGT, IP::sgt, IP::ugt);
  case Fn::Ge:
    return cmp(FP::OGE, IP::sge, IP::uge);
  case Fn::Lt:
    return cmp(FP::OLT, IP::slt, IP::ult);
  case Fn::Le:
    return cmp(FP::OLE, IP::sle, IP::ule);
  case Fn::And:
  case Fn::Or:
  case Fn::Xor: {
    // mshadow_op::logical_and / or / xor: nonzero is true (NaN too)
    Value zero = constant(b, loc, kind, 0);
    auto truth = [&](Value v) -> Value {
      return isF ? Value(arith::CmpFOp::create(b, loc, FP::UNE, v, zero))
                 : Value(arith::CmpIOp::create(b, loc, IP::ne, v, zero));
    };
    Value p = truth(x), q = truth(y);
    Value c = fn == Fn::And  ? Value(arith::AndIOp::create(b, loc, p, q))
              : fn == Fn::Or ? Value(arith::OrIOp::create(b, loc, p, q))
                             : Value(arith::XOrIOp::create(b, loc, p, q));
    return boolToElement(b, loc, c, kind);
  }
  case Fn::Hypot: {
    // m * sqrt(1 + (n / m)^2), m = max(|x|, |y|), n = min(|x|, |y|): no
    // square overflows (C's hypot); m = 0 gives 0. Integers: in f64, then
    // converted back, as mshadow's hypot on integer types.
    if (!isF) {
      ElemKind f64{b.getF64Type()};
      Value h = emitBinary(b, loc, Fn::Hypot, convertElement(b, loc, x, kind, f64),
                           convertElement(b, loc, y, kind, f64), f64);
      return convertElement(b, loc, h, f64, kind);
    }
    Value ax = math::AbsFOp::create(b, loc, x);
    Value ay = math::AbsFOp::create(b, loc, y);
    Value m = arith::MaximumFOp::create(b, loc, ax, ay);
    Value n = arith::MinimumFOp::create(b, loc, ax, ay);
    Value zero = constant(b, loc, kind, 0);
    Value isZero = arith::CmpFOp::create(b, loc, FP::OEQ, m, zero);
    Value safeM = arith::SelectOp::create(b, loc, isZero,
                                          constant(b, loc, kind, 1), m);
    Value r = arith::DivFOp::create(b, loc, n, safeM);
    Value s = math::SqrtOp::create(
        b, loc,
        arith::AddFOp::create(b, loc, constant(b, loc, kind, 1),
                              arith::MulFOp::create(b, loc, r, r)));
    return arith::MulFOp::create(b, loc, m, s);
  }
  case Fn::Mod: {
    // mshadow_op::mod, in double: the remainder takes the divisor's sign
    // (Python's %), and a zero divisor gives 0.
    ElemKind f64{b.getF64Type()};
    bool isF64 = kind.type.isF64();
    Value xd = isF64 ? x : convertElement(b, loc, x, kind, f64);
    Value yd = isF64 ? y : convertElement(b, loc, y, kind, f64);
    Value zero = constant(b, loc, f64, 0);
    Value r = arith::RemFOp::create(b, loc, xd, yd);
    Value signsDiffer = arith::XOrIOp::create(
        b, loc, arith::CmpFOp::create(b, loc, FP::OLT, r, zero),
        arith::CmpFOp::create(b, loc, FP::OLT, yd, zero));
    Value adjust = arith::AndIOp::create(
        b, loc, arith::CmpFOp::create(b, loc, FP::ONE, r, zero), signsDiffer);
    r = arith::SelectOp::create(b, loc, adjust, arith::AddFOp::create(b, loc, r, yd), r);
    r = arith::SelectOp::create(b, loc, arith::CmpFOp::create(b, loc, FP::OEQ, yd, zero),
                                zero, r);
    return isF64 ? r : convertElement(b, loc, r, f64, kind);
  }
  default:
    llvm_unreachable("not a binary function");
  }
}

/// MXNet's xelu: x > 0 ? x : x * slope.
static Value emitXelu(OpBuilder &b, Location loc, Value x, Value slope,
                      ElemKind kind) {
  Value pos = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, x,
                                    constant(b, loc, kind, 0));
  return arith::SelectOp::create(b, loc, pos, x,
                                 arith::MulFOp::create(b, loc, x, slope));
}

/// x > 0 ? x : alpha * expm1(x) (MXNet's elu; selu before its scale).
static Value emitElu(OpBuilder &b, Location loc, Value x, double alpha,
                     ElemKind kind) {
  Value pos = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, x,
                                    constant(b, loc, kind, 0));
  Value neg = arith::MulFOp::create(b, loc, constant(b, loc, kind, alpha),
                                    math::ExpM1Op::create(b, loc, x));
  return arith::SelectOp::create(b, loc, pos, x, neg);
}

/// A tensor of `type` filled with `value`.
static Value filled(OpBuilder &b, Location loc, RankedTensorType type,
                    double value) {
  Value v = constant(b, loc, kindOf(type.getElementType()), value);
  return filledTensor(b, loc, type.getShape(), type.getElementType(), v);
}

//===----------------------------------------------------------------------===//
// The elementwise template
//===----------------------------------------------------------------------===//

/// Computes the result element from the (signless) input elements.
using Payload =
    std::function<Value(OpBuilder &, Location, ValueRange /*elements*/)>;

/// What an op contributes to the template.
struct ElementwisePlan {
  /// Tensors read by the payload.
  SmallVector<Value> inputs;
  /// How each input is indexed from the result's iteration space; empty means
  /// numpy broadcasting for all of them.
  SmallVector<AffineMap> maps;
  Payload payload;
  /// Results after the first (hidden outputs), already built.
  SmallVector<Value> extraResults;
};

/// The map reading a `type` operand at an iteration point of `resultShape`
/// under numpy broadcasting: right-aligned, size-1 extents read index 0.
static AffineMap broadcastMap(RankedTensorType type,
                              ArrayRef<int64_t> resultShape, MLIRContext *ctx) {
  int64_t rank = type.getRank(), outRank = resultShape.size();
  SmallVector<AffineExpr> exprs;
  for (int64_t i = 0; i < rank; ++i) {
    int64_t d = outRank - rank + i;
    if (type.getDimSize(i) == 1 && resultShape[d] != 1)
      exprs.push_back(getAffineConstantExpr(0, ctx));
    else
      exprs.push_back(getAffineDimExpr(d, ctx));
  }
  return AffineMap::get(outRank, 0, exprs, ctx);
}

/// One linalg.generic producing `resultType` from `plan`.
static Value buildElementwise(OpBuilder &b, Location loc,
                              RankedTensorType resultType,
                              const ElementwisePlan &plan) {
  MLIRContext *ctx = b.getContext();
  SmallVector<AffineMap> maps(plan.maps);
  if (maps.empty())
    for (Value in : plan.inputs)
      maps.push_back(broadcastMap(cast<RankedTensorType>(in.getType()),
                                  resultType.getShape(), ctx));
  maps.push_back(AffineMap::getMultiDimIdentityMap(resultType.getRank(), ctx));
  SmallVector<utils::IteratorType> iterators(resultType.getRank(),
                                             utils::IteratorType::parallel);
  Value init = tensor::EmptyOp::create(b, loc, resultType.getShape(),
                                       resultType.getElementType());
  Type resultElem = resultType.getElementType();
  auto generic = linalg::GenericOp::create(
      b, loc, resultType, plan.inputs, init, maps, iterators,
      [&](OpBuilder &nb, Location nloc, ValueRange args) {
        SmallVector<Value> elems;
        for (Value arg : args.drop_back())
          elems.push_back(
              castSignedness(nb, nloc, arg, signless(arg.getType())));
        Value r = plan.payload(nb, nloc, elems);
        linalg::YieldOp::create(nb, nloc,
                                castSignedness(nb, nloc, r, resultElem));
      });
  return generic.getResult(0);
}

/// The one elementwise lowering. Subclasses describe the op in `plan`; this
/// checks shapes, builds the linalg.generic and replaces the op.
template <typename OpTy> struct ConvertElementwise : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  using Adaptor = typename OpTy::Adaptor;

  /// Fills `plan`, or fails with the reason (notifyMatchFailure).
  virtual LogicalResult plan(OpTy op, Adaptor adaptor,
                             ConversionPatternRewriter &rewriter,
                             ElementwisePlan &plan) const = 0;

  LogicalResult
  matchAndRewrite(OpTy op, Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const final {
    if (!hasStaticShapes(op))
      return rewriter.notifyMatchFailure(op,
                                         "dynamic shapes are not supported");
    ElementwisePlan p;
    if (failed(plan(op, adaptor, rewriter, p)))
      return failure();
    auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
    SmallVector<Value> results{
        buildElementwise(rewriter, op.getLoc(), resultType, p)};
    results.append(p.extraResults);
    rewriter.replaceOp(op, results);
    return success();
  }
};

/// Fails on bool (i1) elements, which MXNet's arithmetic kernels reject.
static LogicalResult rejectBool(Operation *op, ConversionPatternRewriter &r,
                                Type elem) {
  if (elem.isInteger(1))
    return r.notifyMatchFailure(op, "bool tensors are not supported");
  return success();
}

/// negative, abs, square, sqrt, exp, log, relu, sigmoid, tanh, sign, round,
/// rint, floor, ceil, trunc, fix, reciprocal, rsqrt, log1p, expm1, log2,
/// log10, sin, cos.
template <typename OpTy, Fn F>
struct ConvertUnary final : ConvertElementwise<OpTy> {
  using ConvertElementwise<OpTy>::ConvertElementwise;
  LogicalResult plan(OpTy op, typename OpTy::Adaptor adaptor,
                     ConversionPatternRewriter &rewriter,
                     ElementwisePlan &p) const override {
    Type elem = op.getData().getType().getElementType();
    if (failed(rejectBool(op, rewriter, elem)))
      return failure();
    ElemKind kind = kindOf(elem);
    p.inputs = {adaptor.getData()};
    p.payload = [kind](OpBuilder &b, Location loc, ValueRange e) {
      return emitUnary(b, loc, F, e[0], kind);
    };
    return success();
  }
};

/// broadcast_to: the input, broadcast to the result's shape (the maps of
/// buildElementwise repeat its axes of extent 1).
/// broadcast_axis and broadcast_like are the same: the result's shape says
/// it all.
template <typename OpTy>
struct ConvertBroadcastTo final : ConvertElementwise<OpTy> {
  using ConvertElementwise<OpTy>::ConvertElementwise;
  LogicalResult plan(OpTy op, typename OpTy::Adaptor adaptor,
                     ConversionPatternRewriter &rewriter,
                     ElementwisePlan &p) const override {
    // the first operand (broadcast_like's lhs; its rhs gave only the shape)
    p.inputs = {adaptor.getOperands().front()};
    p.payload = [](OpBuilder &, Location, ValueRange e) { return e[0]; };
    return success();
  }
};

/// reverse: the input read at n - 1 - i along each reversed axis.
struct ConvertReverse final : ConvertElementwise<mx::ReverseOp> {
  using ConvertElementwise::ConvertElementwise;
  LogicalResult plan(mx::ReverseOp op, OpAdaptor adaptor,
                     ConversionPatternRewriter &rewriter,
                     ElementwisePlan &p) const override {
    auto type = op.getData().getType();
    int64_t rank = type.getRank();
    SmallVector<bool> flip(rank, false);
    for (int64_t a : op.getAxis())
      flip[a < 0 ? a + rank : a] ^= true; // twice along one axis: identity
    SmallVector<AffineExpr> exprs;
    MLIRContext *ctx = op.getContext();
    for (int64_t d = 0; d < rank; ++d) {
      AffineExpr e = getAffineDimExpr(d, ctx);
      exprs.push_back(flip[d] ? getAffineConstantExpr(type.getDimSize(d) - 1,
                                                      ctx) -
                                    e
                              : e);
    }
    p.inputs = {adaptor.getData()};
    p.maps = {AffineMap::get(rank, 0, exprs, ctx)};
    p.payload = [](OpBuilder &, Location, ValueRange e) { return e[0]; };
    return success();
  }
};

/// depth_to_space / space_to_depth: a copy whose input map rearranges the
/// blocks (floordiv / mod by constants; MXNet's DCR order).
template <typename OpTy, bool ToDepth>
struct ConvertDepthSpace final : ConvertElementwise<OpTy> {
  using ConvertElementwise<OpTy>::ConvertElementwise;
  LogicalResult plan(OpTy op, typename OpTy::Adaptor adaptor,
                     ConversionPatternRewriter &rewriter,
                     ElementwisePlan &p) const override {
    MLIRContext *ctx = op.getContext();
    int64_t b = static_cast<int64_t>(op.getBlockSize());
    AffineExpr n = getAffineDimExpr(0, ctx), c = getAffineDimExpr(1, ctx),
               h = getAffineDimExpr(2, ctx), w = getAffineDimExpr(3, ctx);
    SmallVector<AffineExpr> in;
    if (ToDepth) {
      // out[n, (i b + j) C + c, h, w] = in[n, c, h b + i, w b + j]
      int64_t C = op.getData().getType().getDimSize(1);
      AffineExpr k = c.floorDiv(C);
      in = {n, c % C, h * b + k.floorDiv(b), w * b + k % b};
    } else {
      // out[n, c, h b + i, w b + j] = in[n, (i b + j) C' + c, h, w]
      int64_t C = cast<RankedTensorType>(op.getOutput().getType()).getDimSize(1);
      in = {n, ((h % b) * b + (w % b)) * C + c, h.floorDiv(b), w.floorDiv(b)};
    }
    p.inputs = {adaptor.getData()};
    p.maps = {AffineMap::get(4, 0, in, ctx)};
    p.payload = [](OpBuilder &, Location, ValueRange e) { return e[0]; };
    return success();
  }
};

/// shape_array / size_array: constants of the static shape.
template <typename OpTy>
struct ConvertShapeConstant final : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto in = op.getData().getType();
    if (!in.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "dynamic shapes are not supported");
    SmallVector<int64_t> values;
    if (std::is_same_v<OpTy, mx::ShapeArrayOp>)
      values.assign(in.getShape().begin(), in.getShape().end());
    else
      values.push_back(in.getNumElements());
    auto type = cast<RankedTensorType>(op.getOutput().getType());
    rewriter.replaceOpWithNewOp<arith::ConstantOp>(
        op, DenseElementsAttr::get(type, ArrayRef<int64_t>(values)));
    return success();
  }
};

/// elemwise_* (equal shapes) and broadcast_* (numpy broadcasting).
template <typename OpTy, Fn F>
struct ConvertBinary final : ConvertElementwise<OpTy> {
  using ConvertElementwise<OpTy>::ConvertElementwise;
  LogicalResult plan(OpTy op, typename OpTy::Adaptor adaptor,
                     ConversionPatternRewriter &rewriter,
                     ElementwisePlan &p) const override {
    Type elem = op.getLhs().getType().getElementType();
    if (failed(rejectBool(op, rewriter, elem)))
      return failure();
    ElemKind kind = kindOf(elem);
    p.inputs = {adaptor.getLhs(), adaptor.getRhs()};
    p.payload = [kind](OpBuilder &b, Location loc, ValueRange e) {
      return emitBinary(b, loc, F, e[0], e[1], kind);
    };
    return success();
  }
};

/// _*_scalar: `data op scalar` (or `scalar op data` when Reversed), computed
/// in the result type as MXNet does (the input is cast to it first).
template <typename OpTy, Fn F, bool Reversed = false>
struct ConvertScalar final : ConvertElementwise<OpTy> {
  using ConvertElementwise<OpTy>::ConvertElementwise;
  LogicalResult plan(OpTy op, typename OpTy::Adaptor adaptor,
                     ConversionPatternRewriter &rewriter,
                     ElementwisePlan &p) const override {
    ElemKind in = kindOf(op.getData().getType().getElementType());
    Type outElem = op.getOutput().getType().getElementType();
    if (failed(rejectBool(op, rewriter, outElem)))
      return failure();
    ElemKind out = kindOf(outElem);
    double scalar = op.getScalar().convertToDouble();
    p.inputs = {adaptor.getData()};
    p.payload = [in, out, scalar](OpBuilder &b, Location loc, ValueRange e) {
      Value x = convertElement(b, loc, e[0], in, out);
      Value s = constant(b, loc, out, scalar);
      return Reversed ? emitBinary(b, loc, F, s, x, out)
                      : emitBinary(b, loc, F, x, s, out);
    };
    return success();
  }
};

/// hard_sigmoid: max(0, min(1, alpha * x + beta)), in the input's type
/// (MXNet's HardSigmoidForward).
struct ConvertHardSigmoid final : ConvertElementwise<mx::HardSigmoidOp> {
  using ConvertElementwise::ConvertElementwise;
  LogicalResult plan(mx::HardSigmoidOp op, OpAdaptor adaptor,
                     ConversionPatternRewriter &rewriter,
                     ElementwisePlan &p) const override {
    ElemKind kind = kindOf(op.getData().getType().getElementType());
    double alpha = op.getAlpha().convertToDouble();
    double beta = op.getBeta().convertToDouble();
    p.inputs = {adaptor.getData()};
    p.payload = [kind, alpha, beta](OpBuilder &b, Location loc, ValueRange e) {
      Value t = arith::AddFOp::create(
          b, loc,
          arith::MulFOp::create(b, loc, e[0], constant(b, loc, kind, alpha)),
          constant(b, loc, kind, beta));
      t = arith::MinimumFOp::create(b, loc, t, constant(b, loc, kind, 1));
      return arith::MaximumFOp::create(b, loc, t, constant(b, loc, kind, 0));
    };
    return success();
  }
};

/// smooth_l1 with sigma = scalar (mshadow_op::smooth_l1_loss):
/// |x| > 1/sigma^2 ? |x| - 0.5/sigma^2 : 0.5 sigma^2 x^2.
struct ConvertSmoothL1 final : ConvertElementwise<mx::SmoothL1Op> {
  using ConvertElementwise::ConvertElementwise;
  LogicalResult plan(mx::SmoothL1Op op, OpAdaptor adaptor,
                     ConversionPatternRewriter &rewriter,
                     ElementwisePlan &p) const override {
    ElemKind kind = kindOf(op.getData().getType().getElementType());
    double sigma = op.getScalar().convertToDouble();
    double bsq = sigma * sigma, ibsq = 1.0 / bsq;
    p.inputs = {adaptor.getData()};
    p.payload = [kind, bsq, ibsq](OpBuilder &b, Location loc, ValueRange e) {
      Value x = e[0];
      Value ax = math::AbsFOp::create(b, loc, x);
      Value outer = arith::SubFOp::create(b, loc, ax,
                                          constant(b, loc, kind, 0.5 * ibsq));
      Value inner = arith::MulFOp::create(
          b, loc, arith::MulFOp::create(b, loc, x, x),
          constant(b, loc, kind, 0.5 * bsq));
      Value big = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, ax,
                                        constant(b, loc, kind, ibsq));
      return arith::SelectOp::create(b, loc, big, outer, inner);
    };
    return success();
  }
};

struct ConvertActivation final : ConvertElementwise<mx::ActivationOp> {
  using ConvertElementwise::ConvertElementwise;
  LogicalResult plan(mx::ActivationOp op, OpAdaptor adaptor,
                     ConversionPatternRewriter &rewriter,
                     ElementwisePlan &p) const override {
    Fn fn = llvm::StringSwitch<Fn>(op.getActType())
                .Case("relu", Fn::Relu)
                .Case("sigmoid", Fn::Sigmoid)
                .Case("tanh", Fn::Tanh)
                .Case("softrelu", Fn::SoftRelu)
                .Case("softsign", Fn::SoftSign);
    ElemKind kind = kindOf(op.getData().getType().getElementType());
    p.inputs = {adaptor.getData()};
    p.payload = [fn, kind](OpBuilder &b, Location loc, ValueRange e) {
      return emitUnary(b, loc, fn, e[0], kind);
    };
    return success();
  }
};

/// MXNet's expand_shape for prelu's gamma: gamma's extents, right-aligned,
/// match data axes 0 and 1 (equal or 1); every other data axis broadcasts.
/// Returns the map reading gamma, or null if gamma does not fit.
static AffineMap gammaMap(RankedTensorType gamma, RankedTensorType data,
                          MLIRContext *ctx) {
  ArrayRef<int64_t> gs = gamma.getShape(), ds = data.getShape();
  SmallVector<AffineExpr> exprs(gs.size(), getAffineConstantExpr(0, ctx));
  int64_t s = static_cast<int64_t>(gs.size()) - 1;
  for (int64_t i = static_cast<int64_t>(ds.size()) - 1; i >= 0 && s >= 0; --i) {
    if (i > 1 || (ds[i] != gs[s] && gs[s] != 1))
      continue;
    if (gs[s] == ds[i])
      exprs[s] = getAffineDimExpr(i, ctx);
    --s;
  }
  if (s != -1)
    return {};
  return AffineMap::get(ds.size(), 0, exprs, ctx);
}

struct ConvertLeakyReLU final : ConvertElementwise<mx::LeakyReLUOp> {
  using ConvertElementwise::ConvertElementwise;
  LogicalResult plan(mx::LeakyReLUOp op, OpAdaptor adaptor,
                     ConversionPatternRewriter &rewriter,
                     ElementwisePlan &p) const override {
    auto dataType = op.getData().getType();
    ElemKind kind = kindOf(dataType.getElementType());
    StringRef act = op.getActType();
    double slope = op.getSlope().convertToDouble();
    p.inputs = {adaptor.getData()};
    if (act == "prelu") {
      MLIRContext *ctx = op.getContext();
      AffineMap g = gammaMap(op.getGamma().getType(), dataType, ctx);
      if (!g)
        return rewriter.notifyMatchFailure(op, "gamma does not broadcast");
      p.inputs.push_back(adaptor.getGamma());
      p.maps = {AffineMap::getMultiDimIdentityMap(dataType.getRank(), ctx), g};
      p.payload = [kind](OpBuilder &b, Location loc, ValueRange e) {
        return emitXelu(b, loc, e[0], e[1], kind);
      };
      return success();
    }
    if (act == "leaky" || act == "rrelu") {
      // rrelu in inference: the mean slope (float arithmetic as in MXNet).
      if (act == "rrelu")
        slope = (static_cast<float>(op.getLowerBound().convertToDouble()) +
                 static_cast<float>(op.getUpperBound().convertToDouble())) /
                2.0f;
      p.payload = [kind, slope](OpBuilder &b, Location loc, ValueRange e) {
        return emitXelu(b, loc, e[0], constant(b, loc, kind, slope), kind);
      };
      if (act == "rrelu") {
        // MXNet leaves the mask unwritten in inference; give the slope used.
        auto maskType = cast<RankedTensorType>(op.getMask().getType());
        p.extraResults.push_back(
            filled(rewriter, op.getLoc(), maskType, slope));
      }
      return success();
    }
    if (act == "elu") {
      p.payload = [kind, slope](OpBuilder &b, Location loc, ValueRange e) {
        return emitElu(b, loc, e[0], slope, kind);
      };
      return success();
    }
    if (act == "selu") {
      // SELU_LAMBDA * (a > 0 ? a : SELU_ALPHA * expm1(a)), float constants.
      const double alpha =
          static_cast<float>(1.6732632423543772848170429916717);
      const double lambda =
          static_cast<float>(1.0507009873554804934193349852946);
      p.payload = [kind, alpha, lambda](OpBuilder &b, Location loc,
                                        ValueRange e) {
        Value elu = emitElu(b, loc, e[0], alpha, kind);
        return Value(
            arith::MulFOp::create(b, loc, constant(b, loc, kind, lambda), elu));
      };
      return success();
    }
    if (act == "gelu") {
      // 0.5 * a * (1 + erf(a / SQRT_2)), SQRT_2 a float constant.
      p.payload = [kind](OpBuilder &b, Location loc, ValueRange e) {
        Value x = e[0];
        Value scaled = arith::DivFOp::create(
            b, loc, x, constant(b, loc, kind, static_cast<float>(M_SQRT2)));
        Value onePlus =
            arith::AddFOp::create(b, loc, constant(b, loc, kind, 1),
                                  math::ErfOp::create(b, loc, scaled));
        Value half =
            arith::MulFOp::create(b, loc, constant(b, loc, kind, 0.5), x);
        return Value(arith::MulFOp::create(b, loc, half, onePlus));
      };
      return success();
    }
    return rewriter.notifyMatchFailure(op, "unknown act_type '" + act + "'");
  }
};

struct ConvertClip final : ConvertElementwise<mx::ClipOp> {
  using ConvertElementwise::ConvertElementwise;
  LogicalResult plan(mx::ClipOp op, OpAdaptor adaptor,
                     ConversionPatternRewriter &rewriter,
                     ElementwisePlan &p) const override {
    Type elem = op.getData().getType().getElementType();
    if (failed(rejectBool(op, rewriter, elem)))
      return failure();
    ElemKind kind = kindOf(elem);
    double lo = op.getAMin().convertToDouble();
    double hi = op.getAMax().convertToDouble();
    p.inputs = {adaptor.getData()};
    // x > hi ? hi : (x < lo ? lo : x); NaN passes through.
    p.payload = [kind, lo, hi](OpBuilder &b, Location loc, ValueRange e) {
      Value x = e[0];
      Value vlo = constant(b, loc, kind, lo), vhi = constant(b, loc, kind, hi);
      Value gt, lt;
      if (kind.isFloat()) {
        gt = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, x, vhi);
        lt = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, x, vlo);
      } else {
        bool u = kind.isUnsigned;
        gt = arith::CmpIOp::create(
            b, loc, u ? arith::CmpIPredicate::ugt : arith::CmpIPredicate::sgt,
            x, vhi);
        lt = arith::CmpIOp::create(
            b, loc, u ? arith::CmpIPredicate::ult : arith::CmpIPredicate::slt,
            x, vlo);
      }
      Value low = arith::SelectOp::create(b, loc, lt, vlo, x);
      return Value(arith::SelectOp::create(b, loc, gt, vhi, low));
    };
    return success();
  }
};

struct ConvertWhere final : ConvertElementwise<mx::WhereOp> {
  using ConvertElementwise::ConvertElementwise;
  LogicalResult plan(mx::WhereOp op, OpAdaptor adaptor,
                     ConversionPatternRewriter &rewriter,
                     ElementwisePlan &p) const override {
    auto condType = op.getCondition().getType();
    auto xType = op.getX().getType();
    MLIRContext *ctx = op.getContext();
    AffineMap id = AffineMap::getMultiDimIdentityMap(xType.getRank(), ctx);
    AffineMap condMap = id;
    if (condType.getShape() != xType.getShape()) {
      // A 1-D condition picks whole rows (axis 0).
      if (condType.getRank() != 1 || xType.getRank() < 1 ||
          condType.getDimSize(0) != xType.getDimSize(0))
        return rewriter.notifyMatchFailure(op, "condition shape mismatch");
      condMap = AffineMap::get(xType.getRank(), 0, getAffineDimExpr(0, ctx));
    }
    ElemKind ck = kindOf(condType.getElementType());
    p.inputs = {adaptor.getCondition(), adaptor.getX(), adaptor.getY()};
    p.maps = {condMap, id, id};
    p.payload = [ck](OpBuilder &b, Location loc, ValueRange e) {
      Value nz = convertElement(b, loc, e[0], ck, {b.getI1Type()});
      return Value(arith::SelectOp::create(b, loc, nz, e[1], e[2]));
    };
    return success();
  }
};

struct ConvertCast final : ConvertElementwise<mx::CastOp> {
  using ConvertElementwise::ConvertElementwise;
  LogicalResult plan(mx::CastOp op, OpAdaptor adaptor,
                     ConversionPatternRewriter &rewriter,
                     ElementwisePlan &p) const override {
    ElemKind from = kindOf(op.getData().getType().getElementType());
    ElemKind to = kindOf(op.getOutput().getType().getElementType());
    p.inputs = {adaptor.getData()};
    p.payload = [from, to](OpBuilder &b, Location loc, ValueRange e) {
      return convertElement(b, loc, e[0], from, to);
    };
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Fills and pass-throughs
//===----------------------------------------------------------------------===//

/// zeros_like (Value = 0) and ones_like (Value = 1).
template <typename OpTy, int FillValue>
struct ConvertFillLike final : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!hasStaticShapes(op))
      return rewriter.notifyMatchFailure(op,
                                         "dynamic shapes are not supported");
    auto type = cast<RankedTensorType>(op.getOutput().getType());
    rewriter.replaceOp(op, filled(rewriter, op.getLoc(), type, FillValue));
    return success();
  }
};

/// identity and BlockGrad: the input itself.
template <typename OpTy>
struct ConvertPassThrough final : OpConversionPattern<OpTy> {
  using OpConversionPattern<OpTy>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, adaptor.getData());
    return success();
  }
};

/// _identity_with_attr_like_rhs: the lhs (the rhs only constrained shapes).
struct ConvertIdentityLikeRhs final
    : OpConversionPattern<mx::IdentityWithAttrLikeRhsOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(mx::IdentityWithAttrLikeRhsOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, adaptor.getLhs());
    return success();
  }
};

/// LogisticRegressionOutput: sigmoid(data); the label is read only by the
/// gradient.
struct ConvertLogisticRegressionOutput final
    : ConvertElementwise<mx::LogisticRegressionOutputOp> {
  using ConvertElementwise::ConvertElementwise;
  LogicalResult plan(mx::LogisticRegressionOutputOp op, OpAdaptor adaptor,
                     ConversionPatternRewriter &rewriter,
                     ElementwisePlan &p) const override {
    ElemKind kind = kindOf(op.getData().getType().getElementType());
    p.inputs = {adaptor.getData()};
    p.payload = [kind](OpBuilder &b, Location loc, ValueRange e) {
      return emitUnary(b, loc, Fn::Sigmoid, e[0], kind);
    };
    return success();
  }
};

/// Dropout in inference: output = data, mask = ones. mode 'always' (with
/// p > 0) drops in inference too, which needs random numbers.
struct ConvertDropout final : OpConversionPattern<mx::DropoutOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(mx::DropoutOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (op.getMode() == "always" && op.getP().convertToDouble() != 0.0)
      return rewriter.notifyMatchFailure(
          op, "mode 'always' drops at inference time, which needs a random "
              "generator (not supported)");
    if (!hasStaticShapes(op))
      return rewriter.notifyMatchFailure(op,
                                         "dynamic shapes are not supported");
    auto maskType = cast<RankedTensorType>(op.getMask().getType());
    Value mask = filled(rewriter, op.getLoc(), maskType, 1);
    rewriter.replaceOp(op, {adaptor.getData(), mask});
    return success();
  }
};

} // namespace

//===----------------------------------------------------------------------===//
// Registration
//===----------------------------------------------------------------------===//

/// The op a pattern lowers.
template <typename OpTy>
static OpTy sourceOpOf(const OpConversionPattern<OpTy> *);
template <typename P>
using SourceOpOf = decltype(sourceOpOf(static_cast<const P *>(nullptr)));

/// Marks each op illegal and adds its pattern.
template <typename... Patterns>
static void addPatterns(TypeConverter &tc, RewritePatternSet &patterns,
                        ConversionTarget &target) {
  (target.addIllegalOp<SourceOpOf<Patterns>>(), ...);
  patterns.add<Patterns...>(tc, patterns.getContext());
}

void mxc::conversion::populateElementwisePatternsAndLegality(
    TypeConverter &typeConverter, RewritePatternSet &patterns,
    ConversionTarget &target) {
  // ui8 elements are reinterpreted as i8 inside linalg bodies (arith wants
  // signless integers); reconcile-unrealized-casts removes the casts once
  // both sides are LLVM's i8.
  target.addLegalOp<UnrealizedConversionCastOp>();
  addPatterns<
      ConvertUnary<mx::NegativeOp, Fn::Neg>, ConvertUnary<mx::AbsOp, Fn::Abs>,
      ConvertUnary<mx::SquareOp, Fn::Square>,
      ConvertUnary<mx::SqrtOp, Fn::Sqrt>, ConvertUnary<mx::ExpOp, Fn::Exp>,
      ConvertUnary<mx::LogOp, Fn::Log>, ConvertUnary<mx::ReluOp, Fn::Relu>,
      ConvertUnary<mx::SigmoidOp, Fn::Sigmoid>,
      ConvertUnary<mx::TanhOp, Fn::Tanh>, ConvertUnary<mx::SignOp, Fn::Sign>,
      ConvertUnary<mx::RoundOp, Fn::Round>, ConvertUnary<mx::RintOp, Fn::Rint>,
      ConvertUnary<mx::ContribRoundSteOp, Fn::Round>,
      ConvertUnary<mx::ContribSignSteOp, Fn::Sign>,
      ConvertUnary<mx::FloorOp, Fn::Floor>, ConvertUnary<mx::CeilOp, Fn::Ceil>,
      ConvertUnary<mx::TruncOp, Fn::Trunc>, ConvertUnary<mx::FixOp, Fn::Trunc>,
      ConvertUnary<mx::ReciprocalOp, Fn::Reciprocal>,
      ConvertUnary<mx::RsqrtOp, Fn::Rsqrt>,
      ConvertUnary<mx::Log1pOp, Fn::Log1p>,
      ConvertUnary<mx::Expm1Op, Fn::Expm1>,
      ConvertUnary<mx::Log2Op, Fn::Log2>, ConvertUnary<mx::Log10Op, Fn::Log10>,
      ConvertUnary<mx::SinOp, Fn::Sin>, ConvertUnary<mx::CosOp, Fn::Cos>,
      ConvertUnary<mx::TanOp, Fn::Tan>, ConvertUnary<mx::ArcsinOp, Fn::Asin>,
      ConvertUnary<mx::ArccosOp, Fn::Acos>,
      ConvertUnary<mx::ArctanOp, Fn::Atan>, ConvertUnary<mx::SinhOp, Fn::Sinh>,
      ConvertUnary<mx::CoshOp, Fn::Cosh>,
      ConvertUnary<mx::ArcsinhOp, Fn::Asinh>,
      ConvertUnary<mx::ArccoshOp, Fn::Acosh>,
      ConvertUnary<mx::ArctanhOp, Fn::Atanh>,
      ConvertUnary<mx::DegreesOp, Fn::Degrees>,
      ConvertUnary<mx::RadiansOp, Fn::Radians>,
      ConvertUnary<mx::CbrtOp, Fn::Cbrt>, ConvertUnary<mx::RcbrtOp, Fn::Rcbrt>,
      ConvertUnary<mx::GammaOp, Fn::Gamma>, ConvertUnary<mx::GammalnOp, Fn::GammaLn>,
      ConvertUnary<mx::ErfOp, Fn::Erf>, ConvertUnary<mx::ErfinvOp, Fn::Erfinv>,
      ConvertUnary<mx::SoftsignOp, Fn::SoftSign>,
      ConvertBroadcastTo<mx::BroadcastToOp>,
      ConvertBroadcastTo<mx::BroadcastAxisOp>,
      ConvertBroadcastTo<mx::BroadcastLikeOp>, ConvertReverse,
      ConvertShapeConstant<mx::ShapeArrayOp>,
      ConvertShapeConstant<mx::SizeArrayOp>,
      ConvertDepthSpace<mx::DepthToSpaceOp, false>,
      ConvertDepthSpace<mx::SpaceToDepthOp, true>>(typeConverter, patterns,
                                                   target);
  addPatterns<ConvertBinary<mx::ElemwiseAddOp, Fn::Add>,
              ConvertBinary<mx::ElemwiseSubOp, Fn::Sub>,
              ConvertBinary<mx::ElemwiseMulOp, Fn::Mul>,
              ConvertBinary<mx::ElemwiseDivOp, Fn::Div>,
              ConvertBinary<mx::BroadcastAddOp, Fn::Add>,
              ConvertBinary<mx::BroadcastSubOp, Fn::Sub>,
              ConvertBinary<mx::BroadcastMulOp, Fn::Mul>,
              ConvertBinary<mx::BroadcastDivOp, Fn::Div>,
              ConvertBinary<mx::BroadcastMaximumOp, Fn::Max>,
              ConvertBinary<mx::BroadcastMinimumOp, Fn::Min>,
              ConvertBinary<mx::BroadcastPowerOp, Fn::Pow>,
              ConvertBinary<mx::BroadcastEqualOp, Fn::Eq>,
              ConvertBinary<mx::BroadcastNotEqualOp, Fn::Ne>,
              ConvertBinary<mx::BroadcastGreaterOp, Fn::Gt>,
              ConvertBinary<mx::BroadcastGreaterEqualOp, Fn::Ge>,
              ConvertBinary<mx::BroadcastLesserOp, Fn::Lt>,
              ConvertBinary<mx::BroadcastLesserEqualOp, Fn::Le>,
              ConvertBinary<mx::HypotOp, Fn::Hypot>,
              ConvertBinary<mx::BroadcastHypotOp, Fn::Hypot>,
              ConvertBinary<mx::ModOp, Fn::Mod>,
              ConvertBinary<mx::BroadcastModOp, Fn::Mod>,
              ConvertBinary<mx::BroadcastLogicalAndOp, Fn::And>,
              ConvertBinary<mx::BroadcastLogicalOrOp, Fn::Or>,
              ConvertBinary<mx::BroadcastLogicalXorOp, Fn::Xor>>(
      typeConverter, patterns, target);
  addPatterns<ConvertScalar<mx::PlusScalarOp, Fn::Add>,
              ConvertScalar<mx::MinusScalarOp, Fn::Sub>,
              ConvertScalar<mx::RminusScalarOp, Fn::Sub, /*Reversed=*/true>,
              ConvertScalar<mx::MulScalarOp, Fn::Mul>,
              ConvertScalar<mx::DivScalarOp, Fn::Div>,
              ConvertScalar<mx::RdivScalarOp, Fn::Div, /*Reversed=*/true>,
              ConvertScalar<mx::PowerScalarOp, Fn::Pow>,
              ConvertScalar<mx::RpowerScalarOp, Fn::Pow, /*Reversed=*/true>,
              ConvertScalar<mx::MaximumScalarOp, Fn::Max>,
              ConvertScalar<mx::MinimumScalarOp, Fn::Min>,
              ConvertScalar<mx::EqualScalarOp, Fn::Eq>,
              ConvertScalar<mx::NotEqualScalarOp, Fn::Ne>,
              ConvertScalar<mx::GreaterScalarOp, Fn::Gt>,
              ConvertScalar<mx::GreaterEqualScalarOp, Fn::Ge>,
              ConvertScalar<mx::LesserScalarOp, Fn::Lt>,
              ConvertScalar<mx::LesserEqualScalarOp, Fn::Le>,
              ConvertScalar<mx::HypotScalarOp, Fn::Hypot>,
              ConvertScalar<mx::ModScalarOp, Fn::Mod>,
              ConvertScalar<mx::RmodScalarOp, Fn::Mod, /*Reversed=*/true>,
              ConvertScalar<mx::LogicalAndScalarOp, Fn::And>,
              ConvertScalar<mx::LogicalOrScalarOp, Fn::Or>,
              ConvertScalar<mx::LogicalXorScalarOp, Fn::Xor>>(typeConverter,
                                                           patterns, target);
  addPatterns<ConvertHardSigmoid, ConvertSmoothL1>(typeConverter, patterns,
                                                  target);
  addPatterns<ConvertActivation, ConvertLeakyReLU, ConvertClip, ConvertWhere,
              ConvertCast, ConvertFillLike<mx::ZerosLikeOp, 0>,
              ConvertFillLike<mx::OnesLikeOp, 1>,
              ConvertPassThrough<mx::IdentityOp>,
              ConvertPassThrough<mx::BlockGradOp>,
              ConvertPassThrough<mx::ContribGradientMultiplierOp>, ConvertDropout,
              ConvertPassThrough<mx::LinearRegressionOutputOp>,
              ConvertPassThrough<mx::MAERegressionOutputOp>,
              ConvertPassThrough<mx::SVMOutputOp>,
              ConvertIdentityLikeRhs,
              ConvertLogisticRegressionOutput>(
      typeConverter, patterns, target);
}
