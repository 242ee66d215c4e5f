// cudnn_kernels.cc - the cuDNN kernels of the CUDA target, each with the
// argument list of its CPU twin (kernels.h) on device pointers:
//   mxc_cuda_kernel_conv_{f32,f64}                  convolution (NCDHW with
//       groups, zero padding, stride, dilation, optional bias),
//   mxc_cuda_kernel_conv_backward_data_{f32,f64}    its data gradient,
//   mxc_cuda_kernel_conv_workspace_{f32,f64}        the same with a planned
//       workspace (what the CUDA target calls; GPU only),
//   mxc_cuda_kernel_conv_backward_weight_{f32,f64}  its weight gradient
//       (the workspace argument: on the CUDA target a planned buffer sized
//       for cuDNN, used where the chosen algorithm's workspace fits it, else
//       the thread's own, below),
//   mxc_cuda_kernel_pooling_forward_{f32,f64}       max / avg / sum pooling
//       (no CPU twin: the CPU's pooling is generated),
//   mxc_cuda_kernel_pooling_backward_{f32,f64}      max / avg / sum pooling's
//       data gradient (lp pooling and windows cuDNN's output size formula
//       does not give, pooling_convention 'full', are refused at compile
//       time: lib/Compiler/Pipeline.cpp),
//   mxc_cuda_kernel_lrn_{f32,f64}, mxc_cuda_kernel_lrn_backward_{f32,f64}
//       LRN across channels and its gradient (odd windows up to 16: the
//       compiler refuses the rest),
//   mxc_cuda_kernel_softmax_{f32,f64}, mxc_cuda_kernel_softmax_backward_{f32,f64}
//       softmax / log_softmax over one block of axes and its gradient (no
//       CPU twin: the CPU's softmax is generated),
//   mxc_cuda_kernel_batch_norm_{train,backward}_{f32,f64}  BatchNorm in
//       training, forward and gradient (CUDNN_BATCHNORM_SPATIAL on
//       (outer, channels, inner, 1) tensors; the batch variance is cuDNN's
//       unbiased running variance scaled to MXNet's biased one),
// through cuDNN 9's legacy API (still shipped; the graph API is future
// work). cuDNN is loaded at first use with dlopen ("libcudnn.so.9"), like
// the driver. Descriptors, the algorithm of each direction (cuDNN's
// heuristics: the first that fits 1 GiB of workspace) are cached per
// thread and geometry; the workspace is the step's planned buffer where the
// algorithm's fits it, else the thread's own; the call runs on the thread's stream of
// the device and returns with it synchronised (inside a bulk run's
// stream batch the run waits instead). f32 uses CUDNN_FMA_MATH (no
// TF32, MXNet's default f32 semantics) unless MXC_CUDA_ALLOW_TF32=1.
// Failures are reported with mxcKernelReportError.
#include "internal.h"

#include "../kernels/kernels.h"
#include "mxc/runtime/c_api.h"
#include "mxc/runtime/cuda.h"
#include "mxc/runtime/error.h"
#include "mxc/runtime/plan.h"
#include "mxc/runtime/storage.h"

#include <cudnn.h>

#include <array>
#include <atomic>
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <string>

