//===- conv_dnnl.cc - f32 2-D convolution through oneDNN ------------------===//
//
// conv_dnnl.h. Built when CMake finds oneDNN 2.x (Debian's libdnnl-dev,
// DNNL v2 API; MXC_RUNTIME_DNNL). Direct convolution on oneDNN's blocked
// layouts (its brgemm / JIT kernels for the host CPU): the NCHW input and the
// OIHW (GOIHW) weights are reordered into the layouts the primitive asks for,
// and the blocked output back to NCHW, inside the call. Pointwise (1x1,
// stride 1, no padding) convolutions, and those with few output pixels per
// weight, stay on NCHW, where oneDNN runs them as GEMMs without reorders. The weights are re-laid on every call (the
// kernel ABI does not say when they change); see docs/benchmarks.md.
//
// Threads: the kernel threads of the runtime's pool (parallel.h), not
// oneDNN's. Debian's oneDNN runs on libgomp, whose idle threads spin (for
// 300000 iterations by default) and are not part of the process's thread
// budget: on a loaded 2-core machine ResNet-18 took 212 ms a pass with two
// OpenMP threads against 38 ms with OMP_WAIT_POLICY=passive. So each call
// sets the calling thread's OpenMP thread count to 1 (oneDNN then starts no
// OpenMP threads) and the convolution is split into independent parts run by
// parallelFor: images when the batch has at least as many as there are
// kernel threads, else output channels (whole 16-channel blocks), or groups
// for grouped convolutions. Each part is a primitive of its own reading the
// full input (a part's share of the weights and output); the input's
// re-layout is repeated by every channel part.
//
// Primitives are built once per geometry and kept (a mutex-guarded map);
// each part uses per-thread scratch buffers and a user scratchpad, so steps
// on several engine workers may run convolutions at once.
//
//===----------------------------------------------------------------------===//
#include "conv_dnnl.h"

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
#include <tuple>
#include <vector>

extern "C" void omp_set_num_threads(int) __attribute__((weak));

