// cudnn_kernels.cc - the convolution kernel of the CUDA target:
// `mxc_cuda_kernel_conv_{f32,f64}`, with the argument list of its CPU twin
// (kernels.h: NCDHW with groups, zero padding, stride, dilation, optional
// bias), on device pointers, through cuDNN 9's legacy convolution API
// (still shipped; the graph API is future work). cuDNN is loaded at first
// use with dlopen ("libcudnn.so.9"), like the driver. Descriptors, the
// algorithm (cuDNN's heuristics: the first that fits 1 GiB of workspace) and
// the workspace are cached per thread and geometry; the call runs on the
// thread's stream of the device and returns with it synchronised. f32 uses
// CUDNN_FMA_MATH (no TF32, MXNet's default f32 semantics) unless
// MXC_CUDA_ALLOW_TF32=1. Failures are reported with mxcKernelReportError.
#include "internal.h"

#include "../kernels/kernels.h"
#include "mxc/runtime/c_api.h"
#include "mxc/runtime/cuda.h"
#include "mxc/runtime/error.h"
#include "mxc/runtime/storage.h"

#include <cudnn.h>

#include <array>
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
  X(cudnnAddTensor)

struct Cudnn {
#define MXC_CUDNN_MEMBER(name) decltype(&::name) name = nullptr;
  MXC_CUDNN_FUNCTIONS(MXC_CUDNN_MEMBER)
#undef MXC_CUDNN_MEMBER
  std::string error;
};

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

cudnnHandle_t handle(int device) {
  thread_local std::map<int, cudnnHandle_t> handles;
  auto it = handles.find(device);
  if (it != handles.end())
    return it->second;
  const Cudnn &c = cudnn();
  bindDevice(device);
  cudnnHandle_t h = nullptr;
  checkDnn(c.cudnnCreate(&h), "cudnnCreate");
  checkDnn(c.cudnnSetStream(h, reinterpret_cast<cudaStream_t>(streamOf(device))),
           "cudnnSetStream");
  handles[device] = h;
  return h;
}

/// The geometry of one convolution (the kernel's int64 arguments) and its
/// element size: the key of the per-thread plan cache.
using Geometry = std::array<int64_t, 25>;

struct ConvPlan {
  cudnnTensorDescriptor_t x = nullptr, y = nullptr, bias = nullptr;
  cudnnFilterDescriptor_t w = nullptr;
  cudnnConvolutionDescriptor_t conv = nullptr;
  cudnnConvolutionFwdAlgo_t algo{};
  size_t workspace = 0;
};

/// The calling thread's workspace on the device, grown as needed.
void *workspace(int device, size_t bytes) {
  thread_local std::map<int, Storage> blocks;
  Storage &s = blocks[device];
  if (s.data && s.size >= bytes)
    return s.data;
  StorageManager &m = storageManager(Device::gpu(device));
  m.release(s);
  s = m.allocate(bytes);
  return s.data;
}