namespace {

using namespace mxc::runtime;
using namespace mxc::runtime::cuda;

#define MXC_CUDNN_FUNCTIONS(X)                                                         \
  X(cudnnCreate)                                                                       \
  X(cudnnSetStream)                                                                    \
  X(cudnnGetErrorString)                                                               \
  X(cudnnCreateTensorDescriptor)                                                       \
  X(cudnnSetTensorNdDescriptor)                                                        \
  X(cudnnCreateFilterDescriptor)                                                       \
  X(cudnnSetFilterNdDescriptor)                                                        \
  X(cudnnCreateConvolutionDescriptor)                                                  \
  X(cudnnSetConvolutionNdDescriptor)                                                   \
  X(cudnnSetConvolutionGroupCount)                                                     \
  X(cudnnSetConvolutionMathType)                                                       \
  X(cudnnGetConvolutionForwardAlgorithm_v7)                                            \
  X(cudnnGetConvolutionForwardWorkspaceSize)                                           \
  X(cudnnConvolutionForward)                                                           \
  X(cudnnGetConvolutionBackwardDataAlgorithm_v7)                                       \
  X(cudnnGetConvolutionBackwardDataWorkspaceSize)                                      \
  X(cudnnConvolutionBackwardData)                                                      \
  X(cudnnGetConvolutionBackwardFilterAlgorithm_v7)                                     \
  X(cudnnGetConvolutionBackwardFilterWorkspaceSize)                                    \
  X(cudnnConvolutionBackwardFilter)                                                    \
  X(cudnnCreatePoolingDescriptor)                                                      \
  X(cudnnSetPoolingNdDescriptor)                                                       \
  X(cudnnPoolingForward)                                                               \
  X(cudnnPoolingBackward)                                                              \
  X(cudnnAddTensor)                                                                    \
  X(cudnnScaleTensor)                                                                  \
  X(cudnnBatchNormalizationForwardTraining)                                            \
  X(cudnnBatchNormalizationBackward)                                                   \
  X(cudnnCreateLRNDescriptor)                                                          \
  X(cudnnSetLRNDescriptor)                                                             \
  X(cudnnLRNCrossChannelForward)                                                       \
  X(cudnnLRNCrossChannelBackward)                                                      \
  X(cudnnSoftmaxForward)                                                               \
  X(cudnnSoftmaxBackward)

// cuDNN 9 marks the batch normalisation functions of its legacy API
// deprecated (the graph API has their successors); they are still shipped.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
struct Cudnn {
#define MXC_CUDNN_MEMBER(name) decltype(&::name) name = nullptr;
  MXC_CUDNN_FUNCTIONS(MXC_CUDNN_MEMBER)
#undef MXC_CUDNN_MEMBER
  std::string error;
};
#pragma GCC diagnostic pop

const Cudnn &cudnn() {
  static const Cudnn *loaded = [] {
    auto *c = new Cudnn;
    void *h = openLibrary({"libcudnn.so.9", "libcudnn.so"}, "cuDNN", &c->error);
#define MXC_CUDNN_LOAD(name)                                                           \
  if (!h || !loadSymbol(h, MXC_CUDA_STR(name), c->name, "cuDNN", &c->error))           \
    return c;
    MXC_CUDNN_FUNCTIONS(MXC_CUDNN_LOAD)
#undef MXC_CUDNN_LOAD
    return c;
  }();
  if (!loaded->error.empty())
    throw Error(loaded->error);
  return *loaded;
}

void checkDnn(cudnnStatus_t s, const char *what) {
  if (s == CUDNN_STATUS_SUCCESS)
    return;
  const char *text = cudnn().cudnnGetErrorString(s);
  throw Error(std::string(what) + ": " + (text ? text : std::to_string(int(s))));
}

/// The calling thread's cuDNN handle on the device, bound to its stream;
/// makes the device's context current (a handle is tied to its context,
/// and the thread may have bound another device since: a copy between GPUs,
/// a wait, memory given back).
cudnnHandle_t handle(int device) {
  thread_local std::map<int, cudnnHandle_t> handles;
  bindDevice(device);
  auto it = handles.find(device);
  if (it != handles.end())
    return it->second;
  const Cudnn &c = cudnn();
  cudnnHandle_t h = nullptr;
  checkDnn(c.cudnnCreate(&h), "cudnnCreate");
  checkDnn(c.cudnnSetStream(h, reinterpret_cast<cudaStream_t>(streamOf(device))),
           "cudnnSetStream");
  handles[device] = h;
  return h;
}

/// cuDNN's data type of T (float or double).
template <typename T> constexpr cudnnDataType_t dnnType() {
  return sizeof(T) == 4 ? CUDNN_DATA_FLOAT : CUDNN_DATA_DOUBLE;
}

/// A new descriptor of a packed row-major tensor of T with `dims` (cuDNN
/// takes int extents and strides: larger ones are an error naming `what`).
template <typename T>
cudnnTensorDescriptor_t packedTensor(std::initializer_list<int64_t> dims, const char *what) {
  std::array<int, 5> d{}, strides{};
  int n = int(dims.size());
  int64_t stride = 1;
  for (int i = n - 1; i >= 0; --i) {
    int64_t extent = dims.begin()[i];
    if (extent > INT32_MAX || stride > INT32_MAX)
      throw Error(std::string(what) + " dimensions beyond cuDNN's int range");
    d[i] = int(extent);
    strides[i] = int(stride);
    stride *= extent;
  }
  const Cudnn &c = cudnn();
  cudnnTensorDescriptor_t t = nullptr;
  checkDnn(c.cudnnCreateTensorDescriptor(&t), "cudnnCreateTensorDescriptor");
  checkDnn(c.cudnnSetTensorNdDescriptor(t, dnnType<T>(), n, d.data(), strides.data()),
           (std::string("cudnnSetTensorNdDescriptor (") + what + ")").c_str());
  return t;
}

/// The geometry of one convolution (the kernel's int64 arguments), its
/// element size and its direction (the last entry): the key of the
/// per-thread plan cache.
using Geometry = std::array<int64_t, 25>;
enum Direction : int64_t { kForward = 0, kBackwardData = 1, kBackwardFilter = 2 };

struct ConvPlan {
  cudnnTensorDescriptor_t x = nullptr, y = nullptr, bias = nullptr;
  cudnnFilterDescriptor_t w = nullptr;
  cudnnConvolutionDescriptor_t conv = nullptr;
  /// The algorithm of the plan's direction (Geometry's last entry).
  cudnnConvolutionFwdAlgo_t forward{};
  cudnnConvolutionBwdDataAlgo_t backwardData{};
  cudnnConvolutionBwdFilterAlgo_t backwardFilter{};
  size_t workspace = 0;
};

/// The first of cuDNN's ranked algorithms that ran its test and fits 1 GiB
/// of workspace, never one converting f32 to f16
/// (CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION). For f32 without
/// MXC_CUDA_ALLOW_TF32 one with FMA math (no tensor cores; DEFAULT_MATH
/// permits TF32 on Ampere and later), or failing that one of default math,
/// run with the descriptor's FMA math (as before 2026-12-07: the filter
/// refused tensor-op math only).
template <typename Perf>
const Perf &chooseAlgorithm(const Perf *perf, int found, bool f32, bool tf32, const char *what) {
  auto usable = [&](const Perf &p, bool strict) {
    if (p.status != CUDNN_STATUS_SUCCESS || p.memory > (size_t(1) << 30) ||
        p.mathType == CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION)
      return false;
    if (!f32 || tf32)
      return true;
    return p.mathType == CUDNN_FMA_MATH || (!strict && p.mathType == CUDNN_DEFAULT_MATH);
  };
  for (bool strict : {true, false})
    for (int i = 0; i < found; ++i)
      if (usable(perf[i], strict))
        return perf[i];
  throw Error(std::string("cuDNN has no ") + what + " algorithm for this convolution");
}

/// cuDNN's ranked algorithms of one direction (`query(count, &found,
/// perf)`), the first usable one (chooseAlgorithm) into `algo`, its math
/// type set on the plan's descriptor (`setMath(type)`, as MXNet does), and
/// its workspace size (`workspaceSize(algo, &bytes)`) into `workspace`.
template <typename Perf, typename Query, typename SetMath, typename WorkspaceSize,
          typename Algo>
void selectAlgorithm(Query query, SetMath setMath, WorkspaceSize workspaceSize, bool f32,
                     bool tf32, const char *what, Algo &algo, size_t &workspace) {
  static_assert(CUDNN_CONVOLUTION_FWD_ALGO_COUNT <= 16 &&
                    CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT <= 16 &&
                    CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT <= 16,
                "perf below holds every algorithm");
  Perf perf[16];
  int found = 0;
  query(16, &found, perf);
  const Perf &chosen = chooseAlgorithm(perf, found, f32, tf32, what);
  algo = chosen.algo;
  setMath(chosen.mathType);
  workspaceSize(algo, &workspace);
}

/// The calling thread's workspace on the device, grown as needed.
void *workspace(int device, size_t bytes) {
  thread_local std::map<int, Storage> blocks;
  Storage &s = blocks[device];
  if (s.data && s.size >= bytes)
    return s.data;
  StorageManager &m = storageManager(Device::gpu(device));
  // Kernels of a bulk run (a stream batch) may still be using the old block:
  // wait for them before it goes back to the pool.
  if (s.data)
    synchronizeNow(device);
  m.release(s);
  s = m.allocate(bytes);
  return s.data;
}

/// The plan of convolution `g` on gpu(device) (cached per thread and
/// device: the algorithm is chosen on that device's handle).
template <typename T>
const ConvPlan &plan(int device, cudnnHandle_t h, const Geometry &g) {
  thread_local std::map<std::pair<int, Geometry>, ConvPlan> plans;
  auto it = plans.find({device, g});
  if (it != plans.end())
    return it->second;
  const Cudnn &c = cudnn();
  auto [size, batch, channels, filters, groups, hasBias, inD, inH, inW, kD, kH, kW, outD, outH,
        outW, sD, sH, sW, pD, pH, pW, dD, dH, dW, unused] = g;
  (void)size, (void)hasBias, (void)unused;
  cudnnDataType_t type = dnnType<T>();
  // 2-D convolutions as 4-D tensors (cuDNN's fast paths), the rest as 5-D.
  bool twoD = inD == 1 && kD == 1 && outD == 1 && pD == 0;
  int nb = twoD ? 4 : 5;
  auto dims = [&](int64_t n, int64_t ch, int64_t d, int64_t hh, int64_t w) {
    std::array<int, 5> v = {int(n), int(ch), int(d), int(hh), int(w)};
    if (twoD)
      v = {int(n), int(ch), int(hh), int(w), 1};
    return v;
  };
  // (cuDNN takes int extents and strides: a tensor of 2^31 elements or
  // more is an error, not a wrapped stride.)
  for (int64_t v : {batch * channels * inD * inH * inW, batch * filters * outD * outH * outW,
                    filters * (channels / groups) * kD * kH * kW})
    if (v > INT32_MAX)
      throw Error("a convolution tensor beyond cuDNN's int range (" + std::to_string(v) +
                  " elements)");
  auto strides = [&](const std::array<int, 5> &d) {
    std::array<int, 5> s{};
    s[nb - 1] = 1;
    for (int i = nb - 2; i >= 0; --i)
      s[i] = s[i + 1] * d[i + 1];
    return s;
  };
  ConvPlan p;
  std::array<int, 5> xd = dims(batch, channels, inD, inH, inW), yd = dims(batch, filters, outD,
                                                                            outH, outW);
  std::array<int, 5> wd = dims(filters, channels / groups, kD, kH, kW);
  std::array<int, 5> bd = dims(1, filters, 1, 1, 1);
  checkDnn(c.cudnnCreateTensorDescriptor(&p.x), "cudnnCreateTensorDescriptor");
  checkDnn(c.cudnnCreateTensorDescriptor(&p.y), "cudnnCreateTensorDescriptor");
  checkDnn(c.cudnnCreateTensorDescriptor(&p.bias), "cudnnCreateTensorDescriptor");
  checkDnn(c.cudnnSetTensorNdDescriptor(p.x, type, nb, xd.data(), strides(xd).data()),
           "cudnnSetTensorNdDescriptor (x)");
  checkDnn(c.cudnnSetTensorNdDescriptor(p.y, type, nb, yd.data(), strides(yd).data()),
           "cudnnSetTensorNdDescriptor (y)");
  checkDnn(c.cudnnSetTensorNdDescriptor(p.bias, type, nb, bd.data(), strides(bd).data()),
           "cudnnSetTensorNdDescriptor (bias)");
  checkDnn(c.cudnnCreateFilterDescriptor(&p.w), "cudnnCreateFilterDescriptor");
  checkDnn(c.cudnnSetFilterNdDescriptor(p.w, type, CUDNN_TENSOR_NCHW, nb, wd.data()),
           "cudnnSetFilterNdDescriptor");
  checkDnn(c.cudnnCreateConvolutionDescriptor(&p.conv), "cudnnCreateConvolutionDescriptor");
  std::array<int, 3> pad = {int(pD), int(pH), int(pW)}, stride = {int(sD), int(sH), int(sW)},
                     dil = {int(dD), int(dH), int(dW)};
  int spatial = nb - 2, first = twoD ? 1 : 0;
  checkDnn(c.cudnnSetConvolutionNdDescriptor(p.conv, spatial, pad.data() + first,
                                             stride.data() + first, dil.data() + first,
                                             CUDNN_CROSS_CORRELATION, type),
           "cudnnSetConvolutionNdDescriptor");
  checkDnn(c.cudnnSetConvolutionGroupCount(p.conv, int(groups)), "cudnnSetConvolutionGroupCount");
  bool tf32 = allowTf32();
  checkDnn(c.cudnnSetConvolutionMathType(p.conv, sizeof(T) == 4 && !tf32 ? CUDNN_FMA_MATH
                                                                              : CUDNN_DEFAULT_MATH),
           "cudnnSetConvolutionMathType");
  bool f32 = sizeof(T) == 4;
  // The chosen algorithm's math type on the descriptor (as MXNet); f32
  // without TF32 keeps the FMA math set above whatever the algorithm's.
  auto setMath = [&](cudnnMathType_t m) {
    if (!f32 || tf32)
      checkDnn(c.cudnnSetConvolutionMathType(p.conv, m), "cudnnSetConvolutionMathType");
  };
  // cuDNN's ranked algorithms for the plan's direction, the first usable
  // one (chooseAlgorithm) and its workspace size.
  if (g[24] == kForward)
    selectAlgorithm<cudnnConvolutionFwdAlgoPerf_t>(
        [&](int n, int *found, cudnnConvolutionFwdAlgoPerf_t *perf) {
          checkDnn(c.cudnnGetConvolutionForwardAlgorithm_v7(h, p.x, p.w, p.conv, p.y, n, found,
                                                            perf),
                   "cudnnGetConvolutionForwardAlgorithm_v7");
        },
        setMath,
        [&](cudnnConvolutionFwdAlgo_t a, size_t *bytes) {
          checkDnn(c.cudnnGetConvolutionForwardWorkspaceSize(h, p.x, p.w, p.conv, p.y, a, bytes),
                   "cudnnGetConvolutionForwardWorkspaceSize");
        },
        f32, tf32, "forward", p.forward, p.workspace);
  else if (g[24] == kBackwardData)
    selectAlgorithm<cudnnConvolutionBwdDataAlgoPerf_t>(
        [&](int n, int *found, cudnnConvolutionBwdDataAlgoPerf_t *perf) {
          checkDnn(c.cudnnGetConvolutionBackwardDataAlgorithm_v7(h, p.w, p.y, p.conv, p.x, n,
                                                                 found, perf),
                   "cudnnGetConvolutionBackwardDataAlgorithm_v7");
        },
        setMath,
        [&](cudnnConvolutionBwdDataAlgo_t a, size_t *bytes) {
          checkDnn(c.cudnnGetConvolutionBackwardDataWorkspaceSize(h, p.w, p.y, p.conv, p.x, a,
                                                                  bytes),
                   "cudnnGetConvolutionBackwardDataWorkspaceSize");
        },
        f32, tf32, "backward-data", p.backwardData, p.workspace);
  else
    selectAlgorithm<cudnnConvolutionBwdFilterAlgoPerf_t>(
        [&](int n, int *found, cudnnConvolutionBwdFilterAlgoPerf_t *perf) {
          checkDnn(c.cudnnGetConvolutionBackwardFilterAlgorithm_v7(h, p.x, p.y, p.conv, p.w, n,
                                                                   found, perf),
                   "cudnnGetConvolutionBackwardFilterAlgorithm_v7");
        },
        setMath,
        [&](cudnnConvolutionBwdFilterAlgo_t a, size_t *bytes) {
          checkDnn(c.cudnnGetConvolutionBackwardFilterWorkspaceSize(h, p.x, p.y, p.conv, p.w, a,
                                                                    bytes),
                   "cudnnGetConvolutionBackwardFilterWorkspaceSize");
        },
        f32, tf32, "backward-filter", p.backwardFilter, p.workspace);
  return plans[{device, g}] = p;
}

/// The workspace of a convolution: the planned buffer (`planned`, of
/// `plannedBytes`; a buffer of the device arena, lib/Conversion/MXToLinalg's
/// cudaConvWorkspaceElements) where the chosen algorithm's fits it, else the
/// thread's own (workspace()); none where it needs none.
/// With MXC_CUDNN_WORKSPACE_REPORT=1, how many convolution calls used the
/// planned workspace and how many the thread's, printed to stderr at exit
/// (gpu-check's benchmark sets it: the planned size is a guess).
struct WorkspaceCounts {
  std::atomic<int64_t> planned{0}, own{0};
  bool report = [] {
    const char *v = std::getenv("MXC_CUDNN_WORKSPACE_REPORT");
    return v && std::string(v) == "1";
  }();
  ~WorkspaceCounts() {
    if (report)
      std::fprintf(stderr, "mxc: cuDNN convolution workspaces: %lld calls in the planned buffer, "
                           "%lld in the thread's own\n",
                   (long long)planned.load(), (long long)own.load());
  }
};
WorkspaceCounts workspaceCounts;

void *convWorkspace(int device, size_t bytes, void *planned, size_t plannedBytes) {
  if (!bytes)
    return nullptr;
  if (planned && bytes <= plannedBytes) {
    workspaceCounts.planned.fetch_add(1, std::memory_order_relaxed);
    return planned;
  }
  if (planned)
    workspaceCounts.own.fetch_add(1, std::memory_order_relaxed);
  return workspace(device, bytes);
}

template <typename T>
void convolution(const T *x, const T *w, const T *bias, T *y, const Geometry &g,
                 void *planned, size_t plannedBytes) {
  int device = mgpuCurrentDevice();
  cudnnHandle_t h = handle(device);
  const ConvPlan &p = plan<T>(device, h, g);
  void *ws = convWorkspace(device, p.workspace, planned, plannedBytes);
  const Cudnn &c = cudnn();
  T one = 1, zero = 0;
  checkDnn(c.cudnnConvolutionForward(h, &one, p.x, x, p.w, w, p.conv, p.forward, ws,
                                     p.workspace, &zero, p.y, y),
           "cudnnConvolutionForward");
  if (g[5]) // has_bias
    checkDnn(c.cudnnAddTensor(h, &one, p.bias, bias, &one, p.y, y), "cudnnAddTensor");
  synchronize(device);
}

/// dx from w and dy (kBackwardData), or dw from x and dy (kBackwardFilter):
/// `in` is w or x, `out` dx or dw.
template <typename T>
void convolutionBackward(const T *in, const T *dy, T *out, const Geometry &g, void *planned,
                         size_t plannedBytes) {
  int device = mgpuCurrentDevice();
  cudnnHandle_t h = handle(device);
  const ConvPlan &p = plan<T>(device, h, g);
  void *ws = convWorkspace(device, p.workspace, planned, plannedBytes);
  const Cudnn &c = cudnn();
  T one = 1, zero = 0;
  if (g[24] == kBackwardData)
    checkDnn(c.cudnnConvolutionBackwardData(h, &one, p.w, in, p.y, dy, p.conv, p.backwardData,
                                            ws, p.workspace, &zero, p.x, out),
             "cudnnConvolutionBackwardData");
  else
    checkDnn(c.cudnnConvolutionBackwardFilter(h, &one, p.x, in, p.y, dy, p.conv,
                                              p.backwardFilter, ws, p.workspace, &zero, p.w,
                                              out),
             "cudnnConvolutionBackwardFilter");
  synchronize(device);
}

/// Pooling's arguments after the buffers (kernels.h), the element size
/// first: the key of the per-thread descriptor cache.
using PoolGeometry = std::array<int64_t, 20>;

struct PoolPlan {
  cudnnTensorDescriptor_t x = nullptr, y = nullptr;
  cudnnPoolingDescriptor_t pool = nullptr;
  double scale = 1; ///< sum pooling: avg's gradient times the window volume
};

template <typename T>
const PoolPlan &poolPlan(const PoolGeometry &g) {
  thread_local std::map<PoolGeometry, PoolPlan> plans;
  auto it = plans.find(g);
  if (it != plans.end())
    return it->second;
  const Cudnn &c = cudnn();
  auto [size, kind, pValue, includePad, planes, inD, inH, inW, kD, kH, kW, outD, outH, outW, sD,
        sH, sW, pD, pH, pW] = g;
  (void)size, (void)pValue;
  if (kind != 0 && kind != 1 && kind != 2)
    throw Error("only max, avg and sum pooling have a GPU gradient");
  // (planes, 1, d, h, w): pooling is per plane; 2-D windows as 4-D tensors.
  bool twoD = inD == 1 && kD == 1 && outD == 1 && pD == 0;
  int nb = twoD ? 4 : 5;
  int64_t n = planes;
  auto tensor = [&](int64_t d, int64_t hh, int64_t w) {
    return twoD ? packedTensor<T>({n, 1, hh, w}, "pooling")
                : packedTensor<T>({n, 1, d, hh, w}, "pooling");
  };
  PoolPlan p;
  p.x = tensor(inD, inH, inW);
  p.y = tensor(outD, outH, outW);
  std::array<int, 3> window = {int(kD), int(kH), int(kW)}, pad = {int(pD), int(pH), int(pW)},
                     stride = {int(sD), int(sH), int(sW)};
  int first = twoD ? 1 : 0;
  cudnnPoolingMode_t mode = kind == 0 ? CUDNN_POOLING_MAX_DETERMINISTIC
                            : kind == 2 || includePad
                                ? CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING
                                : CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING;
  if (kind == 2)
    p.scale = double(kD * kH * kW);
  checkDnn(c.cudnnCreatePoolingDescriptor(&p.pool), "cudnnCreatePoolingDescriptor");
  checkDnn(c.cudnnSetPoolingNdDescriptor(p.pool, mode, CUDNN_NOT_PROPAGATE_NAN, nb - 2,
                                         window.data() + first, pad.data() + first,
                                         stride.data() + first),
           "cudnnSetPoolingNdDescriptor");
  return plans[g] = p;
}

template <typename T>
void poolingForward(const T *x, T *y, const PoolGeometry &g) {
  int device = mgpuCurrentDevice();
  cudnnHandle_t h = handle(device);
  const PoolPlan &p = poolPlan<T>(g);
  const Cudnn &c = cudnn();
  T alpha = T(p.scale), zero = 0;
  checkDnn(c.cudnnPoolingForward(h, p.pool, &alpha, p.x, x, &zero, p.y, y),
           "cudnnPoolingForward");
  synchronize(device);
}

template <typename T>
void poolingBackward(const T *dy, const T *x, const T *y, T *dx, const PoolGeometry &g) {
  int device = mgpuCurrentDevice();
  cudnnHandle_t h = handle(device);
  const PoolPlan &p = poolPlan<T>(g);
  const Cudnn &c = cudnn();
  T alpha = T(p.scale), zero = 0;
  checkDnn(c.cudnnPoolingBackward(h, p.pool, &alpha, p.y, y, p.y, dy, p.x, x, &zero, p.x, dx),
           "cudnnPoolingBackward");
  synchronize(device);
}

/// Batch normalisation's (outer, channels, inner) geometry and element
/// size: the key of the per-thread descriptor cache.
using BatchNormGeometry = std::array<int64_t, 4>;

struct BatchNormPlan {
  cudnnTensorDescriptor_t x = nullptr, channel = nullptr;
};

/// Data as (outer, channels, inner, 1) NCHW and the per-channel tensors as
/// (1, channels, 1, 1): CUDNN_BATCHNORM_SPATIAL normalises over N, H, W.
template <typename T>
const BatchNormPlan &batchNormPlan(const BatchNormGeometry &g) {
  thread_local std::map<BatchNormGeometry, BatchNormPlan> plans;
  auto it = plans.find(g);
  if (it != plans.end())
    return it->second;
  auto [size, outer, channels, inner] = g;
  (void)size;
  BatchNormPlan p;
  p.x = packedTensor<T>({outer, channels, inner, 1}, "batch norm");
  p.channel = packedTensor<T>({1, channels, 1, 1}, "batch norm");
  return plans[g] = p;
}

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
/// y, mean, biased var and invstd of the batch (kernels.h). cuDNN gives the
/// batch mean and invstd as its saved statistics; its running variance
/// (with exponential average factor 1: the batch's own, written over the
/// zeroed `var`) is the unbiased one, scaled here by (m - 1) / m to MXNet's
/// biased variance (MXNet's own cuDNN BatchNorm kept the unbiased one, so
/// its GPU and CPU moving variances differed: apache/mxnet#21111; mxc's
/// follow the CPU's, batch_norm.cc). `scratch` takes cuDNN's running mean (it needs both
/// running buffers or neither).
template <typename T>
void batchNormTrain(const T *x, const T *gamma, const T *beta, T *y, T *mean, T *var,
                    T *invstd, T *scratch, const BatchNormGeometry &g, double eps) {
  int device = mgpuCurrentDevice();
  cudnnHandle_t h = handle(device);
  const BatchNormPlan &p = batchNormPlan<T>(g);
  const Cudnn &c = cudnn();
  const Driver &d = bindDevice(device);
  size_t bytes = size_t(g[2]) * sizeof(T);
  // A factor of 1 still reads the running buffers (0 * old): zero them,
  // since fresh pool memory may hold NaN bit patterns.
  check(d.cuMemsetD8Async(CUdeviceptr(scratch), 0, bytes, streamOf(device)),
        "cuMemsetD8Async (batch norm running mean)");
  check(d.cuMemsetD8Async(CUdeviceptr(var), 0, bytes, streamOf(device)),
        "cuMemsetD8Async (batch norm running variance)");
  T one = 1, zero = 0;
  checkDnn(c.cudnnBatchNormalizationForwardTraining(
               h, CUDNN_BATCHNORM_SPATIAL, &one, &zero, p.x, x, p.x, y, p.channel, gamma, beta,
               1.0, scratch, var, eps, mean, invstd),
           "cudnnBatchNormalizationForwardTraining");
  double m = double(g[1]) * double(g[3]);
  T biased = T((m - 1) / m);
  checkDnn(c.cudnnScaleTensor(h, p.channel, var, &biased), "cudnnScaleTensor");
  synchronize(device);
}

/// dx, dgamma, dbeta from dy, x, gamma and the forward's mean and invstd.
template <typename T>
void batchNormBackward(const T *dy, const T *x, const T *gamma, const T *mean,
                       const T *invstd, T *dx, T *dgamma, T *dbeta,
                       const BatchNormGeometry &g, double eps) {
  int device = mgpuCurrentDevice();
  cudnnHandle_t h = handle(device);
  const BatchNormPlan &p = batchNormPlan<T>(g);
  const Cudnn &c = cudnn();
  T one = 1, zero = 0;
  checkDnn(c.cudnnBatchNormalizationBackward(h, CUDNN_BATCHNORM_SPATIAL, &one, &zero, &one,
                                             &zero, p.x, x, p.x, dy, p.x, dx, p.channel, gamma,
                                             dgamma, dbeta, eps, mean, invstd),
           "cudnnBatchNormalizationBackward");
  synchronize(device);
}
#pragma GCC diagnostic pop

/// LRN's (outer, channels, inner) geometry, window and parameters' bits and
/// the element size: the key of the per-thread descriptor cache.
using LrnGeometry = std::array<int64_t, 8>;

struct LrnPlan {
  cudnnTensorDescriptor_t x = nullptr;
  cudnnLRNDescriptor_t lrn = nullptr;
};

/// Data as (outer, channels, inner, 1) NCHW; cuDNN's cross-channel window of
/// an odd n is MXNet's [c - n/2, c + n/2] (the compiler refuses the rest:
/// lrnNotTakenByCudnn), its alpha divided by n as MXNet's.
template <typename T>
const LrnPlan &lrnPlan(const LrnGeometry &g) {
  thread_local std::map<LrnGeometry, LrnPlan> plans;
  auto it = plans.find(g);
  if (it != plans.end())
    return it->second;
  const Cudnn &c = cudnn();
  auto [size, outer, channels, inner, nsize, alphaBits, betaBits, knormBits] = g;
  (void)size;
  LrnPlan p;
  p.x = packedTensor<T>({outer, channels, inner, 1}, "LRN");
  checkDnn(c.cudnnCreateLRNDescriptor(&p.lrn), "cudnnCreateLRNDescriptor");
  // The compiler checked beta and knorm against cuDNN's minimums as
  // doubles; the forward passes MXNet's float parameters, so a value at the
  // minimum may arrive a float rounding (relative 6e-8) below it: taken as
  // the minimum (cudnnSetLRNDescriptor would refuse it).
  auto atLeast = [](double v, double min) { return v < min && v >= min * (1 - 1e-7) ? min : v; };
  checkDnn(c.cudnnSetLRNDescriptor(p.lrn, unsigned(nsize), mxc::kernels::paramFromBits(alphaBits),
                                   atLeast(mxc::kernels::paramFromBits(betaBits), CUDNN_LRN_MIN_BETA),
                                   atLeast(mxc::kernels::paramFromBits(knormBits), CUDNN_LRN_MIN_K)),
           "cudnnSetLRNDescriptor");
  return plans[g] = p;
}

template <typename T>
void lrnForward(const T *x, T *y, const LrnGeometry &g) {
  int device = mgpuCurrentDevice();
  cudnnHandle_t h = handle(device);
  const LrnPlan &p = lrnPlan<T>(g);
  T one = 1, zero = 0;
  checkDnn(cudnn().cudnnLRNCrossChannelForward(h, p.lrn, CUDNN_LRN_CROSS_CHANNEL_DIM1, &one,
                                               p.x, x, &zero, p.x, y),
           "cudnnLRNCrossChannelForward");
  synchronize(device);
}

template <typename T>
void lrnBackward(const T *dy, const T *x, const T *y, T *dx, const LrnGeometry &g) {
  int device = mgpuCurrentDevice();
  cudnnHandle_t h = handle(device);
  const LrnPlan &p = lrnPlan<T>(g);
  T one = 1, zero = 0;
  checkDnn(cudnn().cudnnLRNCrossChannelBackward(h, p.lrn, CUDNN_LRN_CROSS_CHANNEL_DIM1, &one,
                                                p.x, y, p.x, dy, p.x, x, &zero, p.x, dx),
           "cudnnLRNCrossChannelBackward");
  synchronize(device);
}

/// A softmax's data as (outer, classes, inner, 1) NCHW: CUDNN_SOFTMAX_MODE_CHANNEL
/// normalises over the classes for each (outer, inner). The descriptor of a
/// geometry and element size, cached per thread.
template <typename T>
cudnnTensorDescriptor_t softmaxTensor(int64_t outer, int64_t classes, int64_t inner) {
  thread_local std::map<std::array<int64_t, 4>, cudnnTensorDescriptor_t> plans;
  std::array<int64_t, 4> key = {int64_t(sizeof(T)), outer, classes, inner};
  auto it = plans.find(key);
  if (it != plans.end())
    return it->second;
  return plans[key] = packedTensor<T>({outer, classes, inner, 1}, "softmax");
}

template <typename T>
void softmaxForward(const T *x, T *y, int64_t outer, int64_t classes, int64_t inner, bool log) {
  int device = mgpuCurrentDevice();
  cudnnHandle_t h = handle(device);
  cudnnTensorDescriptor_t t = softmaxTensor<T>(outer, classes, inner);
  T one = 1, zero = 0;
  checkDnn(cudnn().cudnnSoftmaxForward(h, log ? CUDNN_SOFTMAX_LOG : CUDNN_SOFTMAX_ACCURATE,
                                       CUDNN_SOFTMAX_MODE_CHANNEL, &one, t, x, &zero, t, y),
           "cudnnSoftmaxForward");
  synchronize(device);
}

template <typename T>
void softmaxBackward(const T *y, const T *dy, T *dx, int64_t outer, int64_t classes,
                     int64_t inner, bool log) {
  int device = mgpuCurrentDevice();
  cudnnHandle_t h = handle(device);
  cudnnTensorDescriptor_t t = softmaxTensor<T>(outer, classes, inner);
  T one = 1, zero = 0;
  checkDnn(cudnn().cudnnSoftmaxBackward(h, log ? CUDNN_SOFTMAX_LOG : CUDNN_SOFTMAX_ACCURATE,
                                        CUDNN_SOFTMAX_MODE_CHANNEL, &one, t, y, t, dy, &zero, t,
                                        dx),
           "cudnnSoftmaxBackward");
  synchronize(device);
}

/// Runs `f`; an exception becomes the kernel's error, "WHAT on the GPU:
/// reason" (mxcKernelReportError: the step fails with it).
template <typename F>
void reportingErrors(const char *what, F &&f) {
  if (kernelErrorReported())
    return; // the step failed before (its buffers may not exist)
  try {
    f();
  } catch (const std::exception &e) {
    mxcKernelReportError((std::string(what) + " on the GPU: " + e.what()).c_str());
  }
}

} // namespace

