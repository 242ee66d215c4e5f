//===- FuseConvolution.cpp - mx-fuse-convolution --------------------------===//
//
// Folds the inference epilogue of a 2-D f32 Convolution (BatchNorm with the
// moving statistics, relu / clip, a residual add) into one
// mx.Convolution_fused, whose runtime kernel applies it as oneDNN post-ops.
// See the pass description in Passes.td.
//
//===----------------------------------------------------------------------===//
#include "mxc/Dialect/MX/IR/MXOps.h"
#include "mxc/Dialect/MX/Transforms/Passes.h"

#include "ConvolutionEpilogue.h"
#include "CreateOp.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"

#include <tuple>

namespace mxc::mx {
#define GEN_PASS_DEF_MXFUSECONVOLUTIONPASS
#include "mxc/Dialect/MX/Transforms/Passes.h.inc"
} // namespace mxc::mx

using namespace mlir;
namespace mx = mxc::mx;

namespace {

/// CreateOp.h's createOp, for an op with one result.
template <typename OpTy>
Value createValue(OpBuilder &b, Location loc, Type result, ValueRange operands,
                  ArrayRef<NamedAttribute> attrs = {}) {
  return mx::createOp<OpTy>(b, loc, result, operands, attrs)->getResult(0);
}

bool isStaticF32(Type t) {
  auto r = dyn_cast<RankedTensorType>(t);
  return r && r.hasStaticShape() && r.getElementType().isF32();
}

/// The one user of `v` in `v`'s block, or null.
Operation *onlyUser(Value v, Block *block) {
  if (!v.hasOneUse())
    return nullptr;
  Operation *user = *v.getUsers().begin();
  return user->getBlock() == block ? user : nullptr;
}

/// What follows a convolution, as matched.
struct Epilogue {
  mx::BatchNormOp bn;
  Operation *act = nullptr;
  StringRef actKind; // "relu" or "clip"
  double actMin = 0, actMax = 0;
  Operation *add = nullptr;
  Value sum;
  bool actAfterSum = false; // act follows the add
};

/// `user` as an activation mx.Convolution_fused applies to `cur`: fills
/// e.act / actKind / actMin / actMax and returns true.
bool matchActivation(Operation *user, Value cur, Epilogue &e) {
  mx::ConvActivation a;
  if (!mx::matchConvActivation(user, cur, a))
    return false;
  e.act = a.op, e.actKind = a.kind, e.actMin = a.min, e.actMax = a.max;
  return true;
}

Epilogue match(mx::ConvolutionOp conv) {
  Epilogue e;
  Block *block = conv->getBlock();
  Value cur = conv.getOutput();
  auto type = cur.getType();
  if (auto bn = dyn_cast_or_null<mx::BatchNormOp>(onlyUser(cur, block))) {
    if (bn.getData() == cur && mx::isInferenceBatchNorm(bn)) {
      e.bn = bn;
      cur = bn.getOutput();
    }
  }
  Operation *user = onlyUser(cur, block);
  if (matchActivation(user, cur, e))
    cur = e.act->getResult(0);
  user = onlyUser(cur, block);
  if (user && isa<mx::ElemwiseAddOp, mx::BroadcastAddOp>(user) &&
      user->getResult(0).getType() == type) {
    Value lhs = user->getOperand(0), rhs = user->getOperand(1);
    Value other = lhs == cur ? rhs : lhs;
    if (other != cur && other.getType() == type) {
      e.add = user;
      e.sum = other;
      // BatchNorm -> add -> relu (a ResNet block's end): the activation
      // after the sum.
      if (!e.act && matchActivation(onlyUser(user->getResult(0), block),
                                    user->getResult(0), e))
        e.actAfterSum = true;
    }
  }
  return e;
}

struct FuseConvolution
    : mx::impl::MXFuseConvolutionPassBase<FuseConvolution> {
  using MXFuseConvolutionPassBase::MXFuseConvolutionPassBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (auto flag = module->getAttrOfType<BoolAttr>("mxc.kernel_calls");
        flag && !flag.getValue())
      return;
    SmallVector<mx::ConvolutionOp> convs;
    module.walk([&](mx::ConvolutionOp op) { convs.push_back(op); });
    for (mx::ConvolutionOp conv : convs)
      fuse(conv, constantParams);
  }

  // Whether `v` is an argument of its function of kind param or aux (what
  // `constant-params` promises to hold still between runs).
  static bool isParamArgument(Value v) {
    auto arg = dyn_cast<BlockArgument>(v);
    if (!arg)
      return false;
    auto func = dyn_cast<func::FuncOp>(arg.getOwner()->getParentOp());
    if (!func || arg.getOwner() != &func.getBody().front())
      return false;
    auto kind = func.getArgAttrOfType<StringAttr>(arg.getArgNumber(), "mx.kind");
    return kind && (kind.getValue() == "param" || kind.getValue() == "aux");
  }

