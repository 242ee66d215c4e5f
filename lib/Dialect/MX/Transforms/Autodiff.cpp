//===- Autodiff.cpp - mx-autodiff: forward + backward of @main ------------===//
//
// Turns @main into MXNet's training step, forward(is_train=True) followed by
// backward(out_grads):
//
//   1. Training forms replace inference forms: BatchNorm (unless
//      use_global_stats) normalises with the batch statistics, composed of
//      mean / broadcast_sub / square / ... so that their gradient follows,
//      and its running statistics are updated as MXNet does
//        moving = moving * momentum + batch_stat * (1 - momentum)
//      (batch variance biased, as batch_norm.cc computes it); with
//      use_global_stats the moving statistics are used as constants
//      (BlockGrad). With `library-batch-norm` (the CUDA target's choice),
//      a BatchNorm the library kernels take (f32 / f64, static shapes,
//      eps > 0, more than one element a channel) becomes one
//      mx.BatchNorm_train instead, whose gradient is one
//      mx.BatchNorm_backward (cuDNN's batch normalisation on the GPU);
//      the moving statistics are updated from its mean and biased
//      variance the same way. Dropout becomes data * mx.dropout_mask(rng_seed), a
//      counter-based mask; the backward multiplies by the same value.
//      LeakyReLU rrelu draws its slopes with mx.random_uniform(rng_seed).
//      A 2-D Convolution with one output position whose window holds the
//      whole input (ResNet's last stages on 32x32 images: 3x3 kernels, pad
//      1, over 1x1 maps) is the FullyConnected of the flattened input and
//      the weights' taps that land on it (a slice of the kernel window):
//      the same sums without the padding's zeros, which the convolution
//      kernels multiply (9x the work at 1x1) and whose weight gradient they
//      compute; the weight gradient of the other taps is the slice's, 0.
//   2. Arguments: the original ones, one head gradient per result
//      (mx.kind "head_grad", mx.name "<result>_grad"), the previous gradient
//      of each grad_req=add argument (mx.kind "grad_in", mx.name
//      "<arg>_grad"), and "rng_seed" (tensor<1xi64>, mx.kind "rng_seed") when
//      there is a Dropout or an rrelu.
//   3. Results: the original ones, the gradient of every argument with
//      grad_req write or add (mx.kind "grad", mx.name "<arg>_grad"; add:
//      previous + new), then the updated auxiliary states (mx.kind
//      "aux_out", mx.name = the aux argument's name).
//   4. Reverse mode over the ops on a path from a differentiated argument to
//      a result, in reverse order, with each op's GradientOpInterface rule;
//      gradients of a value with several uses are summed (elemwise_add).
//
// `wrt` (default: every argument of kind "param") selects the arguments;
// `grad-req` gives write|add|null for all of them and/or name=req for one
// argument (any argument, data included). An op on such a path without a
// rule fails with "no gradient for <MXNet op>" at its node.
//
//===----------------------------------------------------------------------===//
#include "../IR/GradientUtils.h"
#include "RngSeed.h"
#include "mxc/Dialect/MX/IR/MXOpTable.h"
#include "mxc/Dialect/MX/IR/MXOps.h"
#include "mxc/Dialect/MX/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringMap.h"

namespace mxc::mx {
#define GEN_PASS_DEF_MXAUTODIFFPASS
#include "mxc/Dialect/MX/Transforms/Passes.h.inc"
} // namespace mxc::mx

using namespace mlir;
using namespace mxc::mx;

namespace {

enum class Req { Null, Write, Add };

std::optional<Req> parseReq(StringRef s) {
  if (s == "write")
    return Req::Write;
  if (s == "add")
    return Req::Add;
  if (s == "null")
    return Req::Null;
  return std::nullopt;
}

RankedTensorType typeOf(Value v) { return cast<RankedTensorType>(v.getType()); }

struct AuxUpdate {
  unsigned argIndex;
  Value value;
};

struct MXAutodiffPass : mxc::mx::impl::MXAutodiffPassBase<MXAutodiffPass> {
  using Base::Base;