/// The convolution (mxc_kernel_conv_<T>'s arguments) with a planned
/// workspace `ws`: what the CUDA target's lowering calls (GPU only: the
/// CPU's kernel has its scratch per thread).
#define MXC_DEFINE_CUDA_CONV_WORKSPACE_KERNEL(T, suffix)                               \
  MXC_KERNEL_EXPORT void mxc_cuda_kernel_conv_workspace_##suffix(                      \
      MXC_KERNEL_BUFFER(const T, x), MXC_KERNEL_BUFFER(const T, w),                    \
      MXC_KERNEL_BUFFER(const T, bias), MXC_KERNEL_BUFFER(T, y),                       \
      MXC_KERNEL_BUFFER(T, ws), int64_t batch, int64_t channels, int64_t filters,      \
      int64_t groups, int64_t has_bias, int64_t in_d, int64_t in_h, int64_t in_w,      \
      int64_t k_d, int64_t k_h, int64_t k_w, int64_t out_d, int64_t out_h,             \
      int64_t out_w, int64_t stride_d, int64_t stride_h, int64_t stride_w,             \
      int64_t pad_d, int64_t pad_h, int64_t pad_w, int64_t dilate_d, int64_t dilate_h,  \
      int64_t dilate_w) {                                                              \
    reportingErrors("convolution", [&] {                                                \
      Geometry g = {int64_t(sizeof(T)), batch, channels, filters, groups, has_bias,    \
                    in_d, in_h, in_w, k_d, k_h, k_w, out_d, out_h, out_w, stride_d,    \
                    stride_h, stride_w, pad_d, pad_h, pad_w, dilate_d, dilate_h,       \
                    dilate_w, kForward};                                               \
      convolution<T>(x + x_offset, w + w_offset, bias + bias_offset, y + y_offset, g,  \
                     ws + ws_offset, size_t(ws_size) * sizeof(T));                     \
    });                                                                                 \
  }

