//===- GradientUtils.h - helpers for gradient rules (internal) --*- C++ -*-===//
//
// Gradient rules (GradientOpInterface external models in MXGradients*.cpp)
// build their result as `mx` ops, created through mxc::mx::createMXOp so
// that result types come from MXNet's shape/type inference and the ops lower
// and fuse like imported ones. `GradBuilder` wraps that with short names:
//
//   GradBuilder g(builder, op->getLoc());
//   Value dx = g.mul(outGrads[0], g.sub(g.onesLike(y), g.square(y)));
//   if (!dx) return failure();   // an error was emitted at the op's loc
//   inGrads[0] = dx;
//
// Every method returns a null Value once anything failed (an input is null
// or createMXOp rejected the op, which emits one error at `loc`, i.e. at the
// MXNet node), so a rule chains calls and checks the final value only.
// Binary helpers pick elemwise_* for equal shapes and broadcast_* otherwise.
//
//===----------------------------------------------------------------------===//
#ifndef MXC_LIB_DIALECT_MX_IR_GRADIENTUTILS_H
#define MXC_LIB_DIALECT_MX_IR_GRADIENTUTILS_H

#include "mxc/Dialect/MX/IR/MXOpTable.h"
#include "mxc/Dialect/MX/IR/MXOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/SmallVector.h"

namespace mxc::mx {

class GradBuilder {
public:
  GradBuilder(mlir::OpBuilder &b, mlir::Location loc) : b(b), loc(loc) {}

  mlir::OpBuilder &builder() { return b; }
  mlir::Location location() const { return loc; }
  /// Whether any call failed (an error was emitted).
  bool failed() const { return hasFailed; }

  // Attributes, named as in MXNet.
  mlir::NamedAttribute f64(llvm::StringRef name, double v) {
    return b.getNamedAttr(name, b.getF64FloatAttr(v));
  }
  mlir::NamedAttribute i64(llvm::StringRef name, int64_t v) {
    return b.getNamedAttr(name, b.getI64IntegerAttr(v));
  }
  mlir::NamedAttribute boolean(llvm::StringRef name, bool v) {
    return b.getNamedAttr(name, b.getBoolAttr(v));
  }
  mlir::NamedAttribute shape(llvm::StringRef name, llvm::ArrayRef<int64_t> v) {
    return b.getNamedAttr(name, b.getDenseI64ArrayAttr(v));
  }
  mlir::NamedAttribute str(llvm::StringRef name, llvm::StringRef v) {
    return b.getNamedAttr(name, b.getStringAttr(v));
  }

  /// All results of the mx op `opName` ("mx.sum"), or an empty vector.
  llvm::SmallVector<mlir::Value>
  ops(llvm::StringRef opName, mlir::ValueRange operands,
      llvm::ArrayRef<mlir::NamedAttribute> attrs = {}) {
    if (hasFailed || llvm::any_of(operands, [](mlir::Value v) { return !v; })) {
      hasFailed = true;
      return {};
    }
    const OpSpec *spec = lookupMLIROp(opName);
    if (!spec) {
      mlir::emitError(loc) << "internal error: no mx op " << opName;
      hasFailed = true;
      return {};
    }
    mlir::FailureOr<mlir::Operation *> op =
        createMXOp(b, loc, *spec, operands, attrs);
    if (mlir::failed(op)) {
      hasFailed = true;
      return {};
    }
    return llvm::SmallVector<mlir::Value>((*op)->getResults());
  }
  /// The first result of the mx op `opName`, or null.
  mlir::Value op(llvm::StringRef opName, mlir::ValueRange operands,
                 llvm::ArrayRef<mlir::NamedAttribute> attrs = {}) {
    auto r = ops(opName, operands, attrs);
    return r.empty() ? mlir::Value() : r.front();
  }

  static mlir::RankedTensorType typeOf(mlir::Value v) {
    return llvm::cast<mlir::RankedTensorType>(v.getType());
  }
  static bool sameShape(mlir::Value a, mlir::Value c) {
    return typeOf(a).getShape() == typeOf(c).getShape();
  }

  // Binary arithmetic: elemwise_* for equal shapes, broadcast_* otherwise.
  mlir::Value add(mlir::Value a, mlir::Value c) { return bin("add", a, c); }
  mlir::Value sub(mlir::Value a, mlir::Value c) { return bin("sub", a, c); }
  mlir::Value mul(mlir::Value a, mlir::Value c) { return bin("mul", a, c); }
  mlir::Value div(mlir::Value a, mlir::Value c) { return bin("div", a, c); }

