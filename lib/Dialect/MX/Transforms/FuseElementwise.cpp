//===- FuseElementwise.cpp - mx-fuse-elementwise --------------------------===//
//
// Groups maximal connected sets of elementwise and broadcast ops of @main's
// (and every other function's) body into `mx.fused` ops:
//
//   1. Layer tails: a Convolution / FullyConnected with a bias whose only
//      user is fusible becomes the layer without bias + broadcast_add of the
//      bias (reshaped to (1, F, 1, ...) for channel-first convolution), so the
//      bias joins the tail (bias + BatchNorm + relu in one loop nest after the
//      library GEMM/convolution).
//   2. Grouping, in block order: a fusible op joins the group of each fusible
//      producer unless that would make a cycle between groups (a path from
//      the group through ops outside it back into it, in the graph where
//      every group is one node).
//   3. Each group of two or more ops becomes one mx.fused whose inputs are
//      the values the group reads and whose results are the group's values
//      used outside it; the block is then re-sorted topologically.
//
//===----------------------------------------------------------------------===//
#include "mxc/Dialect/MX/IR/MXOps.h"
#include "mxc/Dialect/MX/Transforms/Passes.h"

#include "CreateOp.h"

#include "mlir/Analysis/TopologicalSortUtils.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/EquivalenceClasses.h"
#include "llvm/ADT/SetVector.h"

namespace mxc::mx {
#define GEN_PASS_DEF_MXFUSEELEMENTWISEPASS
#include "mxc/Dialect/MX/Transforms/Passes.h.inc"
} // namespace mxc::mx

using namespace mlir;
namespace mx = mxc::mx;