template <typename T>
const ConvPlan &plan(cudnnHandle_t h, const Geometry &g) {
  thread_local std::map<Geometry, ConvPlan> plans;
  auto it = plans.find(g);
  if (it != plans.end())
    return it->second;
  const Cudnn &c = cudnn();
  auto [size, batch, channels, filters, groups, hasBias, inD, inH, inW, kD, kH, kW, outD, outH,
        outW, sD, sH, sW, pD, pH, pW, dD, dH, dW, unused] = g;
  (void)size, (void)hasBias, (void)unused;
  cudnnDataType_t type = sizeof(T) == 4 ? CUDNN_DATA_FLOAT : CUDNN_DATA_DOUBLE;
  // 2-D convolutions as 4-D tensors (cuDNN's fast paths), the rest as 5-D.
  bool twoD = inD == 1 && kD == 1 && outD == 1 && pD == 0;
  int nb = twoD ? 4 : 5;
  auto dims = [&](int64_t n, int64_t ch, int64_t d, int64_t hh, int64_t w) {
    std::array<int, 5> v = {int(n), int(ch), int(d), int(hh), int(w)};
    if (twoD)
      v = {int(n), int(ch), int(hh), int(w), 1};
    return v;
  };
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
  cudnnConvolutionFwdAlgoPerf_t perf[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
  int found = 0;
  checkDnn(c.cudnnGetConvolutionForwardAlgorithm_v7(h, p.x, p.w, p.conv, p.y,
                                                    CUDNN_CONVOLUTION_FWD_ALGO_COUNT, &found,
                                                    perf),
           "cudnnGetConvolutionForwardAlgorithm_v7");
  bool chosen = false;
  for (int i = 0; i < found && !chosen; ++i)
    if (perf[i].status == CUDNN_STATUS_SUCCESS && perf[i].memory <= (size_t(1) << 30) &&
        (tf32 || sizeof(T) != 4 || perf[i].mathType != CUDNN_TENSOR_OP_MATH)) {
      p.algo = perf[i].algo;
      chosen = true;
    }
  if (!chosen)
    throw Error("cuDNN has no forward algorithm for this convolution");
  checkDnn(c.cudnnGetConvolutionForwardWorkspaceSize(h, p.x, p.w, p.conv, p.y, p.algo,
                                                     &p.workspace),
           "cudnnGetConvolutionForwardWorkspaceSize");
  return plans[g] = p;
}

template <typename T>
void convolution(const T *x, const T *w, const T *bias, T *y, const Geometry &g) {
  int device = mgpuCurrentDevice();
  cudnnHandle_t h = handle(device);
  const ConvPlan &p = plan<T>(h, g);
  void *ws = p.workspace ? workspace(device, p.workspace) : nullptr;
  const Cudnn &c = cudnn();
  T one = 1, zero = 0;
  checkDnn(c.cudnnConvolutionForward(h, &one, p.x, x, p.w, w, p.conv, p.algo, ws, p.workspace,
                                     &zero, p.y, y),
           "cudnnConvolutionForward");
  if (g[5]) // has_bias
    checkDnn(c.cudnnAddTensor(h, &one, p.bias, bias, &one, p.y, y), "cudnnAddTensor");
  synchronize(device);
}

} // namespace

#define MXC_DEFINE_CUDA_CONV_KERNEL(T, suffix)                                         \
  MXC_KERNEL_EXPORT void mxc_cuda_kernel_conv_##suffix(                                \
      MXC_KERNEL_BUFFER(const T, x), MXC_KERNEL_BUFFER(const T, w),                    \
      MXC_KERNEL_BUFFER(const T, bias), MXC_KERNEL_BUFFER(T, y), int64_t batch,        \
      int64_t channels, int64_t filters, int64_t groups, int64_t has_bias, int64_t in_d, \
      int64_t in_h, int64_t in_w, int64_t k_d, int64_t k_h, int64_t k_w, int64_t out_d, \
      int64_t out_h, int64_t out_w, int64_t stride_d, int64_t stride_h, int64_t stride_w, \
      int64_t pad_d, int64_t pad_h, int64_t pad_w, int64_t dilate_d, int64_t dilate_h,  \
      int64_t dilate_w) {                                                              \
    try {                                                                              \
      Geometry g = {int64_t(sizeof(T)), batch, channels, filters, groups, has_bias,    \
                    in_d, in_h, in_w, k_d, k_h, k_w, out_d, out_h, out_w, stride_d,    \
                    stride_h, stride_w, pad_d, pad_h, pad_w, dilate_d, dilate_h,       \
                    dilate_w, 0};                                                      \
      convolution<T>(x + x_offset, w + w_offset, bias + bias_offset, y + y_offset, g); \
    } catch (const std::exception &e) {                                                \
      mxcKernelReportError((std::string("convolution on the GPU: ") + e.what()).c_str()); \
    }                                                                                  \
  }

MXC_DEFINE_CUDA_CONV_KERNEL(float, f32)
MXC_DEFINE_CUDA_CONV_KERNEL(double, f64)
