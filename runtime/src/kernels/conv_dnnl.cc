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
// Primitives are built once per geometry and kept (a mutex-guarded map);
// each call uses per-thread scratch buffers and a user scratchpad, so steps
// on several engine workers may run convolutions at once. oneDNN's own
// threads (its OpenMP runtime) get the kernel thread count of the calling
// thread's budget before each call.
//
//===----------------------------------------------------------------------===//
#include "conv_dnnl.h"

#include "mxc/runtime/threads.h"

#include <oneapi/dnnl/dnnl.hpp>

#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <tuple>
#include <vector>

extern "C" void omp_set_num_threads(int) __attribute__((weak));

namespace mxc::kernels {
namespace {

using Key = std::tuple<int64_t, int64_t, int64_t, int64_t, int64_t, int64_t,
                       int64_t, int64_t, int64_t, int64_t, int64_t, int64_t,
                       int64_t, int64_t, int64_t, int64_t, int64_t>;

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

std::shared_ptr<Conv> build(const ConvArgs &a) {
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
  c->userSrc = dnnl::memory::desc(src, dt::f32, tag::nchw);
  c->userDst = dnnl::memory::desc(dst, dt::f32, tag::nchw);
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

std::shared_ptr<Conv> lookup(const ConvArgs &a) {
  static std::mutex mu;
  static std::map<Key, std::shared_ptr<Conv>> cache;
  Key key{a.batch, a.channels, a.filters, a.groups, a.hasBias, a.inH, a.inW,
          a.kH,    a.kW,       a.outH,    a.outW,   a.sH,      a.sW,  a.pH,
          a.pW,    a.dH,       a.dW};
  std::lock_guard<std::mutex> lock(mu);
  auto it = cache.find(key);
  if (it == cache.end())
    it = cache.emplace(key, build(a)).first;
  return it->second;
}

bool enabled() {
  static const bool on = [] {
    const char *v = std::getenv("MXC_CONV_IMPL");
    return !(v && std::strcmp(v, "im2col") == 0);
  }();
  return on;
}

} // namespace

bool convDnnl(const float *x, const float *w, const float *bias, float *y,
              const ConvArgs &a) {
  if (!enabled())
    return false;
  std::shared_ptr<Conv> c;
  try {
    c = lookup(a);
  } catch (const dnnl::error &) {
    return false; // a geometry oneDNN has no implementation for: im2col
  }
  if (omp_set_num_threads)
    omp_set_num_threads(runtime::kernelThreads());
  dnnl::engine &e = cpuEngine();
  dnnl::stream s(e);
  auto mem = [&](const dnnl::memory::desc &d, const void *p) {
    return dnnl::memory(d, e, const_cast<void *>(p));
  };
  dnnl::memory userSrc = mem(c->userSrc, x), userWeights = mem(c->userWeights, w),
               userDst = mem(c->userDst, y);
  dnnl::memory src = userSrc, weights = userWeights, dst = userDst;
  if (c->reorderSrc) {
    src = mem(c->pd.src_desc(), scratch(c->pd.src_desc().get_size(), 0));
    c->toSrc.execute(s, userSrc, src);
  }
  if (c->reorderWeights) {
    weights = mem(c->pd.weights_desc(),
                  scratch(c->pd.weights_desc().get_size(), 1));
    c->toWeights.execute(s, userWeights, weights);
  }
  if (c->reorderDst)
    dst = mem(c->pd.dst_desc(), scratch(c->pd.dst_desc().get_size(), 2));
  std::unordered_map<int, dnnl::memory> args{
      {DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, weights}, {DNNL_ARG_DST, dst}};
  if (a.hasBias)
    args.emplace(DNNL_ARG_BIAS, mem(c->bias, bias));
  size_t pad = c->pd.scratchpad_desc().get_size();
  if (pad)
    args.emplace(DNNL_ARG_SCRATCHPAD,
                 mem(c->pd.scratchpad_desc(), scratch(pad, 3)));
  c->prim.execute(s, args);
  if (c->reorderDst)
    c->fromDst.execute(s, dst, userDst);
  s.wait();
  return true;
}

} // namespace mxc::kernels
