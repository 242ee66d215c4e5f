//===- conv_dnnl.cc - f32 2-D convolution through oneDNN ------------------===//
//
// conv_dnnl.h. Built when CMake finds oneDNN 2.x (Debian's libdnnl-dev,
// DNNL v2 API; MXC_RUNTIME_DNNL). Direct convolution on oneDNN's blocked
// layouts (its brgemm / JIT kernels for the host CPU): the NCHW input and the
// OIHW (GOIHW) weights are reordered into the layouts the primitive asks for,
// and the blocked output back to NCHW, inside the call. Pointwise (1x1,
// stride 1, no padding) convolutions, and those with few output pixels per
// weight, stay on NCHW, where oneDNN runs them as GEMMs without reorders.
// The weights are re-laid on every call unless the compiler marks them
// constant (kept re-laid copies, below); 3x3 stride-1 convolutions with
// constant weights run on oneDNN's Winograd kernels instead (build()'s wino).
//
// Blocked tensors (ConvArgs::blockedX / blockedY, kernels.h's flags 32 /
// 64: mx-propagate-conv-layout keeps tensors that pass between fused
// convolutions in oneDNN's nChw8c / nChw16c): the user memory descriptors
// are blocked, the primitive writes a blocked y as it is (the sum then a
// sum post-op), and no re-layout happens for them; such convolutions never
// take the NCHW GEMM path.
//
// Threads: the loop threads of the runtime's pool (parallel.h: the kernel
// threads, plus idle engine workers where they help), not oneDNN's. Debian's oneDNN runs on libgomp, whose idle threads spin (for
// 300000 iterations by default) and are not part of the process's thread
// budget: on a loaded 2-core machine ResNet-18 took 212 ms a pass with two
// OpenMP threads against 38 ms with OMP_WAIT_POLICY=passive. So each call
// sets the calling thread's OpenMP thread count to 1 (oneDNN then starts no
// OpenMP threads) and the convolution is split into independent parts run by
// parallelFor: images when the batch has at least as many as there are
// loop threads, else output channels (whole 16-channel blocks), or groups
// for grouped convolutions. Each part is a primitive of its own reading the
// full input (a part's share of the weights and output); the input's
// re-layout is repeated by every channel part. A forward convolution whose
// input is at least 4x its output splits over input channels instead
// (splitsChannels(): partial sums added up after the parts).
//
// Primitives are built once per geometry and kept (a mutex-guarded map).
// A part runs with the state of its "slot": part i of a convolution running
// on the pool's board entry e (parallel.h: one loop holds an entry at a time)
// uses slot (e, i), which is its alone; a convolution run outside the pool
// uses a slot of its calling thread. A slot owns the re-layout buffers
// (grown to the largest part it has run) and, per primitive, the oneDNN
// memory objects and argument map, re-pointed at each call's buffers: a
// warm step allocates nothing in this file (ArenaTest checks it).
//
// mxc_kernel_conv_fused's epilogue (conv_dnnl.h's ConvArgs) rides on the
// re-layouts: the weights' re-layout multiplies them by the per-filter
// scale (reorder output scales), the primitive's bias is bias * scale +
// shift (per part and call, into the slot), relu / clip is an eltwise
// post-op and the result's re-layout back adds the sum (a reorder with a
// sum post-op). Convolutions on NCHW run without attributes and
// conv_epilogue.h's loop finishes each part (see build()).
//
//===----------------------------------------------------------------------===//
#include "conv_dnnl.h"
#include "conv_epilogue.h"
#include "../large_alloc.h"

#include "mxc/runtime/threads.h"
#include "parallel.h"

#include <oneapi/dnnl/dnnl.hpp>

#include <cstdlib>
#include <exception>
#include <cstring>
#include <algorithm>
#include <map>
#include <unordered_map>
#include <memory>
#include <mutex>
#include <numeric>
#include <tuple>
#include <vector>

extern "C" void omp_set_num_threads(int) __attribute__((weak));