MXC_DEFINE_CUDA_CONV_WORKSPACE_KERNEL(float, f32)
MXC_DEFINE_CUDA_CONV_WORKSPACE_KERNEL(double, f64)

/// The gradient kernels: `in` is w (backward_data) or x (backward_weight).
#define MXC_DEFINE_CUDA_CONV_BACKWARD_KERNEL(T, suffix, which, in, out, direction)     \
  MXC_KERNEL_EXPORT void mxc_cuda_kernel_conv_backward_##which##_##suffix(              \
      MXC_KERNEL_BUFFER(const T, in), MXC_KERNEL_BUFFER(const T, dy),                  \
      MXC_KERNEL_BUFFER(T, out), MXC_KERNEL_BUFFER(T, ws), int64_t batch,              \
      int64_t channels, int64_t filters, int64_t groups, int64_t in_d, int64_t in_h,   \
      int64_t in_w, int64_t k_d, int64_t k_h, int64_t k_w, int64_t out_d, int64_t out_h, \
      int64_t out_w, int64_t stride_d, int64_t stride_h, int64_t stride_w, int64_t pad_d, \
      int64_t pad_h, int64_t pad_w, int64_t dilate_d, int64_t dilate_h,                \
      int64_t dilate_w) {                                                              \
    reportingErrors("convolution " #which " gradient", [&] {                            \
      Geometry g = {int64_t(sizeof(T)), batch, channels, filters, groups, 0, in_d,     \
                    in_h, in_w, k_d, k_h, k_w, out_d, out_h, out_w, stride_d, stride_h, \
                    stride_w, pad_d, pad_h, pad_w, dilate_d, dilate_h, dilate_w,       \
                    direction};                                                        \
      convolutionBackward<T>(in + in##_offset, dy + dy_offset, out + out##_offset, g,  \
                             ws + ws_offset, size_t(ws_size) * sizeof(T));             \
    });                                                                                 \
  }

