//===- PropagateConvLayout.cpp - mx-propagate-conv-layout -----------------===//
//
// Marks the values that pass only between fused convolutions, poolings and
// channel concatenations to be held in the runtime's blocked channel
// layout. See the pass description in Passes.td.
//
//===----------------------------------------------------------------------===//
#include "mxc/Dialect/MX/IR/MXOps.h"
#include "mxc/Dialect/MX/Transforms/Passes.h"

#include "ConvolutionEpilogue.h"
#include "CreateOp.h"

#include "llvm/ADT/DenseMap.h"

namespace mxc::mx {
#define GEN_PASS_DEF_MXPROPAGATECONVLAYOUTPASS
#include "mxc/Dialect/MX/Transforms/Passes.h.inc"
} // namespace mxc::mx

using namespace mlir;
namespace mx = mxc::mx;

namespace {

// Channels of a blocked tensor are a multiple of this (the larger of the
// runtime's blocks, 8 on AVX2 and 16 on AVX-512).
constexpr int64_t kChannelMultiple = 16;

bool blockableType(Type type) {
  auto t = dyn_cast<RankedTensorType>(type);
  return t && t.hasStaticShape() && t.getRank() == 4 &&
         t.getElementType().isF32() && t.getDimSize(1) % kChannelMultiple == 0;
}

/// A Pooling the runtime's mxc_kernel_pooling_f32 computes exactly: 2-D
/// NCHW f32 max or avg pooling (any convention: the op's type has the
/// output extents, and the kernel clips windows as MXNet).
bool isBlockablePooling(mx::PoolingOp op) {
  StringRef layout = op.getLayout().value_or("");
  if (mx::isComposite(op) || (!layout.empty() && layout != "NCHW"))
    return false;
  if (op.getPoolType() != "max" && op.getPoolType() != "avg")
    return false;
  if (!op.getGlobalPool() && op.getKernel().size() != 2)
    return false;
  auto in = dyn_cast<RankedTensorType>(op.getData().getType());
  return in && in.hasStaticShape() && in.getRank() == 4 &&
         in.getElementType().isF32() && blockableType(op.getOutput().getType());
}

/// A Concat along the channels, which is the same copy in both layouts when
/// every part's channels are whole blocks (an image's part is one
/// contiguous range either way).
bool isBlockableConcat(mx::ConcatOp op) {
  int64_t dim = static_cast<int64_t>(op.getDim());
  if (dim != 1 && dim != -3)
    return false;
  if (!blockableType(op.getOutput().getType()))
    return false;
  return llvm::all_of(op.getData(),
                      [](Value v) { return blockableType(v.getType()); });
}

/// A BatchNorm in inference form (and the relu / clip after it) on a
/// blockable tensor: a per-channel scale and shift (and activation) that,
/// where it reads or writes a blocked tensor, becomes a depthwise 1x1
/// mx.Convolution_fused (ResNet-v2's pre-activation between its blocks).
struct Affine {
  mx::BatchNormOp bn;
  mx::ConvActivation act;
  Value output; // the activation's result, else the BatchNorm's
};

std::optional<Affine> affineOf(mx::BatchNormOp bn) {
  if (!mx::isInferenceBatchNorm(bn) || !blockableType(bn.getData().getType()))
    return std::nullopt;
  Affine a{bn, {}, bn.getOutput()};
  Value out = bn.getOutput();
  if (out.hasOneUse() &&
      mx::matchConvActivation(*out.getUsers().begin(), out, a.act))
    a.output = a.act.op->getResult(0);
  return a;
}

/// Whether `use` reads its value where a blocked layout may be given.
bool readsBlocked(OpOperand &use) {
  Operation *user = use.getOwner();
  unsigned n = use.getOperandNumber();
  if (auto bn = dyn_cast<mx::BatchNormOp>(user))
    return n == 0 && affineOf(bn).has_value();
  if (auto conv = dyn_cast<mx::ConvolutionFusedOp>(user))
    // The data is operand 0; the sum, when there is one, the last.
    return n == 0 || (conv.getSum() && n == user->getNumOperands() - 1);
  if (auto pool = dyn_cast<mx::PoolingOp>(user))
    return isBlockablePooling(pool);
  if (auto concat = dyn_cast<mx::ConcatOp>(user))
    return isBlockableConcat(concat);
  return false;
}

/// Whether `v`'s producer may write it blocked.
bool writesBlocked(Value v) {
  Operation *def = v.getDefiningOp();
  if (!def)
    return false; // a function argument
  if (isa<mx::ConvolutionFusedOp>(def))
    return true;
  if (auto pool = dyn_cast<mx::PoolingOp>(def))
    return isBlockablePooling(pool);
  if (auto concat = dyn_cast<mx::ConcatOp>(def))
    return isBlockableConcat(concat);
  // A BatchNorm's output, or the activation's after one.
  auto bn = dyn_cast<mx::BatchNormOp>(def);
  if (!bn && def->getNumOperands() == 1)
    bn = def->getOperand(0).getDefiningOp<mx::BatchNormOp>();
  if (!bn)
    return false;
  std::optional<Affine> a = affineOf(bn);
  return a && a->output == v;
}

/// `a` as a depthwise 1x1 mx.Convolution_fused (weights of ones, the
/// BatchNorm's scale and shift, the activation) with the given layouts.
void rewriteAffine(Affine a, bool blockedData, bool blockedOutput) {
  Operation *last = a.act.op ? a.act.op : a.bn.getOperation();
  OpBuilder b(last);
  SmallVector<Location> locs{a.bn.getLoc()};
  if (a.act.op)
    locs.push_back(a.act.op->getLoc());
  Location loc = FusedLoc::get(b.getContext(), locs);
  auto [scale, shift] = mx::batchNormScaleShift(b, loc, a.bn);
  auto type = cast<RankedTensorType>(a.bn.getData().getType());
  int64_t channels = type.getDimSize(1);
  auto onesType = RankedTensorType::get({channels, 1, 1, 1}, b.getF32Type());
  Value ones =
      mx::createOp<mx::OnesOp>(
          b, loc, onesType, ValueRange{},
          {b.getNamedAttr("shape",
                          b.getDenseI64ArrayAttr({channels, 1, 1, 1}))})
          ->getResult(0);
  UnitAttr unit = b.getUnitAttr();
  auto fused = mx::ConvolutionFusedOp::create(
      b, loc, type, a.bn.getData(), ones, Value(), scale, shift, Value(),
      b.getDenseI64ArrayAttr({1, 1}), b.getDenseI64ArrayAttr({}),
      b.getDenseI64ArrayAttr({}), b.getDenseI64ArrayAttr({}),
      b.getI64IntegerAttr(channels), b.getI64IntegerAttr(channels),
      b.getStringAttr(a.act.kind), b.getF64FloatAttr(a.act.min),
      b.getF64FloatAttr(a.act.max), UnitAttr(), UnitAttr(),
      blockedData ? unit : UnitAttr(), blockedOutput ? unit : UnitAttr());
  a.output.replaceAllUsesWith(fused.getOutput());
  if (a.act.op)
    a.act.op->erase();
  a.bn->erase();
}

/// Union-find over the values that must share a layout.
struct Classes {
  llvm::DenseMap<Value, Value> parent;
  Value find(Value v) {
    auto it = parent.try_emplace(v, v).first;
    if (it->second == v)
      return v;
    Value root = find(it->second);
    parent[v] = root;
    return root;
  }
  void join(Value a, Value b) {
    Value ra = find(a), rb = find(b);
    if (ra != rb)
      parent[ra] = rb;
  }
};

struct PropagateConvLayout
    : mx::impl::MXPropagateConvLayoutPassBase<PropagateConvLayout> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    // Only the runtime's kernels know the layout.
    if (auto flag = module->getAttrOfType<BoolAttr>("mxc.kernel_calls");
        flag && !flag.getValue())
      return;
    SmallVector<Operation *> ops;
    SmallVector<Affine> affines;
    Classes classes;
    module.walk([&](Operation *op) {
      if (auto conv = dyn_cast<mx::ConvolutionFusedOp>(op)) {
        ops.push_back(op);
        classes.find(conv.getData());
        // A sum is accumulated in the output's buffer.
        if (Value sum = conv.getSum())
          classes.join(sum, conv.getOutput());
        else
          classes.find(conv.getOutput());
      } else if (auto pool = dyn_cast<mx::PoolingOp>(op)) {
        if (!isBlockablePooling(pool))
          return;
        ops.push_back(op);
        classes.find(pool.getData());
        classes.find(pool.getOutput());
      } else if (auto bn = dyn_cast<mx::BatchNormOp>(op)) {
        if (auto a = affineOf(bn)) {
          affines.push_back(*a);
          classes.find(bn.getData());
          classes.find(a->output);
        }
      } else if (auto concat = dyn_cast<mx::ConcatOp>(op)) {
        if (!isBlockableConcat(concat))
          return;
        // A copy of bytes: its parts and its result share a layout.
        for (Value in : concat.getData())
          classes.join(in, concat.getOutput());
      }
    });
    // A class is blocked when every value in it may be: written and read
    // only by the ops above, not a function result, of a blockable type.
    llvm::DenseMap<Value, bool> ok;
    SmallVector<Value> values;
    for (auto &entry : classes.parent)
      values.push_back(entry.first);
    for (Value v : values) {
      bool fine = blockableType(v.getType()) && writesBlocked(v) &&
                  !v.use_empty() &&
                  llvm::all_of(v.getUses(), readsBlocked);
      auto [it, fresh] = ok.try_emplace(classes.find(v), fine);
      if (!fresh)
        it->second = it->second && fine;
    }
    auto blocked = [&](Value v) {
      auto it = ok.find(classes.find(v));
      return it != ok.end() && it->second;
    };
    UnitAttr unit = UnitAttr::get(&getContext());
    for (Operation *op : ops) {
      if (auto conv = dyn_cast<mx::ConvolutionFusedOp>(op)) {
        conv.setBlockedOutputAttr(blocked(conv.getOutput()) ? unit : UnitAttr());
        conv.setBlockedDataAttr(blocked(conv.getData()) ? unit : UnitAttr());
        continue;
      }
      auto pool = cast<mx::PoolingOp>(op);
      // Discardable attributes: the lowering then calls the runtime's
      // pooling kernel (a Pooling with neither keeps its generated code).
      if (blocked(pool.getData()))
        pool->setAttr(mx::kBlockedDataAttr, unit);
      if (blocked(pool.getOutput()))
        pool->setAttr(mx::kBlockedOutputAttr, unit);
    }
    for (Affine &a : affines) {
      bool in = blocked(a.bn.getData()), out = blocked(a.output);
      if (in || out)
        rewriteAffine(a, in, out);
    }
  }
};

} // namespace