  // Unary ops and ops with a scalar.
  mlir::Value neg(mlir::Value a) { return op("mx.negative", a); }
  mlir::Value square(mlir::Value a) { return op("mx.square", a); }
  mlir::Value exp(mlir::Value a) { return op("mx.exp", a); }
  mlir::Value log(mlir::Value a) { return op("mx.log", a); }
  mlir::Value abs(mlir::Value a) { return op("mx.abs", a); }
  mlir::Value sigmoid(mlir::Value a) { return op("mx.sigmoid", a); }
  mlir::Value scalarOp(llvm::StringRef name, mlir::Value a, double s) {
    return op(name, a, {f64("scalar", s), boolean("is_int", false)});
  }
  mlir::Value mulS(mlir::Value a, double s) {
    return scalarOp("mx._mul_scalar", a, s);
  }
  mlir::Value addS(mlir::Value a, double s) {
    return scalarOp("mx._plus_scalar", a, s);
  }
  mlir::Value rsubS(mlir::Value a, double s) { // s - a
    return scalarOp("mx._rminus_scalar", a, s);
  }
  mlir::Value powS(mlir::Value a, double s) {
    return scalarOp("mx._power_scalar", a, s);
  }
  /// 1.0 where the comparison holds, else 0.0 (same type as `a`):
  /// "greater", "greater_equal", "lesser", "lesser_equal", "equal",
  /// "not_equal".
  mlir::Value cmpS(llvm::StringRef pred, mlir::Value a, double s) {
    return scalarOp(("mx._" + pred + "_scalar").str(), a, s);
  }
  mlir::Value cmp(llvm::StringRef pred, mlir::Value a, mlir::Value c) {
    return op(("mx.broadcast_" + pred).str(), {a, c});
  }

  mlir::Value zerosLike(mlir::Value a) { return op("mx.zeros_like", a); }
  mlir::Value onesLike(mlir::Value a) { return op("mx.ones_like", a); }
  mlir::Value cast(mlir::Value a, mlir::Type elementType) {
    if (!a)
      return fail();
    if (typeOf(a).getElementType() == elementType)
      return a;
    return op("mx.Cast", a,
              {str("dtype", getMXNetDTypeName(elementType))});
  }

  /// Reshape to a static shape (no special codes).
  mlir::Value reshape(mlir::Value a, llvm::ArrayRef<int64_t> shape) {
    if (!a)
      return fail();
    if (typeOf(a).getShape() == shape)
      return a;
    return op("mx.Reshape", a, {this->shape("shape", shape)});
  }
  /// sum over `axes` (keepdims as given); no axes: `a` itself.
  mlir::Value sum(mlir::Value a, llvm::ArrayRef<int64_t> axes, bool keepdims) {
    if (!a)
      return fail();
    if (axes.empty())
      return a;
    return op("mx.sum", a, {shape("axis", axes), boolean("keepdims", keepdims)});
  }
  /// `a` broadcast to `like`'s shape (a's extents are 1 or equal; same rank
  /// or fewer, aligned right as in MXNet's broadcasting).
  mlir::Value broadcastLike(mlir::Value a, mlir::Value like) {
    if (!a || !like)
      return fail();
    if (sameShape(a, like))
      return a;
    return op("mx.broadcast_add", {zerosLike(like), a});
  }

  /// MXNet's broadcast backward: sums `grad` over the axes along which an
  /// operand of type `target` was broadcast (leading axes it lacks, extents
  /// 1 it has), then reshapes to `target`'s shape. `grad` itself when the
  /// shapes agree.
  mlir::Value reduceToShape(mlir::Value grad, mlir::RankedTensorType target) {
    if (!grad)
      return fail();
    auto gt = typeOf(grad);
    if (gt.getShape() == target.getShape())
      return grad;
    int64_t gr = gt.getRank(), tr = target.getRank();
    llvm::SmallVector<int64_t> axes;
    for (int64_t i = 0; i < gr; ++i) {
      int64_t ti = i - (gr - tr);
      int64_t te = ti < 0 ? 1 : target.getDimSize(ti);
      if (te == 1 && gt.getDimSize(i) != 1)
        axes.push_back(i);
    }
    return reshape(sum(grad, axes, /*keepdims=*/true), target.getShape());
  }

private:
  mlir::Value fail() {
    hasFailed = true;
    return {};
  }
  mlir::Value bin(llvm::StringRef what, mlir::Value a, mlir::Value c) {
    if (!a || !c)
      return fail();
    std::string name = (sameShape(a, c) ? "mx.elemwise_" : "mx.broadcast_") +
                       what.str();
    return op(name, {a, c});
  }

  mlir::OpBuilder &b;
  mlir::Location loc;
  bool hasFailed = false;
};

} // namespace mxc::mx

#endif // MXC_LIB_DIALECT_MX_IR_GRADIENTUTILS_H