MXC_DEFINE_CUDA_CONV_BACKWARD_KERNEL(float, f32, data, w, dx, kBackwardData)
MXC_DEFINE_CUDA_CONV_BACKWARD_KERNEL(double, f64, data, w, dx, kBackwardData)
MXC_DEFINE_CUDA_CONV_BACKWARD_KERNEL(float, f32, weight, x, dw, kBackwardFilter)
MXC_DEFINE_CUDA_CONV_BACKWARD_KERNEL(double, f64, weight, x, dw, kBackwardFilter)

// The pooling kernels' static arguments (kernels.h's order, the forward's and
// the gradient's alike) and the geometry they make.
#define MXC_CUDA_POOLING_ARGS                                                          \
  int64_t kind, int64_t p_value, int64_t count_include_pad, int64_t planes, int64_t in_d, \
      int64_t in_h, int64_t in_w, int64_t k_d, int64_t k_h, int64_t k_w, int64_t out_d, \
      int64_t out_h, int64_t out_w, int64_t stride_d, int64_t stride_h, int64_t stride_w, \
      int64_t pad_d, int64_t pad_h, int64_t pad_w
#define MXC_CUDA_POOLING_GEOMETRY(T)                                                   \
  PoolGeometry {                                                                       \
    int64_t(sizeof(T)), kind, p_value, count_include_pad, planes, in_d, in_h, in_w, k_d, \
        k_h, k_w, out_d, out_h, out_w, stride_d, stride_h, stride_w, pad_d, pad_h, pad_w \
  }