  static void fuse(mx::ConvolutionOp conv, bool constantParams) {
    StringRef layout = conv.getLayout().value_or("");
    if (conv.getKernel().size() != 2 || (!layout.empty() && layout != "NCHW") ||
        mx::isComposite(conv) || !isStaticF32(conv.getData().getType()) ||
        !isStaticF32(conv.getWeight().getType()) ||
        !isStaticF32(conv.getOutput().getType()))
      return;
    Epilogue e = match(conv);
    // A convolution alone becomes a fused op only for its kept weights
    // (ResNet-v2's projection shortcuts re-laid 2-8 MB of weights a call).
    const bool keepWeights = constantParams && isParamArgument(conv.getWeight());
    if (!e.bn && !e.act && !e.add && !keepWeights)
      return;
    // The matched ops in program order, the convolution first.
    SmallVector<Operation *> chain{conv};
    for (Operation *op : {e.bn.getOperation(), e.actAfterSum ? e.add : e.act,
                          e.actAfterSum ? e.act : e.add})
      if (op)
        chain.push_back(op);
    Operation *last = chain.back();
    OpBuilder b(last);
    MLIRContext *ctx = b.getContext();
    // The fused op carries every node's name (steps and errors name them).
    SmallVector<Location> locs;
    for (Operation *op : chain)
      locs.push_back(op->getLoc());
    Location loc = FusedLoc::get(ctx, locs);

    Value scale, shift;
    if (e.bn)
      std::tie(scale, shift) = mx::batchNormScaleShift(b, loc, e.bn);
    Value bias = conv.getNoBias() ? Value() : conv.getBias();
    auto fused = mx::ConvolutionFusedOp::create(
        b, loc, conv.getOutput().getType(), conv.getData(), conv.getWeight(),
        bias, scale, shift, e.sum, conv.getKernelAttr(), conv.getStrideAttr(),
        conv.getDilateAttr(), conv.getPadAttr(), conv.getNumFilterAttr(),
        conv.getNumGroupAttr(), b.getStringAttr(e.act ? e.actKind : ""),
        b.getF64FloatAttr(e.actMin), b.getF64FloatAttr(e.actMax),
        keepWeights ? b.getUnitAttr() : UnitAttr(),
        e.actAfterSum ? b.getUnitAttr() : UnitAttr(), UnitAttr(), UnitAttr());
    last->getResult(0).replaceAllUsesWith(fused.getOutput());
    for (Operation *op : llvm::reverse(chain))
      op->erase();
  }
};

} // namespace

bool mx::matchConvActivation(Operation *user, Value cur, ConvActivation &act) {
  if (!user || user->getNumResults() != 1 ||
      user->getResult(0).getType() != cur.getType())
    return false;
  if (auto a = dyn_cast<mx::ActivationOp>(user)) {
    if (a.getActType() == "relu" && a.getData() == cur)
      act.op = a, act.kind = "relu";
  } else if (auto r = dyn_cast<mx::ReluOp>(user)) {
    if (r.getData() == cur)
      act.op = r, act.kind = "relu";
  } else if (auto c = dyn_cast<mx::ClipOp>(user)) {
    if (c.getData() == cur) {
      act.op = c, act.kind = "clip";
      act.min = c.getAMin().convertToDouble();
      act.max = c.getAMax().convertToDouble();
    }
  }
  return act.op != nullptr;
}

bool mx::isInferenceBatchNorm(BatchNormOp bn) {
  int64_t axis = static_cast<int64_t>(bn.getAxis());
  bool ok = (axis == 1 || axis == -3) && bn.getMean().use_empty() &&
            bn.getVar().use_empty() &&
            bn.getOutput().getType() == bn.getData().getType();
  for (Value p :
       {bn.getGamma(), bn.getBeta(), bn.getMovingMean(), bn.getMovingVar()})
    ok = ok && isStaticF32(p.getType());
  return ok;
}

std::pair<Value, Value> mx::batchNormScaleShift(OpBuilder &b, Location loc,
                                                BatchNormOp bn) {
  MLIRContext *ctx = b.getContext();
  Type vec = bn.getMovingVar().getType();
  Value v = createValue<mx::PlusScalarOp>(
      b, loc, vec, bn.getMovingVar(),
      {b.getNamedAttr("scalar", bn.getEpsAttr()),
       b.getNamedAttr("is_int", BoolAttr::get(ctx, false))});
  Value sd = createValue<mx::SqrtOp>(b, loc, vec, v);
  Value scale =
      bn.getFixGamma()
          ? createValue<mx::RdivScalarOp>(
                b, loc, vec, sd,
                {b.getNamedAttr("scalar", b.getF64FloatAttr(1.0)),
                 b.getNamedAttr("is_int", BoolAttr::get(ctx, false))})
          : createValue<mx::ElemwiseDivOp>(b, loc, vec,
                                           ValueRange{bn.getGamma(), sd});
  Value ms = createValue<mx::ElemwiseMulOp>(
      b, loc, vec, ValueRange{bn.getMovingMean(), scale});
  Value shift = createValue<mx::ElemwiseSubOp>(b, loc, vec,
                                               ValueRange{bn.getBeta(), ms});
  return {scale, shift};
}
