//===- MXDecompose.cpp - composite mx ops as primitive mx ops -------------===//
//
// LayerNorm, InstanceNorm, GroupNorm, L2Normalization, moments, batch_take
// and argmax_channel are composites: the
// mx-decompose pass (Transforms/Decompose.cpp, in the graph pipeline before
// mx-autodiff) and the mx -> linalg lowering (for modules that did not run
// it) replace each by mean / sum / broadcast / sqrt operators, so that their
// gradients are the primitives' gradients and their elementwise parts fuse.
// The formulas are MXNet 1.9.1's forward kernels:
//   LayerNorm       mean, std = sqrt(var + eps) over `axis` (kept);
//                   out = (x - mean) / std * gamma + beta along `axis`
//   InstanceNorm    mean, var over the spatial axes of (N, C, ...);
//                   out = (x - mean) / sqrt(var + eps) * gamma[c] + beta[c];
//                   mean / var reported as (N, C)
//   GroupNorm       x as (N, G, C/G * spatial): mean, std = sqrt(var + eps)
//                   over the last axis; gamma / beta (G,) per group;
//                   mean / std reported as (N, G)
//   L2Normalization norm = sqrt(sum(x^2) + eps) over all axes but 0
//                   (instance; (N,)), axis 1 (channel; kept) or axes 2..
//                   (spatial; (N, C)); out = x / norm
//   moments         mean, mean((x - mean)^2) over `axes`
//   batch_take      pick(a, indices, axis=1, mode=clip)
//   argmax_channel  argmax(axis=1, keepdims=false)
//   repeat, tile    Reshape + broadcast_to + Reshape
//   SliceChannel    slice_axis per part (+ Reshape without the axis)
//   UpSampling      nearest: Reshape + broadcast_to + Reshape (+ Concat /
//                   additions); bilinear: Deconvolution
//   RNN             per layer and direction: FullyConnected of the whole
//                   sequence (input weights), then per time step a
//                   FullyConnected of the state (recurrent weights) and the
//                   cell's gates (rnn_impl.h: lstm i, f, g, o; gru r, z, n),
//                   unrolled; directions Concat on the features, layers
//                   stacked (Dropout p between them)
//   GridGenerator   the target grid from _arange; dot (affine) or the
//                   flow added (warp), normalised to [-1, 1]
//   quantize / dequantize  elementwise in float32 and Cast
//   BilinearSampler floor, four `take`s of the corners, masks, weights
//   SpatialTransformer  GridGenerator (affine) + BilinearSampler
//   im2col          Convolution, one group per channel, one-hot filters
//   col2im          Deconvolution with the same filters (im2col's adjoint)
//   interleaved_matmul_{selfatt,encdec}_{qk,valatt}
//                   Reshape / slice_axis / transpose + batch_dot per head
//   random_pdf_*    the log-density of pdf_op.h (log, gammaln, ...), exp
//                   unless is_log
//   CTCLoss         log_softmax; the extended label's log-probabilities by
//                   one_hot + batch_dot; the alpha recursion in log space
//                   (shifts by Concat, log-sum-exp of max / exp / log),
//                   unrolled over T; -log(alpha[2L] + alpha[2L - 1]) by pick
// and so are Convolution (NHWC, NDHWC) and Pooling (NWC, NHWC, NDHWC) with a
// channel-last layout: the channel-first op between transposes.
//
//===----------------------------------------------------------------------===//
#include "GradientUtils.h"
#include "MXInference.h"
#include "mxc/Dialect/MX/IR/MXOps.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace mxc::mx;