#define MXC_DEFINE_CUDA_POOLING_BACKWARD_KERNEL(T, suffix)                              \
  MXC_KERNEL_EXPORT void mxc_cuda_kernel_pooling_backward_##suffix(                      \
      MXC_KERNEL_BUFFER(const T, dy), MXC_KERNEL_BUFFER(const T, x),                    \
      MXC_KERNEL_BUFFER(const T, y), MXC_KERNEL_BUFFER(T, dx), MXC_CUDA_POOLING_ARGS) { \
    reportingErrors("pooling gradient", [&] {                                           \
      poolingBackward<T>(dy + dy_offset, x + x_offset, y + y_offset, dx + dx_offset,    \
                         MXC_CUDA_POOLING_GEOMETRY(T));                                 \
    });                                                                                 \
  }

MXC_DEFINE_CUDA_POOLING_BACKWARD_KERNEL(float, f32)
MXC_DEFINE_CUDA_POOLING_BACKWARD_KERNEL(double, f64)

#define MXC_DEFINE_CUDA_BATCH_NORM_KERNELS(T, suffix)                                   \
  MXC_KERNEL_EXPORT void mxc_cuda_kernel_batch_norm_train_##suffix(                      \
      MXC_KERNEL_BUFFER(const T, x), MXC_KERNEL_BUFFER(const T, gamma),                 \
      MXC_KERNEL_BUFFER(const T, beta), MXC_KERNEL_BUFFER(T, y),                        \
      MXC_KERNEL_BUFFER(T, mean), MXC_KERNEL_BUFFER(T, var),                            \
      MXC_KERNEL_BUFFER(T, invstd), MXC_KERNEL_BUFFER(T, scratch), int64_t outer,       \
      int64_t channels, int64_t inner, int64_t eps_bits) {                              \
    reportingErrors("batch norm (training)", [&] {                                      \
      BatchNormGeometry g = {int64_t(sizeof(T)), outer, channels, inner};               \
      batchNormTrain<T>(x + x_offset, gamma + gamma_offset, beta + beta_offset,         \
                        y + y_offset, mean + mean_offset, var + var_offset,             \
                        invstd + invstd_offset, scratch + scratch_offset, g,            \
                        mxc::kernels::paramFromBits(eps_bits));                         \
    });                                                                                 \
  }                                                                                     \
  MXC_KERNEL_EXPORT void mxc_cuda_kernel_batch_norm_backward_##suffix(                   \
      MXC_KERNEL_BUFFER(const T, dy), MXC_KERNEL_BUFFER(const T, x),                    \
      MXC_KERNEL_BUFFER(const T, gamma), MXC_KERNEL_BUFFER(const T, mean),              \
      MXC_KERNEL_BUFFER(const T, invstd), MXC_KERNEL_BUFFER(T, dx),                     \
      MXC_KERNEL_BUFFER(T, dgamma), MXC_KERNEL_BUFFER(T, dbeta), int64_t outer,         \
      int64_t channels, int64_t inner, int64_t eps_bits) {                              \
    reportingErrors("batch norm gradient", [&] {                                        \
      BatchNormGeometry g = {int64_t(sizeof(T)), outer, channels, inner};               \
      batchNormBackward<T>(dy + dy_offset, x + x_offset, gamma + gamma_offset,          \
                           mean + mean_offset, invstd + invstd_offset, dx + dx_offset,  \
                           dgamma + dgamma_offset, dbeta + dbeta_offset, g,             \
                           mxc::kernels::paramFromBits(eps_bits));                      \
    });                                                                                 \
  }

