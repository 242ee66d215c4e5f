//===- PropagateConvLayout.cpp - mx-propagate-conv-layout -----------------===//
//
// Marks the values that pass only between mx.Convolution_fused ops to be
// held in the runtime's blocked channel layout. See the pass description in
// Passes.td.
//
//===----------------------------------------------------------------------===//
#include "mxc/Dialect/MX/IR/MXOps.h"
#include "mxc/Dialect/MX/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/SetVector.h"

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

/// Rules 1 and 2 of the pass description: `op`'s output may be blocked as
/// far as its type and its users go.
bool mayBlock(mx::ConvolutionFusedOp op) {
  auto t = dyn_cast<RankedTensorType>(op.getOutput().getType());
  if (!t || !t.hasStaticShape() || t.getRank() != 4 ||
      !t.getElementType().isF32() || t.getDimSize(1) % kChannelMultiple)
    return false;
  Value out = op.getOutput();
  if (out.use_empty())
    return false;
  for (OpOperand &use : out.getUses()) {
    auto user = dyn_cast<mx::ConvolutionFusedOp>(use.getOwner());
    if (!user)
      return false; // another op, or the function's return
    // The data is operand 0; the sum, when there is one, the last.
    unsigned n = use.getOperandNumber();
    bool isSum = user.getSum() && n == user->getNumOperands() - 1;
    if (n != 0 && !isSum)
      return false; // a weight, bias, scale or shift
  }
  return true;
}

struct PropagateConvLayout
    : mx::impl::MXPropagateConvLayoutPassBase<PropagateConvLayout> {
  void runOnOperation() override {
    SmallVector<mx::ConvolutionFusedOp> ops;
    getOperation().walk([&](mx::ConvolutionFusedOp op) { ops.push_back(op); });
    llvm::SetVector<Operation *> blocked; // ops whose output is blocked
    for (mx::ConvolutionFusedOp op : ops)
      if (mayBlock(op))
        blocked.insert(op);
    auto isBlocked = [&](Value v) {
      Operation *def = v.getDefiningOp();
      return def && blocked.contains(def);
    };
    // Rule 3, to a fixed point: a sum and its op's output share a layout.
    for (bool changed = true; changed;) {
      changed = false;
      for (mx::ConvolutionFusedOp op : ops) {
        Value sum = op.getSum();
        if (!sum)
          continue;
        bool out = blocked.contains(op), in = isBlocked(sum);
        if (out != in) {
          blocked.remove(out ? op.getOperation() : sum.getDefiningOp());
          changed = true;
        }
      }
    }
    UnitAttr unit = UnitAttr::get(&getContext());
    for (mx::ConvolutionFusedOp op : ops) {
      op.setBlockedOutputAttr(blocked.contains(op) ? unit : UnitAttr());
      op.setBlockedDataAttr(isBlocked(op.getData()) ? unit : UnitAttr());
    }
  }
};

} // namespace