namespace {

bool hasStaticTensorTypes(Operation *op) {
  auto isStatic = [](Type t) {
    auto r = dyn_cast<RankedTensorType>(t);
    return r && r.hasStaticShape();
  };
  return llvm::all_of(op->getOperandTypes(), isStatic) &&
         llvm::all_of(op->getResultTypes(), isStatic);
}

/// Whether `op` computes each output element from the input elements at the
/// same (or broadcast) position, so that it lowers to one parallel
/// linalg.generic that fuses with its neighbours.
bool isFusible(Operation *op) {
  if (!hasStaticTensorTypes(op) || op->getNumResults() == 0)
    return false;
  if (isa<mx::ElemwiseAddOp, mx::ElemwiseSubOp, mx::ElemwiseMulOp,
          mx::ElemwiseDivOp, mx::BroadcastAddOp, mx::BroadcastSubOp,
          mx::BroadcastMulOp, mx::BroadcastDivOp, mx::BroadcastMaximumOp,
          mx::BroadcastMinimumOp, mx::BroadcastPowerOp, mx::BroadcastEqualOp,
          mx::BroadcastNotEqualOp, mx::BroadcastGreaterOp,
          mx::BroadcastGreaterEqualOp, mx::BroadcastLesserOp,
          mx::BroadcastLesserEqualOp, mx::PlusScalarOp, mx::MinusScalarOp,
          mx::RminusScalarOp, mx::MulScalarOp, mx::DivScalarOp,
          mx::RdivScalarOp, mx::PowerScalarOp, mx::RpowerScalarOp,
          mx::MaximumScalarOp, mx::MinimumScalarOp, mx::EqualScalarOp,
          mx::NotEqualScalarOp, mx::GreaterScalarOp, mx::GreaterEqualScalarOp,
          mx::LesserScalarOp, mx::LesserEqualScalarOp, mx::BroadcastLogicalAndOp,
          mx::BroadcastLogicalOrOp, mx::BroadcastLogicalXorOp, mx::LogicalAndScalarOp,
          mx::LogicalOrScalarOp, mx::LogicalXorScalarOp, mx::NegativeOp,
          mx::AbsOp, mx::SquareOp, mx::SqrtOp, mx::ExpOp, mx::LogOp,
          mx::ReluOp, mx::SigmoidOp, mx::TanhOp, mx::ActivationOp, mx::ClipOp,
          mx::SignOp, mx::RoundOp, mx::ContribRoundSteOp, mx::ContribSignSteOp, mx::RintOp, mx::FloorOp, mx::CeilOp,
          mx::TruncOp, mx::FixOp, mx::ReciprocalOp, mx::RsqrtOp, mx::Log1pOp,
          mx::Expm1Op, mx::Log2Op, mx::Log10Op, mx::SinOp, mx::CosOp,
          mx::WhereOp, mx::CastOp, mx::IdentityOp, mx::BlockGradOp,
          mx::ContribGradientMultiplierOp,
          mx::TanOp, mx::ArcsinOp, mx::ArccosOp, mx::ArctanOp, mx::SinhOp,
          mx::CoshOp, mx::ArcsinhOp, mx::ArccoshOp, mx::ArctanhOp,
          mx::DegreesOp, mx::RadiansOp, mx::CbrtOp, mx::RcbrtOp, mx::SoftsignOp,
          mx::HardSigmoidOp, mx::SmoothL1Op, mx::HypotOp, mx::BroadcastHypotOp,
          mx::HypotScalarOp, mx::ModOp, mx::BroadcastModOp, mx::ModScalarOp,
          mx::RmodScalarOp>(op))
    return true;
  // rrelu draws random slopes (and has a mask result).
  if (auto leaky = dyn_cast<mx::LeakyReLUOp>(op))
    return leaky.getActType() != "rrelu";
  // BatchNorm in inference form is a per-channel scale and shift. Its hidden
  // results (moving_mean, 1/sqrt(var + eps)) must be unused: they are
  // per-channel values, not part of the loop nest.
  if (auto bn = dyn_cast<mx::BatchNormOp>(op))
    return bn.getMean().use_empty() && bn.getVar().use_empty();
  return false;
}

using mxc::mx::createOp;

/// The single user of `v` if it has exactly one use, else null.
Operation *singleUser(Value v) {
  if (!v.hasOneUse())
    return nullptr;
  return *v.getUsers().begin();
}

/// Conv/FC with bias -> the layer without bias + broadcast_add(bias), when
/// the layer's only user is fusible (the add then costs nothing).
void splitLayerBiases(Block &block) {
  SmallVector<Operation *> layers;
  for (Operation &op : block)
    if (isa<mx::ConvolutionOp, mx::FullyConnectedOp>(op))
      layers.push_back(&op);
  for (Operation *op : layers) {
    if (!hasStaticTensorTypes(op))
      continue;
    Operation *user = singleUser(op->getResult(0));
    if (!user || !isFusible(user) || user->getBlock() != &block)
      continue;
    OpBuilder b(op);
    Location loc = op->getLoc();
    Value bias, out;
    if (auto conv = dyn_cast<mx::ConvolutionOp>(op)) {
      bias = conv.getBias();
      if (!bias || conv.getNoBias())
        continue;
      auto type = cast<RankedTensorType>(conv.getOutput().getType());
      StringRef layout = conv.getLayout().value_or("");
      bool channelLast = layout == "NHWC" || layout == "NDHWC";
      auto biasType = cast<RankedTensorType>(bias.getType());
      Value addend = bias;
      if (!channelLast) {
        // (F,) -> (1, F, 1, ...): numpy broadcasting aligns on the right.
        SmallVector<int64_t> shape(type.getRank(), 1);
        shape[1] = biasType.getDimSize(0);
        auto rType = RankedTensorType::get(shape, biasType.getElementType());
        addend = createOp<mx::ReshapeOp>(
                     b, loc, rType, bias,
                     {b.getNamedAttr("shape", b.getDenseI64ArrayAttr(shape))})
                     ->getResult(0);
      }
      conv.getBiasMutable().clear();
      conv.setNoBias(true);
      b.setInsertionPointAfter(op);
      out = createOp<mx::BroadcastAddOp>(b, loc, type,
                                         ValueRange{conv.getOutput(), addend})
                ->getResult(0);
      conv.getOutput().replaceAllUsesExcept(out, out.getDefiningOp());
    } else {
      auto fc = cast<mx::FullyConnectedOp>(op);
      bias = fc.getBias();
      if (!bias || fc.getNoBias())
        continue;
      auto type = cast<RankedTensorType>(fc.getOutput().getType());
      fc.getBiasMutable().clear();
      fc.setNoBias(true);
      b.setInsertionPointAfter(op);
      out = createOp<mx::BroadcastAddOp>(b, loc, type,
                                         ValueRange{fc.getOutput(), bias})
                ->getResult(0);
      fc.getOutput().replaceAllUsesExcept(out, out.getDefiningOp());
    }
  }
}

/// Groups of fusible ops of `block` (two or more ops each), in block order.
class Grouping {
public:
  explicit Grouping(Block &block) : block(block) {}

  SmallVector<SmallVector<Operation *>> run() {
    for (Operation &op : block) {
      if (!isFusible(&op))
        continue;
      classes.insert(&op);
      for (Value operand : op.getOperands()) {
        Operation *producer = operand.getDefiningOp();
        if (!producer || producer->getBlock() != &block ||
            !classes.contains(producer))
          continue;
        Operation *a = classes.getLeaderValue(&op);
        Operation *b = classes.getLeaderValue(producer);
        if (a == b || createsCycle(a, b))
          continue;
        classes.unionSets(a, b);
      }
    }
    // Members in block order.
    llvm::DenseMap<Operation *, unsigned> index;
    SmallVector<SmallVector<Operation *>> groups;
    for (Operation &op : block) {
      if (!classes.contains(&op))
        continue;
      Operation *leader = classes.getLeaderValue(&op);
      auto [it, inserted] = index.try_emplace(leader, groups.size());
      if (inserted)
        groups.emplace_back();
      groups[it->second].push_back(&op);
    }
    llvm::erase_if(groups, [](auto &g) { return g.size() < 2; });
    return groups;
  }

private:
  /// The node of `op` in the graph where each group is one node.
  Operation *node(Operation *op) {
    return classes.contains(op) ? classes.getLeaderValue(op) : op;
  }