MXC_DEFINE_CUDA_BATCH_NORM_KERNELS(float, f32)
MXC_DEFINE_CUDA_BATCH_NORM_KERNELS(double, f64)

/// LRN: the twins of mxc_kernel_lrn_<T> (y from x) and
/// mxc_kernel_lrn_backward_<T> (dx from dy, x and y; the CPU kernel's
/// tmp_norm is not read).
#define MXC_DEFINE_CUDA_LRN_KERNELS(T, suffix)                                          \
  MXC_KERNEL_EXPORT void mxc_cuda_kernel_lrn_##suffix(                                   \
      MXC_KERNEL_BUFFER(const T, x), MXC_KERNEL_BUFFER(T, y), int64_t outer,            \
      int64_t channels, int64_t inner, int64_t nsize, int64_t alpha_bits,               \
      int64_t beta_bits, int64_t knorm_bits) {                                          \
    reportingErrors("LRN", [&] {                                                        \
      LrnGeometry g = {int64_t(sizeof(T)), outer, channels, inner, nsize, alpha_bits,   \
                       beta_bits, knorm_bits};                                          \
      lrnForward<T>(x + x_offset, y + y_offset, g);                                     \
    });                                                                                 \
  }                                                                                     \
  MXC_KERNEL_EXPORT void mxc_cuda_kernel_lrn_backward_##suffix(                          \
      MXC_KERNEL_BUFFER(const T, dy), MXC_KERNEL_BUFFER(const T, x),                    \
      MXC_KERNEL_BUFFER(const T, norm), MXC_KERNEL_BUFFER(const T, y),                  \
      MXC_KERNEL_BUFFER(T, dx), int64_t outer, int64_t channels, int64_t inner,         \
      int64_t nsize, int64_t alpha_bits, int64_t beta_bits, int64_t knorm_bits) {       \
    (void)norm, (void)norm_offset;                                                      \
    reportingErrors("LRN gradient", [&] {                                               \
      LrnGeometry g = {int64_t(sizeof(T)), outer, channels, inner, nsize, alpha_bits,   \
                       beta_bits, knorm_bits};                                          \
      lrnBackward<T>(dy + dy_offset, x + x_offset, y + y_offset, dx + dx_offset, g);    \
    });                                                                                 \
  }