namespace {

RankedTensorType typeOf(Value v) { return cast<RankedTensorType>(v.getType()); }

/// float16 / bfloat16 values in float32 (MXNet's normalization kernels
/// accumulate half-precision data in float; decomposeComposite casts the
/// results back).
Value accumulated(GradBuilder &g, Value v) {
  Type elt = typeOf(v).getElementType();
  if (elt.isF16() || elt.isBF16())
    return g.cast(v, Float32Type::get(v.getContext()));
  return v;
}

/// mean over `axes` with keepdims.
Value meanKeep(GradBuilder &g, Value v, ArrayRef<int64_t> axes) {
  return g.op("mx.mean", v, {g.shape("axis", axes), g.boolean("keepdims", true)});
}

/// (x - mean) / sqrt(var + eps) over `axes` (kept); also mean and
/// sqrt(var + eps) (the "std").
struct Normalized {
  Value xhat, mean, var, std;
};
Normalized normalize(GradBuilder &g, Value x, ArrayRef<int64_t> axes,
                     double eps) {
  Normalized n;
  n.mean = meanKeep(g, x, axes);
  Value centered = g.sub(x, n.mean);
  n.var = meanKeep(g, g.square(centered), axes);
  n.std = g.op("mx.sqrt", g.addS(n.var, eps));
  n.xhat = g.div(centered, n.std);
  return n;
}

/// `p` (a vector) reshaped to broadcast along `axis` of a rank-`rank` value.
Value alongAxis(GradBuilder &g, Value p, int64_t axis, int64_t rank) {
  SmallVector<int64_t> shape(rank, 1);
  shape[axis] = typeOf(p).getNumElements();
  return g.reshape(p, shape);
}

/// v[begin:end] along `axis` (slice_axis).
Value sliceAxis(GradBuilder &g, Value v, int64_t axis, int64_t begin,
                int64_t end) {
  return g.op("mx.slice_axis", v,
              {g.i64("axis", axis), g.i64("begin", begin), g.i64("end", end)});
}

/// `parts` joined along `dim` (Concat); a single part as it is.
Value concatAxis(GradBuilder &g, ArrayRef<Value> parts, int64_t dim) {
  if (parts.size() == 1)
    return parts[0];
  return g.op("mx.Concat", parts,
              {g.i64("num_args", static_cast<int64_t>(parts.size())),
               g.i64("dim", dim)});
}

LogicalResult decomposeLayerNorm(GradBuilder &g, LayerNormOp op,
                                 SmallVectorImpl<Value> &results) {
  Value x = accumulated(g, op.getData());
  int64_t rank = typeOf(x).getRank();
  int64_t axis = static_cast<int64_t>(op.getAxis());
  if (axis < 0)
    axis += rank;
  Normalized n = normalize(g, x, {axis}, op.getEps().convertToDouble());
  Value out = g.add(
      g.mul(n.xhat, alongAxis(g, accumulated(g, op.getGamma()), axis, rank)),
      alongAxis(g, accumulated(g, op.getBeta()), axis, rank));
  results.assign({out, n.mean, n.std});
  return success();
}

LogicalResult decomposeInstanceNorm(GradBuilder &g, InstanceNormOp op,
                                    SmallVectorImpl<Value> &results) {
  Value x = accumulated(g, op.getData());
  auto t = typeOf(x);
  int64_t rank = t.getRank();
  SmallVector<int64_t> spatial;
  for (int64_t i = 2; i < rank; ++i)
    spatial.push_back(i);
  Normalized n = normalize(g, x, spatial, op.getEps().convertToDouble());
  Value out = g.add(g.mul(n.xhat, alongAxis(g, accumulated(g, op.getGamma()), 1, rank)),
                    alongAxis(g, accumulated(g, op.getBeta()), 1, rank));
  SmallVector<int64_t> nc{t.getDimSize(0), t.getDimSize(1)};
  results.assign({out, g.reshape(n.mean, nc), g.reshape(n.var, nc)});
  return success();
}

LogicalResult decomposeGroupNorm(GradBuilder &g, GroupNormOp op,
                                 SmallVectorImpl<Value> &results) {
  Value x = accumulated(g, op.getData());
  auto t = typeOf(x);
  int64_t groups = static_cast<int64_t>(op.getNumGroups());
  int64_t rest = t.getNumElements() / (t.getDimSize(0) * groups);
  Value grouped = g.reshape(x, {t.getDimSize(0), groups, rest});
  Normalized n = normalize(g, grouped, {2}, op.getEps().convertToDouble());
  Value out = g.add(g.mul(n.xhat, alongAxis(g, accumulated(g, op.getGamma()), 1, 3)),
                    alongAxis(g, accumulated(g, op.getBeta()), 1, 3));
  SmallVector<int64_t> ng{t.getDimSize(0), groups};
  results.assign({g.reshape(out, t.getShape()), g.reshape(n.mean, ng),
                  g.reshape(n.std, ng)});
  return success();
}

LogicalResult decomposeL2Normalization(GradBuilder &g, L2NormalizationOp op,
                                       SmallVectorImpl<Value> &results) {
  Value x = accumulated(g, op.getData());
  auto t = typeOf(x);
  int64_t rank = t.getRank();
  StringRef mode = op.getMode();
  SmallVector<int64_t> axes;
  if (mode == "channel")
    axes.push_back(1);
  else
    for (int64_t i = mode == "spatial" ? 2 : 1; i < rank; ++i)
      axes.push_back(i);
  Value norm = g.op("mx.sqrt", g.addS(g.sum(g.square(x), axes, true),
                                      op.getEps().convertToDouble()));
  Value out = g.div(x, norm);
  SmallVector<int64_t> normShape;
  if (mode == "instance")
    normShape = {t.getDimSize(0)};
  else if (mode == "spatial")
    normShape = {t.getDimSize(0), t.getDimSize(1)};
  else
    normShape.assign(typeOf(norm).getShape().begin(),
                     typeOf(norm).getShape().end());
  results.assign({out, g.reshape(norm, normShape)});
  return success();
}

LogicalResult decomposeMoments(GradBuilder &g, MomentsOp op,
                               SmallVectorImpl<Value> &results) {
  Value x = accumulated(g, op.getData());
  int64_t rank = typeOf(x).getRank();
  SmallVector<int64_t> axes;
  if (auto a = op.getAxes())
    for (int64_t v : *a)
      axes.push_back(v < 0 ? v + rank : v);
  else
    for (int64_t i = 0; i < rank; ++i)
      axes.push_back(i);
  Value mean = meanKeep(g, x, axes);
  Value var = meanKeep(g, g.square(g.sub(x, mean)), axes);
  ArrayRef<int64_t> shape = cast<RankedTensorType>(op.getOutput0().getType()).getShape();
  results.assign({g.reshape(mean, shape), g.reshape(var, shape)});
  return success();
}

/// repeat: expand_dims after the axis, broadcast_to `repeats` there, Reshape.
LogicalResult decomposeRepeat(GradBuilder &g, RepeatOp op,
                              SmallVectorImpl<Value> &results) {
  Value x = op.getData();
  int64_t axis = 0;
  if (auto a = op.getAxis()) {
    axis = static_cast<int64_t>(*a);
    if (axis < 0)
      axis += typeOf(x).getRank();
  } else {
    x = g.reshape(x, {typeOf(x).getNumElements()});
  }
  SmallVector<int64_t> expanded(typeOf(x).getShape());
  expanded.insert(expanded.begin() + axis + 1, 1);
  SmallVector<int64_t> target(expanded);
  target[axis + 1] = static_cast<int64_t>(op.getRepeats());
  Value b = g.op("mx.broadcast_to", g.reshape(x, expanded),
                 {g.shape("shape", target)});
  results.assign({g.reshape(b, typeOf(op.getOutput()).getShape())});
  return success();
}

/// tile: Reshape to (1, d0, 1, d1, ...), broadcast_to (r0, d0, r1, d1, ...),
/// Reshape.
LogicalResult decomposeTile(GradBuilder &g, TileOp op,
                            SmallVectorImpl<Value> &results) {
  Value x = op.getData();
  ArrayRef<int64_t> in = typeOf(x).getShape();
  ArrayRef<int64_t> reps = op.getReps();
  ArrayRef<int64_t> out = typeOf(op.getOutput()).getShape();
  if (reps.empty()) {
    results.assign({x});
    return success();
  }
  int64_t n = out.size();
  SmallVector<int64_t> interleaved, target;
  for (int64_t i = 0; i < n; ++i) {
    int64_t ii = i - (n - static_cast<int64_t>(in.size()));
    int64_t ri = i - (n - static_cast<int64_t>(reps.size()));
    int64_t d = ii >= 0 ? in[ii] : 1, r = ri >= 0 ? reps[ri] : 1;
    interleaved.append({1, d});
    target.append({r, d});
  }
  Value b = g.op("mx.broadcast_to", g.reshape(x, interleaved),
                 {g.shape("shape", target)});
  results.assign({g.reshape(b, out)});
  return success();
}

/// SliceChannel: part i is slice_axis [i * n, (i + 1) * n) of the axis,
/// reshaped without it when squeeze_axis.
LogicalResult decomposeSliceChannel(GradBuilder &g, SliceChannelOp op,
                                    SmallVectorImpl<Value> &results) {
  Value x = op.getData();
  int64_t rank = typeOf(x).getRank();
  int64_t axis = static_cast<int64_t>(op.getAxis());
  if (axis < 0)
    axis += rank;
  int64_t parts = static_cast<int64_t>(op.getNumOutputs());
  int64_t n = typeOf(x).getDimSize(axis) / parts;
  for (auto [i, res] : llvm::enumerate(op.getResults())) {
    int64_t begin = static_cast<int64_t>(i) * n;
    Value part = sliceAxis(g, x, axis, begin, begin + n);
    if (op.getSqueezeAxis())
      part = g.reshape(part, cast<RankedTensorType>(res.getType()).getShape());
    results.push_back(part);
  }
  return success();
}

/// diag: positions i * (w + 1) + offset (i < length) of the flattened
/// (h, w) planes; a 1-D input puts itself there by a dot with their one_hot.
/// Flat positions (row * rowLen + col) of the first `count` entries of
/// diagonal k in rows of `rowLen`: row = i + max(-k, 0), col = i + max(k, 0).
Value diagonalPositions(GradBuilder &g, int64_t count, int64_t rowLen, int64_t k,
                        StringRef dtype) {
  double off = double(std::max<int64_t>(0, -k) * rowLen + std::max<int64_t>(0, k));
  double step = double(rowLen + 1);
  return g.op("mx._arange", {},
              {g.f64("start", off), g.f64("stop", off + step * double(count)),
               g.f64("step", step), g.str("dtype", dtype)});
}

/// Rows `values` (batch, count) placed at flat positions `pos` (count,) of
/// zero rows of `size`: a `dot` with the one_hot of the positions (its
/// gradient is the matching `take`).
Value placeAt(GradBuilder &g, Value values, Value pos, int64_t size) {
  Type elt = typeOf(values).getElementType();
  Value hot = g.op("mx.one_hot", pos,
                   {g.i64("depth", size), g.str("dtype", getMXNetDTypeName(elt))});
  return g.op("mx.dot", {values, hot});
}

LogicalResult decomposeDiag(GradBuilder &g, DiagOp op,
                            SmallVectorImpl<Value> &results) {
  Value x = op.getData();
  RankedTensorType xt = typeOf(x);
  ArrayRef<int64_t> in = xt.getShape();
  auto outType = cast<RankedTensorType>(op.getType());
  int64_t k = static_cast<int64_t>(op.getK());
  StringRef dtype = getMXNetDTypeName(xt.getElementType());
  if (in.size() == 1) {
    int64_t n = in[0], m = outType.getDimSize(0);
    Value flat = placeAt(g, g.reshape(x, {1, n}), diagonalPositions(g, n, m, k, dtype), m * m);
    results.push_back(g.reshape(flat, {m, m}));
    return success();
  }
  int64_t rank = xt.getRank();
  int64_t a1 = static_cast<int64_t>(op.getAxis1()),
          a2 = static_cast<int64_t>(op.getAxis2());
  a1 = a1 < 0 ? a1 + rank : a1;
  a2 = a2 < 0 ? a2 + rank : a2;
  SmallVector<int64_t> perm, lead;
  for (int64_t d = 0; d < rank; ++d)
    if (d != a1 && d != a2) {
      perm.push_back(d);
      lead.push_back(in[d]);
    }
  perm.push_back(a1);
  perm.push_back(a2);
  if (!llvm::is_sorted(perm))
    x = g.op("mx.transpose", x, {g.shape("axes", perm)});
  int64_t w = in[a2];
  SmallVector<int64_t> flatShape(lead);
  flatShape.push_back(in[a1] * w);
  Value flat = g.reshape(x, flatShape);
  int64_t len = outType.getShape().back();
  results.push_back(g.op("mx.take", {flat, diagonalPositions(g, len, w, k, dtype)},
                         {g.i64("axis", static_cast<int64_t>(lead.size()))}));
  return success();
}

/// UpSampling: nearest as Reshape (N, C, h, 1, w, 1) / broadcast_to (.., s,
/// .., s) / Reshape per input, joined by Concat or additions; bilinear as
/// MXNet's Deconvolution.
LogicalResult decomposeUpSampling(GradBuilder &g, UpSamplingOp op,
                                  SmallVectorImpl<Value> &results) {
  int64_t scale = static_cast<int64_t>(op.getScale());
  ArrayRef<int64_t> out = typeOf(op.getOutput()).getShape();
  if (op.getSampleType() == "bilinear") {
    int64_t k = 2 * scale - scale % 2;
    int64_t pad = (scale - 1 + 1) / 2; // ceil((scale - 1) / 2)
    int64_t numFilter = static_cast<int64_t>(op.getNumFilter());
    results.assign({g.op("mx.Deconvolution", op.getData(),
                         {g.shape("kernel", {k, k}), g.shape("stride", {scale, scale}),
                          g.shape("pad", {pad, pad}), g.i64("num_filter", numFilter),
                          g.i64("num_group", numFilter), g.boolean("no_bias", true)})});
    return success();
  }
  SmallVector<Value> parts;
  for (Value x : op.getData()) {
    ArrayRef<int64_t> s = typeOf(x).getShape();
    int64_t f = out[2] / s[2];
    Value v = x;
    if (f != 1) {
      v = g.reshape(x, {s[0], s[1], s[2], 1, s[3], 1});
      v = g.op("mx.broadcast_to", v,
               {g.shape("shape", {s[0], s[1], s[2], f, s[3], f})});
      v = g.reshape(v, {s[0], s[1], s[2] * f, s[3] * f});
    }
    parts.push_back(v);
  }
  Value r = parts[0];
  if (parts.size() > 1) {
    if (op.getMultiInputMode() == "sum") {
      for (Value p : ArrayRef<Value>(parts).drop_front())
        r = g.add(r, p);
    } else {
      r = concatAxis(g, parts, 1);
    }
  }
  results.assign({r});
  return success();
}

/// RNN (MXNet's fused layer) unrolled over the sequence; the layout of
/// `parameters` and the cells' formulas are rnn_impl.h's CPU kernels.
LogicalResult decomposeRNN(GradBuilder &g, RNNOp op,
                           SmallVectorImpl<Value> &results) {
  StringRef mode = op.getMode();
  int64_t gates = rnnGates(mode);
  int64_t h = static_cast<int64_t>(op.getStateSize());
  int64_t layers = static_cast<int64_t>(op.getNumLayers());
  int64_t dirs = op.getBidirectional() ? 2 : 1;
  ArrayRef<int64_t> xs = typeOf(op.getData()).getShape();
  int64_t steps = xs[0], batch = xs[1];
  Value params = op.getParameters();
  bool lstm = mode == "lstm";
  auto slice = [&](Value v, int64_t axis, int64_t begin, int64_t end) {
    return sliceAxis(g, v, axis, begin, end);
  };
  auto param = [&](int64_t &offset, ArrayRef<int64_t> shape) {
    int64_t n = 1;
    for (int64_t d : shape)
      n *= d;
    Value v = g.reshape(slice(params, 0, offset, offset + n), shape);
    offset += n;
    return v;
  };
  auto fc = [&](Value x, Value w, Value b) {
    return g.op("mx.FullyConnected", {x, w, b},
                {g.i64("num_hidden", gates * h), g.boolean("no_bias", false),
                 g.boolean("flatten", true)});
  };
  auto gate = [&](Value v, int64_t k) { return slice(v, 1, k * h, (k + 1) * h); };
  auto concat = [&](ArrayRef<Value> parts, int64_t dim) {
    return concatAxis(g, parts, dim);
  };
  auto initial = [&](Value states, int64_t k) {
    return g.reshape(slice(states, 0, k, k + 1), {batch, h});
  };
  // the biases follow every weight
  int64_t weights = 0;
  for (int64_t l = 0; l < layers; ++l)
    weights += dirs * gates * h * ((l == 0 ? xs[2] : dirs * h) + h);
  int64_t wOffset = 0, bOffset = weights;
  Value layerIn = op.getData();
  int64_t inSize = xs[2];
  SmallVector<Value> lastH, lastC;
  std::optional<double> clipMin, clipMax;
  if (auto a = op.getLstmStateClipMin())
    clipMin = a->convertToDouble();
  if (auto a = op.getLstmStateClipMax())
    clipMax = a->convertToDouble();
  for (int64_t l = 0; l < layers; ++l) {
    SmallVector<Value> dirOut;
    for (int64_t d = 0; d < dirs; ++d) {
      int64_t k = l * dirs + d;
      Value wx = param(wOffset, {gates * h, inSize});
      Value wh = param(wOffset, {gates * h, h});
      Value bx = param(bOffset, {gates * h});
      Value bh = param(bOffset, {gates * h});
      // the input projections of every step at once: (T * N, G * H)
      Value xp = g.reshape(fc(g.reshape(layerIn, {steps * batch, inSize}), wx, bx),
                           {steps, batch, gates * h});
      Value hv = initial(op.getState(), k);
      Value cv = lstm ? initial(op.getStateCell(), k) : Value();
      SmallVector<Value> outs(steps);
      for (int64_t i = 0; i < steps; ++i) {
        int64_t t = d ? steps - 1 - i : i;
        Value xt = g.reshape(slice(xp, 0, t, t + 1), {batch, gates * h});
        Value hp = fc(hv, wh, bh);
        if (mode == "rnn_tanh" || mode == "rnn_relu") {
          hv = g.op(mode == "rnn_tanh" ? "mx.tanh" : "mx.relu", g.add(xt, hp));
        } else if (lstm) {
          Value sum = g.add(xt, hp);
          Value in = g.sigmoid(gate(sum, 0)), forget = g.sigmoid(gate(sum, 1));
          Value cand = g.op("mx.tanh", gate(sum, 2)), out = g.sigmoid(gate(sum, 3));
          cv = g.add(g.mul(forget, cv), g.mul(in, cand));
          if (clipMin && clipMax)
            cv = g.op("mx.clip", cv, {g.f64("a_min", *clipMin), g.f64("a_max", *clipMax)});
          hv = g.mul(out, g.op("mx.tanh", cv));
        } else { // gru
          Value r = g.sigmoid(g.add(gate(xt, 0), gate(hp, 0)));
          Value z = g.sigmoid(g.add(gate(xt, 1), gate(hp, 1)));
          Value n = g.op("mx.tanh", g.add(gate(xt, 2), g.mul(r, gate(hp, 2))));
          hv = g.add(g.mul(g.rsubS(z, 1.0), n), g.mul(z, hv));
        }
        outs[t] = g.reshape(hv, {1, batch, h});
      }
      Value seq = concat(outs, 0);
      dirOut.push_back(seq);
      // the last state as a slice of the sequence's output, not the value
      // that went into it: a value both a result and a Concat operand
      // bufferizes into the Concat's destination before its own
      // (reverse direction: step 0 is the last one)
      int64_t last = d ? 0 : steps - 1;
      lastH.push_back(steps == 1 ? seq : slice(seq, 0, last, last + 1));
      if (lstm)
        lastC.push_back(g.reshape(cv, {1, batch, h}));
    }
    layerIn = concat(dirOut, 2);
    inSize = dirs * h;
    double p = op.getP().convertToDouble();
    if (p > 0 && l + 1 < layers)
      layerIn = g.op("mx.Dropout", layerIn, {g.f64("p", p)});
  }
  results.push_back(layerIn);
  results.push_back(concat(lastH, 0));
  if (lstm)
    results.push_back(concat(lastC, 0));
  return success();
}

/// CTCLoss: the negative log-likelihood of each label sequence, the forward
/// (alpha) recursion of Graves et al. in log space over the extended label
/// (blanks around and between the labels), as MXNet's CPU kernel (warp-ctc)
/// computes it; its gradient is mx-autodiff's of these primitives.
LogicalResult decomposeCTCLoss(GradBuilder &g, CTCLossOp op,
                               SmallVectorImpl<Value> &results) {
  auto ins = op.getData();
  Value data = accumulated(g, ins[0]);
  Type elt = typeOf(data).getElementType();
  Value label = g.cast(ins[1], elt);
  Value dataLen = op.getUseDataLengths() ? g.cast(ins[2], elt) : Value();
  Value labelLen = op.getUseLabelLengths()
                       ? g.cast(ins[2 + op.getUseDataLengths()], elt)
                       : Value();
  ArrayRef<int64_t> ds = typeOf(data).getShape();
  int64_t steps = ds[0], batch = ds[1], classes = ds[2];
  int64_t labels = typeOf(label).getDimSize(1), ext = 2 * labels + 1;
  bool first = op.getBlankLabel() == "first";
  double blank = first ? 0.0 : double(classes - 1), pad = first ? 0.0 : -1.0;
  const double neg = -1e30; // log(0) that stays finite through the sums
  auto slice = [&](Value v, int64_t axis, int64_t begin, int64_t end) {
    return sliceAxis(g, v, axis, begin, end);
  };
  auto concat = [&](ArrayRef<Value> parts, int64_t dim) {
    return concatAxis(g, parts, dim);
  };
  auto fill = [&](Value like, double v) { return g.addS(g.zerosLike(like), v); };
  auto blend = [&](Value m, Value a, Value b) { // m ? a : b for m in {0, 1}
    return g.add(g.mul(m, a), g.mul(g.rsubS(m, 1.0), b));
  };
  auto maximum = [&](Value a, Value b) {
    return g.op("mx.broadcast_maximum", {a, b});
  };
  if (dataLen) {
    // steps past a sequence's data_lengths are not read (MXNet masks them;
    // they may hold anything, NaN included): zeros there, selected, so that
    // neither the loss nor the gradient sees them
    Value step = g.reshape(g.op("mx._contrib_arange_like", data, {g.i64("axis", 0)}),
                           {steps, 1, 1});
    Value inside = g.cmp("lesser", step, g.reshape(dataLen, {1, batch, 1}));
    inside = g.op("mx.broadcast_to", inside, {g.shape("shape", {steps, batch, classes})});
    data = g.op("mx.where", {inside, data, g.zerosLike(data)});
  }
  // the extended label (N, S): blank, l1, blank, l2, ..., blank
  Value blanks = fill(label, blank);
  Value pairs = concat({g.reshape(blanks, {batch, labels, 1}),
                        g.reshape(label, {batch, labels, 1})},
                       2);
  Value extended =
      concat({g.reshape(pairs, {batch, 2 * labels}), slice(blanks, 1, 0, 1)}, 1);
  // log-probabilities of the extended label per step: (N, S, T)
  Value lp = g.op("mx.log_softmax", data, {g.i64("axis", 2)});
  Value onehot = g.op("mx.one_hot", extended,
                      {g.i64("depth", classes),
                       g.str("dtype", getMXNetDTypeName(elt))});
  Value lpe = g.op("mx.batch_dot",
                   {onehot, g.op("mx.transpose", lp, {g.shape("axes", {1, 2, 0})})});
  auto at = [&](int64_t t) {
    return g.reshape(slice(lpe, 2, t, t + 1), {batch, ext});
  };
  // a path may skip a blank (s - 2 -> s) between two different labels
  Value before2 = concat({fill(slice(extended, 1, 0, 2), -7.0),
                          slice(extended, 1, 0, ext - 2)},
                         1);
  Value skip = g.mul(g.cmpS("not_equal", extended, blank),
                     g.cmp("not_equal", extended, before2));
  Value negs = fill(extended, neg);
  Value position = g.op("mx._contrib_arange_like", extended, {g.i64("axis", 1)});
  Value alpha = blend(g.cmpS("lesser", position, 2.0), at(0), negs);
  Value negs1 = slice(negs, 1, 0, 1), negs2 = slice(negs, 1, 0, 2);
  Value lengthsCol = dataLen ? g.reshape(dataLen, {batch, 1}) : Value();
  for (int64_t t = 1; t < steps; ++t) {
    Value s1 = concat({negs1, slice(alpha, 1, 0, ext - 1)}, 1);
    Value s2 = blend(skip, concat({negs2, slice(alpha, 1, 0, ext - 2)}, 1), negs);
    Value m = maximum(maximum(alpha, s1), s2);
    Value sum = g.add(g.add(g.exp(g.sub(alpha, m)), g.exp(g.sub(s1, m))),
                      g.exp(g.sub(s2, m)));
    Value next = g.add(g.add(m, g.log(sum)), at(t));
    // a sequence past its data_lengths keeps its alphas
    alpha = lengthsCol ? blend(g.cmpS("greater", lengthsCol, double(t)), next, alpha)
                       : next;
  }
  // the label lengths: given, or the first padding value's position
  Value length = labelLen;
  if (!length) {
    Value ends = concat({g.cmpS("equal", label, pad), fill(slice(label, 1, 0, 1), 1.0)}, 1);
    length = g.cast(g.op("mx.argmax", ends, {g.i64("axis", 1), g.boolean("keepdims", false)}),
                    elt);
  }
  auto pick = [&](Value index) {
    return g.op("mx.pick", {alpha, index},
                {g.i64("axis", 1), g.boolean("keepdims", false), g.str("mode", "clip")});
  };
  Value end = g.mulS(length, 2.0);
  Value v1 = pick(end);
  Value v2 = blend(g.cmpS("greater", length, 0.0), pick(g.addS(end, -1.0)), fill(v1, neg));
  Value m = maximum(v1, v2);
  Value lse = g.add(m, g.log(g.add(g.exp(g.sub(v1, m)), g.exp(g.sub(v2, m)))));
  results.push_back(g.neg(lse));
  return success();
}

/// Whether a Convolution / Pooling has a channel-last layout.
bool isChannelLast(Operation *op) {
  auto layout = op->getAttrOfType<StringAttr>("layout");
  if (!layout || !isa<ConvolutionOp, PoolingOp>(op))
    return false;
  StringRef l = layout.getValue();
  return l == "NWC" || l == "NHWC" || l == "NDHWC";
}

/// A channel-last Convolution / Pooling as the channel-first op between
/// transposes: data (and a convolution's weight, (F, k..., C/G)) moved to
/// channel-first, the result moved back.
LogicalResult decomposeChannelLast(GradBuilder &g, Operation *op,
                                   SmallVectorImpl<Value> &results) {
  int64_t rank = typeOf(op->getOperand(0)).getRank();
  SmallVector<int64_t> toFirst{0, rank - 1}, toLast{0};
  for (int64_t i = 1; i < rank - 1; ++i)
    toFirst.push_back(i);
  for (int64_t i = 2; i < rank; ++i)
    toLast.push_back(i);
  toLast.push_back(1);
  auto transpose = [&](Value v, ArrayRef<int64_t> perm) {
    return g.op("mx.transpose", v, {g.shape("axes", perm)});
  };
  SmallVector<Value> operands;
  for (auto [i, v] : llvm::enumerate(op->getOperands()))
    operands.push_back(i < 2 && (i == 0 || isa<ConvolutionOp>(op))
                           ? transpose(v, toFirst)
                           : v);
  SmallVector<NamedAttribute> attrs;
  for (NamedAttribute a : op->getAttrDictionary())
    if (a.getName() != "layout")
      attrs.push_back(a);
  SmallVector<Value> inner = g.ops(op->getName().getStringRef(), operands, attrs);
  if (inner.empty())
    return failure();
  for (Value v : inner)
    results.push_back(transpose(v, toLast));
  return success();
}

/// SequenceMask (last = false) and SequenceLast (last = true): with
/// lengths, a mask along the time axis from arange_like and a broadcast
/// comparison with the lengths, then `where` (the steps outside are never
/// read, whatever they hold); SequenceLast sums the one selected step.
LogicalResult decomposeSequence(GradBuilder &g, Operation *op, Value data,
                                Value length, int64_t axis, bool last, double value,
                                SmallVectorImpl<Value> &results) {
  auto t = typeOf(data);
  ArrayRef<int64_t> d = t.getShape();
  int64_t steps = d[axis], batch = d[1 - axis];
  SmallVector<int64_t> outShape(d);
  outShape.erase(outShape.begin() + axis);
  if (!length) {
    results.assign({last ? g.reshape(sliceAxis(g, data, axis, steps - 1, steps), outShape)
                         : g.op("mx.identity", data)});
    return success();
  }
  // (T, 1) or (1, T) positions against (1, N) or (N, 1) lengths
  SmallVector<int64_t> stepShape{1, 1}, lenShape{1, 1};
  stepShape[axis] = steps;
  lenShape[1 - axis] = batch;
  Value step = g.reshape(g.op("mx._contrib_arange_like", data, {g.i64("axis", axis)}),
                         stepShape);
  Value len = g.reshape(g.cast(length, t.getElementType()), lenShape);
  Value select;
  if (last) {
    Value index = g.op("mx.clip", g.addS(len, -1.0),
                       {g.f64("a_min", 0.0), g.f64("a_max", double(steps - 1))});
    select = g.cmp("equal", step, index);
  } else {
    select = g.cmp("lesser", step, len);
  }
  // select is (T, N) or (N, T): data's two leading extents either way
  SmallVector<int64_t> expanded{d[0], d[1]};
  expanded.append(d.size() - 2, 1);
  select = g.op("mx.broadcast_to", g.reshape(select, expanded), {g.shape("shape", d)});
  if (last) {
    Value picked = g.op("mx.where", {select, data, g.zerosLike(data)});
    results.assign({g.sum(picked, {axis}, /*keepdims=*/false)});
  } else {
    results.assign({g.op("mx.where", {select, data, g.addS(g.zerosLike(data), value)})});
  }
  return success();
}

/// _linalg_gemm(2): each operand transposed so that its row axis is next to
/// the last (the batch axes first, in order) and viewed as (batch, rows,
/// columns); batch_dot with the transpose flags, alpha (+ beta * C); the
/// result viewed back and its row axis returned to `axis`.
LogicalResult decomposeLinalgGemm(GradBuilder &g, Operation *op,
                                  SmallVectorImpl<Value> &results) {
  auto gemm = dyn_cast<LinalgGemmOp>(op);
  auto gemm2 = dyn_cast<LinalgGemm2Op>(op);
  Value a = op->getOperand(0), b = op->getOperand(1);
  Value c = gemm ? gemm.getC() : Value();
  bool ta = gemm ? gemm.getTransposeA() : gemm2.getTransposeA();
  bool tb = gemm ? gemm.getTransposeB() : gemm2.getTransposeB();
  double alpha = (gemm ? gemm.getAlpha() : gemm2.getAlpha()).convertToDouble();
  int64_t axis = gemm ? gemm.getAxis() : gemm2.getAxis();
  int64_t rank = typeOf(a).getRank();
  int64_t ax = axis < 0 ? axis + rank : axis;
  SmallVector<int64_t> perm;
  for (int64_t i = 0; i < rank - 1; ++i)
    if (i != ax)
      perm.push_back(i);
  perm.push_back(ax);
  perm.push_back(rank - 1);
  SmallVector<int64_t> inverse(rank);
  for (int64_t i = 0; i < rank; ++i)
    inverse[perm[i]] = i;
  bool moved = !llvm::is_sorted(perm);
  auto toBatched = [&](Value v) {
    if (moved)
      v = g.op("mx.transpose", v, {g.shape("axes", perm)});
    ArrayRef<int64_t> s = typeOf(v).getShape();
    int64_t batch = 1;
    for (int64_t e : s.drop_back(2))
      batch *= e;
    return g.reshape(v, {batch, s[rank - 2], s[rank - 1]});
  };
  Value prod = g.op("mx.batch_dot", {toBatched(a), toBatched(b)},
                    {g.boolean("transpose_a", ta), g.boolean("transpose_b", tb)});
  prod = g.mulS(prod, alpha);
  if (c)
    prod = g.add(prod, g.mulS(toBatched(c), gemm.getBeta().convertToDouble()));
  // back to the (batch..., rows, columns) layout, then the row axis home
  RankedTensorType rt = cast<RankedTensorType>(op->getResult(0).getType());
  SmallVector<int64_t> permuted;
  for (int64_t i : perm)
    permuted.push_back(rt.getShape()[i]);
  Value out = g.reshape(prod, permuted);
  if (moved)
    out = g.op("mx.transpose", out, {g.shape("axes", inverse)});
  results.assign({out});
  return success();
}

/// sum_i rows[i] * prod(extents[i+1:]) over the first axis of `rows` (k =
/// extents.size() index rows): the flat position of each multi-index in an
/// array of `extents` (extents[0] is not read). wrapNegative: a negative
/// index counts from the end of its axis (x + X * (x < 0)).
Value ravelRows(GradBuilder &g, Value rows, ArrayRef<int64_t> extents,
                bool wrapNegative) {
  ArrayRef<int64_t> rs = typeOf(rows).getShape();
  Value flat;
  double stride = 1.0;
  for (int64_t i = static_cast<int64_t>(extents.size()) - 1; i >= 0; --i) {
    Value row = g.reshape(sliceAxis(g, rows, 0, i, i + 1), rs.drop_front());
    if (wrapNegative)
      row = g.add(row, g.mulS(g.cmpS("lesser", row, 0.0), double(extents[i])));
    Value term = g.mulS(row, stride);
    flat = flat ? g.add(flat, term) : term;
    stride *= double(extents[i]);
  }
  return flat;
}

/// scatter_nd: the flat row of each multi-index into the result's first M
/// axes (no wrapping: out of range gives no row), then
/// dot(one_hot(rows)^T, data as (count, rest)), computed in float64 for
/// integer data.
LogicalResult decomposeScatterNd(GradBuilder &g, ScatterNdOp op,
                                 SmallVectorImpl<Value> &results) {
  RankedTensorType rt = typeOf(op.getOutput());
  ArrayRef<int64_t> shape = rt.getShape(), is = typeOf(op.getIndices()).getShape();
  int64_t m = is[0], rows = 1, rest = 1, count = 1;
  for (int64_t i = 0; i < m; ++i)
    rows *= shape[i];
  for (int64_t i = m; i < static_cast<int64_t>(shape.size()); ++i)
    rest *= shape[i];
  for (int64_t e : is.drop_front())
    count *= e;
  Type elt = rt.getElementType();
  Type work = isa<FloatType>(elt) ? elt : Type(Float64Type::get(op->getContext()));
  Value flat = ravelRows(g, g.cast(op.getIndices(), Float64Type::get(op->getContext())),
                         shape.take_front(m), /*wrapNegative=*/false);
  Value hot = g.op("mx.one_hot", g.reshape(flat, {count}),
                   {g.i64("depth", rows), g.str("dtype", getMXNetDTypeName(work))});
  Value values = g.reshape(g.cast(op.getData(), work), {count, rest});
  Value out = g.op("mx.dot", {hot, values}, {g.boolean("transpose_a", true)});
  results.assign({g.cast(g.reshape(out, shape), elt)});
  return success();
}

/// gather_nd: the flat row of each multi-index into data's first M axes
/// (a negative index wrapped once), one `take` of data as (rows, rest).
LogicalResult decomposeGatherNd(GradBuilder &g, GatherNdOp op,
                                SmallVectorImpl<Value> &results) {
  Value data = op.getData(), idx = op.getIndices();
  ArrayRef<int64_t> ds = typeOf(data).getShape(), is = typeOf(idx).getShape();
  int64_t m = is[0], rows = 1, rest = 1;
  for (int64_t i = 0; i < m; ++i)
    rows *= ds[i];
  for (int64_t i = m; i < static_cast<int64_t>(ds.size()); ++i)
    rest *= ds[i];
  if (rows >= (int64_t(1) << 53))
    return op.emitError() << "gather_nd: " << rows << " indexed rows exceed the "
                          << "exactly representable index range";
  Value flat = ravelRows(g, g.cast(idx, Float64Type::get(op->getContext())),
                         ds.take_front(m), /*wrapNegative=*/true);
  int64_t count = typeOf(flat).getNumElements();
  Value picked = g.op("mx.take", {g.reshape(data, {rows, rest}), g.reshape(flat, {count})},
                      {g.i64("axis", 0), g.str("mode", "clip")});
  SmallVector<int64_t> out(is.begin() + 1, is.end());
  out.append(ds.begin() + m, ds.end());
  results.assign({g.reshape(picked, out)});
  return success();
}

/// _contrib_index_copy: one_hot(index, N) (K, N) scatters new_tensor's rows
/// (a dot with it transposed) where the row is replaced, old_tensor's
/// elsewhere (`where` on the one-hot's column sums).
LogicalResult decomposeIndexCopy(GradBuilder &g, ContribIndexCopyOp op,
                                 SmallVectorImpl<Value> &results) {
  Value old = op.getOldTensor(), fresh = op.getNewTensor();
  auto ot = typeOf(old);
  ArrayRef<int64_t> os = ot.getShape();
  int64_t n = os[0], k = typeOf(fresh).getShape()[0];
  int64_t rest = ot.getNumElements() / std::max<int64_t>(n, 1);
  StringRef dtype = getMXNetDTypeName(ot.getElementType());
  Value hot = g.op("mx.one_hot", g.cast(op.getIndexVector(), ot.getElementType()),
                   {g.i64("depth", n), g.str("dtype", dtype)}); // (K, N)
  Value scattered = g.op("mx.dot", {hot, g.reshape(fresh, {k, rest})},
                         {g.boolean("transpose_a", true)}); // (N, rest)
  Value replaced = g.cmpS("greater", g.sum(hot, {0}, /*keepdims=*/false), 0.0);
  Value mask = g.op("mx.broadcast_to", g.reshape(replaced, {n, 1}),
                    {g.shape("shape", {n, rest})});
  results.assign({g.reshape(g.op("mx.where", {mask, scattered, g.reshape(old, {n, rest})}),
                            os)});
  return success();
}

/// _contrib_index_array: per chosen axis, arange_like along it broadcast to
/// data's shape with a trailing axis of 1; Concat along that axis.
LogicalResult decomposeIndexArray(GradBuilder &g, ContribIndexArrayOp op,
                                  SmallVectorImpl<Value> &results) {
  Value data = op.getData();
  ArrayRef<int64_t> ds = typeOf(data).getShape();
  int64_t rank = static_cast<int64_t>(ds.size());
  SmallVector<int64_t> axes;
  if (auto a = op.getAxes())
    for (int64_t x : *a)
      axes.push_back(x < 0 ? x + rank : x);
  else
    for (int64_t x = 0; x < rank; ++x)
      axes.push_back(x);
  SmallVector<int64_t> full(ds);
  full.push_back(1);
  Type i64 = IntegerType::get(op->getContext(), 64);
  SmallVector<Value> parts;
  for (int64_t a : axes) {
    SmallVector<int64_t> view(rank + 1, 1);
    view[a] = ds[a];
    Value pos = g.cast(g.op("mx._contrib_arange_like", data, {g.i64("axis", a)}), i64);
    parts.push_back(g.op("mx.broadcast_to", g.reshape(pos, view), {g.shape("shape", full)}));
  }
  results.assign({parts.size() == 1
                      ? parts[0]
                      : g.op("mx.Concat", parts,
                             {g.i64("num_args", static_cast<int64_t>(parts.size())),
                              g.i64("dim", rank)})});
  return success();
}

/// _ravel_multi_index: sum_i data[i] * stride_i; _unravel_index: index i is
/// floor(x / stride_i) mod shape[i] (floor(x / stride_0) alone for a first
/// extent of -1), joined by Concat on a new leading axis.
LogicalResult decomposeRavel(GradBuilder &g, Operation *op,
                             SmallVectorImpl<Value> &results) {
  bool unravel = isa<UnravelIndexOp>(op);
  ArrayRef<int64_t> shape = unravel ? cast<UnravelIndexOp>(op).getShape()
                                    : cast<RavelMultiIndexOp>(op).getShape();
  Value data = op->getOperand(0);
  ArrayRef<int64_t> d = typeOf(data).getShape();
  int64_t k = static_cast<int64_t>(shape.size());
  if (!unravel) {
    results.assign({ravelRows(g, data, shape, /*wrapNegative=*/false)});
    return success();
  }
  SmallVector<double> stride(k, 1.0);
  for (int64_t i = k - 2; i >= 0; --i)
    stride[i] = stride[i + 1] * double(shape[i + 1]);
  SmallVector<int64_t> rowShape{1};
  rowShape.append(d.begin(), d.end());
  SmallVector<Value> rows;
  for (int64_t i = 0; i < k; ++i) {
    Value q = g.op("mx.floor", g.scalarOp("mx._div_scalar", data, stride[i]));
    if (shape[i] > 0) // q - floor(q / n) * n
      q = g.sub(q, g.mulS(g.op("mx.floor", g.scalarOp("mx._div_scalar", q,
                                                      double(shape[i]))),
                          double(shape[i])));
    rows.push_back(g.reshape(q, rowShape));
  }
  results.assign({k == 1 ? rows[0]
                         : g.op("mx.Concat", rows,
                                {g.i64("num_args", k), g.i64("dim", 0)})});
  return success();
}

/// SequenceReverse (axis 0): without lengths `reverse`; with them, row
/// t * N + n of the output is row src(t, n) * N + n of data viewed as
/// (T * N, rest), src = len[n] - 1 - t for t < len[n], else t: one `take`
/// (whose gradient scatters the output gradient back the same way).
LogicalResult decomposeSequenceReverse(GradBuilder &g, SequenceReverseOp op,
                                       SmallVectorImpl<Value> &results) {
  Value data = op.getData(), length = op.getSequenceLength();
  auto t = typeOf(data);
  ArrayRef<int64_t> d = t.getShape();
  if (!length) {
    results.assign({g.op("mx.reverse", data, {g.shape("axis", {0})})});
    return success();
  }
  int64_t steps = d[0], batch = d[1], rows = steps * batch;
  if (rows >= (int64_t(1) << 24))
    return op.emitError() << "SequenceReverse with lengths: " << rows
                          << " (time x batch) rows exceed the exactly "
                             "representable index range";
  Type f32 = Float32Type::get(op->getContext());
  auto arange = [&](int64_t axis, ArrayRef<int64_t> shape) {
    return g.reshape(g.cast(g.op("mx._contrib_arange_like", data, {g.i64("axis", axis)}),
                            f32),
                     shape);
  };
  Value step = g.op("mx.broadcast_to", arange(0, {steps, 1}),
                    {g.shape("shape", {steps, batch})});
  Value seq = arange(1, {1, batch});
  Value len = g.reshape(g.cast(length, f32), {1, batch});
  Value reversed = g.op("mx.broadcast_sub", {g.addS(len, -1.0), step});
  Value src = g.op("mx.where", {g.cmp("lesser", step, len), reversed, step});
  Value flat = g.op("mx.broadcast_add", {g.mulS(src, double(batch)), seq});
  int64_t rest = t.getNumElements() / std::max<int64_t>(rows, 1);
  Value picked = g.op("mx.take", {g.reshape(data, {rows, rest}), g.reshape(flat, {rows})},
                      {g.i64("axis", 0), g.str("mode", "clip")});
  results.assign({g.reshape(picked, d)});
  return success();
}

/// `_arange` of `n` values 0, 1, ... in `dtype`.
Value arangeN(GradBuilder &g, int64_t n, StringRef dtype) {
  return g.op("mx._arange", {},
              {g.f64("start", 0.0), g.f64("stop", double(n)), g.f64("step", 1.0),
               g.str("dtype", dtype)});
}

/// x (N, C, H, W) with `rows` (OH, H) applied along H and `cols` (OW, W)
/// along W: per plane rows . x . cols^T, as two `dot`s over flattened
/// planes.
Value applySeparable(GradBuilder &g, Value x, Value rows, Value cols) {
  ArrayRef<int64_t> d = typeOf(x).getShape();
  int64_t n = d[0] * d[1], h = d[2], w = d[3];
  int64_t oh = typeOf(rows).getDimSize(0), ow = typeOf(cols).getDimSize(0);
  // along W: (n h, w) . cols^T -> (n h, ow)
  Value t = g.op("mx.dot", {g.reshape(x, {n * h, w}), cols},
                 {g.boolean("transpose_b", true)});
  // along H: (n ow, h) . rows^T -> (n ow, oh)
  t = g.op("mx.transpose", g.reshape(t, {n, h, ow}), {g.shape("axes", {0, 2, 1})});
  t = g.op("mx.dot", {g.reshape(t, {n * ow, h}), rows},
           {g.boolean("transpose_b", true)});
  t = g.op("mx.transpose", g.reshape(t, {n, ow, oh}), {g.shape("axes", {0, 2, 1})});
  return g.reshape(t, {d[0], d[1], oh, ow});
}

/// The (out, in) matrix of adaptive average pooling along one axis: row i
/// averages [floor(i in / out), ceil((i + 1) in / out)) (float64: exact).
Value averagingMatrix(GradBuilder &g, int64_t out, int64_t in, Type elt) {
  Value i = g.reshape(arangeN(g, out, "float64"), {out, 1});
  Value j = g.reshape(arangeN(g, in, "float64"), {1, in});
  Value start = g.op("mx.floor", g.scalarOp("mx._div_scalar", g.mulS(i, double(in)),
                                            double(out)));
  Value end = g.op("mx.ceil", g.scalarOp("mx._div_scalar",
                                         g.mulS(g.addS(i, 1.0), double(in)),
                                         double(out)));
  Value inside = g.mul(g.cmp("greater_equal", j, start), g.cmp("lesser", j, end));
  return g.cast(g.div(inside, g.sub(end, start)), elt);
}

LogicalResult decomposeAdaptiveAvgPooling(GradBuilder &g,
                                          ContribAdaptiveAvgPooling2DOp op,
                                          SmallVectorImpl<Value> &results) {
  Value x = op.getData();
  RankedTensorType xt = typeOf(x), yt = typeOf(op.getOutput());
  Type elt = xt.getElementType();
  results.assign({applySeparable(
      g, x, averagingMatrix(g, yt.getDimSize(2), xt.getDimSize(2), elt),
      averagingMatrix(g, yt.getDimSize(3), xt.getDimSize(3), elt))});
  return success();
}

/// Bilinear taps along one axis (bilinear_resize.cc): output i reads source
/// rows lo and hi (= lo + 1, lo at the last row) weighted wLo and wHi; the
/// source position as MXNet computes it (float, or double then float for
/// align_corners=False). Each is (out,).
struct BilinearTaps {
  Value lo, hi, wLo, wHi;
};
BilinearTaps bilinearTaps(GradBuilder &g, int64_t out, int64_t in, bool align) {
  float scale = out > 1 ? (align ? float(in - 1) / float(out - 1) : float(in) / float(out))
                        : 0.0f;
  Type f32 = Float32Type::get(g.builder().getContext());
  Value src;
  if (align) {
    src = g.mulS(arangeN(g, out, "float32"), double(scale));
  } else {
    Value i = g.addS(arangeN(g, out, "float64"), 0.5);
    src = g.addS(g.mulS(i, double(scale)), -0.5);
    src = g.cast(g.scalarOp("mx._maximum_scalar", src, 0.0), f32);
  }
  Value lo = g.op("mx.floor", src);
  Value hi = g.add(lo, g.cmpS("lesser", lo, double(in - 1)));
  Value wHi = g.sub(src, lo);
  return {lo, hi, g.rsubS(wHi, 1.0), wHi};
}

LogicalResult decomposeBilinearResize(GradBuilder &g, ContribBilinearResize2DOp op,
                                      SmallVectorImpl<Value> &results) {
  Value x = op.getData();
  RankedTensorType xt = typeOf(x), yt = typeOf(op.getOutput());
  ArrayRef<int64_t> d = xt.getShape(), o = yt.getShape();
  Type elt = xt.getElementType();
  bool align = op.getAlignCorners();
  // Along W, then along H: h0 (w0 x00 + w1 x01) + h1 (w0 x10 + w1 x11),
  // MXNet's order of operations.
  auto along = [&](Value v, int64_t axis) {
    BilinearTaps t = bilinearTaps(g, o[axis], d[axis], align);
    SmallVector<int64_t> view(4, 1);
    view[axis] = o[axis];
    auto tap = [&](Value index, Value weight) {
      Value picked = g.op("mx.take", {v, index}, {g.i64("axis", axis)});
      return g.mul(picked, g.reshape(g.cast(weight, elt), view));
    };
    return g.add(tap(t.lo, t.wLo), tap(t.hi, t.wHi));
  };
  if (d[2] == o[2] && d[3] == o[3]) { // MXNet's special case: a copy
    results.assign({g.op("mx.identity", x)});
    return success();
  }
  results.assign({along(along(x, 3), 2)});
  return success();
}

/// Coordinate k of boxes (..., 4) as (..., 1).
Value coord(GradBuilder &g, Value boxes, int64_t k) {
  return sliceAxis(g, boxes, typeOf(boxes).getRank() - 1, k, k + 1);
}

/// max(v, 0) (MXNet's `w > 0 ? w : 0`).
Value positivePart(GradBuilder &g, Value v) {
  return g.scalarOp("mx._maximum_scalar", v, 0.0);
}

/// box_iou (bounding_box-inl.h compute_overlap): lhs flattened to (L, 1)
/// columns, rhs to (1, R) rows, the pairwise intersection over union.
LogicalResult decomposeBoxIou(GradBuilder &g, ContribBoxIouOp op,
                              SmallVectorImpl<Value> &results) {
  auto flat = [&](Value v, bool rows) {
    int64_t n = typeOf(v).getNumElements() / 4;
    Value boxes = g.reshape(g.op("mx.BlockGrad", v), {n, 4});
    SmallVector<Value> c;
    for (int64_t k = 0; k < 4; ++k) {
      Value x = coord(g, boxes, k); // (n, 1)
      c.push_back(rows ? g.reshape(x, {1, n}) : x);
    }
    return c;
  };
  SmallVector<Value> a = flat(op.getLhs(), false), b = flat(op.getRhs(), true);
  bool center = op.getFormat() == "center";
  // per axis: the extent of the intersection, max(0, right - left)
  auto overlap = [&](int64_t k) {
    Value l, r;
    if (center) {
      Value aw = g.mulS(a[k + 2], 0.5), bw = g.mulS(b[k + 2], 0.5);
      Value al = g.sub(a[k], aw), ar = g.add(a[k], aw);
      Value bl = g.sub(b[k], bw), br = g.add(b[k], bw);
      l = g.op("mx.broadcast_maximum", {bl, al});
      r = g.op("mx.broadcast_minimum", {br, ar});
    } else {
      l = g.op("mx.broadcast_maximum", {a[k], b[k]});
      r = g.op("mx.broadcast_minimum", {a[k + 2], b[k + 2]});
    }
    return positivePart(g, g.sub(r, l));
  };
  auto area = [&](SmallVector<Value> &c) {
    Value w = center ? c[2] : g.sub(c[2], c[0]);
    Value h = center ? c[3] : g.sub(c[3], c[1]);
    // 0 when either extent is negative
    Value ok = g.mul(g.cmpS("greater_equal", w, 0.0), g.cmpS("greater_equal", h, 0.0));
    return g.mul(g.mul(w, h), ok);
  };
  Value inter = g.mul(overlap(0), overlap(1));
  Value uni = g.sub(g.add(area(a), area(b)), inter);
  Value positive = g.cmpS("greater", inter, 0.0);
  // where(inter > 0, inter / union, 0); a union of 0 only where inter is 0
  Value safe = g.add(uni, g.rsubS(positive, 1.0));
  Value iou = g.op("mx.where", {positive, g.div(inter, safe), g.zerosLike(inter)});
  results.assign({g.reshape(iou, typeOf(op.getOutput()).getShape())});
  return success();
}

/// box_decode (bounding_box-inl.h box_decode).
LogicalResult decomposeBoxDecode(GradBuilder &g, ContribBoxDecodeOp op,
                                 SmallVectorImpl<Value> &results) {
  Value x = g.op("mx.BlockGrad", op.getData());
  Value a = g.op("mx.BlockGrad", op.getAnchors());
  Value ax = coord(g, a, 0), ay = coord(g, a, 1), aw = coord(g, a, 2), ah = coord(g, a, 3);
  if (op.getFormat() == "corner") {
    aw = g.sub(aw, ax);
    ah = g.sub(ah, ay);
    ax = g.add(ax, g.mulS(aw, 0.5));
    ay = g.add(ay, g.mulS(ah, 0.5));
  }
  double clip = op.getClip().convertToDouble();
  Value ox = g.add(g.mul(g.mulS(coord(g, x, 0), op.getStd0().convertToDouble()), aw), ax);
  Value oy = g.add(g.mul(g.mulS(coord(g, x, 1), op.getStd1().convertToDouble()), ah), ay);
  Value dw = g.mulS(coord(g, x, 2), op.getStd2().convertToDouble());
  Value dh = g.mulS(coord(g, x, 3), op.getStd3().convertToDouble());
  if (clip > 0.0) {
    dw = g.scalarOp("mx._minimum_scalar", dw, clip);
    dh = g.scalarOp("mx._minimum_scalar", dh, clip);
  }
  Value ow = g.mulS(g.mul(g.exp(dw), aw), 0.5);
  Value oh = g.mulS(g.mul(g.exp(dh), ah), 0.5);
  results.assign({concatAxis(g, {g.sub(ox, ow), g.sub(oy, oh), g.add(ox, ow), g.add(oy, oh)},
                             2)});
  return success();
}

/// box_encode (bounding_box-inl.h box_encode): the matched reference box
/// of each anchor by one `take` of the (B * M, 4) rows.
LogicalResult decomposeBoxEncode(GradBuilder &g, ContribBoxEncodeOp op,
                                 SmallVectorImpl<Value> &results) {
  Value samples = g.op("mx.BlockGrad", op.getSamples());
  Value matches = g.op("mx.BlockGrad", op.getMatches());
  Value anchors = g.op("mx.BlockGrad", op.getAnchors());
  Value refs = g.op("mx.BlockGrad", op.getRefs());
  Value means = g.op("mx.BlockGrad", op.getMeans());
  Value stds = g.op("mx.BlockGrad", op.getStds());
  ArrayRef<int64_t> as = typeOf(anchors).getShape(), rs = typeOf(refs).getShape();
  int64_t b = as[0], n = as[1], m = rs[1];
  Type elt = typeOf(anchors).getElementType();
  // row of refs for (batch j, anchor i): j * M + matches[j, i]
  Value batch = g.reshape(g.cast(g.op("mx._contrib_arange_like", matches, {g.i64("axis", 0)}),
                                 elt),
                          {b, 1});
  Value rows = g.add(g.op("mx.trunc", matches), g.mulS(batch, double(m)));
  Value ref = g.op("mx.take", {g.reshape(refs, {b * m, 4}), rows}, {g.i64("axis", 0)});
  auto center = [&](Value boxes) {
    Value xmin = coord(g, boxes, 0), ymin = coord(g, boxes, 1);
    Value w = g.sub(coord(g, boxes, 2), xmin), h = g.sub(coord(g, boxes, 3), ymin);
    return std::array<Value, 4>{g.add(xmin, g.mulS(w, 0.5)), g.add(ymin, g.mulS(h, 0.5)), w,
                                h};
  };
  auto [rx, ry, rw, rh] = center(ref);
  auto [ax, ay, aw, ah] = center(anchors);
  Value valid = g.reshape(g.cmpS("greater", samples, 0.5), {b, n, 1});
  auto norm = [&](Value v, int64_t k) {
    Value mean = g.reshape(sliceAxis(g, means, 0, k, k + 1), {1, 1, 1});
    Value sd = g.reshape(sliceAxis(g, stds, 0, k, k + 1), {1, 1, 1});
    return g.div(g.sub(v, mean), sd);
  };
  Value t = concatAxis(g, {norm(g.div(g.sub(rx, ax), aw), 0), norm(g.div(g.sub(ry, ay), ah), 1),
                           norm(g.log(g.div(rw, aw)), 2), norm(g.log(g.div(rh, ah)), 3)},
                       2);
  Value mask = g.broadcastLike(valid, t);
  results.assign({g.op("mx.where", {mask, t, g.zerosLike(t)}), mask});
  return success();
}

/// _histogram (histogram.cc ComputeBinKernel): C_k = the values in range
/// that reach edge k, counts_j = C_j - C_{j+1} (the last bin: C_{n-1}).
LogicalResult decomposeHistogram(GradBuilder &g, HistogramOp op,
                                 SmallVectorImpl<Value> &results) {
  Value data = op.getData();
  Type elt = typeOf(data).getElementType();
  Type f64 = Float64Type::get(g.builder().getContext());
  RankedTensorType edgeType = typeOf(op.getOutput1());
  int64_t n = edgeType.getDimSize(0) - 1;
  Value edges;
  if (auto cnt = op.getBinCnt()) {
    auto range = mxc::mx::detail::parseFloatTuple(*op.getRange());
    double lo = (*range)[0], hi = (*range)[1], c = double(*cnt);
    // (hi * i + (cnt - i) * lo) / cnt in double, then data's type
    Value i = arangeN(g, n + 1, "float64");
    Value e = g.add(g.mulS(i, hi), g.mulS(g.rsubS(i, c), lo));
    edges = g.cast(g.scalarOp("mx._div_scalar", e, c), edgeType.getElementType());
  } else {
    edges = op.getBins();
  }
  int64_t size = typeOf(data).getNumElements();
  Value x = g.reshape(data, {size, 1});
  Value e = g.reshape(g.cast(edges, elt), {1, n + 1});
  Value reach = g.cast(g.cmp("greater_equal", x, e), f64); // (size, n + 1)
  Value first = sliceAxis(g, e, 1, 0, 1), last = sliceAxis(g, e, 1, n, n + 1);
  Value inRange = g.cast(g.mul(g.cmp("greater_equal", x, first), g.cmp("lesser_equal", x, last)),
                         f64);
  Value cum = g.sum(g.mul(reach, inRange), {0}, /*keepdims=*/false); // (n + 1,)
  Value below = sliceAxis(g, cum, 0, 0, n);
  Value above = n > 1 ? concatAxis(g, {sliceAxis(g, cum, 0, 1, n),
                                       g.zerosLike(sliceAxis(g, cum, 0, 0, 1))},
                                   0)
                      : g.zerosLike(below);
  results.assign({g.cast(g.sub(below, above), typeOf(op.getOutput0()).getElementType()),
                  g.cast(edges, edgeType.getElementType())});
  return success();
}

/// The (n,) vector of `values` (float32 constants): sum_k values[k] *
/// (arange(n) == k).
Value constantVector(GradBuilder &g, ArrayRef<float> values) {
  int64_t n = static_cast<int64_t>(values.size());
  Value idx = arangeN(g, n, "float32");
  Value out = g.mulS(g.cmpS("equal", idx, 0.0), double(values[0]));
  for (int64_t k = 1; k < n; ++k)
    out = g.add(out, g.mulS(g.cmpS("equal", idx, double(k)), double(values[k])));
  return out;
}

/// _contrib_MultiBoxPrior (multibox_prior.cc MultiBoxPriorForward): the
/// anchors' half extents computed here in float as MXNet's kernel, the
/// centers from `_arange` in float32, broadcast into (H, W, A, 4).
LogicalResult decomposeMultiBoxPrior(GradBuilder &g, ContribMultiBoxPriorOp op,
                                     SmallVectorImpl<Value> &results) {
  using mxc::mx::detail::parseFloatTuple;
  ArrayRef<int64_t> d = typeOf(op.getData()).getShape();
  int height = int(d[2]), width = int(d[3]);
  auto toFloat = [](const SmallVector<double> &v) {
    return SmallVector<float>(v.begin(), v.end());
  };
  SmallVector<float> sizes = toFloat(*parseFloatTuple(op.getSizes()));
  SmallVector<float> ratios = toFloat(*parseFloatTuple(op.getRatios()));
  SmallVector<float> steps = toFloat(*parseFloatTuple(op.getSteps()));
  SmallVector<float> offsets = toFloat(*parseFloatTuple(op.getOffsets()));
  if (steps[0] <= 0 || steps[1] <= 0) {
    steps[0] = 1.f / height;
    steps[1] = 1.f / width;
  }
  SmallVector<float> halfW, halfH;
  auto add = [&](float size, float ratio) {
    halfW.push_back(size * height / width * ratio / 2);
    halfH.push_back(size / ratio / 2);
  };
  float first = std::sqrt(ratios[0]);
  for (float size : sizes)
    add(size, first);
  for (size_t j = 1; j < ratios.size(); ++j)
    add(sizes[0], std::sqrt(ratios[j]));
  int64_t a = static_cast<int64_t>(halfW.size());
  // centers (r + offsets[0]) * step_y, (c + offsets[1]) * step_x in float32
  Value cy = g.mulS(g.addS(arangeN(g, height, "float32"), double(offsets[0])), double(steps[0]));
  Value cx = g.mulS(g.addS(arangeN(g, width, "float32"), double(offsets[1])), double(steps[1]));
  cy = g.reshape(cy, {height, 1, 1, 1});
  cx = g.reshape(cx, {1, width, 1, 1});
  Value w = g.reshape(constantVector(g, halfW), {1, 1, a, 1});
  Value h = g.reshape(constantVector(g, halfH), {1, 1, a, 1});
  SmallVector<int64_t> full{height, width, a, 1};
  auto spread = [&](Value v) {
    return g.op("mx.broadcast_to", v, {g.shape("shape", full)});
  };
  Value box = concatAxis(g, {spread(g.sub(cx, w)), spread(g.sub(cy, h)), spread(g.add(cx, w)),
                             spread(g.add(cy, h))},
                         3);
  if (op.getClip())
    box = g.op("mx.clip", box, {g.f64("a_min", 0.0), g.f64("a_max", 1.0)});
  Type elt = typeOf(op.getOutput()).getElementType();
  results.assign({g.cast(g.reshape(box, {1, int64_t(height) * width * a, 4}), elt)});
  return success();
}

/// ROIPooling (roi_pooling.cc ROIPoolForward): per region and bin the row
/// and column ranges from the region's rounded corners, the region's image
/// by `take`, the masked maximum over (h, w).
LogicalResult decomposeROIPooling(GradBuilder &g, ROIPoolingOp op,
                                  SmallVectorImpl<Value> &results) {
  Value data = op.getData();
  Value rois = g.op("mx.BlockGrad", op.getRois());
  ArrayRef<int64_t> d = typeOf(data).getShape();
  int64_t n = d[0], c = d[1], h = d[2], w = d[3];
  int64_t r = typeOf(rois).getDimSize(0);
  ArrayRef<int64_t> ps = op.getPooledSize();
  int64_t ph = ps[0], pw = ps[1];
  double scale = op.getSpatialScale().convertToDouble();
  Type elt = typeOf(data).getElementType();
  auto col = [&](int64_t k) { return sliceAxis(g, rois, 1, k, k + 1); }; // (R, 1)
  // std::round (half away from zero) of the scaled corner
  auto corner = [&](int64_t k) {
    return g.op("mx.round", g.mulS(col(k), scale));
  };
  Value startW = corner(1), startH = corner(2), endW = corner(3), endH = corner(4);
  Value batch = g.op("mx.trunc", col(0));
  // 1.0 for a batch index in [0, N)
  Value validBatch = g.mul(g.cmpS("greater_equal", batch, 0.0), g.cmpS("lesser", batch, double(n)));
  // [lo, hi) of bin p along one axis: (R, P) each
  auto ranges = [&](Value start, Value end, int64_t bins, int64_t extent) {
    Value size = g.scalarOp("mx._maximum_scalar", g.addS(g.sub(end, start), 1.0), 1.0);
    Value binSize = g.scalarOp("mx._div_scalar", size, double(bins)); // (R, 1)
    Value p = g.reshape(g.cast(arangeN(g, bins, "float64"), elt), {1, bins});
    Value lo = g.op("mx.floor", g.mul(p, binSize));
    Value hi = g.op("mx.ceil", g.mul(g.addS(p, 1.0), binSize));
    auto place = [&](Value v) {
      return g.op("mx.clip", g.add(v, start), {g.f64("a_min", 0.0), g.f64("a_max", double(extent))});
    };
    return std::pair<Value, Value>{place(lo), place(hi)};
  };
  auto [hLo, hHi] = ranges(startH, endH, ph, h);
  auto [wLo, wHi] = ranges(startW, endW, pw, w);
  // inside (R, PH, H) and (R, PW, W)
  auto inside = [&](Value lo, Value hi, int64_t bins, int64_t extent) {
    Value pos = g.reshape(g.cast(arangeN(g, extent, "float64"), elt), {1, 1, extent});
    Value l = g.reshape(lo, {r, bins, 1}), u = g.reshape(hi, {r, bins, 1});
    return g.mul(g.cmp("greater_equal", pos, l), g.cmp("lesser", pos, u));
  };
  Value inH = g.reshape(inside(hLo, hHi, ph, h), {r, 1, ph, 1, h, 1});
  Value inW = g.reshape(inside(wLo, wHi, pw, w), {r, 1, 1, pw, 1, w});
  Value mask = g.mul(inH, inW); // (R, 1, PH, PW, H, W)
  // the region's image (clipped batch index: an invalid one is zeroed below)
  Value image = g.op("mx.take", {data, g.reshape(batch, {r})}, {g.i64("axis", 0)});
  image = g.reshape(image, {r, c, 1, 1, h, w});
  double lowest = -std::numeric_limits<double>::infinity();
  // masked values: outside the window -inf (where keeps the gradient to data)
  Value spread = g.op("mx.broadcast_add", {image, g.zerosLike(mask)}); // (R, C, PH, PW, H, W)
  Value masked = g.op("mx.where", {g.broadcastLike(mask, spread), spread,
                                   g.addS(g.zerosLike(spread), lowest)});
  masked = g.reshape(masked, {r, c, ph, pw, h * w});
  Value best = g.op("mx.max", masked, {g.shape("axis", {4}), g.boolean("keepdims", false)});
  Value arg = g.op("mx.argmax", masked, {g.i64("axis", 4), g.boolean("keepdims", false)});
  // empty bin or invalid batch: 0 and -1
  Value nonEmpty = g.mul(g.cmp("lesser", hLo, hHi), g.reshape(validBatch, {r, 1}));
  Value ok = g.mul(g.reshape(nonEmpty, {r, 1, ph, 1}),
                   g.reshape(g.cmp("lesser", wLo, wHi), {r, 1, 1, pw}));
  ok = g.op("mx.broadcast_to", ok, {g.shape("shape", {r, c, ph, pw})});
  Value out = g.op("mx.where", {ok, best, g.zerosLike(best)});
  Type f64 = Float64Type::get(g.builder().getContext());
  // flat index in data: batch * C * H * W + channel * H * W + (h * W + w)
  Value chan = g.reshape(g.cast(arangeN(g, c, "float64"), f64), {1, c, 1, 1});
  Value base = g.add(g.mulS(g.reshape(g.cast(batch, f64), {r, 1, 1, 1}), double(c * h * w)),
                     g.mulS(chan, double(h * w)));
  Value flat = g.add(g.cast(arg, f64), base);
  Value idx = g.op("mx.where", {g.cast(ok, f64), flat, g.addS(g.zerosLike(flat), -1.0)});
  results.assign({out, g.cast(idx, typeOf(op.getMaxidx()).getElementType())});
  return success();
}

/// The region ops' common tail: out[r, c, p, q] = sum over (h, w) of
/// rowW[r, p, h] * image_r[c, h, w] * colW[r, q, w], image_r the region's
/// image (`take` of data by the batch index), by two batch_dots:
/// (R, C H, W) . colW^T -> (R, C, H, Q); then rowW . (R, H, C Q).
Value poolRegions(GradBuilder &g, Value data, Value batch, Value rowW, Value colW) {
  ArrayRef<int64_t> d = typeOf(data).getShape();
  int64_t c = d[1], h = d[2], w = d[3];
  int64_t r = typeOf(rowW).getDimSize(0), p = typeOf(rowW).getDimSize(1),
          q = typeOf(colW).getDimSize(1);
  Value image = g.op("mx.take", {data, batch}, {g.i64("axis", 0)}); // (R, C, H, W)
  Value t = g.op("mx.batch_dot", {g.reshape(image, {r, c * h, w}), colW},
                 {g.boolean("transpose_b", true)}); // (R, C H, Q)
  t = g.op("mx.transpose", g.reshape(t, {r, c, h, q}), {g.shape("axes", {0, 2, 1, 3})});
  t = g.op("mx.batch_dot", {rowW, g.reshape(t, {r, h, c * q})}); // (R, P, C Q)
  t = g.op("mx.transpose", g.reshape(t, {r, p, c, q}), {g.shape("axes", {0, 2, 1, 3})});
  return t; // (R, C, P, Q)
}

/// ROIAlign's weights along one axis (roi_align.cc ROIAlignForward and
/// bilinear_interpolate): (R, P, E), row (r, p) the mean over bin p's
/// samples start + p bin + (i + 0.5) bin / grid (i < grid) of their
/// bilinear weights onto positions 0..E-1 (a sample beyond [-1, E] weighs
/// nothing, one below 0 reads 0, one past E - 1 reads E - 1). `window`
/// samples from the first one at or past -1 (less one, for rounding) cover
/// every sample with weight.
Value alignWeights(GradBuilder &g, Value start, Value bin, Value grid, int64_t bins,
                   int64_t extent, int64_t window, bool fixedGrid, Type elt) {
  int64_t r = typeOf(start).getDimSize(0);
  Value pIdx = g.reshape(g.cast(arangeN(g, bins, "float64"), elt), {1, bins});
  Value y0 = g.add(start, g.mul(pIdx, bin));                       // (R, P)
  Value step = g.div(bin, grid);                                   // (R, 1)
  // (a window that holds the whole grid, or a non-positive step: an
  // inverted region with `aligned`, starts at sample 0)
  Value firstIdx = g.scalarOp(
      "mx._maximum_scalar",
      g.addS(g.op("mx.ceil", g.addS(g.div(g.rsubS(y0, -1.0), step), -0.5)), -1.0), 0.0);
  firstIdx = g.mul(firstIdx, g.cmpS("greater", step, 0.0));
  if (fixedGrid)
    firstIdx = g.mulS(firstIdx, 0.0);
  Value m = g.reshape(g.cast(arangeN(g, window, "float64"), elt), {1, 1, window});
  Value idx = g.add(g.reshape(firstIdx, {r, bins, 1}), m);        // (R, P, M)
  Value y = g.add(g.reshape(y0, {r, bins, 1}),
                  g.mul(g.addS(idx, 0.5), g.reshape(step, {r, 1, 1})));
  Value valid = g.mul(g.mul(g.cmp("lesser", idx, g.reshape(grid, {r, 1, 1})),
                            g.cmpS("greater_equal", y, -1.0)),
                      g.cmpS("lesser_equal", y, double(extent)));
  Value yc = g.scalarOp("mx._maximum_scalar", y, 0.0);
  Value low = g.op("mx.floor", yc);
  Value top = g.cmpS("greater_equal", low, double(extent - 1));
  // at the last position: low = high = E - 1 with weight 1
  Value frac = g.mul(g.sub(yc, low), g.rsubS(top, 1.0));
  low = g.scalarOp("mx._minimum_scalar", low, double(extent - 1));
  Value high = g.scalarOp("mx._minimum_scalar", g.addS(low, 1.0), double(extent - 1));
  Value pos = g.reshape(g.cast(arangeN(g, extent, "float64"), elt), {1, 1, 1, extent});
  auto at = [&](Value v) { return g.reshape(v, {r, bins, window, 1}); };
  Value wLow = g.mul(g.cmp("equal", pos, at(low)), at(g.rsubS(frac, 1.0)));
  Value wHigh = g.mul(g.cmp("equal", pos, at(high)), at(frac));
  Value weights = g.mul(g.add(wLow, wHigh), at(valid));           // (R, P, M, E)
  return g.div(g.sum(weights, {2}, false), g.reshape(grid, {r, 1, 1}));
}

/// Each bin's channel: out[r, c, p, q] = all[r, c * K + k(b), p, q] (all:
/// (R, C K, P, Q), b = p Q + q), `group` (P Q,) holding k(b), by a one-hot
/// mask over the bins.
Value binChannels(GradBuilder &g, Value all, Value group, int64_t groups) {
  ArrayRef<int64_t> s = typeOf(all).getShape();
  int64_t r = s[0], bins = s[2] * s[3], c = s[1] / groups;
  Type elt = typeOf(all).getElementType();
  Value k = g.reshape(g.cast(arangeN(g, groups, "float64"), elt), {groups, 1});
  Value m = g.cmp("equal", k, g.reshape(g.cast(group, elt), {1, bins})); // (K, P Q)
  Value v = g.reshape(all, {r, c, groups, bins});
  return g.reshape(g.sum(g.mul(v, g.reshape(m, {1, 1, groups, bins})), {2}, false),
                   {r, c, s[2], s[3]});
}

/// ROIAlign (contrib/roi_align.cc): separable sample weights per axis,
/// poolRegions; position_sensitive picks each bin's channel.
LogicalResult decomposeROIAlign(GradBuilder &g, ContribROIAlignOp op,
                                SmallVectorImpl<Value> &results) {
  Value data = op.getData();
  Value rois = g.op("mx.BlockGrad", op.getRois());
  ArrayRef<int64_t> d = typeOf(data).getShape();
  int64_t h = d[2], w = d[3];
  ArrayRef<int64_t> ps = op.getPooledSize();
  int64_t ph = ps[0], pw = ps[1];
  double scale = op.getSpatialScale().convertToDouble();
  double offset = op.getAligned() ? 0.5 : 0.0;
  int64_t ratio = op.getSampleRatio();
  Type elt = typeOf(data).getElementType();
  auto col = [&](int64_t k) { return sliceAxis(g, rois, 1, k, k + 1); }; // (R, 1)
  auto scaled = [&](int64_t k) { return g.addS(g.mulS(col(k), scale), -offset); };
  Value startW = scaled(1), startH = scaled(2), endW = scaled(3), endH = scaled(4);
  Value batch = g.op("mx.trunc", col(0));
  auto axis = [&](Value start, Value end, int64_t bins, int64_t extent) {
    Value size = g.sub(end, start);
    if (!op.getAligned())
      size = g.scalarOp("mx._maximum_scalar", size, 1.0);
    Value bin = g.mulS(size, 1.0 / double(bins));
    // samples per bin: sample_ratio, or ceil(bin) (at least 1)
    Value grid = ratio > 0 ? g.addS(g.mulS(bin, 0.0), double(ratio))
                           : g.scalarOp("mx._maximum_scalar", g.op("mx.ceil", bin), 1.0);
    int64_t window = ratio > 0 ? ratio : 2 * extent + 4;
    return alignWeights(g, start, bin, grid, bins, extent, window, ratio > 0, elt);
  };
  Value rowW = axis(startH, endH, ph, h), colW = axis(startW, endW, pw, w);
  int64_t r = typeOf(rois).getDimSize(0);
  // a negative batch index: 0 (MXNet: "it will be ignored")
  Value keep = g.reshape(g.cmpS("greater_equal", batch, 0.0), {r, 1, 1});
  rowW = g.mul(rowW, keep);
  Value all = poolRegions(g, data, g.reshape(batch, {r}), rowW, colW);
  if (op.getPositionSensitive()) // bin b reads channel group b
    all = binChannels(g, all, arangeN(g, ph * pw, "float64"), ph * pw);
  results.assign({all});
  return success();
}

/// PSROIPooling (contrib/psroi_pooling.cc PSROIPoolForwardCPU): each bin's
/// rows and columns as masks over the map, poolRegions, divided by the
/// bin's area (0 when empty), then each bin's group channel.
LogicalResult decomposePSROIPooling(GradBuilder &g, ContribPSROIPoolingOp op,
                                    SmallVectorImpl<Value> &results) {
  Value data = op.getData();
  Value rois = g.op("mx.BlockGrad", op.getRois());
  ArrayRef<int64_t> d = typeOf(data).getShape();
  int64_t h = d[2], w = d[3];
  int64_t p = static_cast<int64_t>(op.getPooledSize());
  int64_t dim = static_cast<int64_t>(op.getOutputDim());
  int64_t group = static_cast<int64_t>(op.getGroupSize());
  if (group == 0)
    group = p;
  double scale = op.getSpatialScale().convertToDouble();
  Type elt = typeOf(data).getElementType();
  int64_t r = typeOf(rois).getDimSize(0);
  auto col = [&](int64_t k) { return sliceAxis(g, rois, 1, k, k + 1); }; // (R, 1)
  Value startW = g.mulS(g.op("mx.round", col(1)), scale);
  Value startH = g.mulS(g.op("mx.round", col(2)), scale);
  Value endW = g.mulS(g.addS(g.op("mx.round", col(3)), 1.0), scale);
  Value endH = g.mulS(g.addS(g.op("mx.round", col(4)), 1.0), scale);
  // (R, P) bin bounds [lo, hi) clipped to [0, extent], and (R, P, E) masks
  auto bounds = [&](Value start, Value end, int64_t extent) {
    Value bin = g.mulS(g.scalarOp("mx._maximum_scalar", g.sub(end, start), 0.1),
                       1.0 / double(p));
    Value pIdx = g.reshape(g.cast(arangeN(g, p, "float64"), elt), {1, p});
    auto clip = [&](Value v) {
      return g.op("mx.clip", v, {g.f64("a_min", 0.0), g.f64("a_max", double(extent))});
    };
    Value lo = clip(g.op("mx.floor", g.add(g.mul(pIdx, bin), start)));
    Value hi = clip(g.op("mx.ceil", g.add(g.mul(g.addS(pIdx, 1.0), bin), start)));
    Value pos = g.reshape(g.cast(arangeN(g, extent, "float64"), elt), {1, 1, extent});
    Value mask = g.mul(g.cmp("greater_equal", pos, g.reshape(lo, {r, p, 1})),
                       g.cmp("lesser", pos, g.reshape(hi, {r, p, 1})));
    return std::make_pair(mask, g.scalarOp("mx._maximum_scalar", g.sub(hi, lo), 0.0));
  };
  auto [rowMask, rowLen] = bounds(startH, endH, h);
  auto [colMask, colLen] = bounds(startW, endW, w);
  Value area = g.mul(g.reshape(rowLen, {r, p, 1}), g.reshape(colLen, {r, 1, p})); // (R, P, P)
  Value batch = g.reshape(g.op("mx.trunc", col(0)), {r});
  // only the channels read: output_dim * group^2
  Value used = d[1] == dim * group * group ? data : sliceAxis(g, data, 1, 0, dim * group * group);
  Value sums = poolRegions(g, used, batch, rowMask, colMask); // (R, dim G G, P, P)
  // bin (ph, pw) reads group gh * G + gw, gh = min(floor(ph G / P), G - 1)
  Value bin = arangeN(g, p * p, "float64");
  Value binH = g.op("mx.floor", g.mulS(g.addS(bin, 0.5), 1.0 / double(p))); // (+0.5: exact)
  Value binW = g.sub(bin, g.mulS(binH, double(p)));
  auto groupOf = [&](Value v) {
    return g.scalarOp("mx._minimum_scalar",
                      g.op("mx.floor", g.mulS(g.addS(g.mulS(v, double(group)), 0.5 / double(p)),
                                              1.0 / double(p))),
                      double(group - 1));
  };
  Value groupOfBin = g.add(g.mulS(groupOf(binH), double(group)), groupOf(binW));
  Value picked = binChannels(g, sums, groupOfBin, group * group); // (R, dim, P, P)
  Value nonEmpty = g.cmpS("greater", area, 0.0);
  Value safeArea = g.add(area, g.rsubS(nonEmpty, 1.0)); // 1 where empty (its sum is 0)
  Value out = g.div(picked, g.reshape(safeArea, {r, 1, p, p}));
  results.assign({out});
  return success();
}

/// DeformableConvolution / ModulatedDeformableConvolution (deformable_im2col.h
/// deformable_im2col_cpu, modulated_deformable_im2col.h): every tap's
/// sample position from the offsets, its four corners by `take` from the
/// flattened data with their bilinear weights (zero outside, per MXNet's CPU
/// kernel of each op), times the mask (modulated), then the columns meet the
/// weight per group by batch_dot, plus the bias.
LogicalResult decomposeDeformable(GradBuilder &g, Operation *op, bool modulated,
                                  SmallVectorImpl<Value> &results) {
  Value data = op->getOperand(0), offset = op->getOperand(1);
  Value mask = modulated ? op->getOperand(2) : Value();
  Value weight = op->getOperand(modulated ? 3 : 2);
  bool noBias = cast<BoolAttr>(op->getAttr("no_bias")
                                   ? op->getAttr("no_bias")
                                   : BoolAttr::get(op->getContext(), false))
                    .getValue();
  Value bias = !noBias && op->getNumOperands() > unsigned(modulated ? 4 : 3)
                   ? op->getOperand(modulated ? 4 : 3)
                   : Value();
  ArrayRef<int64_t> d = typeOf(data).getShape();
  ArrayRef<int64_t> out = typeOf(op->getResult(0)).getShape();
  int64_t n = d[0], c = d[1], h = d[2], w = d[3], ho = out[2], wo = out[3], f = out[1];
  auto dense = [&](StringRef name) {
    auto a = op->getAttrOfType<DenseI64ArrayAttr>(name);
    return a ? SmallVector<int64_t>(a.asArrayRef()) : SmallVector<int64_t>();
  };
  SmallVector<int64_t> kernel = dense("kernel");
  using mxc::mx::detail::expandSpatialParam;
  StringRef opName = op->getName().getStringRef();
  auto stride = expandSpatialParam(op->getLoc(), opName, "stride", dense("stride"), 2, 1);
  auto dilate = expandSpatialParam(op->getLoc(), opName, "dilate", dense("dilate"), 2, 1);
  auto pad = expandSpatialParam(op->getLoc(), opName, "pad", dense("pad"), 2, 0);
  if (failed(stride) || failed(dilate) || failed(pad))
    return failure();
  auto intAttr = [&](StringRef name, int64_t dflt) {
    auto a = op->getAttrOfType<IntegerAttr>(name);
    return a ? a.getInt() : dflt;
  };
  int64_t groups = intAttr("num_group", 1), dg = intAttr("num_deformable_group", 1);
  int64_t kh = kernel[0], kw = kernel[1], taps = kh * kw, cg = c / dg;
  Type elt = typeOf(data).getElementType();
  auto range = [&](int64_t len) { return g.cast(arangeN(g, len, "float64"), elt); };
  // tap positions without offsets: (1, 1, K, Ho, 1) rows, (1, 1, K, 1, Wo) columns
  Value rowTap = g.mulS(g.reshape(range(kh), {kh, 1, 1, 1}), double((*dilate)[0]));
  Value rowOut = g.addS(g.mulS(g.reshape(range(ho), {1, 1, ho, 1}), double((*stride)[0])),
                        -double((*pad)[0]));
  Value baseH = g.reshape(g.add(g.add(rowTap, rowOut), g.reshape(g.mulS(range(kw), 0.0),
                                                                  {1, kw, 1, 1})),
                          {1, 1, taps, ho, 1});
  Value colTap = g.mulS(g.reshape(range(kw), {1, kw, 1, 1}), double((*dilate)[1]));
  Value colOut = g.addS(g.mulS(g.reshape(range(wo), {1, 1, 1, wo}), double((*stride)[1])),
                        -double((*pad)[1]));
  Value baseW = g.reshape(g.add(g.add(colTap, colOut), g.reshape(g.mulS(range(kh), 0.0),
                                                                  {kh, 1, 1, 1})),
                          {1, 1, taps, 1, wo});
  // offsets (N, G, K, 2, Ho, Wo): row, then column
  Value off = g.reshape(offset, {n, dg, taps, 2, ho, wo});
  auto part = [&](int64_t k) {
    return g.reshape(sliceAxis(g, off, 3, k, k + 1), {n, dg, taps, ho, wo});
  };
  Value y = g.add(part(0), baseH), x = g.add(part(1), baseW); // (N, G, K, Ho, Wo)
  Value valid, yLow = g.op("mx.floor", y), xLow = g.op("mx.floor", x);
  Value yHigh, xHigh, ly, lx;
  SmallVector<Value, 4> cornerOk(4);
  if (modulated) {
    // -1 < y < H, -1 < x < W; a corner outside the map reads 0
    valid = g.mul(g.mul(g.cmpS("greater", y, -1.0), g.cmpS("greater", x, -1.0)),
                  g.mul(g.cmpS("lesser", y, double(h)), g.cmpS("lesser", x, double(w))));
    yHigh = g.addS(yLow, 1.0);
    xHigh = g.addS(xLow, 1.0);
    ly = g.sub(y, yLow);
    lx = g.sub(x, xLow);
    Value yl = g.cmpS("greater_equal", yLow, 0.0), xl = g.cmpS("greater_equal", xLow, 0.0);
    Value yh = g.cmpS("lesser_equal", yHigh, double(h - 1));
    Value xh = g.cmpS("lesser_equal", xHigh, double(w - 1));
    cornerOk = {g.mul(yl, xl), g.mul(yl, xh), g.mul(yh, xl), g.mul(yh, xh)};
  } else {
    // 0 <= y < H, 0 <= x < W; at the last row / column both corners are it
    valid = g.mul(g.mul(g.cmpS("greater_equal", y, 0.0), g.cmpS("greater_equal", x, 0.0)),
                  g.mul(g.cmpS("lesser", y, double(h)), g.cmpS("lesser", x, double(w))));
    Value topY = g.cmpS("greater_equal", yLow, double(h - 1));
    Value topX = g.cmpS("greater_equal", xLow, double(w - 1));
    yHigh = g.scalarOp("mx._minimum_scalar", g.addS(yLow, 1.0), double(h - 1));
    xHigh = g.scalarOp("mx._minimum_scalar", g.addS(xLow, 1.0), double(w - 1));
    ly = g.mul(g.sub(y, yLow), g.rsubS(topY, 1.0));
    lx = g.mul(g.sub(x, xLow), g.rsubS(topX, 1.0));
  }
  Value hy = g.rsubS(ly, 1.0), hx = g.rsubS(lx, 1.0);
  SmallVector<Value, 4> weights{g.mul(hy, hx), g.mul(hy, lx), g.mul(ly, hx), g.mul(ly, lx)};
  SmallVector<std::pair<Value, Value>, 4> corners{
      {yLow, xLow}, {yLow, xHigh}, {yHigh, xLow}, {yHigh, xHigh}};
  if (modulated)
    valid = g.mul(valid, g.reshape(mask, {n, dg, taps, ho, wo}));
  // flat index in data of (n, group g, channel j of the group): ((n G + g)
  // Cg + j) H W, plus the corner's row * W + column
  Type f64 = Float64Type::get(g.builder().getContext());
  Value planeBase = g.mulS(g.reshape(arangeN(g, n * dg * cg, "float64"), {n, dg, cg, 1, 1, 1}),
                           double(h * w));
  Value flat = g.reshape(data, {n * c * h * w});
  Value cols;
  for (unsigned k = 0; k < 4; ++k) {
    auto [cy, cx] = corners[k];
    auto clip = [&](Value v, int64_t hi) {
      return g.op("mx.clip", g.cast(v, f64), {g.f64("a_min", 0.0), g.f64("a_max", double(hi))});
    };
    Value cyc = clip(cy, h - 1), cxc = clip(cx, w - 1);
    Value pos = g.reshape(g.add(g.mulS(cyc, double(w)), cxc), {n, dg, 1, taps, ho, wo});
    Value v = g.op("mx.take", {flat, g.add(planeBase, pos)}, {g.i64("axis", 0)});
    Value wk = g.mul(weights[k], valid);
    if (modulated)
      wk = g.mul(wk, cornerOk[k]);
    Value term = g.mul(v, g.reshape(wk, {n, dg, 1, taps, ho, wo})); // (N, G, Cg, K, Ho, Wo)
    cols = cols ? g.add(cols, term) : term;
  }
  // columns (C K, N L) per group against weight (F / groups, C / groups K)
  int64_t l = ho * wo, cPer = c / groups, fPer = f / groups;
  Value colsT = g.op("mx.transpose", g.reshape(cols, {n, c * taps, l}),
                     {g.shape("axes", {1, 0, 2})}); // (C K, N, L)
  colsT = g.reshape(colsT, {groups, cPer * taps, n * l});
  Value wg = g.reshape(weight, {groups, fPer, cPer * taps});
  Value y2 = g.op("mx.batch_dot", {wg, colsT}); // (groups, F / groups, N L)
  y2 = g.op("mx.transpose", g.reshape(y2, {f, n, l}), {g.shape("axes", {1, 0, 2})});
  Value result = g.reshape(y2, {n, f, ho, wo});
  if (bias)
    result = g.add(result, g.reshape(bias, {1, f, 1, 1}));
  results.assign({result});
  return success();
}

/// linalg extractdiag / makediag / extracttrian / maketrian (la_op-inl.h
/// CopyDiag, CopyTrian): the flat positions (row * n + col) in an n x n
/// matrix of the diagonal's or triangle's entries, in MXNet's order, as a
/// float64 vector; then `take` (extract) or placeAt (make).
LogicalResult decomposeDiagTrian(GradBuilder &g, Operation *op, int64_t offset, bool lower,
                                 bool extract, bool diag, SmallVectorImpl<Value> &results) {
  Value a = op->getOperand(0);
  RankedTensorType at = typeOf(a), rt = typeOf(op->getResult(0));
  ArrayRef<int64_t> full = extract ? at.getShape() : rt.getShape();
  int64_t n = full.back(), k = offset < 0 ? -offset : offset, m = n - k;
  int64_t count = diag ? m : m * (m + 1) / 2;
  int64_t batch = 1;
  for (int64_t d : full.drop_back(2))
    batch *= d;
  Value pos;
  if (diag) {
    pos = diagonalPositions(g, count, n, offset, "float64");
  } else {
    // entry t: triangle row r = floor((sqrt(8 t + 1) - 1) / 2), column
    // t - r (r + 1) / 2, shifted by |offset| rows; transposed for the upper
    Value t = arangeN(g, count, "float64");
    Value r = g.op("mx.floor", g.mulS(g.addS(g.op("mx.sqrt", g.addS(g.mulS(t, 8.0), 1.0)), -1.0),
                                      0.5));
    Value c = g.sub(t, g.mulS(g.mul(r, g.addS(r, 1.0)), 0.5));
    Value row = g.addS(r, double(k));
    bool upper = offset > 0 || (offset == 0 && !lower);
    pos = upper ? g.add(g.mulS(c, double(n)), row) : g.add(g.mulS(row, double(n)), c);
  }
  if (extract) {
    Value flat = g.reshape(a, {batch, n * n});
    Value picked = g.op("mx.take", {flat, pos}, {g.i64("axis", 1)});
    results.assign({g.reshape(picked, rt.getShape())});
    return success();
  }
  results.assign({g.reshape(placeAt(g, g.reshape(a, {batch, count}), pos, n * n), rt.getShape())});
  return success();
}

//===----------------------------------------------------------------------===//
// linalg factorizations and triangular solves (la_op-inl.h), on matrices
// viewed as (batch, rows, columns)
//===----------------------------------------------------------------------===//

/// (..., r, c) viewed as (batch, r, c).
Value asMatrixBatch(GradBuilder &g, Value v) {
  ArrayRef<int64_t> s = typeOf(v).getShape();
  int64_t batch = 1;
  for (int64_t d : s.drop_back(2))
    batch *= d;
  return g.reshape(v, {batch, s[s.size() - 2], s.back()});
}

/// Each matrix of a (batch, r, c) value transposed.
Value transposeMatrices(GradBuilder &g, Value v) {
  return g.op("mx.transpose", v, {g.shape("axes", {0, 2, 1})});
}

Value batchMatmul(GradBuilder &g, Value a, Value b, bool ta = false, bool tb = false) {
  return g.op("mx.batch_dot", {a, b},
              {g.boolean("transpose_a", ta), g.boolean("transpose_b", tb)});
}

/// (1, r, c) 0/1 matrix of `elt` comparing row and column indices: `pred`
/// "greater_equal" is the lower triangle, "lesser_equal" the upper one,
/// "equal" the identity (the first r rows of it when r < c).
Value indexMatrix(GradBuilder &g, int64_t r, int64_t c, StringRef pred, Type elt) {
  StringRef dt = getMXNetDTypeName(elt);
  Value i = g.reshape(arangeN(g, r, dt), {1, r, 1});
  Value j = g.reshape(arangeN(g, c, dt), {1, 1, c});
  return g.cmp(pred, i, j);
}

/// Solves M X = B for X: M (batch, n, n) triangular (`lower`: the rows are
/// solved first to last, else last to first), B (batch, n, k); substitution
/// unrolled over the rows.
Value substitute(GradBuilder &g, Value m, Value b, bool lower) {
  int64_t n = typeOf(m).getShape()[1];
  SmallVector<Value> x(n);
  for (int64_t step = 0; step < n; ++step) {
    int64_t i = lower ? step : n - 1 - step;
    Value row = sliceAxis(g, m, 1, i, i + 1); // (batch, 1, n)
    Value rhs = sliceAxis(g, b, 1, i, i + 1); // (batch, 1, k)
    if (step > 0) {
      int64_t lo = lower ? 0 : i + 1, hi = lower ? i : n;
      SmallVector<Value> solved(x.begin() + lo, x.begin() + hi);
      rhs = g.sub(rhs, batchMatmul(g, sliceAxis(g, row, 2, lo, hi), concatAxis(g, solved, 1)));
    }
    x[i] = g.div(rhs, sliceAxis(g, row, 2, i, i + 1));
  }
  return concatAxis(g, x, 1);
}

/// trmm: alpha op(T) B or alpha B op(T), T = A masked to its triangle (BLAS
/// reads only that one). trsm: op(T) X = B, or X op(T) = B as op(T)^T X^T =
/// B^T, by substitution; times alpha.
LogicalResult decomposeTriangular(GradBuilder &g, Operation *op, bool solve, bool transpose,
                                  bool rightside, bool lower, double alpha,
                                  SmallVectorImpl<Value> &results) {
  Value a = asMatrixBatch(g, op->getOperand(0)), b = asMatrixBatch(g, op->getOperand(1));
  RankedTensorType rt = typeOf(op->getResult(0));
  int64_t n = typeOf(a).getShape()[1];
  Value t = g.mul(a, indexMatrix(g, n, n, lower ? "greater_equal" : "lesser_equal",
                                 rt.getElementType()));
  Value out;
  if (!solve) {
    out = rightside ? batchMatmul(g, b, t, false, transpose) : batchMatmul(g, t, b, transpose);
  } else {
    bool flip = transpose != rightside; // the left-side matrix is T^T
    out = substitute(g, flip ? transposeMatrices(g, t) : t,
                     rightside ? transposeMatrices(g, b) : b, lower != flip);
    if (rightside)
      out = transposeMatrices(g, out);
  }
  if (alpha != 1.0)
    out = g.mulS(out, alpha);
  results.assign({g.reshape(out, rt.getShape())});
  return success();
}

/// potrf: Cholesky-Crout column by column on the lower triangle (the upper
/// one read through the transpose), with MXNet's symmetric gradient: c = A[:, j] - L[:, :j] L[j, :j]^T,
/// L[:, j] = c / sqrt(c[j]) below the diagonal, zero above.
LogicalResult decomposePotrf(GradBuilder &g, LinalgPotrfOp op,
                             SmallVectorImpl<Value> &results) {
  RankedTensorType rt = typeOf(op.getOutput());
  Type elt = rt.getElementType();
  Value a = asMatrixBatch(g, op.getA());
  if (!op.getLower())
    a = transposeMatrices(g, a);
  int64_t n = typeOf(a).getShape()[1];
  // The value is A's lower triangle; the gradient MXNet's symmetric one
  // (potrf_backward: the lower-triangle gradient G becomes (G + G^T) / 2),
  // through S = tril((A + A^T) / 2) entering as S - BlockGrad(S) = 0.
  Value lowerMask = indexMatrix(g, n, n, "greater_equal", elt);
  Value sym = g.mul(g.mulS(g.add(a, transposeMatrices(g, a)), 0.5), lowerMask);
  a = g.add(g.op("mx.BlockGrad", g.mul(a, lowerMask)),
            g.sub(sym, g.op("mx.BlockGrad", sym)));
  Value rows = g.reshape(arangeN(g, n, getMXNetDTypeName(elt)), {1, n, 1});
  SmallVector<Value> cols;
  for (int64_t j = 0; j < n; ++j) {
    Value c = sliceAxis(g, a, 2, j, j + 1); // (batch, n, 1)
    if (j > 0) {
      Value done = concatAxis(g, cols, 2); // (batch, n, j)
      c = g.sub(c, batchMatmul(g, done, sliceAxis(g, done, 1, j, j + 1), false, true));
    }
    Value d = g.op("mx.sqrt", sliceAxis(g, c, 1, j, j + 1));
    cols.push_back(g.mul(g.div(c, d), g.cmpS("greater_equal", rows, double(j))));
  }
  Value l = concatAxis(g, cols, 2);
  if (!op.getLower())
    l = transposeMatrices(g, l);
  results.assign({g.reshape(l, rt.getShape())});
  return success();
}

/// potri: with L the lower factor (an upper one transposed), L^-T L^-1;
/// L^-1 by substitution of the identity.
LogicalResult decomposePotri(GradBuilder &g, LinalgPotriOp op,
                             SmallVectorImpl<Value> &results) {
  RankedTensorType rt = typeOf(op.getOutput());
  Type elt = rt.getElementType();
  Value a = asMatrixBatch(g, op.getA());
  ArrayRef<int64_t> s = typeOf(a).getShape();
  int64_t n = s[1];
  Value l = g.mul(a, indexMatrix(g, n, n, op.getLower() ? "greater_equal" : "lesser_equal", elt));
  if (!op.getLower())
    l = transposeMatrices(g, l);
  Value eye = g.op("mx.broadcast_to", indexMatrix(g, n, n, "equal", elt),
                   {g.shape("shape", {s[0], n, n})});
  Value inv = substitute(g, l, eye, /*lower=*/true);
  results.assign({g.reshape(batchMatmul(g, inv, inv, true, false), rt.getShape())});
  return success();
}

/// gelqf: LAPACK's Householder LQ. Row i of the working matrix W (columns
/// >= i) is x; v = x - beta e_i with beta = -sign(x_i) |x| (sign(0) = 1),
/// W <- W (I - 2 v v^T / v^T v), which makes row i (L[i, :i], beta, 0...).
/// A row of length one gets no reflector (LAPACK's tau = 0). L is W's
/// leading m columns (lower triangle); Q = [I 0] H_m ... H_1.
LogicalResult decomposeGelqf(GradBuilder &g, LinalgGelqfOp op,
                             SmallVectorImpl<Value> &results) {
  RankedTensorType qt = typeOf(op.getResult(0)), lt = typeOf(op.getResult(1));
  Type elt = qt.getElementType();
  Value w = asMatrixBatch(g, op.getA());
  ArrayRef<int64_t> s = typeOf(w).getShape();
  int64_t batch = s[0], m = s[1], n = s[2];
  Value col = g.reshape(arangeN(g, n, getMXNetDTypeName(elt)), {1, 1, n});
  auto reflect = [&](Value x, Value v, Value scale) { // x (I - scale v v^T)
    return g.sub(x, g.mul(batchMatmul(g, batchMatmul(g, x, v, false, true), v), scale));
  };
  SmallVector<std::pair<Value, Value>> reflectors;
  for (int64_t i = 0; i < m && i < n - 1; ++i) {
    Value x = g.mul(sliceAxis(g, w, 1, i, i + 1), g.cmpS("greater_equal", col, double(i)));
    Value lead = sliceAxis(g, x, 2, i, i + 1); // (batch, 1, 1)
    Value norm = g.op("mx.sqrt", g.sum(g.square(x), {2}, true));
    Value sign = g.addS(g.mulS(g.cmpS("greater_equal", lead, 0.0), 2.0), -1.0);
    Value beta = g.neg(g.mul(sign, norm));
    Value v = g.sub(x, g.mul(beta, g.cmpS("equal", col, double(i))));
    Value scale = g.mulS(g.powS(g.sum(g.square(v), {2}, true), -1.0), 2.0);
    w = reflect(w, v, scale);
    reflectors.push_back({v, scale});
  }
  Value l = g.mul(sliceAxis(g, w, 2, 0, m), indexMatrix(g, m, m, "greater_equal", elt));
  Value q = g.op("mx.broadcast_to", indexMatrix(g, m, n, "equal", elt),
                 {g.shape("shape", {batch, m, n})});
  for (auto &[v, scale] : llvm::reverse(reflectors))
    q = reflect(q, v, scale);
  results.assign({g.reshape(q, qt.getShape()), g.reshape(l, lt.getShape())});
  return success();
}

/// Correlation (correlation.cc; the numpy loop of MXNet's test_correlation):
/// both inputs zero-padded; data2 gathered at every displacement by one
/// `take` of its flattened planes (positions (md + dy + y) * Wp + md + dx +
/// x, exact in float64), times data1's region (or |difference|), summed over
/// the channels, then a sum Pooling of the window with stride1 and the
/// scale 1 / (k^2 C). float16 data are computed in float32.
LogicalResult decomposeCorrelation(GradBuilder &g, CorrelationOp op,
                                   SmallVectorImpl<Value> &results) {
  RankedTensorType rt = typeOf(op.getOutput());
  Type outElt = rt.getElementType();
  Value a = accumulated(g, op.getData1()), b = accumulated(g, op.getData2());
  ArrayRef<int64_t> d = typeOf(a).getShape();
  int64_t n = d[0], c = d[1], k = op.getKernelSize(), md = op.getMaxDisplacement();
  int64_t s1 = op.getStride1(), s2 = op.getStride2(), pad = op.getPadSize();
  int64_t hp = d[2] + 2 * pad, wp = d[3] + 2 * pad;
  int64_t th = rt.getShape()[2], tw = rt.getShape()[3];
  int64_t lh = (th - 1) * s1 + k, lw = (tw - 1) * s1 + k; // the windows' span
  int64_t r = md / s2, grid = 2 * r + 1, disp = grid * grid;
  auto padded = [&](Value v) {
    if (pad == 0)
      return v;
    return g.op("mx.Pad", v, {g.str("mode", "constant"),
                              g.shape("pad_width", {0, 0, 0, 0, pad, pad, pad, pad})});
  };
  Value ap = padded(a), bp = padded(b);
  Value region = sliceAxis(g, sliceAxis(g, ap, 2, md, md + lh), 3, md, md + lw);
  // flat positions in data2's padded planes, (disp, lh, lw)
  auto range = [&](int64_t len, SmallVector<int64_t> shape) {
    return g.reshape(arangeN(g, len, "float64"), shape);
  };
  Value di = range(disp, {disp, 1, 1});
  Value dyIdx = g.op("mx.floor", g.mulS(di, 1.0 / double(grid)));
  Value dy = g.mulS(g.addS(dyIdx, -double(r)), double(s2));
  Value dx = g.mulS(g.addS(g.sub(di, g.mulS(dyIdx, double(grid))), -double(r)), double(s2));
  Value rows = g.add(g.addS(dy, double(md)), range(lh, {1, lh, 1}));
  Value cols = g.add(g.addS(dx, double(md)), range(lw, {1, 1, lw}));
  Value pos = g.reshape(g.add(g.mulS(rows, double(wp)), cols), {disp * lh * lw});
  Value gathered = g.op("mx.take", {g.reshape(bp, {n, c, hp * wp}), pos}, {g.i64("axis", 2)});
  gathered = g.reshape(gathered, {n, c, disp, lh, lw});
  Value lhs = g.reshape(region, {n, c, 1, lh, lw});
  // |a - b| as (a - b) * s, s = +1 where a >= b else -1: MXNet's gradient
  // sign at ties (+1 for data1), which abs' would make 0
  Value term;
  if (op.getIsMultiply()) {
    term = g.mul(lhs, gathered);
  } else {
    Value diff = g.sub(lhs, gathered);
    term = g.mul(diff, g.addS(g.mulS(g.cmpS("greater_equal", diff, 0.0), 2.0), -1.0));
  }
  Value corr = g.sum(term, {1}, false); // (n, disp, lh, lw)
  if (k > 1 || s1 > 1)
    corr = g.op("mx.Pooling", corr,
                {g.shape("kernel", {k, k}), g.str("pool_type", "sum"),
                 g.shape("stride", {s1, s1})});
  corr = g.mulS(corr, 1.0 / double(k * k * c));
  auto tmp = [&](Value v) {
    return g.cast(g.op("mx.transpose", v, {g.shape("axes", {0, 2, 3, 1})}), outElt);
  };
  results.assign({g.cast(corr, outElt), tmp(ap), tmp(bp)});
  return success();
}

/// max(|min|, |max|) of quantize / dequantize's (1,) range.
Value maxAbsRange(GradBuilder &g, Value lo, Value hi) {
  return g.op("mx.broadcast_maximum", {g.abs(lo), g.abs(hi)});
}

/// contrib quantize as MXNet 1.9.1's PyPI build runs it (its oneDNN
/// kernel, MKLDNNQuantizeComputeKer): x * (127 or 255) / max(|min|, |max|)
/// in float32, rounded to nearest even, saturated, then Cast.
LogicalResult decomposeQuantize(GradBuilder &g, ContribQuantizeOp op,
                                SmallVectorImpl<Value> &results) {
  Value x = op.getData(), lo = op.getMinRange(), hi = op.getMaxRange();
  Type out = typeOf(op.getOutput()).getElementType();
  bool int8 = op.getOutType() == "int8";
  Value range = maxAbsRange(g, lo, hi);
  Value scale = g.op("mx._rdiv_scalar", range, {g.f64("scalar", int8 ? 127.0 : 255.0)});
  Value q = g.op("mx.rint", g.mul(x, scale));
  q = g.op("mx.clip", q, {g.f64("a_min", int8 ? -128.0 : 0.0),
                          g.f64("a_max", int8 ? 127.0 : 255.0)});
  if (int8)
    results.assign({g.cast(q, out), g.neg(range), range});
  else
    results.assign({g.cast(q, out), lo, hi});
  return success();
}

/// contrib dequantize as the PyPI build's oneDNN kernel: q * max(|min|,
/// |max|) / (127.5 for int8, 255.5 for uint8).
LogicalResult decomposeDequantize(GradBuilder &g, ContribDequantizeOp op,
                                  SmallVectorImpl<Value> &results) {
  Value lo = op.getMinRange(), hi = op.getMaxRange();
  Value x = g.cast(op.getData(), Float32Type::get(op.getContext()));
  bool uint8 = cast<IntegerType>(typeOf(op.getData()).getElementType()).isUnsigned();
  Value scale = g.op("mx._div_scalar", maxAbsRange(g, lo, hi),
                     {g.f64("scalar", uint8 ? 255.5 : 127.5)});
  results.assign({g.mul(x, scale)});
  return success();
}

/// Bilinear sampling (BilinearSamplingForward): `data` (N, C, H, W) at
/// `grid` (N, 2, Ho, Wo) of normalised x, y. The four pixels around each
/// point are gathered by one `take` each from the data as (N * H * W, C)
/// (positions in float64, clamped into the image), masked to 0 outside it
/// and weighted by the distances; floor and the masks carry no gradient.
Value sampleBilinear(GradBuilder &g, Value data, Value grid) {
  ArrayRef<int64_t> d = typeOf(data).getShape(), gs = typeOf(grid).getShape();
  int64_t n = d[0], c = d[1], h = d[2], w = d[3], ho = gs[2], wo = gs[3];
  Type f64 = Float64Type::get(data.getContext());
  auto coordinate = [&](int64_t part, int64_t extent) {
    Value v = g.reshape(sliceAxis(g, grid, 1, part, part + 1), {n, 1, ho, wo});
    return g.mulS(g.addS(v, 1.0), double(extent - 1) / 2.0);
  };
  Value xr = coordinate(0, w), yr = coordinate(1, h);
  Value x0 = g.op("mx.floor", xr), y0 = g.op("mx.floor", yr);
  Value wx = g.sub(xr, x0), wy = g.sub(yr, y0);
  Value flat = g.reshape(g.op("mx.transpose", data, {g.shape("axes", {0, 2, 3, 1})}),
                         {n * h * w, c});
  Value base = g.reshape(g.mulS(arangeN(g, n, "float64"), double(h * w)), {n, 1, 1, 1});
  Value x64 = g.cast(x0, f64), y64 = g.cast(y0, f64);
  auto inside = [&](Value v, int64_t extent) {
    return g.mul(g.cmpS("greater_equal", v, 0.0), g.cmpS("lesser_equal", v, double(extent - 1)));
  };
  auto clamp = [&](Value v, int64_t extent) {
    return g.op("mx.clip", v, {g.f64("a_min", 0.0), g.f64("a_max", double(extent - 1))});
  };
  auto corner = [&](int64_t dy, int64_t dx) {
    Value yy = g.addS(y64, double(dy)), xx = g.addS(x64, double(dx));
    Value pos = g.add(base, g.add(g.mulS(clamp(yy, h), double(w)), clamp(xx, w)));
    Value v = g.op("mx.take", {flat, g.reshape(pos, {n * ho * wo})}, {g.i64("axis", 0)});
    v = g.op("mx.transpose", g.reshape(v, {n, ho, wo, c}), {g.shape("axes", {0, 3, 1, 2})});
    // where, not a product: a clamped border pixel that is inf / NaN must
    // not leak into a point outside the image (MXNet reads 0 there)
    Value mask = g.op("mx.broadcast_to", g.mul(inside(yy, h), inside(xx, w)),
                      {g.shape("shape", {n, c, ho, wo})});
    return g.op("mx.where", {mask, v, g.zerosLike(v)});
  };
  Value ux = g.rsubS(wx, 1.0), uy = g.rsubS(wy, 1.0);
  Value top = g.add(g.mul(corner(0, 0), g.mul(uy, ux)), g.mul(corner(0, 1), g.mul(uy, wx)));
  Value bottom = g.add(g.mul(corner(1, 0), g.mul(wy, ux)), g.mul(corner(1, 1), g.mul(wy, wx)));
  return g.add(top, bottom);
}

/// The target grid's column and row indices, each (H, W), in `elt`.
std::pair<Value, Value> pixelGrid(GradBuilder &g, int64_t h, int64_t w, Type elt) {
  StringRef dt = getMXNetDTypeName(elt);
  auto full = [&](Value v) { return g.op("mx.broadcast_to", v, {g.shape("shape", {h, w})}); };
  return {full(g.reshape(arangeN(g, w, dt), {1, w})), full(g.reshape(arangeN(g, h, dt), {h, 1}))};
}

/// The affine target grid (3, H * W) of GridGenerator / SpatialTransformer:
/// columns and rows normalised to [-1, 1] (x = -1 + 2 j / (W - 1)), ones.
Value affineTargetGrid(GradBuilder &g, int64_t h, int64_t w, Type elt) {
  auto [cols, rows] = pixelGrid(g, h, w, elt);
  auto normalised = [&](Value v, int64_t extent) {
    return g.reshape(g.addS(g.mulS(v, 2.0 / double(extent - 1)), -1.0), {1, h * w});
  };
  return concatAxis(g, {normalised(cols, w), normalised(rows, h),
                        g.onesLike(g.reshape(cols, {1, h * w}))},
                    0);
}

/// The affine sampling grid: each of the N row-major 2 x 3 matrices of
/// `theta` (N, 6) times the target grid `dst` (3, H * W), as (N * 2, H * W).
Value affineSourceGrid(GradBuilder &g, Value theta, Value dst) {
  int64_t n = typeOf(theta).getShape()[0];
  return g.op("mx.dot", {g.reshape(theta, {n * 2, 3}), dst});
}

/// GridGenerator: affine, the target grid times each 2 x 3 matrix (`dot`);
/// warp, the flow added to each pixel's column / row, normalised. float16 /
/// bfloat16 in float32 (bfloat16 counts pixels exactly only up to 256).
LogicalResult decomposeGridGenerator(GradBuilder &g, GridGeneratorOp op,
                                     SmallVectorImpl<Value> &results) {
  RankedTensorType rt = typeOf(op.getOutput());
  Type elt = rt.getElementType();
  Value data = accumulated(g, op.getData());
  Type work = typeOf(data).getElementType();
  int64_t h = rt.getShape()[2], w = rt.getShape()[3];
  if (op.getTransformType() == "affine") {
    Value grid = affineTargetGrid(g, h, w, work);
    Value out = affineSourceGrid(g, data, grid);
    results.assign({g.cast(g.reshape(out, rt.getShape()), elt), g.cast(grid, elt)});
    return success();
  }
  auto [cols, rows] = pixelGrid(g, h, w, work);
  auto warped = [&](int64_t c, Value pos, int64_t extent) {
    Value part = g.add(sliceAxis(g, data, 1, c, c + 1), g.reshape(pos, {1, 1, h, w}));
    return g.addS(g.mulS(part, 2.0 / double(extent - 1)), -1.0);
  };
  Value out = concatAxis(g, {warped(0, cols, w), warped(1, rows, h)}, 1);
  Value grid = concatAxis(g, {g.reshape(cols, {1, h, w}), g.reshape(rows, {1, h, w})}, 0);
  results.assign({g.cast(out, elt), g.cast(grid, elt)});
  return success();
}

/// The one-hot filters of im2col / col2im: (C * K, 1, *kernel), filter c *
/// K + k has a 1 at kernel offset k (K = prod(kernel), row-major).
Value oneHotFilters(GradBuilder &g, int64_t channels, ArrayRef<int64_t> kernel, Type elt) {
  int64_t k = mxc::mx::detail::productOf(kernel);
  SmallVector<int64_t> one{1, k, 1}, all{channels, k, 1}, flat{channels * k, 1};
  one.append(kernel.begin(), kernel.end());
  all.append(kernel.begin(), kernel.end());
  flat.append(kernel.begin(), kernel.end());
  Value eye = g.reshape(indexMatrix(g, k, k, "equal", elt), one);
  return g.reshape(g.op("mx.broadcast_to", eye, {g.shape("shape", all)}), flat);
}

/// im2col: a Convolution with one group per channel and one-hot filters,
/// (N, C * K, *blocks) flattened to (N, C * K, L). float16 in float32.
LogicalResult decomposeIm2col(GradBuilder &g, Im2colOp op, SmallVectorImpl<Value> &results) {
  RankedTensorType rt = typeOf(op.getOutput());
  Value x = accumulated(g, op.getData());
  ArrayRef<int64_t> d = typeOf(x).getShape(), kernel = op.getKernel();
  Value w = oneHotFilters(g, d[1], kernel, typeOf(x).getElementType());
  Value conv = g.op("mx.Convolution", {x, w},
                    {g.shape("kernel", kernel), g.shape("stride", op.getStride()),
                     g.shape("dilate", op.getDilate()), g.shape("pad", op.getPad()),
                     g.i64("num_filter", rt.getShape()[1]), g.i64("num_group", d[1]),
                     g.boolean("no_bias", true)});
  results.assign({g.cast(g.reshape(conv, rt.getShape()), rt.getElementType())});
  return success();
}

/// col2im: the columns as (N, C * K, *blocks) through a Deconvolution with
/// one group per channel and im2col's one-hot filters (its adjoint); `adj`
/// restores the extent the blocks' floor division dropped.
LogicalResult decomposeCol2im(GradBuilder &g, Col2imOp op, SmallVectorImpl<Value> &results) {
  RankedTensorType rt = typeOf(op.getOutput());
  Value x = accumulated(g, op.getData());
  ArrayRef<int64_t> d = typeOf(x).getShape(), kernel = op.getKernel();
  ArrayRef<int64_t> size = op.getOutputSize();
  int64_t k = kernel.size();
  using mxc::mx::detail::expandSpatialParam;
  StringRef name = op->getName().getStringRef();
  auto stride = expandSpatialParam(op.getLoc(), name, "stride", op.getStride(), k, 1);
  auto dilate = expandSpatialParam(op.getLoc(), name, "dilate", op.getDilate(), k, 1);
  auto pad = expandSpatialParam(op.getLoc(), name, "pad", op.getPad(), k, 0);
  if (failed(stride) || failed(dilate) || failed(pad))
    return failure(); // (the shape rule has checked them)
  SmallVector<int64_t> blocks{d[0], d[1]}, adj;
  for (int64_t i = 0; i < k; ++i) {
    int64_t s = (*stride)[i];
    int64_t span = size[i] + 2 * (*pad)[i] - (1 + (kernel[i] - 1) * (*dilate)[i]);
    blocks.push_back(span / s + 1);
    adj.push_back(span % s);
  }
  int64_t channels = rt.getShape()[1];
  Value w = oneHotFilters(g, channels, kernel, typeOf(x).getElementType());
  Value im = g.op("mx.Deconvolution", {g.reshape(x, blocks), w},
                  {g.shape("kernel", kernel), g.shape("stride", op.getStride()),
                   g.shape("dilate", op.getDilate()), g.shape("pad", op.getPad()),
                   g.shape("adj", adj), g.i64("num_filter", channels),
                   g.i64("num_group", channels), g.boolean("no_bias", true)});
  results.assign({g.cast(im, rt.getElementType())});
  return success();
}

/// Part `part` of `parts` of every head of a (S, B, parts * E) projection,
/// as (B * heads, S, D) (attention batch b * heads + h).
Value headPart(GradBuilder &g, Value proj, int64_t heads, int64_t parts, int64_t part) {
  ArrayRef<int64_t> s = typeOf(proj).getShape();
  int64_t bh = s[1] * heads, dh = s[2] / (parts * heads);
  Value x = g.reshape(proj, {s[0], bh, parts, dh});
  if (parts > 1)
    x = sliceAxis(g, x, 2, part, part + 1);
  return g.op("mx.transpose", g.reshape(x, {s[0], bh, dh}), {g.shape("axes", {1, 0, 2})});
}

/// interleaved_matmul_*: queries . keys^T / sqrt(D) (qk), or attention .
/// values back in the (S, B, E) layout (valatt).
LogicalResult decomposeInterleaved(GradBuilder &g, Operation *op,
                                   SmallVectorImpl<Value> &results) {
  auto scores = [&](Value q, Value k) {
    int64_t dh = typeOf(q).getShape()[2];
    return g.mulS(batchMatmul(g, q, k, false, true), 1.0 / std::sqrt(double(dh)));
  };
  auto weighted = [&](Value att, Value v) {
    Value o = g.op("mx.transpose", batchMatmul(g, att, v), {g.shape("axes", {1, 0, 2})});
    return g.reshape(o, typeOf(op->getResult(0)).getShape());
  };
  if (auto o = dyn_cast<ContribInterleavedMatmulSelfattQkOp>(op)) {
    Value qkv = o.getQueriesKeysValues();
    int64_t h = o.getHeads();
    results.assign({scores(headPart(g, qkv, h, 3, 0), headPart(g, qkv, h, 3, 1))});
  } else if (auto o = dyn_cast<ContribInterleavedMatmulSelfattValattOp>(op)) {
    results.assign({weighted(o.getAttention(), headPart(g, o.getQueriesKeysValues(),
                                                        o.getHeads(), 3, 2))});
  } else if (auto o = dyn_cast<ContribInterleavedMatmulEncdecQkOp>(op)) {
    int64_t h = o.getHeads();
    results.assign({scores(headPart(g, o.getQueries(), h, 1, 0),
                           headPart(g, o.getKeysValues(), h, 2, 0))});
  } else if (auto o = dyn_cast<ContribInterleavedMatmulEncdecValattOp>(op)) {
    results.assign({weighted(o.getAttention(), headPart(g, o.getKeysValues(), o.getHeads(), 2, 1))});
  } else {
    return failure();
  }
  return success();
}

/// random_pdf_*: pdf_op.h's log-densities, elementwise on the samples with
/// the parameters broadcast along the samples' trailing axes (Dirichlet:
/// summed over the vectors' axis), then exp unless is_log; the discrete
/// distributions' samples through BlockGrad (MXNet gives them no gradient).
/// float16 in float32.
LogicalResult decomposePdf(GradBuilder &g, Operation *op, SmallVectorImpl<Value> &results) {
  RankedTensorType rt = typeOf(op->getResult(0));
  Value x = accumulated(g, op->getOperand(0));
  ArrayRef<int64_t> s = typeOf(x).getShape();
  auto isLogAttr = op->getAttrOfType<BoolAttr>("is_log");
  bool isLog = isLogAttr && isLogAttr.getValue();
  bool vector = isa<RandomPdfDirichletOp>(op);
  auto param = [&](unsigned i) {
    Value p = accumulated(g, op->getOperand(i));
    SmallVector<int64_t> shape(typeOf(p).getShape());
    if (vector) {
      int64_t k = shape.pop_back_val();
      shape.resize(s.size() - 1, 1);
      shape.push_back(k);
    } else {
      shape.resize(s.size(), 1);
    }
    return g.reshape(p, shape);
  };
  auto gammaln = [&](Value v) { return g.op("mx.gammaln", v); };
  // log-density of the negative binomial with k failures and failure
  // probability p at the (gradient-free) samples
  auto negBinomial = [&](Value k, Value p) {
    Value xb = g.op("mx.BlockGrad", x);
    Value lg = g.sub(g.sub(gammaln(g.add(xb, k)), gammaln(g.addS(xb, 1.0))), gammaln(k));
    return g.add(g.add(lg, g.mul(k, g.log(p))), g.mul(xb, g.log(g.rsubS(p, 1.0))));
  };
  Value out;
  if (isa<RandomPdfUniformOp>(op)) {
    Value width = g.sub(param(2), param(1));
    Value v = isLog ? g.neg(g.log(width)) : g.op("mx.reciprocal", width);
    out = g.op("mx.broadcast_to", v, {g.shape("shape", s)});
  } else if (isa<RandomPdfNormalOp>(op)) {
    Value mu = param(1), sigma = param(2);
    Value exponent = g.div(g.mulS(g.square(g.sub(x, mu)), -0.5), g.square(sigma));
    Value normalizer = g.mulS(sigma, std::sqrt(2.0 * M_PI));
    out = isLog ? g.sub(exponent, g.log(normalizer)) : g.div(g.exp(exponent), normalizer);
  } else if (isa<RandomPdfExponentialOp>(op)) {
    Value lam = param(1);
    Value lx = g.mul(lam, x);
    out = isLog ? g.sub(g.log(lam), lx) : g.mul(lam, g.exp(g.neg(lx)));
  } else {
    Value lpdf;
    if (isa<RandomPdfGammaOp>(op)) {
      Value a = param(1), b = param(2);
      lpdf = g.add(g.mul(a, g.log(b)), g.mul(g.addS(a, -1.0), g.log(x)));
      lpdf = g.sub(g.sub(lpdf, g.mul(b, x)), gammaln(a));
    } else if (isa<RandomPdfPoissonOp>(op)) {
      Value lam = param(1), xb = g.op("mx.BlockGrad", x);
      lpdf = g.sub(g.sub(g.mul(xb, g.log(lam)), gammaln(g.addS(xb, 1.0))), lam);
    } else if (isa<RandomPdfNegativeBinomialOp>(op)) {
      lpdf = negBinomial(param(1), param(2));
    } else if (isa<RandomPdfGeneralizedNegativeBinomialOp>(op)) {
      Value mu = param(1), alpha = param(2);
      lpdf = negBinomial(g.op("mx.reciprocal", alpha),
                         g.op("mx.reciprocal", g.addS(g.mul(mu, alpha), 1.0)));
    } else if (vector) {
      Value a = param(1);
      int64_t last = static_cast<int64_t>(s.size()) - 1;
      Value terms = g.sum(g.mul(g.addS(a, -1.0), g.log(x)), {last}, false);
      Value norm = g.sub(gammaln(g.sum(a, {last}, false)), g.sum(gammaln(a), {last}, false));
      lpdf = g.add(terms, norm);
    } else {
      return failure();
    }
    out = isLog ? lpdf : g.exp(lpdf);
  }
  results.assign({g.cast(g.reshape(out, rt.getShape()), rt.getElementType())});
  return success();
}

/// khatri_rao: rows of each pair multiplied by broadcasting, (m, 1, k) x
/// (1, n, k) -> (m * n, k), left to right.
LogicalResult decomposeKhatriRao(GradBuilder &g, KhatriRaoOp op, SmallVectorImpl<Value> &results) {
  ValueRange args = op.getArgs();
  Value out = args[0];
  for (Value b : args.drop_front()) {
    ArrayRef<int64_t> a = typeOf(out).getShape(), bs = typeOf(b).getShape();
    out = g.reshape(g.op("mx.broadcast_mul", {g.reshape(out, {a[0], 1, a[1]}),
                                              g.reshape(b, {1, bs[0], bs[1]})}),
                    {a[0] * bs[0], a[1]});
  }
  if (args.size() == 1)
    out = g.op("mx.identity", out);
  if (g.failed() || !out)
    return failure();
  results.assign({out});
  return success();
}

/// The image operators (image_random-inl.h, crop-inl.h).
LogicalResult decomposeImage(GradBuilder &g, Operation *op, SmallVectorImpl<Value> &results) {
  Value x = op->getOperand(0);
  auto type = typeOf(x);
  ArrayRef<int64_t> d = type.getShape();
  Type elt = type.getElementType();
  Type f32 = g.builder().getF32Type();
  Value out;
  if (isa<ImageToTensorOp>(op)) {
    // in / 255.0f: float division, in the data's type for float64 data
    SmallVector<int64_t> perm = d.size() == 3 ? SmallVector<int64_t>{2, 0, 1}
                                              : SmallVector<int64_t>{0, 3, 1, 2};
    Value t = g.op("mx.transpose", x, {g.shape("axes", perm)});
    if (!elt.isF64())
      t = g.cast(t, f32);
    out = g.cast(g.scalarOp("mx._div_scalar", t, 255.0), f32);
  } else if (auto n = dyn_cast<ImageNormalizeOp>(op)) {
    auto mean = parseFloatTuple(n.getMean()), stdv = parseFloatTuple(n.getStd());
    if (!mean || !stdv)
      return op->emitOpError("mean and std must be floats");
    int64_t axis = d.size() == 3 ? 0 : 1, c = d[axis];
    // (x - mean) / std with MXNet's float parameters
    auto at = [&](ArrayRef<double> v, int64_t i) { return double(float(v.size() == 1 ? v[0] : v[i])); };
    auto norm = [&](Value v, int64_t i) {
      return g.scalarOp("mx._div_scalar", g.scalarOp("mx._minus_scalar", v, at(*mean, i)),
                        at(*stdv, i));
    };
    if (mean->size() == 1 && stdv->size() == 1) {
      out = norm(x, 0);
    } else {
      SmallVector<Value> parts;
      for (int64_t i = 0; i < c; ++i)
        parts.push_back(norm(sliceAxis(g, x, axis, i, i + 1), i));
      out = concatAxis(g, parts, axis);
    }
  } else if (isa<ImageFlipLeftRightOp, ImageFlipTopBottomOp>(op)) {
    out = g.op("mx.reverse", x, {g.shape("axis", {isa<ImageFlipLeftRightOp>(op) ? 1 : 0})});
  } else if (auto c = dyn_cast<ImageCropOp>(op)) {
    int64_t r = static_cast<int64_t>(d.size());
    int64_t x0 = static_cast<int64_t>(c.getX()), y0 = static_cast<int64_t>(c.getY());
    out = sliceAxis(g, x, r - 3, y0, y0 + static_cast<int64_t>(c.getHeight()));
    out = sliceAxis(g, out, r - 2, x0, x0 + static_cast<int64_t>(c.getWidth()));
  } else if (auto l = dyn_cast<ImageAdjustLightingOp>(op)) {
    auto alpha = parseFloatTuple(l.getAlpha());
    if (!alpha || alpha->size() != 3)
      return op->emitOpError("alpha must be three floats");
    if (d[2] == 1) {
      results.assign({g.op("mx.identity", x)});
      return success(!g.failed());
    }
    // AlexNet's eigenvectors times eigenvalues, MXNet's float table
    static const float eig[3][3] = {{55.46 * -0.5675, 4.794 * 0.7192, 1.148 * 0.4009},
                                    {55.46 * -0.5808, 4.794 * -0.0045, 1.148 * -0.8140},
                                    {55.46 * -0.5836, 4.794 * -0.6948, 1.148 * 0.4203}};
    float a[3] = {float((*alpha)[0]), float((*alpha)[1]), float((*alpha)[2])};
    SmallVector<Value> parts;
    for (int64_t i = 0; i < 3; ++i) {
      float pca = eig[i][0] * a[0] + eig[i][1] * a[1] + eig[i][2] * a[2];
      Value v = g.scalarOp("mx._plus_scalar", g.cast(sliceAxis(g, x, 2, i, i + 1), f32),
                           double(pca));
      if (elt.isUnsignedInteger(8))
        v = g.scalarOp("mx._minimum_scalar", g.scalarOp("mx._maximum_scalar", v, 0.0), 255.0);
      parts.push_back(g.cast(v, elt));
    }
    out = concatAxis(g, parts, 2);
  } else {
    return failure();
  }
  if (g.failed() || !out)
    return failure();
  results.assign({out});
  return success();
}

} // namespace