  /// Whether joining the groups led by `a` and `b` would make a cycle: some
  /// path from the joined group leaves it and comes back. Searches backwards
  /// from the values the joined group reads from outside it.
  bool createsCycle(Operation *a, Operation *b) {
    auto inJoined = [&](Operation *op) {
      Operation *n = node(op);
      return n == a || n == b;
    };
    auto members = [&](Operation *leader) {
      SmallVector<Operation *> ms;
      if (!classes.contains(leader))
        return SmallVector<Operation *>{leader};
      for (auto it = classes.findLeader(leader); it != classes.member_end();
           ++it)
        ms.push_back(*it);
      return ms;
    };
    SmallVector<Operation *> worklist;
    llvm::DenseSet<Operation *> visited;
    auto pushOperands = [&](Operation *op) {
      for (Value v : op->getOperands()) {
        Operation *p = v.getDefiningOp();
        if (!p || p->getBlock() != &block || inJoined(p))
          continue;
        Operation *n = node(p);
        if (visited.insert(n).second)
          worklist.push_back(n);
      }
    };
    for (Operation *leader : {a, b})
      for (Operation *m : members(leader))
        pushOperands(m);
    while (!worklist.empty()) {
      Operation *n = worklist.pop_back_val();
      for (Operation *m : members(n)) {
        for (Value v : m->getOperands()) {
          Operation *p = v.getDefiningOp();
          if (!p || p->getBlock() != &block)
            continue;
          if (inJoined(p))
            return true;
          Operation *pn = node(p);
          if (visited.insert(pn).second)
            worklist.push_back(pn);
        }
      }
    }
    return false;
  }

  Block &block;
  llvm::EquivalenceClasses<Operation *> classes;
};

/// Replaces the ops of `group` (in block order) by one mx.fused.
void outline(ArrayRef<Operation *> group) {
  llvm::SmallPtrSet<Operation *, 16> members(group.begin(), group.end());
  llvm::SetVector<Value> inputs;
  SmallVector<Value> outputs;
  SmallVector<Location> locs;
  for (Operation *op : group) {
    locs.push_back(op->getLoc());
    for (Value v : op->getOperands())
      if (!members.contains(v.getDefiningOp()))
        inputs.insert(v);
    for (Value r : op->getResults())
      if (llvm::any_of(r.getUsers(), [&](Operation *u) {
            return !members.contains(u);
          }))
        outputs.push_back(r);
  }
  Operation *last = group.back();
  OpBuilder b(last);
  b.setInsertionPointAfter(last);
  SmallVector<Type> resultTypes;
  for (Value v : outputs)
    resultTypes.push_back(v.getType());
  Location loc = FusedLoc::get(last->getContext(), locs);
  auto fused =
      mx::FusedOp::create(b, loc, resultTypes, inputs.getArrayRef());
  Block &body = fused.getBodyBlock();
  IRMapping map;
  for (auto [in, arg] : llvm::zip(inputs, body.getArguments()))
    map.map(in, arg);
  OpBuilder inner = OpBuilder::atBlockEnd(&body);
  for (Operation *op : group)
    inner.clone(*op, map);
  SmallVector<Value> yielded;
  for (Value v : outputs)
    yielded.push_back(map.lookup(v));
  // The yield gets the last op's location: the op's own (fused) location
  // then names only the mx.fused op in diagnostics.
  mx::YieldOp::create(inner, last->getLoc(), yielded);
  for (auto [v, r] : llvm::zip(outputs, fused.getResults()))
    v.replaceUsesWithIf(r, [&](OpOperand &use) {
      return !members.contains(use.getOwner());
    });
  for (Operation *op : llvm::reverse(group))
    op->erase();
}

struct MXFuseElementwisePass
    : mxc::mx::impl::MXFuseElementwisePassBase<MXFuseElementwisePass> {
  using Base::Base;

  void runOnOperation() override {
    SmallVector<Block *> blocks;
    getOperation().walk([&](func::FuncOp func) {
      for (Block &block : func.getBody())
        blocks.push_back(&block);
    });
    for (Block *block : blocks) {
      if (splitBias)
        splitLayerBiases(*block);
      SmallVector<SmallVector<Operation *>> groups = Grouping(*block).run();
      for (auto &group : groups)
        outline(group);
      if (!groups.empty() && !sortTopologically(block)) {
        getOperation().emitError()
            << "internal error: mx-fuse-elementwise made a cycle";
        return signalPassFailure();
      }
    }
  }
};
} // namespace