namespace mxc::kernels {
namespace {

using Key = std::tuple<int64_t, int64_t, int64_t, int64_t, int64_t, int64_t,
                       int64_t, int64_t, int64_t, int64_t, int64_t, int64_t,
                       int64_t, int64_t, int64_t, int64_t, int64_t, int64_t,
                       int64_t, int, int, float, float>;

/// The cache key of `a` (its parts: `srcC` / `dstF` of the full tensors).
Key keyOf(const ConvArgs &a, int64_t srcC, int64_t dstF, int pass) {
  int epilogue = int(a.hasScale) | int(a.hasShift) << 1 | int(a.sum) << 2 |
                 int(a.constWeights) << 3 | int(a.blockedX) << 4 |
                 int(a.blockedY) << 5 | int(a.actAfterSum) << 6 | a.act << 7;
  return Key{a.batch, a.channels, a.filters, a.groups, a.hasBias, a.inH,
             a.inW,   a.kH,       a.kW,      a.outH,   a.outW,    a.sH,
             a.sW,    a.pH,       a.pW,      a.dH,     a.dW,      srcC,
             dstF,    pass,       epilogue,  a.actLo,  a.actHi};
}

/// One part of a convolution: a convolution of its own whose input and
/// output are channel ranges of larger NCHW tensors (srcC, dstF channels).
struct Part {
  ConvArgs a;
  int64_t srcC, dstF;
  int64_t xOffset, wOffset, biasOffset, yOffset; // elements
  // A part of an input-channel split (channelSplit()): its weights are
  // a.channels of the srcC input channels of each filter, and part i > 0
  // writes its partial sum into partial buffer i - 1, not into y.
  int64_t partial = -1;
};

enum class Pass { Forward, Data, Weights };

/// A primitive with two inputs a, b and a result r (forward: x, w -> y;
/// data gradient: w, dy -> dx; weight gradient: x, dy -> dw), each in the
/// caller's layout (user*) and the primitive's (prim*), and the re-layouts
/// between them.
struct Prim {
  dnnl::primitive prim;
  dnnl::memory::desc userA, userB, userR, primA, primB, primR, pad, bias;
  int argA, argB, argR;
  bool hasBias = false;
  bool reA = false, reB = false, reR = false;
  dnnl::reorder toA, toB, fromR;
  // The part's convolution and epilogue, and its output's image stride in
  // the caller's tensor (elements).
  ConvArgs a;
  int64_t yImage = 0;
  // The epilogue (build()): weights scaled by their re-layout, the bias
  // made of bias, scale and shift per call.
  bool scaleWeights = false, fuseBias = false;
  dnnl::memory::desc scales;
  // Scaled weights where the re-layout into the primitive's layout takes
  // no scales (oneDNN's Winograd layouts): scaled in the caller's layout
  // into midB first (scaleB), then re-laid (toB).
  bool scaleApart = false;
  dnnl::memory::desc midB;
  dnnl::reorder scaleB;
  // The weights' re-layout is into a Winograd layout (build()'s wino).
  bool winograd = false;
  // The epilogue by conv_epilogue.h's loop after the primitive, from the
  // result buffer (a dense NCHW one with a sum, else the caller's).
  bool loopEpilogue = false;
  // An activation after a sum that the result's re-layout adds: a loop
  // over the caller's output after it.
  bool actAfterRelayout = false;
};

// The engine, the caches of primitives and the slots are never destroyed:
// at exit, static destructors may run after oneDNN's own, and destroying a
// primitive then crashes (a Python process exiting after a training step).
dnnl::engine &cpuEngine() {
  static dnnl::engine *engine = new dnnl::engine(dnnl::engine::kind::cpu, 0);
  return *engine;
}

/// Whether the forward primitive of `a` adds the sum itself (a sum post-op
/// on the blocked y it writes as it is): with no activation, or with one
/// after the sum. (oneDNN 2.6's AVX2 kernels take a sum after an eltwise
/// post-op on their reference path only: with an activation before the
/// sum, the sum is the result's re-layout's, as on NCHW.)
bool sumInPrimitive(const ConvArgs &a) {
  return a.sum && a.blockedY && (!a.act || a.actAfterSum);
}

// Output pixels (batch x height x width) below which a forward convolution
// stays on NCHW (measured on ResNet-18's layers, docs/benchmarks.md).
constexpr int64_t kPlainBelowPixels = 128;
// Output pixels up to which a single image's blocked convolution runs on
// nhwc (build()'s smallNhwc).
constexpr int64_t kNhwcMaxPixels = 28 * 28;

/// MXC_CONV_WINOGRAD=0: no Winograd convolutions (build()'s winograd; for
/// A/B measurements and bit-for-bit comparisons with direct convolution).
bool winogradAllowed() {
  static const bool on = [] {
    const char *v = std::getenv("MXC_CONV_WINOGRAD");
    return !(v && std::strcmp(v, "0") == 0);
  }();
  return on;
}

/// `ours`: with the layouts this file prefers (channelsLast, blockedResult
/// below); false: oneDNN's own choices. `winograd`: Winograd where it
/// applies (below); false after oneDNN refused it.
std::shared_ptr<Prim> build(const Part &part, Pass pass, bool ours = true,
                            bool winograd = true) {
  using dt = dnnl::memory::data_type;
  using tag = dnnl::memory::format_tag;
  const ConvArgs &a = part.a;
  const bool grouped = a.groups > 1;
  dnnl::memory::dims src{a.batch, a.channels, a.inH, a.inW},
      dst{a.batch, a.filters, a.outH, a.outW}, strides{a.sH, a.sW},
      dilates{a.dH - 1, a.dW - 1}, pad{a.pH, a.pW},
      padR{(a.outH - 1) * a.sH + (a.kH - 1) * a.dH + 1 - a.inH - a.pH,
           (a.outW - 1) * a.sW + (a.kW - 1) * a.dW + 1 - a.inW - a.pW};
  dnnl::memory::dims weights =
      grouped ? dnnl::memory::dims{a.groups, a.filters / a.groups,
                                   a.channels / a.groups, a.kH, a.kW}
              : dnnl::memory::dims{a.filters, a.channels, a.kH, a.kW};
  auto nchw = [](const dnnl::memory::dims &d, int64_t fullC) {
    // A batch of one has a dense batch stride whatever the full tensor's.
    int64_t plane = d[2] * d[3];
    return dnnl::memory::desc(
        d, dt::f32,
        dnnl::memory::dims{d[0] == 1 ? d[1] * plane : fullC * plane, plane,
                           d[3], 1});
  };
  auto anyOf = [](const dnnl::memory::dims &d) {
    return dnnl::memory::desc(d, dt::f32, tag::any);
  };
  // The blocked layout (ConvArgs::blockedX / blockedY): a part's channels
  // are whole blocks of the full tensor (split()), dense at a batch of one,
  // else with the full tensor's image stride.
  const int64_t block = convChannelBlock();
  auto blocked = [&](const dnnl::memory::dims &d, int64_t fullC) {
    dnnl::memory::desc md(d, dt::f32,
                          block == 16 ? tag::nChw16c : tag::nChw8c);
    if (d[0] > 1)
      md.data.format_desc.blocking.strides[0] = fullC * d[2] * d[3];
    return md;
  };
  dnnl::memory::desc userSrc = a.blockedX ? blocked(src, part.srcC)
                                          : nchw(src, part.srcC),
                     userDst = a.blockedY ? blocked(dst, part.dstF)
                                          : nchw(dst, part.dstF),
                     userW = dnnl::memory::desc(
                         weights, dt::f32, grouped ? tag::goihw : tag::oihw);
  if (part.partial >= 0) // a.channels of each filter's srcC (channelSplit())
    userW = dnnl::memory::desc(
        weights, dt::f32,
        dnnl::memory::dims{part.srcC * a.kH * a.kW, a.kH * a.kW, a.kW, 1});
  // Channels last (nhwc) for the primitive where the channels are not whole
  // 16-channel blocks (AVX-512): oneDNN 2.6.3's blocked kernels pad the
  // input channels to whole blocks (LeNet's 20 -> 32), its kernels on nhwc
  // take the tail as it is. oneDNN already picks nhwc (brgconv) for such a
  // forward convolution left to it ('any'); its backward primitives, built
  // with 'any' too, took the blocked layouts. LeNet's second convolution (20
  // -> 50 channels, 5x5, parts of 32 images) in a training step: weight
  // gradient 2.5 -> 1.7 ms (both parts), data gradient unchanged; alone, one
  // thread: weight gradient 1.54 -> 0.97 ms, data gradient 1.62 -> 1.10
  // (docs/benchmarks.md). Not for a few input channels (a first layer:
  // oneDNN's blocked kernels read NCHW there), grouped or blocked tensors, or
  // the NCHW GEMM path.
  const bool channelsLast = ours && !grouped && !a.blockedX && !a.blockedY &&
                            block == 16 && a.channels > block &&
                            a.channels % block != 0;
  // A forward result the call re-lays back to NCHW is asked in the blocked
  // layout: left to oneDNN ('any'), AVX-512 gets nhwc results from its
  // brgemm kernels, whose re-layout to NCHW is a full transpose (AlexNet's
  // first convolution, 8 images: 2.9 ms against 0.7 from nChw16c, the
  // convolution itself 10.3 against 9.5 ms on the blocked kernels; its
  // second: 2.2 against 0.5, 37.6 against 36.3; one thread,
  // docs/benchmarks.md). Not with channelsLast (chosen for its kernels).
  const bool blockedResult =
      ours && pass == Pass::Forward && !channelsLast && block == 16;
  // A single image's blocked tensors with at most kNhwcMaxPixels output
  // pixels (28x28 and smaller: ResNet's last three stages, AlexNet's 13x13
  // layers) go to oneDNN's brgemm kernels on nhwc for windows larger than
  // 1x1, re-laid on the way in and out (a few hundred KB): at batch 1 on two
  // threads ResNet-18 12.5 -> 12.0-12.3 ms, ResNet-50 ~29.5 -> 26.4-28.2,
  // AlexNet 11.6-11.8 -> 10.9-11.0, VGG-11 57.5-58.6 -> 56.4-57.2 in
  // interleaved runs (docs/benchmarks.md); at batch 16 (parts of 8 images)
  // ResNet-18 was slower (149 -> 160 ms), so not there.
  // Winograd (oneDNN's jit_wino_4x3 / jit_fp32_wino_2x3 kernels, F(4x4,
  // 3x3) and F(2x2,3x3) on nChw16c, oneDNN's choice) for 3x3, stride 1
  // forward convolutions with constant weights, whose Winograd transform
  // (1.8-4x the weights) is made once with the kept copy, never per call.
  // Alone, one thread, they take 0.4-0.6x the direct kernels' time from
  // 112x112 to 14x14 maps, 0.7-0.97x at 7x7 (where the transformed weights
  // come from memory); in the networks at batch 1 VGG-11 57-58 -> 41-42 ms,
  // Inception-BN 13-14 -> 11.2-11.5, ResNet-50 28-29 -> 26.5-26.9,
  // ResNet-18 10.5 -> 9.5-9.9, AlexNet 11.0 -> 10.3-10.4, and ResNet-18 at
  // batch 16 156-159 -> 112-113 (docs/benchmarks.md, 12:50 run). Their
  // results differ from direct convolution's by rounding: F(4x4,3x3)'s
  // largest error to a float64 loop on a 256-channel 28x28 layer 7e-6
  // (outputs up to 2.4) against direct's 6e-7. Channels in whole 16-channel
  // blocks (the kernels take no tail); not for an input-channel split's
  // parts (strided weights).
  const bool wino = winograd && winogradAllowed() && ours &&
                    pass == Pass::Forward && !grouped && block == 16 &&
                    a.constWeights && part.partial < 0 && a.kH == 3 &&
                    a.kW == 3 && a.sH == 1 && a.sW == 1 && a.dH == 1 &&
                    a.dW == 1 && a.channels % block == 0 &&
                    a.filters % block == 0;
  const bool smallNhwc = !wino && ours && pass == Pass::Forward && !grouped &&
                         block == 16 && a.batch == 1 &&
                         (a.blockedX || a.blockedY) && (a.kH > 1 || a.kW > 1) &&
                         a.outH * a.outW <= kNhwcMaxPixels;
  // (On nhwc the sum is added by the result's re-layout back.)
  const bool sumPostOp = sumInPrimitive(a) && !smallNhwc;
  // Where any choice of ours would get oneDNN's reference
  // implementation, build() starts again with oneDNN's own choices.
  auto refOnOurs = [&](const char *impl) {
    return (channelsLast || blockedResult || smallNhwc) &&
           std::strncmp(impl, "ref", 3) == 0;
  };
  // The primitive's activation layouts: what oneDNN chooses, or nhwc.
  auto actOf = [&](const dnnl::memory::dims &d) {
    return channelsLast || smallNhwc ? dnnl::memory::desc(d, dt::f32, tag::nhwc)
                                     : anyOf(d);
  };
  dnnl::engine &e = cpuEngine();
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  auto p = std::make_shared<Prim>();
  p->a = a;
  p->yImage = part.dstF * a.outH * a.outW;
  if (pass == Pass::Forward) {
    const bool pointwise = a.kH == 1 && a.kW == 1 && a.sH == 1 &&
                           a.sW == 1 && a.pH == 0 && a.pW == 0;
    // Few output pixels per weight (ResNet's last stage at batch 1): the
    // blocked kernels' per-call weight re-layout would cost about as much
    // as the convolution; oneDNN's GEMM convolution on NCHW reads them as
    // they are. Constant weights are re-laid once (constantWeights()): the
    // blocked kernels then win there too (ResNet-18's 7x7 stage: 12.7 ->
    // 9.7 ms of part time, docs/benchmarks.md).
    // Blocked tensors go to the blocked kernels: NCHW would cost two
    // re-layouts. Only a single image: oneDNN's GEMM convolution runs an
    // image at a time, reading all the weights again for each (ResNet-18's
    // training step at 32x32, batch 32: its 2x2 stage's parts of 16 images
    // took 3.1 ms each at 24 GFLOP/s, docs/benchmarks.md), where the
    // blocked kernels re-lay the weights once a call.
    const bool plain =
        !a.blockedX && !a.blockedY &&
        (pointwise || (!a.constWeights && a.batch == 1 &&
                       a.outH * a.outW < kPlainBelowPixels));
    // The epilogue (conv_dnnl.h):
    //  - scale multiplies the weights on their way to the primitive's layout
    //    (a per-filter output scale of the weights' re-layout, which the
    //    blocked kernels do anyway), and bias * scale + shift becomes the
    //    convolution's bias (computed per call, run());
    //  - relu / clip is an eltwise post-op;
    //  - the sum is added by the result's re-layout back to NCHW (a reorder
    //    with a sum post-op), or, on a blocked y (which the primitive
    //    writes as it is), by a sum post-op after the activation.
    // On NCHW (oneDNN's GEMM convolution, weights read as they are),
    // conv_epilogue.h's loop does the epilogue after the primitive, on a
    // dense result of its own when it must add the sum: with any attribute
    // (a bias, an eltwise post-op) oneDNN 2.6's GEMM convolution ran 5-7x
    // slower on MobileNet-v2's 1x1 layers, and its binary post-ops (the
    // other way to scale and shift) take a reference path, ~100x slower,
    // and run 2-3x slower in the depthwise kernels.
    p->loopEpilogue = plain && a.hasEpilogue();
    p->scaleWeights = a.hasScale && !p->loopEpilogue;
    p->fuseBias = !p->loopEpilogue && (a.hasScale || a.hasShift);
    // An activation after a sum that the re-layout back adds follows it.
    p->actAfterRelayout =
        a.act && a.sum && a.actAfterSum && !sumPostOp && !p->loopEpilogue;
    const bool eltwise = a.act && !p->loopEpilogue && !p->actAfterRelayout;
    if (eltwise || sumPostOp) {
      dnnl::post_ops ops;
      if (sumPostOp && a.actAfterSum)
        ops.append_sum(1.f);
      if (eltwise && a.act == 1)
        ops.append_eltwise(1.f, dnnl::algorithm::eltwise_relu, 0.f, 0.f);
      else if (eltwise)
        ops.append_eltwise(1.f, dnnl::algorithm::eltwise_clip, a.actLo,
                           a.actHi);
      if (sumPostOp && !a.actAfterSum)
        ops.append_sum(1.f);
      attr.set_post_ops(ops);
    }
    // A grouped (depthwise) convolution on a blocked input reads it as it
    // is: with the source left to oneDNN ('any') and a blocked destination,
    // oneDNN 2.6.3 on AVX-512 offers only its reference implementation for
    // MobileNet's depthwise layers (measured: ref:any), with the source's
    // blocked layout given its jit_dw:avx512_core kernel.
    dnnl::memory::desc srcMd = plain || (grouped && a.blockedX) ? userSrc : actOf(src),
                       dstMd = smallNhwc ? actOf(dst)
                               : a.blockedY
                                   ? (a.sum && !sumPostOp ? blocked(dst, a.filters)
                                                          : userDst)
                               : !plain ? (blockedResult ? blocked(dst, a.filters) : actOf(dst))
                               : a.sum
                                   ? dnnl::memory::desc(dst, dt::f32, tag::nchw)
                                   : userDst;
    p->bias = dnnl::memory::desc({a.filters}, dt::f32, tag::x);
    p->hasBias = a.hasBias || p->fuseBias;
    const auto algorithm = wino ? dnnl::algorithm::convolution_winograd
                                : dnnl::algorithm::convolution_direct;
    auto desc =
        p->hasBias
            ? dnnl::convolution_forward::desc(
                  dnnl::prop_kind::forward_inference,
                  algorithm, srcMd, anyOf(weights),
                  p->bias, dstMd, strides, dilates, pad, padR)
            : dnnl::convolution_forward::desc(
                  dnnl::prop_kind::forward_inference,
                  algorithm, srcMd, anyOf(weights),
                  dstMd, strides, dilates, pad, padR);
    dnnl::convolution_forward::primitive_desc pd;
    try {
      pd = dnnl::convolution_forward::primitive_desc(desc, attr, e);
    } catch (const dnnl::error &) {
      // No Winograd kernel for this geometry or epilogue (a part whose
      // tensors are not dense, an AVX2 machine): direct convolution.
      if (!wino)
        throw;
      return build(part, pass, ours, false);
    }
    if (!plain && refOnOurs(pd.impl_info_str())) // (plain: the caller's layouts)
      return build(part, pass, false);
    // A reference implementation is far slower than the unfused path (the
    // convolution on oneDNN's optimized kernels plus the runtime's own
    // epilogue loop): refuse it, as if oneDNN had none.
    if (a.hasEpilogue() &&
        std::strncmp(pd.impl_info_str(), "ref", 3) == 0)
      throw dnnl::error(dnnl_unimplemented, "only a reference implementation");
    p->prim = dnnl::convolution_forward(pd);
    p->userA = userSrc, p->userB = userW, p->userR = userDst;
    p->primA = pd.src_desc(), p->primB = pd.weights_desc(),
    p->primR = pd.dst_desc(), p->pad = pd.scratchpad_desc();
    p->argA = DNNL_ARG_SRC, p->argB = DNNL_ARG_WEIGHTS, p->argR = DNNL_ARG_DST;
  } else {
    auto fwd = dnnl::convolution_forward::primitive_desc(
        dnnl::convolution_forward::desc(
            dnnl::prop_kind::forward_training,
            dnnl::algorithm::convolution_direct, actOf(src), anyOf(weights),
            actOf(dst), strides, dilates, pad, padR),
        e);
    if (pass == Pass::Data) {
      auto pd = dnnl::convolution_backward_data::primitive_desc(
          dnnl::convolution_backward_data::desc(
              dnnl::algorithm::convolution_direct, actOf(src), anyOf(weights),
              actOf(dst), strides, dilates, pad, padR),
          attr, e, fwd);
      if (refOnOurs(pd.impl_info_str()))
        return build(part, pass, false);
      p->prim = dnnl::convolution_backward_data(pd);
      p->userA = userW, p->userB = userDst, p->userR = userSrc;
      p->primA = pd.weights_desc(), p->primB = pd.diff_dst_desc(),
      p->primR = pd.diff_src_desc(), p->pad = pd.scratchpad_desc();
      p->argA = DNNL_ARG_WEIGHTS, p->argB = DNNL_ARG_DIFF_DST,
      p->argR = DNNL_ARG_DIFF_SRC;
    } else {
      auto pd = dnnl::convolution_backward_weights::primitive_desc(
          dnnl::convolution_backward_weights::desc(
              dnnl::algorithm::convolution_direct, actOf(src), anyOf(weights),
              actOf(dst), strides, dilates, pad, padR),
          attr, e, fwd);
      if (refOnOurs(pd.impl_info_str()))
        return build(part, pass, false);
      p->prim = dnnl::convolution_backward_weights(pd);
      p->userA = userSrc, p->userB = userDst, p->userR = userW;
      p->primA = pd.src_desc(), p->primB = pd.diff_dst_desc(),
      p->primR = pd.diff_weights_desc(), p->pad = pd.scratchpad_desc();
      p->argA = DNNL_ARG_SRC, p->argB = DNNL_ARG_DIFF_DST,
      p->argR = DNNL_ARG_DIFF_WEIGHTS;
    }
  }
  p->winograd = p->primB.data.format_kind == dnnl_format_kind_wino;
  p->reA = p->primA != p->userA;
  p->reB = p->primB != p->userB;
  p->reR = p->primR != p->userR;
  // A sum goes in the re-layout back or the epilogue loop: the result then
  // needs a buffer of its own (dense NCHW for the loop).
  if (pass == Pass::Forward && a.sum && !sumPostOp && !p->reR) {
    p->reR = true;
    p->primR = a.blockedY ? blocked(dst, a.filters)
                          : dnnl::memory::desc(dst, dt::f32, tag::nchw);
  }
  if (p->reA)
    p->toA = dnnl::reorder(dnnl::reorder::primitive_desc(e, p->userA, e, p->primA));
  if (p->scaleWeights)
    p->reB = true; // the scaling re-layout, even to the same layout
  if (p->reB) {
    dnnl::primitive_attr scaled;
    if (p->scaleWeights) {
      // Output channel f (g * F/G + o for grouped weights): dims 0 (and 1).
      scaled.set_output_scales(part.a.groups > 1 ? 3 : 1, {DNNL_RUNTIME_F32_VAL});
      p->scales = dnnl::memory::desc({part.a.filters}, dnnl::memory::data_type::f32,
                                     dnnl::memory::format_tag::x);
    }
    // oneDNN's re-layout into a Winograd layout takes no scales.
    p->scaleApart = p->scaleWeights && p->winograd;
    if (p->scaleApart) {
      p->midB = dnnl::memory::desc(weights, dt::f32, tag::oihw); // never grouped
      p->scaleB = dnnl::reorder(
          dnnl::reorder::primitive_desc(e, p->userB, e, p->midB, scaled));
      p->toB = dnnl::reorder(dnnl::reorder::primitive_desc(e, p->midB, e, p->primB));
    } else {
      p->toB = dnnl::reorder(
          dnnl::reorder::primitive_desc(e, p->userB, e, p->primB, scaled));
    }
  }
  if (p->reR && !p->loopEpilogue) {
    dnnl::primitive_attr back;
    if (pass == Pass::Forward && part.a.sum) {
      // y += the blocked result, on the way back to NCHW.
      dnnl::post_ops ops;
      ops.append_sum(1.f);
      back.set_post_ops(ops);
    }
    p->fromR = dnnl::reorder(
        dnnl::reorder::primitive_desc(e, p->primR, e, p->userR, back));
  }
  return p;
}

std::shared_ptr<Prim> lookup(const Part &part, Pass pass) {
  static std::mutex mu;
  static auto &cache = *new std::map<Key, std::shared_ptr<Prim>>;
  const ConvArgs &a = part.a;
  Key key = keyOf(a, part.srcC, part.dstF, int(pass));
  std::lock_guard<std::mutex> lock(mu);
  auto it = cache.find(key);
  if (it == cache.end())
    it = cache.emplace(key, build(part, pass)).first;
  return it->second;
}

/// A 64-byte aligned buffer that only grows.
struct Buffer {
  void *p = nullptr;
  size_t size = 0;
  Buffer() = default;
  Buffer(const Buffer &) = delete;
  ~Buffer() { std::free(p); }
  void *get(size_t bytes) {
    if (size < bytes) {
      std::free(p);
      size = 0;
      p = runtime::detail::alignedAllocate(bytes);
      if (!p)
        throw std::bad_alloc();
      size = bytes;
    }
    return p;
  }
};

/// A primitive's memory objects and arguments in one slot.
struct Bound {
  dnnl::memory userA, userB, userR, A, B, R, bias, pad, scale, midB;
  std::unordered_map<int, dnnl::memory> args;
};

struct Slot {
  // A, B, R re-laid; the scratchpad; the fused bias; scaled weights (midB)
  Buffer buffers[6];
  std::unordered_map<const Prim *, std::unique_ptr<Bound>> bound;
  std::unique_ptr<dnnl::stream> stream;
};

// Slots of the parts of a convolution on the kernel threads.
constexpr int kMaxParts = 64;

Slot &slotFor(int64_t part) {
  if (int entry = parallelLoopEntry(); entry >= 0) {
    // leaked: used until exit
    static Slot *slots = new Slot[kMaxPooledLoops * kMaxParts];
    return slots[entry * kMaxParts + part];
  }
  // A slot per thread, taken from (and, when the thread ends, given back
  // to) a process-wide list, so that threads that come and go (an engine's
  // workers) reuse slots instead of leaking one each. Slots are never
  // destroyed: a thread may end after oneDNN's statics are gone.
  struct Lease {
    Slot *slot;
    static std::vector<Slot *> &spare() {
      static auto *v = new std::vector<Slot *>; // leaked: used until exit
      return *v;
    }
    static std::mutex &mu() {
      static auto *m = new std::mutex;
      return *m;
    }
    Lease() {
      std::lock_guard<std::mutex> lock(mu());
      if (spare().empty()) {
        slot = new Slot;
      } else {
        slot = spare().back();
        spare().pop_back();
      }
    }
    ~Lease() {
      std::lock_guard<std::mutex> lock(mu());
      spare().push_back(slot);
    }
  };
  thread_local Lease lease;
  return *lease.slot;
}

/// A kept re-laid copy of constant weights (ConvArgs::constWeights), found
/// by the caller's weights address (kept()'s key): the primitive's weights
/// layout, the scale the copy was made with, a sample of the weights' values
/// (which a stale address would most likely fail), and the copy.
struct KeptWeights {
  dnnl::memory::desc layout;
  std::vector<float> scale, sample;
  std::mutex mu; // held while the copy is made
  bool ready = false;
  Buffer data;
};

constexpr size_t kWeightSamples = 16;
// Copies kept for one address at most (weights shared by convolutions with
// different BatchNorm scales); past it, the weights are re-laid per call.
constexpr size_t kMaxKeptPerAddress = 8;

std::mutex &keptMu() {
  static auto *mu = new std::mutex; // leaked: used until exit
  return *mu;
}
std::multimap<const float *, std::shared_ptr<KeptWeights>> &kept() {
  static auto *m = new std::multimap<const float *, std::shared_ptr<KeptWeights>>;
  return *m;
}

std::vector<float> sampleOf(const float *w, size_t n) {
  std::vector<float> v(std::min(n, kWeightSamples));
  for (size_t i = 0; i < v.size(); ++i)
    v[i] = w[v.size() == 1 ? 0 : i * (n - 1) / (v.size() - 1)];
  return v;
}

bool sameFloats(const std::vector<float> &v, const float *p) {
  return v.empty() || (p && std::memcmp(v.data(), p, v.size() * sizeof(float)) == 0);
}

/// Elements from the first to the last one a plain strided descriptor
/// (the caller's weights: oihw, goihw, or an input-channel split part's
/// strided view) covers. Not get_size(): oneDNN sizes a strided view as
/// the largest dimension x its stride, the whole weights of every filter
/// for a part of the input channels, which from the part's first channel
/// runs past the end of the weights (a sample read there faulted, run
/// with glibc.malloc.hugetlb=1 on ResNet-50).
size_t extentOf(const dnnl::memory::desc &md) {
  const auto &d = md.data;
  size_t last = 0;
  for (int i = 0; i < d.ndims; ++i)
    last += size_t(d.dims[i] - 1) * size_t(d.format_desc.blocking.strides[i]);
  return last + 1;
}

/// The kept copy of `w` in p's weights layout (scaled by `scale` when the
/// primitive scales its weights), made now if there is none; null when
/// too many are kept for this address.
std::shared_ptr<KeptWeights> constantWeights(const Prim &p, const float *w,
                                             const float *scale) {
  const size_t n = extentOf(p.userB);
  const size_t nScale = p.scaleWeights ? size_t(p.a.filters) : 0;
  std::vector<float> sample = sampleOf(w, n);
  std::shared_ptr<KeptWeights> k;
  {
    std::lock_guard<std::mutex> lock(keptMu());
    auto [lo, hi] = kept().equal_range(w);
    size_t count = 0;
    for (auto it = lo; it != hi; ++it, ++count) {
      KeptWeights &c = *it->second;
      // Bitwise (a NaN weight matches itself).
      if (c.layout == p.primB && c.scale.size() == nScale &&
          sameFloats(c.scale, scale) && c.sample.size() == sample.size() &&
          sameFloats(c.sample, sample.data())) {
        k = it->second;
        break;
      }
    }
    if (!k) {
      if (count >= kMaxKeptPerAddress)
        return nullptr;
      k = std::make_shared<KeptWeights>();
      k->layout = p.primB;
      if (nScale)
        k->scale.assign(scale, scale + nScale);
      k->sample = std::move(sample);
      kept().emplace(w, k);
    }
  }
  return k;
}

} // namespace

void releaseConstantWeights() {
  std::lock_guard<std::mutex> lock(keptMu());
  kept().clear();
}

namespace {

void run(const Prim &p, Slot &slot, const float *inA, const float *inB,
         float *out, const float *bias, const float *scale = nullptr,
         const float *shift = nullptr) {
  // A part without a shift of its own (an input-channel split's partial
  // sums) ignores the caller's.
  if (!p.a.hasShift)
    shift = nullptr;
  if (omp_set_num_threads)
    omp_set_num_threads(1);
  dnnl::engine &e = cpuEngine();
  if (!slot.stream)
    slot.stream = std::make_unique<dnnl::stream>(e);
  dnnl::stream &s = *slot.stream;
  std::unique_ptr<Bound> &b = slot.bound[&p];
  if (!b) {
    b = std::make_unique<Bound>();
    auto mem = [&](const dnnl::memory::desc &d) {
      return dnnl::memory(d, e, DNNL_MEMORY_NONE);
    };
    b->userA = mem(p.userA), b->userB = mem(p.userB), b->userR = mem(p.userR);
    b->A = p.reA ? mem(p.primA) : b->userA;
    b->B = p.reB ? mem(p.primB) : b->userB;
    b->R = p.reR ? mem(p.primR) : b->userR;
    b->args = {{p.argA, b->A}, {p.argB, b->B}, {p.argR, b->R}};
    if (p.hasBias) {
      b->bias = mem(p.bias);
      b->args.emplace(DNNL_ARG_BIAS, b->bias);
    }
    if (p.pad.get_size()) {
      b->pad = mem(p.pad);
      b->args.emplace(DNNL_ARG_SCRATCHPAD, b->pad);
    }
    if (p.scaleWeights)
      b->scale = mem(p.scales);
    if (p.scaleApart)
      b->midB = mem(p.midB);
  }
  b->userA.set_data_handle(const_cast<float *>(inA));
  b->userB.set_data_handle(const_cast<float *>(inB));
  b->userR.set_data_handle(out);
  if (p.reA)
    b->A.set_data_handle(slot.buffers[0].get(p.primA.get_size()));
  // Constant weights: the kept copy (made on the first call), no re-layout.
  std::shared_ptr<KeptWeights> keptB;
  if (p.reB && p.a.constWeights)
    keptB = constantWeights(p, inB, scale);
  if (p.reB && !keptB)
    b->B.set_data_handle(slot.buffers[1].get(p.primB.get_size()));
  if (p.reR)
    b->R.set_data_handle(slot.buffers[2].get(p.primR.get_size()));
  if (p.hasBias)
    b->bias.set_data_handle(const_cast<float *>(bias));
  if (p.fuseBias) {
    // bias * scale + shift, per filter of the part.
    float *fused = static_cast<float *>(
        slot.buffers[4].get(sizeof(float) * size_t(p.a.filters)));
    for (int64_t f = 0; f < p.a.filters; ++f)
      fused[f] = (p.a.hasBias ? bias[f] : 0.f) * (scale ? scale[f] : 1.f) +
                 (shift ? shift[f] : 0.f);
    b->bias.set_data_handle(fused);
  }
  if (p.scaleWeights)
    b->scale.set_data_handle(const_cast<float *>(scale));
  if (p.pad.get_size())
    b->pad.set_data_handle(slot.buffers[3].get(p.pad.get_size()));
  if (p.reA)
    p.toA.execute(s, b->userA, b->A);
  // `mid`: the scaled weights' buffer (scaleApart).
  auto relayWeights = [&](dnnl::memory &to, Buffer &mid) {
    // oneDNN 2.6.3's re-layout into a Winograd layout (wino_reorder) is not
    // safe on two threads at once: run concurrently, two parts' re-layouts
    // (one reorder primitive, their own buffers) corrupted each other's
    // output (ConvFusedKernel tests on two threads). One at a time; it runs
    // once per kept copy.
    static std::mutex winogradMu;
    std::unique_lock<std::mutex> one(winogradMu, std::defer_lock);
    if (p.winograd)
      one.lock();
    if (p.scaleApart) {
      b->midB.set_data_handle(mid.get(p.midB.get_size()));
      p.scaleB.execute(s, {{DNNL_ARG_FROM, b->userB},
                           {DNNL_ARG_TO, b->midB},
                           {DNNL_ARG_ATTR_OUTPUT_SCALES, b->scale}});
      p.toB.execute(s, b->midB, to);
    } else if (p.scaleWeights)
      p.toB.execute(s, {{DNNL_ARG_FROM, b->userB},
                        {DNNL_ARG_TO, to},
                        {DNNL_ARG_ATTR_OUTPUT_SCALES, b->scale}});
    else
      p.toB.execute(s, b->userB, to);
  };
  if (keptB) {
    std::lock_guard<std::mutex> lock(keptB->mu);
    void *data = keptB->data.get(p.primB.get_size());
    if (!keptB->ready) {
      b->B.set_data_handle(data);
      Buffer mid; // once per kept copy, freed after it
      relayWeights(b->B, mid);
      s.wait();
      keptB->ready = true;
    }
    b->B.set_data_handle(data);
  } else if (p.reB) {
    relayWeights(b->B, slot.buffers[5]);
  }
  p.prim.execute(s, b->args);
  if (p.reR && !p.loopEpilogue)
    p.fromR.execute(s, b->R, b->userR);
  s.wait();
  const ConvArgs &a = p.a;
  const int64_t plane = a.outH * a.outW;
  if (p.loopEpilogue) {
    // On the part's own filters (scale / shift start at its first one).
    const float *r = p.reR ? static_cast<const float *>(b->R.get_data_handle())
                           : out;
    convEpilogueRows(r, p.reR ? a.filters * plane : p.yImage, out, p.yImage,
                     a.filters, plane, 0, a.batch * a.filters, scale, shift,
                     a.sum, a.actAfterSum ? 0 : a.act, a.actLo, a.actHi);
  }
  if ((p.loopEpilogue && a.actAfterSum) || p.actAfterRelayout)
    // In place over the part's output: an image's part is contiguous in
    // the blocked layout as in NCHW (filters x plane elements).
    convEpilogueRows(out, p.yImage, out, p.yImage, a.filters, plane, 0,
                     a.batch * a.filters, nullptr, nullptr, false, a.act,
                     a.actLo, a.actHi);
}

/// Calls emit(lo, hi) for up to `threads` ranges of [0, n) made of whole
/// `unit`s, as even as they come.
template <typename Emit>
void evenRanges(int64_t n, int64_t unit, int threads, Emit emit) {
  const int64_t units = (n + unit - 1) / unit;
  const int64_t k = std::min<int64_t>(threads, units);
  for (int64_t i = 0, lo = 0; i < k; ++i) {
    const int64_t hi = std::min(n, (units * (i + 1) / k) * unit);
    if (hi > lo)
      emit(lo, hi);
    lo = hi;
  }
}

/// Splits `a` into at most `threads` parts (see the file comment).
std::vector<Part> split(const ConvArgs &a, int threads) {
  threads = std::min(threads, kMaxParts);
  const int64_t inVol = a.inH * a.inW, outVol = a.outH * a.outW;
  const int64_t cg = a.channels / a.groups, fg = a.filters / a.groups;
  const int64_t kVol = a.kH * a.kW;
  Part whole{a, a.channels, a.filters, 0, 0, 0, 0};
  std::vector<Part> parts;
  auto ranges = [&](int64_t n, int64_t unit, auto emit) {
    evenRanges(n, unit, threads, emit);
  };
  if (threads <= 1) {
    parts.push_back(whole);
  } else if (a.batch >= threads) {
    ranges(a.batch, 1, [&](int64_t lo, int64_t hi) {
      Part p = whole;
      p.a.batch = hi - lo;
      p.xOffset = lo * a.channels * inVol;
      p.yOffset = lo * a.filters * outVol;
      parts.push_back(p);
    });
  } else if (a.groups > 1) {
    // Blocked tensors: whole channel blocks of x and y a part.
    int64_t unit = 1;
    if (a.blockedX || a.blockedY) {
      const int64_t b = convChannelBlock();
      unit = std::lcm(b / std::gcd(cg, b), b / std::gcd(fg, b));
    }
    ranges(a.groups, unit, [&](int64_t lo, int64_t hi) {
      Part p = whole;
      p.a.groups = hi - lo;
      p.a.channels = (hi - lo) * cg;
      p.a.filters = (hi - lo) * fg;
      p.xOffset = lo * cg * inVol;
      p.wOffset = lo * fg * cg * kVol;
      p.biasOffset = lo * fg;
      p.yOffset = lo * fg * outVol;
      parts.push_back(p);
    });
  } else {
    // Whole 16-channel blocks; 8-channel ones (AVX2's block) when there are
    // too few 16-blocks for the threads (MobileNet-v2's 16-filter 1x1 layer
    // at 112x112 ran on one thread).
    const int64_t unit =
        std::max(a.filters >= 16 * threads ? 16 : 8,
                 a.blockedY ? int(convChannelBlock()) : 0);
    ranges(a.filters, unit, [&](int64_t lo, int64_t hi) {
      Part p = whole;
      p.a.filters = hi - lo;
      p.wOffset = lo * a.channels * kVol;
      p.biasOffset = lo;
      p.yOffset = lo * outVol;
      parts.push_back(p);
    });
  }
  return parts;
}

/// Whether the forward pass of `a` splits over input channels
/// (channelSplit()): a batch smaller than the threads, whose input is at
/// least 4x its output. Split over output channels (split()), every part
/// reads the whole input for its share of the filters: ResNet-50's 1x1
/// reductions at batch 1 (256 -> 64 channels at 56x56, 512 -> 128 at
/// 28x28) ran 1.2-1.4x faster on two threads than on one. Over input
/// channels each part reads its own channels (contiguous in a single image,
/// NCHW or blocked) and writes a partial sum of the whole output, which a
/// second loop adds up with the activation. Not with an activation before a
/// sum (that needs the whole convolution first).
bool splitsChannels(const ConvArgs &a, int threads) {
  const int64_t block = convChannelBlock();
  if (threads < 2 || a.batch >= threads || a.groups > 1 ||
      (a.sum && a.act && !a.actAfterSum) ||
      a.channels < 16 * threads || (a.blockedX && a.channels % block) ||
      (a.blockedY && a.filters % block))
    return false;
  const int64_t x = a.batch * a.channels * a.inH * a.inW,
                y = a.batch * a.filters * a.outH * a.outW;
  return x >= 4 * y;
}

/// The parts of an input-channel split (splitsChannels()): whole 16-channel
/// blocks each; part 0 has the bias, shift and sum and writes y, the others
/// write partial sums; the activation waits for the sum of them all
/// (convDnnl()).
std::vector<Part> channelSplit(const ConvArgs &a, int threads) {
  std::vector<Part> parts;
  evenRanges(a.channels, 16, std::min(threads, kMaxParts),
             [&](int64_t lo, int64_t hi) {
               Part p{a, a.channels, a.filters, 0, 0, 0, 0, int64_t(parts.size())};
               p.a.channels = hi - lo;
               p.a.act = 0;
               if (p.partial > 0)
                 p.a.hasBias = p.a.hasShift = p.a.sum = p.a.actAfterSum = false;
               p.xOffset = lo * a.inH * a.inW;
               p.wOffset = lo * a.kH * a.kW;
               parts.push_back(p);
             });
  return parts;
}

/// Elements of `a`'s weights (of its weight gradient).
int64_t weightElements(const ConvArgs &a) {
  return a.filters * (a.channels / a.groups) * a.kH * a.kW;
}

// Parts of a gradient: the data gradient by images (or groups for a small
// batch); the weight gradient by images too when the batch covers the
// threads and the weights are smaller than x and dy (each part's weight
// gradient is a partial sum over its images: convBackwardWeightDnnl adds
// them up, a pass over the weights a part), else by 16-filter blocks (or
// groups); one part otherwise. By images, each part re-lays only its own
// images of x and dy; by filters, every part re-lays all of both (LeNet's
// second convolution at batch 64: 50 x 20 x 5 x 5 weights, x and dy 8x
// that; ResNet-18's last stage at 32x32: 512 x 512 x 3 x 3 weights, x and
// dy 1x1 images, 1/70 of them).
std::vector<Part> splitFor(const ConvArgs &a, Pass pass, int threads) {
  if (pass == Pass::Forward)
    return splitsChannels(a, threads) ? channelSplit(a, threads)
                                      : split(a, threads);
  const int64_t xdySize =
      a.batch * (a.channels * a.inH * a.inW + a.filters * a.outH * a.outW);
  if (threads > 1 && pass == Pass::Weights && a.groups == 1 &&
      a.batch >= threads && weightElements(a) < xdySize)
    return split(a, threads);
  if (threads > 1 && pass == Pass::Weights && a.groups == 1) {
    // Filters, whatever the batch: split() picks them for a batch of one.
    ConvArgs one = a;
    one.batch = 1;
    std::vector<Part> parts = split(one, threads);
    for (Part &p : parts)
      p.a.batch = a.batch;
    return parts;
  }
  // split() picks images when the batch covers the threads, else groups;
  // else filters, which no data-gradient part may take (each would write a
  // partial sum over its filters).
  if (threads > 1 && (a.batch >= threads ? pass == Pass::Data : a.groups > 1))
    return split(a, threads);
  return {Part{a, a.channels, a.filters, 0, 0, 0, 0}};
}

bool enabled() {
  static const bool on = [] {
    const char *v = std::getenv("MXC_CONV_IMPL");
    return !(v && std::strcmp(v, "im2col") == 0);
  }();
  return on;
}

/// MXC_CONV_KEEP_WEIGHTS=0: constant weights are re-laid on every call as
/// any others (for A/B measurements).
bool keepConstantWeights() {
  static const bool on = [] {
    const char *v = std::getenv("MXC_CONV_KEEP_WEIGHTS");
    return !(v && std::strcmp(v, "0") == 0);
  }();
  return on;
}

/// A convolution's parts and their primitives, for one thread count.
struct Split {
  std::vector<Part> parts;
  std::vector<std::shared_ptr<Prim>> prims;
};

/// The split of `pass` of `a` on `threads` threads, built once; null when
/// oneDNN has no implementation for one of its parts.
const Split *splitOf(const ConvArgs &a, Pass pass, int threads) {
  static std::mutex mu;
  static auto &cache =
      *new std::map<std::tuple<Key, int>, std::unique_ptr<Split>>;
  Key key = keyOf(a, 0, 0, int(pass));
  std::lock_guard<std::mutex> lock(mu);
  auto [it, fresh] = cache.try_emplace({key, threads});
  if (fresh) {
    auto s = std::make_unique<Split>();
    s->parts = splitFor(a, pass, threads);
    try {
      for (const Part &p : s->parts)
        s->prims.push_back(lookup(p, pass));
      it->second = std::move(s);
    } catch (const dnnl::error &) {
      // A geometry oneDNN has no implementation for: im2col (remembered).
    }
  }
  return it->second.get();
}

/// Runs `pass` of `a` in parts on the kernel threads; `call(prim, slot,
/// part, index)` runs one, after `prepare(split)`. False when oneDNN has no
/// implementation for a part.
template <typename Call, typename Prepare = void (*)(const Split &)>
bool runParts(const ConvArgs &a, Pass pass, Call call,
              Prepare prepare = [](const Split &) {}) {
  if (!enabled())
    return false;
  // Before any primitive is built: oneDNN sizes its work split by the
  // OpenMP thread count at creation.
  if (omp_set_num_threads)
    omp_set_num_threads(1);
  const Split *split = splitOf(a, pass, loopThreads());
  if (!split)
    return false;
  prepare(*split);
  const int64_t work = a.batch * a.filters * a.outH * a.outW *
                       (a.channels / a.groups) * a.kH * a.kW;
  // A part's failure (its scratch cannot be allocated) is rethrown here, on
  // the calling thread, never out of a helper thread.
  std::mutex failMu;
  std::exception_ptr failure;
  parallelFor(int64_t(split->parts.size()), work, [&](int64_t lo, int64_t hi) {
    for (int64_t i = lo; i < hi; ++i) {
      try {
        call(*split->prims[i], slotFor(i), split->parts[i], i);
      } catch (...) {
        std::lock_guard<std::mutex> lock(failMu);
        if (!failure)
          failure = std::current_exception();
      }
    }
  });
  // A process that exits with steps in flight: the engine drains at the
  // start of exit(), before oneDNN's statics are destroyed (engine.cc,
  // MainThreadExitDrain).
  if (failure)
    std::rethrow_exception(failure);
  return true;
}

} // namespace

bool convDnnl(const float *x, const float *w, const float *bias, float *y,
              const ConvArgs &args, const float *scale, const float *shift) {
  ConvArgs a = args;
  a.constWeights = args.constWeights && keepConstantWeights();
  // An input-channel split's partial sums: in the calling thread's buffer
  // (grown once; a warm step allocates nothing), added to y after the parts.
  thread_local Buffer partials;
  const int64_t ySize = a.batch * a.filters * a.outH * a.outW;
  float *partial = nullptr;
  int64_t partialCount = 0;
  // Per-filter operands start at the part's first filter, as the bias.
  bool ok = runParts(
      a, Pass::Forward,
      [&](const Prim &p, Slot &slot, const Part &part, int64_t) {
        float *out = part.partial > 0 ? partial + (part.partial - 1) * ySize
                                      : y + part.yOffset;
        run(p, slot, x + part.xOffset, w + part.wOffset, out,
            bias + part.biasOffset, scale ? scale + part.biasOffset : nullptr,
            shift ? shift + part.biasOffset : nullptr);
      },
      [&](const Split &split) {
        if (split.parts.front().partial < 0)
          return;
        partialCount = int64_t(split.parts.size()) - 1;
        partial = static_cast<float *>(
            partials.get(size_t(partialCount) * ySize * sizeof(float)));
      });
  if (!ok || !partialCount)
    return ok;
  // y = act(y + the partial sums), rows of a filter's plane (in the blocked
  // layout too: the same elementwise sum over either); the activation over
  // each chunk of rows after its sums (convEpilogueRows's sum is added after
  // its activation).
  const int64_t plane = a.outH * a.outW, rows = a.batch * a.filters;
  parallelFor(rows, rows * plane * (partialCount + 1), [&](int64_t lo, int64_t hi) {
    for (int64_t i = 0; i < partialCount; ++i)
      convEpilogueRows(partial + i * ySize, a.filters * plane, y,
                       a.filters * plane, a.filters, plane, lo, hi, nullptr,
                       nullptr, true, 0, 0.f, 0.f);
    if (a.act)
      convEpilogueRows(y, a.filters * plane, y, a.filters * plane, a.filters,
                       plane, lo, hi, nullptr, nullptr, false, a.act, a.actLo,
                       a.actHi);
  });
  return true;
}

bool convBackwardDataDnnl(const float *w, const float *dy, float *dx,
                          const ConvArgs &a) {
  // Part offsets: x* index dx, y* dy, w* the weights.
  return runParts(a, Pass::Data,
                  [&](const Prim &p, Slot &slot, const Part &part, int64_t) {
                    run(p, slot, w + part.wOffset, dy + part.yOffset,
                        dx + part.xOffset, nullptr);
                  });
}

bool convBackwardWeightDnnl(const float *x, const float *dy, float *dw,
                            const ConvArgs &a) {
  // Parts by images (splitFor) each compute the whole weight gradient of
  // their images: the first part into dw, the others into the calling
  // thread's buffer (grown once; a warm step allocates nothing), added to
  // dw after them.
  const int64_t wSize = weightElements(a);
  thread_local Buffer partials;
  float *partial = nullptr;
  int64_t byImages = 0;
  bool ok = runParts(
      a, Pass::Weights,
      [&](const Prim &p, Slot &slot, const Part &part, int64_t i) {
        float *out = byImages && i > 0 ? partial + (i - 1) * wSize
                                       : dw + part.wOffset;
        run(p, slot, x + part.xOffset, dy + part.yOffset, out, nullptr);
      },
      [&](const Split &split) {
        if (split.parts.size() > 1 && split.parts[0].a.batch != a.batch) {
          byImages = int64_t(split.parts.size());
          partial = static_cast<float *>(
              partials.get(size_t(byImages - 1) * wSize * sizeof(float)));
        }
      });
  for (int64_t i = 1; ok && i < byImages; ++i) {
    const float *src = partial + (i - 1) * wSize;
    for (int64_t j = 0; j < wSize; ++j)
      dw[j] += src[j];
  }
  return ok;
}

} // namespace mxc::kernels