bool mxc::mx::isComposite(Operation *op) {
  return isa<LayerNormOp, InstanceNormOp, GroupNormOp, L2NormalizationOp,
             MomentsOp, BatchTakeOp, ArgmaxChannelOp, RepeatOp, TileOp,
             SliceChannelOp, UpSamplingOp, RNNOp, CTCLossOp, SequenceMaskOp,
             SequenceLastOp, SequenceReverseOp, RavelMultiIndexOp,
             UnravelIndexOp, SoftmaxActivationOp, GatherNdOp,
             ContribIndexCopyOp, ContribIndexArrayOp, LinalgGemmOp,
             LinalgGemm2Op, SortOp, ArgsortOp,
             ContribQuadraticOp, ContribFftOp, ContribIfftOp, ContribCountSketchOp,
             ContribDivSqrtDimOp, SoftmaxCrossEntropyOp, AllFiniteOp,
             MultiAllFiniteOp, DiagOp, ContribAdaptiveAvgPooling2DOp,
             ContribBilinearResize2DOp, ContribBoxIouOp, ContribBoxEncodeOp,
             ContribBoxDecodeOp, HistogramOp, ContribMultiBoxPriorOp,
             ROIPoolingOp, ContribROIAlignOp, ContribPSROIPoolingOp,
             ContribDeformableConvolutionOp, ContribModulatedDeformableConvolutionOp,
             LinalgExtractdiagOp, LinalgMakediagOp, LinalgExtracttrianOp,
             LinalgMaketrianOp, LinalgPotrfOp, LinalgPotriOp, LinalgTrmmOp, LinalgTrsmOp,
             LinalgSumlogdiagOp, LinalgSyrkOp, LinalgGelqfOp, CorrelationOp,
             ScatterNdOp, AmpCastOp, AmpMulticastOp, Im2colOp, Col2imOp, GridGeneratorOp, BilinearSamplerOp,
             SpatialTransformerOp, ContribQuantizeOp, ContribDequantizeOp,
             ContribInterleavedMatmulSelfattQkOp, ContribInterleavedMatmulSelfattValattOp,
             ContribInterleavedMatmulEncdecQkOp, ContribInterleavedMatmulEncdecValattOp,
             RandomPdfUniformOp, RandomPdfNormalOp, RandomPdfGammaOp, RandomPdfExponentialOp,
             RandomPdfPoissonOp, RandomPdfNegativeBinomialOp,
             RandomPdfGeneralizedNegativeBinomialOp, RandomPdfDirichletOp, ImageToTensorOp,
             ImageNormalizeOp, ImageFlipLeftRightOp, ImageFlipTopBottomOp, ImageCropOp,
             ImageAdjustLightingOp, KhatriRaoOp>(op) ||
         isChannelLast(op);
}