MXC_DEFINE_CUDA_LRN_KERNELS(float, f32)
MXC_DEFINE_CUDA_LRN_KERNELS(double, f64)

/// softmax / log_softmax over the classes of (outer, classes, inner) data,
/// and the gradient from the forward's y (lib/Conversion/MXToLinalg/
/// Reduction.cpp emits them for the CUDA target only: the CPU's softmax is
/// generated code, so these have no CPU twin).
#define MXC_DEFINE_CUDA_SOFTMAX_KERNELS(T, suffix)                                      \
  MXC_KERNEL_EXPORT void mxc_cuda_kernel_softmax_##suffix(                               \
      MXC_KERNEL_BUFFER(const T, x), MXC_KERNEL_BUFFER(T, y), int64_t outer,            \
      int64_t classes, int64_t inner, int64_t log) {                                    \
    reportingErrors("softmax", [&] {                                                    \
      softmaxForward<T>(x + x_offset, y + y_offset, outer, classes, inner, log != 0);   \
    });                                                                                 \
  }                                                                                     \
  MXC_KERNEL_EXPORT void mxc_cuda_kernel_softmax_backward_##suffix(                      \
      MXC_KERNEL_BUFFER(const T, y), MXC_KERNEL_BUFFER(const T, dy),                    \
      MXC_KERNEL_BUFFER(T, dx), int64_t outer, int64_t classes, int64_t inner,          \
      int64_t log) {                                                                    \
    reportingErrors("softmax gradient", [&] {                                           \
      softmaxBackward<T>(y + y_offset, dy + dy_offset, dx + dx_offset, outer, classes,  \
                         inner, log != 0);                                              \
    });                                                                                 \
  }

MXC_DEFINE_CUDA_SOFTMAX_KERNELS(float, f32)
MXC_DEFINE_CUDA_SOFTMAX_KERNELS(double, f64)

/// Pooling's forward, with the gradient kernel's arguments (GPU only: the
/// CPU's pooling is generated code).
#define MXC_DEFINE_CUDA_POOLING_FORWARD_KERNEL(T, suffix)                               \
  MXC_KERNEL_EXPORT void mxc_cuda_kernel_pooling_forward_##suffix(                       \
      MXC_KERNEL_BUFFER(const T, x), MXC_KERNEL_BUFFER(T, y), MXC_CUDA_POOLING_ARGS) {  \
    reportingErrors("pooling", [&] {                                                    \
      poolingForward<T>(x + x_offset, y + y_offset, MXC_CUDA_POOLING_GEOMETRY(T));      \
    });                                                                                 \
  }

MXC_DEFINE_CUDA_POOLING_FORWARD_KERNEL(float, f32)
MXC_DEFINE_CUDA_POOLING_FORWARD_KERNEL(double, f64)