namespace mxc::kernels {
namespace {

using Key = std::tuple<int64_t, int64_t, int64_t, int64_t, int64_t, int64_t,
                       int64_t, int64_t, int64_t, int64_t, int64_t, int64_t,
                       int64_t, int64_t, int64_t, int64_t, int64_t, int64_t,
                       int64_t>;

/// One part of a convolution: a convolution of its own whose input and
/// output are channel ranges of larger NCHW tensors (srcC, dstF channels).
struct Part {
  ConvArgs a;
  int64_t srcC, dstF;
  int64_t xOffset, wOffset, biasOffset, yOffset; // elements
};

struct Conv {
  dnnl::convolution_forward::primitive_desc pd;
  dnnl::convolution_forward prim;
  dnnl::memory::desc userSrc, userWeights, userDst, bias;
  bool reorderSrc, reorderWeights, reorderDst;
  dnnl::reorder toSrc, toWeights, fromDst;
};

dnnl::engine &cpuEngine() {
  static dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  return engine;
}

// A per-thread scratch buffer of at least `bytes` bytes, 64-byte aligned.
void *scratch(size_t bytes, int slot) {
  struct Buffer {
    void *p = nullptr;
    size_t size = 0;
    ~Buffer() { std::free(p); }
  };
  thread_local Buffer buffers[4];
  Buffer &b = buffers[slot];
  if (b.size < bytes) {
    std::free(b.p);
    b.size = 0;
    b.p = std::aligned_alloc(64, (bytes + 63) / 64 * 64);
    if (!b.p)
      throw std::bad_alloc();
    b.size = bytes;
  }
  return b.p;
}

// Output pixels (batch x height x width) below which a convolution stays on
// NCHW (measured on ResNet-18's layers, docs/benchmarks.md).
constexpr int64_t kPlainBelowPixels = 128;

std::shared_ptr<Conv> build(const Part &part) {
  const ConvArgs &a = part.a;
  using dt = dnnl::memory::data_type;
  using tag = dnnl::memory::format_tag;
  const bool grouped = a.groups > 1;
  dnnl::memory::dims src{a.batch, a.channels, a.inH, a.inW},
      dst{a.batch, a.filters, a.outH, a.outW}, bias{a.filters},
      strides{a.sH, a.sW}, dilates{a.dH - 1, a.dW - 1}, pad{a.pH, a.pW},
      padR{(a.outH - 1) * a.sH + (a.kH - 1) * a.dH + 1 - a.inH - a.pH,
           (a.outW - 1) * a.sW + (a.kW - 1) * a.dW + 1 - a.inW - a.pW};
  dnnl::memory::dims weights =
      grouped ? dnnl::memory::dims{a.groups, a.filters / a.groups,
                                   a.channels / a.groups, a.kH, a.kW}
              : dnnl::memory::dims{a.filters, a.channels, a.kH, a.kW};
  auto c = std::make_shared<Conv>();
  auto nchw = [](const dnnl::memory::dims &d, int64_t fullC) {
    // A batch of one has a dense batch stride whatever the full tensor's.
    int64_t plane = d[2] * d[3];
    return dnnl::memory::desc(
        d, dt::f32,
        dnnl::memory::dims{d[0] == 1 ? d[1] * plane : fullC * plane, plane,
                           d[3], 1});
  };
  c->userSrc = nchw(src, part.srcC);
  c->userDst = nchw(dst, part.dstF);
  c->userWeights =
      dnnl::memory::desc(weights, dt::f32, grouped ? tag::goihw : tag::oihw);
  c->bias = dnnl::memory::desc(bias, dt::f32, tag::x);
  const bool pointwise = a.kH == 1 && a.kW == 1 && a.sH == 1 && a.sW == 1 &&
                         a.pH == 0 && a.pW == 0;
  auto anyOf = [](const dnnl::memory::dims &d) {
    return dnnl::memory::desc(d, dt::f32, tag::any);
  };
  // Few output pixels per weight (ResNet's last stage at batch 1): the
  // blocked kernels' per-call weight re-layout would cost about as much as
  // the convolution; oneDNN's GEMM convolution on NCHW reads them as they are.
  const bool plain = pointwise || a.batch * a.outH * a.outW < kPlainBelowPixels;
  dnnl::memory::desc srcMd = plain ? c->userSrc : anyOf(src),
                     dstMd = plain ? c->userDst : anyOf(dst);
  auto desc =
      a.hasBias
          ? dnnl::convolution_forward::desc(
                dnnl::prop_kind::forward_inference,
                dnnl::algorithm::convolution_direct, srcMd, anyOf(weights),
                c->bias, dstMd, strides, dilates, pad, padR)
          : dnnl::convolution_forward::desc(
                dnnl::prop_kind::forward_inference,
                dnnl::algorithm::convolution_direct, srcMd, anyOf(weights),
                dstMd, strides, dilates, pad, padR);
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  c->pd = dnnl::convolution_forward::primitive_desc(desc, attr, cpuEngine());
  c->prim = dnnl::convolution_forward(c->pd);
  dnnl::engine &e = cpuEngine();
  c->reorderSrc = c->pd.src_desc() != c->userSrc;
  c->reorderWeights = c->pd.weights_desc() != c->userWeights;
  c->reorderDst = c->pd.dst_desc() != c->userDst;
  if (c->reorderSrc)
    c->toSrc = dnnl::reorder(dnnl::reorder::primitive_desc(
        e, c->userSrc, e, c->pd.src_desc()));
  if (c->reorderWeights)
    c->toWeights = dnnl::reorder(dnnl::reorder::primitive_desc(
        e, c->userWeights, e, c->pd.weights_desc()));
  if (c->reorderDst)
    c->fromDst = dnnl::reorder(dnnl::reorder::primitive_desc(
        e, c->pd.dst_desc(), e, c->userDst));
  return c;
}

std::shared_ptr<Conv> lookup(const Part &p) {
  static std::mutex mu;
  static std::map<Key, std::shared_ptr<Conv>> cache;
  const ConvArgs &a = p.a;
  Key key{a.batch, a.channels, a.filters, a.groups, a.hasBias, a.inH, a.inW,
          a.kH,    a.kW,       a.outH,    a.outW,   a.sH,      a.sW,  a.pH,
          a.pW,    a.dH,       a.dW,      p.srcC,   p.dstF};
  std::lock_guard<std::mutex> lock(mu);
  auto it = cache.find(key);
  if (it == cache.end())
    it = cache.emplace(key, build(p)).first;
  return it->second;
}

/// Splits `a` into at most `threads` parts (see the file comment).
std::vector<Part> split(const ConvArgs &a, int threads) {
  const int64_t inVol = a.inH * a.inW, outVol = a.outH * a.outW;
  const int64_t cg = a.channels / a.groups, fg = a.filters / a.groups;
  const int64_t kVol = a.kH * a.kW;
  Part whole{a, a.channels, a.filters, 0, 0, 0, 0};
  std::vector<Part> parts;
  auto ranges = [&](int64_t n, int64_t unit, auto emit) {
    // `threads` ranges of whole units, as even as they come.
    int64_t units = (n + unit - 1) / unit;
    int64_t k = std::min<int64_t>(threads, units);
    for (int64_t i = 0, lo = 0; i < k; ++i) {
      int64_t hi = std::min(n, (units * (i + 1) / k) * unit);
      if (hi > lo)
        emit(lo, hi);
      lo = hi;
    }
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
    ranges(a.groups, 1, [&](int64_t lo, int64_t hi) {
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
    ranges(a.filters, 16, [&](int64_t lo, int64_t hi) {
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

void runPart(const Conv &c, const float *x, const float *w, const float *bias,
             float *y, bool hasBias) {
  if (omp_set_num_threads)
    omp_set_num_threads(1);
  dnnl::engine &e = cpuEngine();
  dnnl::stream s(e);
  auto mem = [&](const dnnl::memory::desc &d, const void *p) {
    return dnnl::memory(d, e, const_cast<void *>(p));
  };
  dnnl::memory userSrc = mem(c.userSrc, x), userWeights = mem(c.userWeights, w),
               userDst = mem(c.userDst, y);
  dnnl::memory src = userSrc, weights = userWeights, dst = userDst;
  if (c.reorderSrc) {
    src = mem(c.pd.src_desc(), scratch(c.pd.src_desc().get_size(), 0));
    c.toSrc.execute(s, userSrc, src);
  }
  if (c.reorderWeights) {
    weights =
        mem(c.pd.weights_desc(), scratch(c.pd.weights_desc().get_size(), 1));
    c.toWeights.execute(s, userWeights, weights);
  }
  if (c.reorderDst)
    dst = mem(c.pd.dst_desc(), scratch(c.pd.dst_desc().get_size(), 2));
  std::unordered_map<int, dnnl::memory> args{
      {DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, weights}, {DNNL_ARG_DST, dst}};
  if (hasBias)
    args.emplace(DNNL_ARG_BIAS, mem(c.bias, bias));
  size_t pad = c.pd.scratchpad_desc().get_size();
  if (pad)
    args.emplace(DNNL_ARG_SCRATCHPAD,
                 mem(c.pd.scratchpad_desc(), scratch(pad, 3)));
  c.prim.execute(s, args);
  if (c.reorderDst)
    c.fromDst.execute(s, dst, userDst);
  s.wait();
}

bool enabled() {
  static const bool on = [] {
    const char *v = std::getenv("MXC_CONV_IMPL");
    return !(v && std::strcmp(v, "im2col") == 0);
  }();
  return on;
}

} // namespace

namespace {

// Gradients. A part of the data gradient is a batch range (or a group
// range); of the weight gradient a range of whole 16-filter blocks (or of
// groups), so that no part's result needs adding to another's. Every tensor
// is re-laid into the layouts the primitive picks and the result back.
enum class Pass { Data, Weights };

struct Backward {
  dnnl::primitive prim;
  // Inputs a, b and the result r: data (w, dy -> dx), weights (x, dy -> dw).
  dnnl::memory::desc userA, userB, userR, primA, primB, primR, pad;
  int argA, argB, argR;
  dnnl::reorder toA, toB, fromR;
  bool reA, reB, reR;
};

using BackwardKey = std::tuple<int, Key>;

Key keyOf(const Part &p) {
  const ConvArgs &a = p.a;
  return Key{a.batch, a.channels, a.filters, a.groups, 0,    a.inH, a.inW,
             a.kH,    a.kW,       a.outH,    a.outW,   a.sH, a.sW,  a.pH,
             a.pW,    a.dH,       a.dW,      p.srcC,   p.dstF};
}

std::shared_ptr<Backward> buildBackward(const Part &part, Pass pass) {
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
    int64_t plane = d[2] * d[3];
    return dnnl::memory::desc(
        d, dt::f32,
        dnnl::memory::dims{d[0] == 1 ? d[1] * plane : fullC * plane, plane,
                           d[3], 1});
  };
  auto anyOf = [](const dnnl::memory::dims &d) {
    return dnnl::memory::desc(d, dt::f32, tag::any);
  };
  dnnl::memory::desc userSrc = nchw(src, part.srcC),
                     userDst = nchw(dst, part.dstF),
                     userW = dnnl::memory::desc(weights, dt::f32,
                                                grouped ? tag::goihw : tag::oihw);
  dnnl::engine &e = cpuEngine();
  auto fwd = dnnl::convolution_forward::primitive_desc(
      dnnl::convolution_forward::desc(
          dnnl::prop_kind::forward_training, dnnl::algorithm::convolution_direct,
          anyOf(src), anyOf(weights), anyOf(dst), strides, dilates, pad, padR),
      e);
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  auto b = std::make_shared<Backward>();
  if (pass == Pass::Data) {
    auto pd = dnnl::convolution_backward_data::primitive_desc(
        dnnl::convolution_backward_data::desc(
            dnnl::algorithm::convolution_direct, anyOf(src), anyOf(weights),
            anyOf(dst), strides, dilates, pad, padR),
        attr, e, fwd);
    b->prim = dnnl::convolution_backward_data(pd);
    b->userA = userW, b->userB = userDst, b->userR = userSrc;
    b->primA = pd.weights_desc(), b->primB = pd.diff_dst_desc(),
    b->primR = pd.diff_src_desc(), b->pad = pd.scratchpad_desc();
    b->argA = DNNL_ARG_WEIGHTS, b->argB = DNNL_ARG_DIFF_DST,
    b->argR = DNNL_ARG_DIFF_SRC;
  } else {
    auto pd = dnnl::convolution_backward_weights::primitive_desc(
        dnnl::convolution_backward_weights::desc(
            dnnl::algorithm::convolution_direct, anyOf(src), anyOf(weights),
            anyOf(dst), strides, dilates, pad, padR),
        attr, e, fwd);
    b->prim = dnnl::convolution_backward_weights(pd);
    b->userA = userSrc, b->userB = userDst, b->userR = userW;
    b->primA = pd.src_desc(), b->primB = pd.diff_dst_desc(),
    b->primR = pd.diff_weights_desc(), b->pad = pd.scratchpad_desc();
    b->argA = DNNL_ARG_SRC, b->argB = DNNL_ARG_DIFF_DST,
    b->argR = DNNL_ARG_DIFF_WEIGHTS;
  }
  b->reA = b->primA != b->userA;
  b->reB = b->primB != b->userB;
  b->reR = b->primR != b->userR;
  if (b->reA)
    b->toA = dnnl::reorder(dnnl::reorder::primitive_desc(e, b->userA, e, b->primA));
  if (b->reB)
    b->toB = dnnl::reorder(dnnl::reorder::primitive_desc(e, b->userB, e, b->primB));
  if (b->reR)
    b->fromR = dnnl::reorder(dnnl::reorder::primitive_desc(e, b->primR, e, b->userR));
  return b;
}

std::shared_ptr<Backward> lookupBackward(const Part &p, Pass pass) {
  static std::mutex mu;
  static std::map<BackwardKey, std::shared_ptr<Backward>> cache;
  BackwardKey key{int(pass), keyOf(p)};
  std::lock_guard<std::mutex> lock(mu);
  auto it = cache.find(key);
  if (it == cache.end())
    it = cache.emplace(key, buildBackward(p, pass)).first;
  return it->second;
}

void runBackward(const Backward &b, const float *inA, const float *inB,
                 float *out) {
  if (omp_set_num_threads)
    omp_set_num_threads(1);
  dnnl::engine &e = cpuEngine();
  dnnl::stream s(e);
  auto mem = [&](const dnnl::memory::desc &d, const void *p) {
    return dnnl::memory(d, e, const_cast<void *>(p));
  };
  dnnl::memory userA = mem(b.userA, inA), userB = mem(b.userB, inB),
               userR = mem(b.userR, out);
  dnnl::memory A = userA, B = userB, R = userR;
  if (b.reA) {
    A = mem(b.primA, scratch(b.primA.get_size(), 0));
    b.toA.execute(s, userA, A);
  }
  if (b.reB) {
    B = mem(b.primB, scratch(b.primB.get_size(), 1));
    b.toB.execute(s, userB, B);
  }
  if (b.reR)
    R = mem(b.primR, scratch(b.primR.get_size(), 2));
  std::unordered_map<int, dnnl::memory> args{
      {b.argA, A}, {b.argB, B}, {b.argR, R}};
  if (size_t n = b.pad.get_size())
    args.emplace(DNNL_ARG_SCRATCHPAD, mem(b.pad, scratch(n, 3)));
  b.prim.execute(s, args);
  if (b.reR)
    b.fromR.execute(s, R, userR);
  s.wait();
}

// Parts of a gradient: batch (data gradient only) or groups, else filters
// in 16-blocks (weight gradient only); one part otherwise.
std::vector<Part> splitBackward(const ConvArgs &a, Pass pass, int threads) {
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

template <typename Run>
bool runBackwardParts(const ConvArgs &a, Pass pass, Run run) {
  if (!enabled())
    return false;
  if (omp_set_num_threads)
    omp_set_num_threads(1);
  std::vector<Part> parts = splitBackward(a, pass, runtime::kernelThreads());
  std::vector<std::shared_ptr<Backward>> prims;
  try {
    for (const Part &p : parts)
      prims.push_back(lookupBackward(p, pass));
  } catch (const dnnl::error &) {
    return false;
  }
  const int64_t work = a.batch * a.filters * a.outH * a.outW *
                       (a.channels / a.groups) * a.kH * a.kW;
  std::mutex failMu;
  std::exception_ptr failure;
  parallelFor(int64_t(parts.size()), work, [&](int64_t lo, int64_t hi) {
    for (int64_t i = lo; i < hi; ++i) {
      try {
        run(*prims[i], parts[i]);
      } catch (...) {
        std::lock_guard<std::mutex> lock(failMu);
        if (!failure)
          failure = std::current_exception();
      }
    }
  });
  if (failure)
    std::rethrow_exception(failure);
  return true;
}

} // namespace

bool convBackwardDataDnnl(const float *w, const float *dy, float *dx,
                          const ConvArgs &a) {
  // Part offsets: x* index dx, y* index dy, w* the weights.
  return runBackwardParts(a, Pass::Data, [&](const Backward &b, const Part &p) {
    runBackward(b, w + p.wOffset, dy + p.yOffset, dx + p.xOffset);
  });
}

bool convBackwardWeightDnnl(const float *x, const float *dy, float *dw,
                            const ConvArgs &a) {
  return runBackwardParts(a, Pass::Weights,
                          [&](const Backward &b, const Part &p) {
                            runBackward(b, x + p.xOffset, dy + p.yOffset,
                                        dw + p.wOffset);
                          });
}

bool convDnnl(const float *x, const float *w, const float *bias, float *y,
              const ConvArgs &a) {
  if (!enabled())
    return false;
  // Before any primitive is built: oneDNN sizes its work split by the
  // OpenMP thread count at creation.
  if (omp_set_num_threads)
    omp_set_num_threads(1);
  std::vector<Part> parts = split(a, runtime::kernelThreads());
  std::vector<std::shared_ptr<Conv>> convs;
  try {
    for (const Part &p : parts)
      convs.push_back(lookup(p));
  } catch (const dnnl::error &) {
    return false; // a geometry oneDNN has no implementation for: im2col
  }
  const int64_t work = a.batch * a.filters * a.outH * a.outW *
                       (a.channels / a.groups) * a.kH * a.kW;
  // A part's failure (its scratch cannot be allocated) is rethrown here, on
  // the calling thread, never out of a helper thread.
  std::mutex failMu;
  std::exception_ptr failure;
  parallelFor(int64_t(parts.size()), work, [&](int64_t lo, int64_t hi) {
    for (int64_t i = lo; i < hi; ++i) {
      const Part &p = parts[i];
      try {
        runPart(*convs[i], x + p.xOffset, w + p.wOffset, bias + p.biasOffset,
                y + p.yOffset, a.hasBias);
      } catch (...) {
        std::lock_guard<std::mutex> lock(failMu);
        if (!failure)
          failure = std::current_exception();
      }
    }
  });
  if (failure)
    std::rethrow_exception(failure);
  return true;
}

} // namespace mxc::kernels