LogicalResult mxc::mx::decomposeComposite(OpBuilder &b, Operation *op,
                                          SmallVectorImpl<Value> &results) {
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPoint(op);
  GradBuilder g(b, op->getLoc());
  LogicalResult r = failure();
  // These composites are built from the extents (reshapes, index grids,
  // one-hot filters): a dynamic one would reach that arithmetic.
  if (isa<Im2colOp, Col2imOp, GridGeneratorOp, BilinearSamplerOp, SpatialTransformerOp,
          ContribQuantizeOp, ContribDequantizeOp, ContribInterleavedMatmulSelfattQkOp,
          ContribInterleavedMatmulSelfattValattOp, ContribInterleavedMatmulEncdecQkOp,
          ContribInterleavedMatmulEncdecValattOp, RandomPdfUniformOp, RandomPdfNormalOp,
          RandomPdfGammaOp, RandomPdfExponentialOp, RandomPdfPoissonOp,
          RandomPdfNegativeBinomialOp, RandomPdfGeneralizedNegativeBinomialOp,
          RandomPdfDirichletOp, ContribROIAlignOp, ContribPSROIPoolingOp,
          ContribDeformableConvolutionOp, ContribModulatedDeformableConvolutionOp,
          ImageNormalizeOp, ImageAdjustLightingOp, KhatriRaoOp>(op)) {
    auto isStatic = [](Type t) { return cast<RankedTensorType>(t).hasStaticShape(); };
    if (!llvm::all_of(op->getOperandTypes(), isStatic) ||
        !llvm::all_of(op->getResultTypes(), isStatic))
      return op->emitOpError("needs static shapes (its composite is built from the extents)");
  }
  if (isChannelLast(op))
    r = decomposeChannelLast(g, op, results);
  else if (isa<ImageToTensorOp, ImageNormalizeOp, ImageFlipLeftRightOp, ImageFlipTopBottomOp,
               ImageCropOp, ImageAdjustLightingOp>(op))
    r = decomposeImage(g, op, results);
  else if (auto kr = dyn_cast<KhatriRaoOp>(op))
    r = decomposeKhatriRao(g, kr, results);
  else if (auto ln = dyn_cast<LayerNormOp>(op))
    r = decomposeLayerNorm(g, ln, results);
  else if (auto in = dyn_cast<InstanceNormOp>(op))
    r = decomposeInstanceNorm(g, in, results);
  else if (auto gn = dyn_cast<GroupNormOp>(op))
    r = decomposeGroupNorm(g, gn, results);
  else if (auto l2 = dyn_cast<L2NormalizationOp>(op))
    r = decomposeL2Normalization(g, l2, results);
  else if (auto m = dyn_cast<MomentsOp>(op))
    r = decomposeMoments(g, m, results);
  else if (auto rep = dyn_cast<RepeatOp>(op))
    r = decomposeRepeat(g, rep, results);
  else if (auto t = dyn_cast<TileOp>(op))
    r = decomposeTile(g, t, results);
  else if (auto sc = dyn_cast<SliceChannelOp>(op))
    r = decomposeSliceChannel(g, sc, results);
  else if (auto up = dyn_cast<UpSamplingOp>(op))
    r = decomposeUpSampling(g, up, results);
  else if (auto rnn = dyn_cast<RNNOp>(op))
    r = decomposeRNN(g, rnn, results);
  else if (auto ctc = dyn_cast<CTCLossOp>(op))
    r = decomposeCTCLoss(g, ctc, results);
  else if (auto sm = dyn_cast<SequenceMaskOp>(op))
    r = decomposeSequence(g, op, sm.getData(), sm.getSequenceLength(), sm.getAxis(),
                          /*last=*/false, sm.getValue().convertToDouble(), results);
  else if (auto sl = dyn_cast<SequenceLastOp>(op))
    r = decomposeSequence(g, op, sl.getData(), sl.getSequenceLength(), sl.getAxis(),
                          /*last=*/true, 0.0, results);
  else if (auto ac = dyn_cast<AmpCastOp>(op)) {
    // Cast where the shape rule changed the type, else the input itself.
    Value x = ac.getData();
    Type out = op->getResult(0).getType();
    results.assign({x.getType() == out
                        ? x
                        : g.op("mx.Cast", x, {g.str("dtype", ac.getDtype())})});
    r = success();
  } else if (auto mc = dyn_cast<AmpMulticastOp>(op)) {
    // Each input Cast to its result's type where the shape rule changed it.
    results.clear();
    for (auto [x, out] : llvm::zip(mc.getData(), op->getResultTypes()))
      results.push_back(g.cast(x, cast<RankedTensorType>(out).getElementType()));
    r = success();
  } else if (auto sa = dyn_cast<SoftmaxActivationOp>(op)) {
    // instance: softmax of each sample's elements; channel: along axis 1
    Value x = sa.getData();
    ArrayRef<int64_t> d = typeOf(x).getShape();
    if (sa.getMode() == "channel" && d.size() >= 3) {
      results.assign({g.op("mx.softmax", x, {g.i64("axis", 1)})});
    } else {
      int64_t n = d.empty() ? 1 : d[0];
      int64_t rest = typeOf(x).getNumElements() / std::max<int64_t>(n, 1);
      results.assign({g.reshape(g.op("mx.softmax", g.reshape(x, {n, rest}),
                                     {g.i64("axis", -1)}),
                                d)});
    }
    r = success();
  } else if (isa<LinalgGemmOp, LinalgGemm2Op>(op))
    r = decomposeLinalgGemm(g, op, results);
  else if (auto gn = dyn_cast<GatherNdOp>(op))
    r = decomposeGatherNd(g, gn, results);
  else if (auto ic = dyn_cast<ContribIndexCopyOp>(op))
    r = decomposeIndexCopy(g, ic, results);
  else if (auto ia = dyn_cast<ContribIndexArrayOp>(op))
    r = decomposeIndexArray(g, ia, results);
  else if (isa<RavelMultiIndexOp, UnravelIndexOp>(op))
    r = decomposeRavel(g, op, results);
  else if (auto sr = dyn_cast<SequenceReverseOp>(op))
    r = decomposeSequenceReverse(g, sr, results);
  else if (auto dg = dyn_cast<DiagOp>(op))
    r = decomposeDiag(g, dg, results);
  else if (auto ap = dyn_cast<ContribAdaptiveAvgPooling2DOp>(op))
    r = decomposeAdaptiveAvgPooling(g, ap, results);
  else if (auto br = dyn_cast<ContribBilinearResize2DOp>(op))
    r = decomposeBilinearResize(g, br, results);
  else if (auto bi = dyn_cast<ContribBoxIouOp>(op))
    r = decomposeBoxIou(g, bi, results);
  else if (auto be = dyn_cast<ContribBoxEncodeOp>(op))
    r = decomposeBoxEncode(g, be, results);
  else if (auto bd = dyn_cast<ContribBoxDecodeOp>(op))
    r = decomposeBoxDecode(g, bd, results);
  else if (auto h = dyn_cast<HistogramOp>(op))
    r = decomposeHistogram(g, h, results);
  else if (auto mp = dyn_cast<ContribMultiBoxPriorOp>(op))
    r = decomposeMultiBoxPrior(g, mp, results);
  else if (auto rp = dyn_cast<ROIPoolingOp>(op))
    r = decomposeROIPooling(g, rp, results);
  else if (auto ra = dyn_cast<ContribROIAlignOp>(op))
    r = decomposeROIAlign(g, ra, results);
  else if (auto ps = dyn_cast<ContribPSROIPoolingOp>(op))
    r = decomposePSROIPooling(g, ps, results);
  else if (isa<ContribDeformableConvolutionOp>(op))
    r = decomposeDeformable(g, op, /*modulated=*/false, results);
  else if (isa<ContribModulatedDeformableConvolutionOp>(op))
    r = decomposeDeformable(g, op, /*modulated=*/true, results);
  else if (auto ed = dyn_cast<LinalgExtractdiagOp>(op))
    r = decomposeDiagTrian(g, op, ed.getOffset(), true, true, true, results);
  else if (auto md = dyn_cast<LinalgMakediagOp>(op))
    r = decomposeDiagTrian(g, op, md.getOffset(), true, false, true, results);
  else if (auto et = dyn_cast<LinalgExtracttrianOp>(op))
    r = decomposeDiagTrian(g, op, et.getOffset(), et.getLower(), true, false, results);
  else if (auto mt = dyn_cast<LinalgMaketrianOp>(op))
    r = decomposeDiagTrian(g, op, mt.getOffset(), mt.getLower(), false, false, results);
  else if (auto sn = dyn_cast<ScatterNdOp>(op))
    r = decomposeScatterNd(g, sn, results);
  else if (auto co = dyn_cast<CorrelationOp>(op))
    r = decomposeCorrelation(g, co, results);
  else if (auto qo = dyn_cast<ContribQuantizeOp>(op))
    r = decomposeQuantize(g, qo, results);
  else if (auto dq = dyn_cast<ContribDequantizeOp>(op))
    r = decomposeDequantize(g, dq, results);
  else if (auto bs = dyn_cast<BilinearSamplerOp>(op)) {
    Value data = accumulated(g, bs.getData()), grid = accumulated(g, bs.getGrid());
    Type elt = typeOf(bs.getOutput()).getElementType();
    results.assign({g.cast(sampleBilinear(g, data, grid), elt),
                    g.cast(g.op("mx.transpose", grid, {g.shape("axes", {0, 2, 3, 1})}), elt)});
    r = success();
  } else if (auto st = dyn_cast<SpatialTransformerOp>(op)) {
    // GridGenerator's affine grid, then the bilinear sampler
    Value data = accumulated(g, st.getData()), l = accumulated(g, st.getLoc());
    ArrayRef<int64_t> t = st.getTargetShape();
    int64_t n = typeOf(data).getShape()[0];
    Type elt = typeOf(st.getOutput()).getElementType();
    Value dst = affineTargetGrid(g, t[0], t[1], typeOf(data).getElementType());
    Value src = g.reshape(affineSourceGrid(g, l, dst), {n, 2, t[0] * t[1]});
    Value out = sampleBilinear(g, data, g.reshape(src, {n, 2, t[0], t[1]}));
    results.assign({g.cast(out, elt), g.cast(dst, elt), g.cast(src, elt)});
    r = success();
  } else if (auto gg = dyn_cast<GridGeneratorOp>(op))
    r = decomposeGridGenerator(g, gg, results);
  else if (auto ic = dyn_cast<Im2colOp>(op))
    r = decomposeIm2col(g, ic, results);
  else if (auto ci = dyn_cast<Col2imOp>(op))
    r = decomposeCol2im(g, ci, results);
  else if (isa<ContribInterleavedMatmulSelfattQkOp, ContribInterleavedMatmulSelfattValattOp,
               ContribInterleavedMatmulEncdecQkOp, ContribInterleavedMatmulEncdecValattOp>(op))
    r = decomposeInterleaved(g, op, results);
  else if (isa<RandomPdfUniformOp, RandomPdfNormalOp, RandomPdfGammaOp, RandomPdfExponentialOp,
               RandomPdfPoissonOp, RandomPdfNegativeBinomialOp,
               RandomPdfGeneralizedNegativeBinomialOp, RandomPdfDirichletOp>(op))
    r = decomposePdf(g, op, results);
  else if (auto tm = dyn_cast<LinalgTrmmOp>(op))
    r = decomposeTriangular(g, op, false, tm.getTranspose(), tm.getRightside(), tm.getLower(),
                            tm.getAlpha().convertToDouble(), results);
  else if (auto ts = dyn_cast<LinalgTrsmOp>(op))
    r = decomposeTriangular(g, op, true, ts.getTranspose(), ts.getRightside(), ts.getLower(),
                            ts.getAlpha().convertToDouble(), results);
  else if (auto pf = dyn_cast<LinalgPotrfOp>(op))
    r = decomposePotrf(g, pf, results);
  else if (auto pi = dyn_cast<LinalgPotriOp>(op))
    r = decomposePotri(g, pi, results);
  else if (auto lq = dyn_cast<LinalgGelqfOp>(op))
    r = decomposeGelqf(g, lq, results);
  else if (auto sy = dyn_cast<LinalgSyrkOp>(op)) {
    Value a = asMatrixBatch(g, sy.getA());
    bool t = sy.getTranspose();
    Value out = g.mulS(batchMatmul(g, a, a, t, !t), sy.getAlpha().convertToDouble());
    results.assign({g.reshape(out, typeOf(sy.getOutput()).getShape())});
    r = success();
  } else if (auto sl = dyn_cast<LinalgSumlogdiagOp>(op)) {
    Value a = asMatrixBatch(g, sl.getA());
    int64_t n = typeOf(a).getShape()[1];
    Type elt = typeOf(a).getElementType();
    Value diag = g.sum(g.mul(a, indexMatrix(g, n, n, "equal", elt)), {2}, false);
    results.assign({g.reshape(g.sum(g.log(diag), {1}, false),
                              typeOf(sl.getOutput()).getShape())});
    r = success();
  } else if (auto cs = dyn_cast<ContribCountSketchOp>(op)) {
    // rows (M, d) . (one_hot(h) * s) (d, out_dim)
    RankedTensorType in = typeOf(cs.getData()), out = typeOf(cs.getOutput());
    int64_t d = in.getShape().back(), k = out.getShape().back();
    Type elt = in.getElementType();
    Value hot = g.op("mx.one_hot", g.reshape(cs.getH(), {d}),
                     {g.i64("depth", k), g.str("dtype", getMXNetDTypeName(elt))});
    Value sketch = g.op("mx.broadcast_mul", {hot, g.reshape(cs.getS(), {d, 1})});
    Value rows = g.reshape(cs.getData(), {in.getNumElements() / d, d});
    results.assign({g.reshape(g.op("mx.dot", {rows, sketch}), out.getShape())});
    r = success();
  } else if (isa<ContribFftOp, ContribIfftOp>(op)) {
    // Rows of the last axis as (M, d) matrices; C[k][n] = cos(t), S[k][n] =
    // sin(t), t = 2 pi (k n mod d) / d (exact in float64 before the cos).
    // fft: re = x C, im = -x S, interleaved; ifft: re C - im S.
    bool inverse = isa<ContribIfftOp>(op);
    Value x = op->getOperand(0);
    RankedTensorType in = typeOf(x), out = typeOf(op->getResult(0));
    Type elt = in.getElementType();
    int64_t d = inverse ? in.getShape().back() / 2 : in.getShape().back();
    int64_t m = in.getNumElements() / (inverse ? 2 * d : d);
    Value k = g.op("mx._arange", {},
                   {g.f64("start", 0.0), g.f64("stop", double(d)), g.f64("step", 1.0),
                    g.str("dtype", "float64")});
    Value kn = g.scalarOp("mx._mod_scalar",
                          g.op("mx.broadcast_mul", {g.reshape(k, {d, 1}), g.reshape(k, {1, d})}),
                          double(d));
    Value angle = g.mulS(kn, 2.0 * M_PI / double(d));
    Value cosM = g.cast(g.op("mx.cos", angle), elt);
    Value sinM = g.cast(g.op("mx.sin", angle), elt);
    Value y;
    if (!inverse) {
      Value rows = g.reshape(x, {m, d});
      Value re = g.op("mx.dot", {rows, cosM});
      Value im = g.neg(g.op("mx.dot", {rows, sinM}));
      y = concatAxis(g, {g.reshape(re, {m, d, 1}), g.reshape(im, {m, d, 1})}, 2);
    } else {
      Value pairs = g.reshape(x, {m, d, 2});
      auto part = [&](int64_t i) { return g.reshape(sliceAxis(g, pairs, 2, i, i + 1), {m, d}); };
      y = g.sub(g.op("mx.dot", {part(0), cosM}), g.op("mx.dot", {part(1), sinM}));
    }
    results.assign({g.reshape(y, out.getShape())});
    r = success();
  } else if (auto q = dyn_cast<ContribQuadraticOp>(op)) {
    Value x = q.getData();
    Value y = g.add(g.mulS(g.square(x), q.getA().convertToDouble()),
                    g.mulS(x, q.getB().convertToDouble()));
    results.assign({g.addS(y, q.getC().convertToDouble())});
    r = success();
  } else if (auto d = dyn_cast<ContribDivSqrtDimOp>(op)) {
    int64_t n = typeOf(d.getData()).getShape().back();
    results.assign({g.mulS(d.getData(), 1.0 / std::sqrt(double(n)))});
    r = success();
  } else if (auto ce = dyn_cast<SoftmaxCrossEntropyOp>(op)) {
    // -sum(log_softmax(data)[label]) (MXNet's forward; its gradient
    // softmax - one_hot(label) follows from the composition)
    Value lsm = g.op("mx.log_softmax", ce.getData(), {g.i64("axis", -1)});
    Value label = g.cast(ce.getLabel(), typeOf(ce.getData()).getElementType());
    Value picked = g.op("mx.pick", {lsm, label},
                        {g.i64("axis", -1), g.boolean("keepdims", false),
                         g.str("mode", "clip")});
    results.assign({g.neg(g.op("mx.sum", picked, {}))});
    r = success();
  } else if (isa<AllFiniteOp, MultiAllFiniteOp>(op)) {
    // min over every element of abs(x) < inf (false for NaN and +-inf)
    Value all;
    for (Value x : op->getOperands()) {
      Value finite = g.cmpS("lesser", g.abs(x),
                            std::numeric_limits<double>::infinity());
      Value v = g.cast(g.op("mx.min", finite, {}),
                       Float32Type::get(op->getContext()));
      all = all ? g.op("mx.broadcast_minimum", {all, v}) : v;
    }
    results.assign({all});
    r = success();
  } else if (isa<SortOp, ArgsortOp>(op)) {
    // topk over the whole axis: ret_typ value (values and the hidden int32
    // positions, sort's two results) or indices (argsort's).
    auto sort = dyn_cast<SortOp>(op);
    auto argsort = dyn_cast<ArgsortOp>(op);
    std::optional<uint64_t> axis = sort ? sort.getAxis() : argsort.getAxis();
    SmallVector<NamedAttribute> attrs{
        g.i64("k", 0), g.str("ret_typ", sort ? "value" : "indices"),
        g.boolean("is_ascend",
                  sort ? sort.getIsAscend() : argsort.getIsAscend())};
    if (axis) // absent: None, the flattened input
      attrs.push_back(g.i64("axis", static_cast<int64_t>(*axis)));
    if (argsort)
      attrs.push_back(g.str("dtype", argsort.getDtype()));
    results.assign(g.ops("mx.topk", op->getOperand(0), attrs));
    r = success();
  } else if (isa<BatchTakeOp>(op)) {
    // pick along axis 1 (its clip mode is batch_take's clipping)
    results.assign({g.op("mx.pick", op->getOperands(),
                         {g.i64("axis", 1), g.boolean("keepdims", false),
                          g.str("mode", "clip")})});
    r = success();
  } else if (isa<ArgmaxChannelOp>(op)) {
    results.assign({g.op("mx.argmax", op->getOperand(0),
                         {g.i64("axis", 1), g.boolean("keepdims", false)})});
    r = success();
  }
  else
    return op->emitError() << "internal error: not a composite op";
  if (failed(r) || g.failed())
    return failure();
  for (auto [v, res] : llvm::zip(results, op->getResults()))
    if (v && typeOf(v).getElementType() !=
                 cast<RankedTensorType>(res.getType()).getElementType())
      v = g.cast(v, cast<RankedTensorType>(res.getType()).getElementType());
  if (g.failed())
    return failure();
  for (auto [v, res] : llvm::zip(results, op->getResults()))
    if (!v || v.getType() != res.getType())
      return op->emitError() << "internal error: decomposition result of type "
                             << (v ? v.getType() : Type()) << ", expected "
                             << res.getType();
  return success();
}