  func::FuncOp func;
  SmallVector<AuxUpdate> auxUpdates;

  StringRef argName(unsigned i) {
    if (auto n = func.getArgAttrOfType<StringAttr>(i, "mx.name"))
      return n.getValue();
    return "";
  }
  StringRef argKind(unsigned i) {
    if (auto k = func.getArgAttrOfType<StringAttr>(i, "mx.kind"))
      return k.getValue();
    return "data";
  }

  LogicalResult rewriteBatchNorm(BatchNormOp bn);
  LogicalResult rewriteWindowConvolution(ConvolutionOp conv);
  LogicalResult rewriteDropout(DropoutOp op, unsigned index);
  LogicalResult rewriteRReLU(LeakyReLUOp op, unsigned index);

  void runOnOperation() override;
};

/// Whether `conv` is a 2-D NCHW convolution (f32 or f64, static shapes,
/// one group, no dilation) with a single output position whose window
/// holds the whole input: pad + in <= kernel on both spatial axes.
bool windowCoversInput(ConvolutionOp conv) {
  auto x = dyn_cast<RankedTensorType>(conv.getData().getType());
  auto y = dyn_cast<RankedTensorType>(conv.getOutput().getType());
  auto w = dyn_cast<RankedTensorType>(conv.getWeight().getType());
  StringRef layout = conv.getLayout().value_or("");
  if (!x || !y || !w || !x.hasStaticShape() || !y.hasStaticShape() ||
      !w.hasStaticShape() || x.getRank() != 4 || conv.getKernel().size() != 2 ||
      (!layout.empty() && layout != "NCHW") || conv.getNumGroup() != 1 ||
      (!x.getElementType().isF32() && !x.getElementType().isF64()) ||
      x.getDimSize(0) == 0 || y.getDimSize(2) != 1 || y.getDimSize(3) != 1)
    return false;
  ArrayRef<int64_t> pad = conv.getPad(), dilate = conv.getDilate();
  for (int i = 0; i < 2; ++i) {
    int64_t p = pad.empty() ? 0 : pad[i];
    if ((!dilate.empty() && dilate[i] != 1) ||
        p + x.getDimSize(2 + i) > conv.getKernel()[i])
      return false;
  }
  return true;
}

/// windowCoversInput's convolution as FullyConnected (see the file comment).
LogicalResult MXAutodiffPass::rewriteWindowConvolution(ConvolutionOp conv) {
  OpBuilder b(conv);
  GradBuilder g(b, conv.getLoc());
  auto xt = typeOf(conv.getData());
  int64_t n = xt.getDimSize(0), c = xt.getDimSize(1), h = xt.getDimSize(2),
          w = xt.getDimSize(3);
  int64_t f = typeOf(conv.getOutput()).getDimSize(1);
  ArrayRef<int64_t> pad = conv.getPad();
  int64_t padH = pad.empty() ? 0 : pad[0], padW = pad.empty() ? 0 : pad[1];
  // One mx.slice: its gradient is one _slice_assign into zeros (two
  // slice_axis had a Concat of zeros each, 5-6 ms a step for ResNet-18's
  // 512 x 512 x 3 x 3 weights).
  auto tuple = [](int64_t a, int64_t b) {
    return "(None, None, " + std::to_string(a) + ", " + std::to_string(b) + ")";
  };
  Value taps = g.op("mx.slice", conv.getWeight(),
                    {g.str("begin", tuple(padH, padW)),
                     g.str("end", tuple(padH + h, padW + w))});
  SmallVector<Value> operands{g.reshape(conv.getData(), {n, c * h * w}),
                              g.reshape(taps, {f, c * h * w})};
  if (Value bias = conv.getBias())
    operands.push_back(bias);
  Value fc = g.op("mx.FullyConnected", operands,
                  {g.i64("num_hidden", f), g.boolean("no_bias", !conv.getBias())});
  Value out = g.reshape(fc, {n, f, 1, 1});
  if (g.failed() || !out)
    return failure();
  conv.getOutput().replaceAllUsesWith(out);
  conv->erase();
  return success();
}

/// BatchNorm in training mode as mx ops (see the file comment).
LogicalResult MXAutodiffPass::rewriteBatchNorm(BatchNormOp bn) {
  OpBuilder b(bn);
  GradBuilder g(b, bn.getLoc());
  Value x = bn.getData(), gamma = bn.getGamma(), beta = bn.getBeta(),
        mm = bn.getMovingMean(), mv = bn.getMovingVar();
  auto xt = typeOf(x);
  int64_t rank = xt.getRank();
  int64_t axis = static_cast<int64_t>(bn.getAxis());
  if (axis < 0)
    axis += rank;
  if (axis < 0 || axis >= rank)
    return bn.emitError() << "axis " << axis << " out of range";
  Type elt = xt.getElementType();
  // float16 / bfloat16 data (whose parameters and statistics are float32,
  // MXNet's AccReal): normalised in float32, the output cast back.
  Type dataElt = elt;
  if ((elt.isF16() || elt.isBF16()) && typeOf(gamma).getElementType().isF32()) {
    x = g.cast(x, typeOf(gamma).getElementType());
    if (g.failed() || !x)
      return failure();
    xt = typeOf(x);
    elt = xt.getElementType();
  }
  if (typeOf(gamma).getElementType() != elt)
    return bn.emitError()
           << "training with " << dataElt
           << " data and " << typeOf(gamma).getElementType()
           << " parameters is not supported";
  int64_t c = xt.getDimSize(axis);
  SmallVector<int64_t> view(rank, 1);
  view[axis] = c;
  SmallVector<int64_t> red;
  for (int64_t i = 0; i < rank; ++i)
    if (i != axis)
      red.push_back(i);
  double eps = bn.getEps().convertToDouble();
  double momentum = bn.getMomentum().convertToDouble();
  bool global = bn.getUseGlobalStats();

  // The running statistics (biased variance), updated as MXNet does:
  // moving * momentum + batch_stat * (1 - momentum), an aux_out of @main
  // for each moving statistic that is an argument (once).
  auto updateMovingStats = [&](Value mean, Value var) {
    for (auto [moving, stat] : {std::pair{mm, mean}, std::pair{mv, var}}) {
      Value updated =
          g.add(g.mulS(moving, momentum), g.mulS(stat, 1.0 - momentum));
      if (auto arg = dyn_cast<BlockArgument>(moving)) {
        bool seen = llvm::any_of(auxUpdates, [&](const AuxUpdate &u) {
          return u.argIndex == arg.getArgNumber();
        });
        if (!seen)
          auxUpdates.push_back({arg.getArgNumber(), updated});
      }
    }
  };

  // The library form: one op forward, one backward (see the file comment).
  int64_t perChannel = xt.hasStaticShape() && c > 0 ? xt.getNumElements() / c : 0;
  if (libraryBatchNorm && !global && (elt.isF32() || elt.isF64()) &&
      typeOf(gamma).hasStaticShape() && typeOf(gamma).getRank() == 1 &&
      eps > 0 && perChannel > 1) {
    Value scale = bn.getFixGamma() ? g.onesLike(gamma) : gamma;
    if (g.failed() || !scale)
      return failure();
    auto channel = RankedTensorType::get({c}, elt);
    auto train = BatchNormTrainOp::create(
        b, bn.getLoc(), TypeRange{xt, channel, channel, channel}, x, scale,
        beta, bn.getEpsAttr(), b.getI64IntegerAttr(axis));
    updateMovingStats(train.getMean(), train.getVar());
    Value y = g.cast(train.getOutput(), dataElt);
    if (g.failed() || !y)
      return failure();
    bn.getOutput().replaceAllUsesWith(y);
    bn.getMean().replaceAllUsesWith(train.getMean());
    bn.getVar().replaceAllUsesWith(train.getInvstd()); // MXNet's hidden var
    bn.erase();
    return success();
  }

  Value meanK, invstdK, centred;
  if (global) {
    meanK = g.reshape(g.op("mx.BlockGrad", mm), view);
    invstdK = g.reshape(g.powS(g.addS(g.op("mx.BlockGrad", mv), eps), -0.5),
                        view);
  } else {
    meanK = g.op("mx.mean", x,
                 {g.shape("axis", red), g.boolean("keepdims", true)});
    centred = g.sub(x, meanK);
    Value varK = g.op("mx.mean", g.square(centred),
                      {g.shape("axis", red), g.boolean("keepdims", true)});
    invstdK = g.powS(g.addS(varK, eps), -0.5);
    if (!g.failed()) {
      Value mean = g.reshape(meanK, {c});
      Value var = g.reshape(varK, {c});
      updateMovingStats(mean, var);
    }
  }
  Value out = g.mul(centred ? centred : g.sub(x, meanK), invstdK);
  if (!bn.getFixGamma())
    out = g.mul(out, g.reshape(gamma, view));
  out = g.cast(g.add(out, g.reshape(beta, view)), dataElt);
  Value meanOut = g.reshape(meanK, {c});
  Value varOut = g.reshape(invstdK, {c}); // MXNet's hidden var is invstd
  if (g.failed() || !out || !meanOut || !varOut)
    return failure();
  bn.getOutput().replaceAllUsesWith(out);
  bn.getMean().replaceAllUsesWith(meanOut);
  bn.getVar().replaceAllUsesWith(varOut);
  bn.erase();
  return success();
}

/// Dropout in training: data * mask, mask = dropout_mask(rng_seed).
LogicalResult MXAutodiffPass::rewriteDropout(DropoutOp op, unsigned index) {
  OpBuilder b(op);
  GradBuilder g(b, op.getLoc());
  double p = op.getP().convertToDouble();
  Value x = op.getData();
  auto maskType = typeOf(op.getMask());
  Value out, mask;
  if (p == 0.0 && maskType == typeOf(x)) {
    out = x;
    mask = g.onesLike(x);
  } else {
    std::string name = nodeName(op);
    int64_t stream = int64_t(name.empty() ? uint64_t(index) : fnv1a64(name));
    Value seed = getOrCreateRngSeed(func); // shared with mx-decompose
    b.setInsertionPoint(op);
    mask = DropoutMaskOp::create(b, op.getLoc(), maskType, seed,
                                 b.getF64FloatAttr(p),
                                 b.getI64IntegerAttr(stream));
    out = g.mul(x, mask);
  }
  if (g.failed() || !out || !mask)
    return failure();
  op.getOutput().replaceAllUsesWith(out);
  op.getMask().replaceAllUsesWith(mask);
  op.erase();
  return success();
}

/// LeakyReLU rrelu in training: a random slope per element in
/// [lower_bound, upper_bound) (the hidden mask result, as MXNet), y = x > 0 ?
/// x : slope * x; the backward reuses the slopes.
LogicalResult MXAutodiffPass::rewriteRReLU(LeakyReLUOp op, unsigned index) {
  OpBuilder b(op);
  GradBuilder g(b, op.getLoc());
  Value x = op.getData();
  std::string name = nodeName(op);
  int64_t stream =
      int64_t(name.empty() ? uint64_t(index) : fnv1a64(name + "/rrelu"));
  Value seed = getOrCreateRngSeed(func); // shared with mx-decompose
  b.setInsertionPoint(op);
  Value slope = RandomUniformOp::create(
      b, op.getLoc(), x.getType(), seed, op.getLowerBoundAttr(),
      op.getUpperBoundAttr(), b.getI64IntegerAttr(stream));
  Value pos = g.cmpS("greater", x, 0);
  Value out = g.mul(x, g.add(pos, g.mul(g.rsubS(pos, 1), slope)));
  if (g.failed() || !out)
    return failure();
  op.getOutput().replaceAllUsesWith(out);
  if (Value mask = op.getMask())
    mask.replaceAllUsesWith(slope);
  op.erase();
  return success();
}

void MXAutodiffPass::runOnOperation() {
  ModuleOp module = getOperation();
  MLIRContext *ctx = &getContext();
  func = module.lookupSymbol<func::FuncOp>("main");
  if (!func) {
    module.emitError() << "mx-autodiff: no function @main";
    return signalPassFailure();
  }
  if (!func.getBody().hasOneBlock()) {
    func.emitError() << "mx-autodiff: @main must have a single block";
    return signalPassFailure();
  }
  Block &block = func.front();
  auto ret = cast<func::ReturnOp>(block.getTerminator());
  unsigned numArgs = func.getNumArguments();
  unsigned numResults = func.getNumResults();

  // --- grad_req per argument -------------------------------------------
  llvm::StringMap<unsigned> argByName;
  for (unsigned i = 0; i < numArgs; ++i)
    argByName[argName(i)] = i;
  Req defaultReq = Req::Write;
  llvm::DenseMap<unsigned, Req> explicitReq;
  for (const std::string &entry : gradReq) {
    StringRef e(entry);
    // the last '=': an argument name may contain '=' (the req never does)
    auto [name, value] = e.rsplit('=');
    if (!e.contains('=')) {
      auto r = parseReq(e);
      if (!r) {
        module.emitError() << "grad-req '" << e
                           << "': expected write, add, null or name=req";
        return signalPassFailure();
      }
      defaultReq = *r;
      continue;
    }
    auto r = parseReq(value);
    if (!r) {
      module.emitError() << "grad-req '" << e << "': '" << value
                         << "' is not write, add or null";
      return signalPassFailure();
    }
    auto it = argByName.find(name);
    if (it == argByName.end()) {
      module.emitError() << "grad-req '" << e
                         << "': the graph has no argument named '" << name
                         << "'";
      return signalPassFailure();
    }
    explicitReq[it->second] = *r;
  }
  llvm::DenseSet<unsigned> wrtSet;
  if (wrt.empty()) {
    for (unsigned i = 0; i < numArgs; ++i)
      if (argKind(i) == "param")
        wrtSet.insert(i);
  } else {
    for (const std::string &name : wrt) {
      auto it = argByName.find(name);
      if (it == argByName.end()) {
        module.emitError() << "wrt '" << name
                           << "': the graph has no argument named '" << name
                           << "'";
        return signalPassFailure();
      }
      wrtSet.insert(it->second);
    }
  }
  SmallVector<Req> req(numArgs, Req::Null);
  for (unsigned i = 0; i < numArgs; ++i) {
    auto it = explicitReq.find(i);
    if (it != explicitReq.end())
      req[i] = it->second;
    else if (wrtSet.contains(i))
      req[i] = defaultReq;
    // An integer argument gets a gradient only when asked for by name (as
    // MXNet computes it, in the argument's type: Cast's gradient is cast
    // back, index operands get zeros); by default only floats do.
    if (req[i] != Req::Null &&
        !isa<FloatType>(typeOf(block.getArgument(i)).getElementType()) &&
        it == explicitReq.end() && wrt.empty())
      req[i] = Req::Null;
  }

  // --- training forms ----------------------------------------------------
  SmallVector<Operation *> toRewrite;
  for (Operation &op : block.without_terminator()) {
    auto leaky = dyn_cast<LeakyReLUOp>(op);
    auto conv = dyn_cast<ConvolutionOp>(op);
    if (isa<BatchNormOp, DropoutOp>(op) ||
        (leaky && leaky.getActType() == "rrelu") ||
        (conv && windowCoversInput(conv)))
      toRewrite.push_back(&op);
  }
  unsigned randomIndex = 0;
  for (Operation *op : toRewrite) {
    LogicalResult r = success();
    if (auto bn = dyn_cast<BatchNormOp>(op))
      r = rewriteBatchNorm(bn);
    else if (auto conv = dyn_cast<ConvolutionOp>(op))
      r = rewriteWindowConvolution(conv);
    else if (auto leaky = dyn_cast<LeakyReLUOp>(op))
      r = rewriteRReLU(leaky, randomIndex++);
    else
      r = rewriteDropout(cast<DropoutOp>(op), randomIndex++);
    if (failed(r))
      return signalPassFailure();
  }
  // --- new arguments -------------------------------------------------------
  SmallVector<Type> argTypes(func.getArgumentTypes());
  SmallVector<std::pair<unsigned, DictionaryAttr>> newArgAttrs;
  auto named = [&](StringRef name, StringRef kind) {
    NamedAttrList l;
    l.set("mx.name", StringAttr::get(ctx, name));
    l.set("mx.kind", StringAttr::get(ctx, kind));
    return l.getDictionary(ctx);
  };
  SmallVector<Value> headGrads;
  for (unsigned i = 0; i < numResults; ++i) {
    std::string name = "output" + std::to_string(i);
    if (auto n = func.getResultAttrOfType<StringAttr>(i, "mx.name"))
      name = n.str();
    Type t = func.getResultTypes()[i];
    headGrads.push_back(block.addArgument(t, ret.getLoc()));
    argTypes.push_back(t);
    newArgAttrs.push_back({unsigned(argTypes.size() - 1),
                           named(name + "_grad", "head_grad")});
  }
  llvm::DenseMap<unsigned, Value> gradIn;
  for (unsigned i = 0; i < numArgs; ++i) {
    if (req[i] != Req::Add)
      continue;
    Type t = block.getArgument(i).getType();
    gradIn[i] = block.addArgument(t, ret.getLoc());
    argTypes.push_back(t);
    newArgAttrs.push_back({unsigned(argTypes.size() - 1),
                           named((argName(i) + "_grad").str(), "grad_in")});
  }

  // --- reverse sweep --------------------------------------------------------
  // Values that depend on a differentiated argument.
  llvm::DenseSet<Value> active;
  for (unsigned i = 0; i < numArgs; ++i)
    if (req[i] != Req::Null)
      active.insert(block.getArgument(i));
  SmallVector<Operation *> forwardOps;
  for (Operation &op : block.without_terminator()) {
    forwardOps.push_back(&op);
    if (llvm::any_of(op.getOperands(),
                     [&](Value v) { return active.contains(v); }))
      for (Value r : op.getResults())
        active.insert(r);
  }

  OpBuilder b(ret);
  llvm::DenseMap<Value, Value> grads;
  bool failedAny = false;
  auto accumulate = [&](Value v, Value g, Location loc) {
    auto it = grads.find(v);
    if (it == grads.end()) {
      grads[v] = g;
      return;
    }
    GradBuilder gb(b, loc);
    Value sum = gb.add(it->second, g);
    if (!sum)
      failedAny = true;
    it->second = sum;
  };
  for (auto [i, v] : llvm::enumerate(ret.getOperands()))
    if (active.contains(v))
      accumulate(v, headGrads[i], ret.getLoc());

  for (Operation *op : llvm::reverse(forwardOps)) {
    if (failedAny)
      break;
    if (!llvm::any_of(op->getResults(),
                      [&](Value r) { return grads.count(r); }))
      continue;
    if (!llvm::any_of(op->getOperands(),
                      [&](Value v) { return active.contains(v); }))
      continue;
    auto iface = dyn_cast<GradientOpInterface>(op);
    if (!iface) {
      const OpSpec *spec = lookupMLIROp(op->getName().getStringRef());
      op->emitError() << "no gradient for "
                      << (spec ? StringRef(spec->mxnetName)
                               : op->getName().getStringRef());
      return signalPassFailure();
    }
    SmallVector<Value> outGrads;
    for (Value r : op->getResults()) {
      auto it = grads.find(r);
      if (it != grads.end()) {
        outGrads.push_back(it->second);
        continue;
      }
      GradBuilder gb(b, op->getLoc());
      Value z = gb.zerosLike(r);
      if (!z)
        return signalPassFailure();
      outGrads.push_back(z);
    }
    SmallVector<Value> inGrads(op->getNumOperands());
    if (failed(iface.buildGradient(b, outGrads, inGrads)))
      return signalPassFailure();
    for (auto [operand, g] : llvm::zip(op->getOperands(), inGrads)) {
      if (!g || !active.contains(operand))
        continue;
      if (g.getType() != operand.getType()) {
        op->emitError() << "internal error: gradient type " << g.getType()
                        << " for an operand of type " << operand.getType();
        return signalPassFailure();
      }
      accumulate(operand, g, op->getLoc());
    }
  }
  if (failedAny)
    return signalPassFailure();

  // --- new results ------------------------------------------------------------
  SmallVector<Value> results(ret.getOperands());
  SmallVector<Type> resultTypes(func.getResultTypes());
  SmallVector<std::pair<unsigned, DictionaryAttr>> newResAttrs;
  for (unsigned i = 0; i < numArgs; ++i) {
    if (req[i] == Req::Null)
      continue;
    Value arg = block.getArgument(i);
    GradBuilder gb(b, arg.getLoc());
    Value g = grads.lookup(arg);
    if (req[i] == Req::Add)
      g = g ? gb.add(gradIn[i], g) : gradIn[i];
    else if (!g)
      g = gb.zerosLike(arg);
    if (!g)
      return signalPassFailure();
    results.push_back(g);
    resultTypes.push_back(g.getType());
    newResAttrs.push_back({unsigned(results.size() - 1),
                           named((argName(i) + "_grad").str(), "grad")});
  }
  for (const AuxUpdate &u : auxUpdates) {
    results.push_back(u.value);
    resultTypes.push_back(u.value.getType());
    newResAttrs.push_back(
        {unsigned(results.size() - 1), named(argName(u.argIndex), "aux_out")});
  }
  ret->setOperands(results);
  // Block arguments: original, [rng_seed], head grads, grad_in.
  SmallVector<Type> blockTypes(block.getArgumentTypes());
  SmallVector<DictionaryAttr> argAttrs;
  for (unsigned i = 0; i < block.getNumArguments(); ++i)
    argAttrs.push_back(i < func.getNumArguments() ? func.getArgAttrDict(i)
                                                  : DictionaryAttr());
  SmallVector<DictionaryAttr> resAttrs;
  for (unsigned i = 0; i < results.size(); ++i)
    resAttrs.push_back(i < numResults ? func.getResultAttrDict(i)
                                      : DictionaryAttr());
  for (auto &[idx, attrs] : newArgAttrs)
    argAttrs[idx] = attrs;
  for (auto &[idx, attrs] : newResAttrs)
    resAttrs[idx] = attrs;
  func.setType(FunctionType::get(ctx, blockTypes, resultTypes));
  func.setAllArgAttrs(argAttrs);
  func.setAllResultAttrs(resAttrs);

  // Gradients of operands nothing needs (labels, constants) were built by
  // the rules and are dead now; mx ops are pure.
  SmallVector<Operation *> all;
  for (Operation &op : block.without_terminator())
    all.push_back(&op);
  for (Operation *op : llvm::reverse(all))
    if (isOpTriviallyDead(op))
      op->erase();
  // A head gradient nothing reads (an output no gradient flows back from:
  // argmax, shape_array, topk's indices) is marked, so that an executor can
  // ignore its shape as MXNet's backward ignores an out_grad it does not
  // need.
  for (Value hg : headGrads)
    if (hg.use_empty())
      func.setArgAttr(cast<BlockArgument>(hg).getArgNumber(), "mx.unused",
                      UnitAttr::get(ctx));
}

} // namespace
