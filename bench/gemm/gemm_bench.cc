//===- gemm_bench.cc - OpenBLAS kernel ABI vs generated GEMM --------------===//
//
// Times, for each GEMM shape, the runtime's mxc_kernel_gemm_f32 (OpenBLAS;
// thread count from OPENBLAS_NUM_THREADS) and, when its library is given, the
// transform-dialect GEMM of gen_codegen.py (`_mlir_ciface_mm_MxNxK`, one
// thread); and the whole Convolution kernel (im2col + GEMM) for a ResNet
// layer. Prints the median and best of --reps runs after warm-up, in
// GFLOP/s; the two GEMMs of a shape run interleaved so that both see the
// same background load.
//
//   gemm_bench [--codegen libgemm_codegen.so] [--reps N]
//
//===----------------------------------------------------------------------===//
#include "kernels.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <random>
#include <string>
#include <vector>

namespace {

struct Desc2 {
  float *allocated, *aligned;
  int64_t offset, sizes[2], strides[2];
};
using CodegenFn = void (*)(Desc2 *, Desc2 *, Desc2 *);

Desc2 desc(std::vector<float> &v, int64_t rows, int64_t cols) {
  return {v.data(), v.data(), 0, {rows, cols}, {cols, 1}};
}

/// Median and best of timed runs.
struct Stats {
  double median, best;
};
Stats stats(std::vector<double> t) {
  std::sort(t.begin(), t.end());
  return {t[t.size() / 2], t.front()};
}
template <typename F> double seconds(F &&f) {
  auto a = std::chrono::steady_clock::now();
  f();
  auto b = std::chrono::steady_clock::now();
  return std::chrono::duration<double>(b - a).count();
}
/// Times `fs` interleaved (run 0 of each, run 1 of each, ...) after two
/// warm-up rounds, so that both see the same background load.
template <typename... F>
std::vector<Stats> timeInterleaved(int reps, F &&...fs) {
  for (int i = 0; i < 2; ++i)
    (fs(), ...);
  std::vector<std::vector<double>> t(sizeof...(fs));
  for (int r = 0; r < reps; ++r) {
    size_t i = 0;
    ((t[i++].push_back(seconds(fs))), ...);
  }
  std::vector<Stats> out;
  for (auto &v : t)
    out.push_back(stats(v));
  return out;
}
void report(const char *what, double flops, Stats s) {
  std::printf("  %-16s: median %6.1f GFLOP/s (%.3f ms), best %6.1f\n", what,
              flops / s.median * 1e-9, s.median * 1e3, flops / s.best * 1e-9);
}

void fill(std::vector<float> &v, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> d(-1.f, 1.f);
  for (float &x : v)
    x = d(rng);
}

// The kernel ABI's buffer arguments for a contiguous vector.
#define BUF(v) (v).data(), (v).data(), 0, int64_t((v).size()), 1

} // namespace

int main(int argc, char **argv) {
  const char *codegenPath = nullptr;
  int reps = 20;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--codegen") && i + 1 < argc)
      codegenPath = argv[++i];
    else if (!std::strcmp(argv[i], "--reps") && i + 1 < argc)
      reps = std::atoi(argv[++i]);
  }
  void *lib = nullptr;
  if (codegenPath && !(lib = dlopen(codegenPath, RTLD_NOW))) {
    std::fprintf(stderr, "cannot load %s: %s\n", codegenPath, dlerror());
    return 1;
  }
  const char *threads = std::getenv("OPENBLAS_NUM_THREADS");
  // The runtime's kernel threads (OpenBLAS itself runs single-threaded:
  // the kernel splits the product on the runtime's pool).
  std::printf("kernel threads (OPENBLAS_NUM_THREADS): %s; median of %d runs\n",
              threads ? threads : "default", reps);

  struct Shape {
    int64_t m, n, k;
    const char *what;
  } shapes[] = {{512, 512, 512, "square"},
                {64, 3136, 576,
                 "ResNet-18 conv2_x 3x3 64->64 @56x56, batch 1 (im2col GEMM)"}};
  for (const Shape &s : shapes) {
    std::vector<float> a(s.m * s.k), b(s.k * s.n), c(s.m * s.n), c2(s.m * s.n);
    fill(a, 1);
    fill(b, 2);
    double flops = 2.0 * s.m * s.n * s.k;
    auto blas = [&] {
      mxc_kernel_gemm_f32(BUF(a), BUF(b), BUF(c), 1, s.m, s.n, s.k, 0, 0);
    };
    std::printf("gemm %lldx%lldx%lld (%s)\n", (long long)s.m, (long long)s.n,
                (long long)s.k, s.what);
    std::string name = "_mlir_ciface_mm_" + std::to_string(s.m) + "x" +
                       std::to_string(s.n) + "x" + std::to_string(s.k);
    auto fn =
        lib ? reinterpret_cast<CodegenFn>(dlsym(lib, name.c_str())) : nullptr;
    if (!fn) {
      report("openblas kernel", flops, timeInterleaved(reps, blas)[0]);
      continue;
    }
    Desc2 da = desc(a, s.m, s.k), db = desc(b, s.k, s.n),
          dc = desc(c2, s.m, s.n);
    // The generated function accumulates: time C = 0 + A B, zeroing included
    // (a memset of C is < 1% of the GEMM at these sizes).
    auto gen = [&] {
      std::fill(c2.begin(), c2.end(), 0.f);
      fn(&da, &db, &dc);
    };
    std::vector<Stats> t = timeInterleaved(reps, blas, gen);
    report("openblas kernel", flops, t[0]);
    report("codegen (1 thr)", flops, t[1]);
    double err = 0, ref = 0;
    for (size_t i = 0; i < c.size(); ++i) {
      err = std::max(err, double(std::fabs(c[i] - c2[i])));
      ref = std::max(ref, double(std::fabs(c[i])));
    }
    std::printf("  max |codegen - openblas| / max |c| = %.1e\n", err / ref);
  }

  // The Convolution kernel on the same ResNet layer: im2col + GEMM + bias.
  {
    const int64_t n = 1, ch = 64, f = 64, h = 56, w = 56;
    std::vector<float> x(n * ch * h * w), wt(f * ch * 9), bias(f),
        y(n * f * h * w);
    fill(x, 3);
    fill(wt, 4);
    fill(bias, 5);
    double flops = 2.0 * f * (h * w) * (ch * 9) * n;
    auto conv = [&] {
      mxc_kernel_conv_f32(BUF(x), BUF(wt), BUF(bias), BUF(y), n, ch, f, 1, 1, 1,
                          h, w, 1, 3, 3, 1, h, w, 1, 1, 1, 0, 1, 1, 1, 1, 1);
    };
    std::printf("conv 3x3 64->64 @56x56 batch 1 (im2col + GEMM + bias)\n");
    report("openblas kernel", flops, timeInterleaved(reps, conv)[0]);
  }
  return 0;
}
