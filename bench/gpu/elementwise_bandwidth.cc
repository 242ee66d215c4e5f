// elementwise_bandwidth.cc - the GPU benchmark of scripts/gpu-check.sh: a
// fused elementwise kernel compiled by `mxc compile --target cuda --emit obj`
// (linked into this program: its descriptor, plan and kernels) against a
// device-to-device copy of the same arrays, both run through the runtime's
// executor / NDArray on the engine, timed as the median of 7 batches of
// REPEAT runs. Both are timed the same way: REPEAT operations pushed, then
// one wait for the array they write (the engine orders them on the device
// by CUDA events, so they run back to back, as a training loop's kernels
// do); the kernel is also timed through Executor::run(), which waits for the
// device after each run (a host round trip between kernels; what the
// benchmark measured until 2026-12-07, against pipelined copies). Prints one
// line per case and the ratio of the pipelined kernel to the copy; exits
// non-zero if the kernel's output is wrong.
//
//   elementwise_bandwidth [REPEAT]
#include "linked_plan.h"

#include "mxc/runtime/ndarray.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

namespace rt = mxc::runtime;

namespace {
double seconds(std::chrono::steady_clock::time_point a, std::chrono::steady_clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}
} // namespace

int main(int argc, char **argv) {
  int repeat = argc > 1 ? std::atoi(argv[1]) : 50;
  try {
    std::unique_ptr<mxc_bench::LinkedPlan> linked = mxc_bench::loadLinkedPlan();
    const rt::Plan *plan = &linked->plan;
    rt::Executor &exec = *linked->executor;
    rt::Device gpu = rt::Device::gpu(0);
    std::mt19937 gen(3);
    std::normal_distribution<float> normal;
    std::vector<std::vector<float>> hostArgs;
    std::vector<rt::NDArray> args, outs;
    size_t bytes = 0;
    for (size_t i = 0; i < plan->numArguments(); ++i) {
      const rt::PlanBuffer &b = exec.argumentSpec(i);
      std::vector<float> h(b.size / sizeof(float));
      for (float &v : h)
        v = normal(gen);
      args.emplace_back(b.shape, b.dtype, gpu);
      args.back().copyFromHost(h.data(), b.size);
      hostArgs.push_back(std::move(h));
      bytes += b.size;
    }
    for (size_t i = 0; i < plan->numOutputs(); ++i) {
      const rt::PlanBuffer &b = exec.outputSpec(i);
      outs.emplace_back(b.shape, b.dtype, gpu);
      bytes += b.size;
    }
    exec.bind(args, outs);
    exec.run(); // warm-up (and the check below)
    // The benchmark's graph: out = relu(x * 0.5 + y).
    if (hostArgs.size() == 2 && outs.size() == 1) {
      std::vector<float> out(hostArgs[0].size());
      outs[0].copyToHost(out.data(), out.size() * sizeof(float));
      for (size_t i = 0; i < out.size(); i += 9973) {
        float want = std::max(0.0f, hostArgs[0][i] * 0.5f + hostArgs[1][i]);
        if (std::fabs(out[i] - want) > 1e-6f * (1 + std::fabs(want))) {
          std::fprintf(stderr, "wrong output at %zu: %g, expected %g\n", i, out[i], want);
          return 1;
        }
      }
    }
    // The median of 7 batches of `repeat` runs each (the machine is shared).
    auto median = [](std::vector<double> v) {
      std::sort(v.begin(), v.end());
      return v[v.size() / 2];
    };
    std::vector<double> kernelTimes, runTimes, copyTimes;
    const rt::NDArray &src = args[0];
    rt::NDArray dst(src.shape(), src.dtype(), gpu);
    src.copyTo(dst);
    dst.waitToRead();
    auto waitForOutputs = [&] {
      for (const rt::NDArray &o : outs)
        o.waitToRead();
    };
    for (int batch = 0; batch < 7; ++batch) {
      auto t0 = std::chrono::steady_clock::now();
      for (int r = 0; r < repeat; ++r)
        exec.push();
      waitForOutputs();
      auto t1 = std::chrono::steady_clock::now();
      kernelTimes.push_back(seconds(t0, t1) / repeat);
      t0 = std::chrono::steady_clock::now();
      for (int r = 0; r < repeat; ++r)
        exec.run();
      t1 = std::chrono::steady_clock::now();
      runTimes.push_back(seconds(t0, t1) / repeat);
      // A device-to-device copy of the first argument (read + write of its
      // bytes), through the same engine path.
      t0 = std::chrono::steady_clock::now();
      for (int r = 0; r < repeat; ++r)
        src.copyTo(dst);
      dst.waitToRead();
      t1 = std::chrono::steady_clock::now();
      copyTimes.push_back(seconds(t0, t1) / repeat);
    }
    double kernelS = median(kernelTimes), runS = median(runTimes), copyS = median(copyTimes);
    double copyBytes = 2.0 * double(src.numBytes());
    double kernelGBs = double(bytes) / kernelS / 1e9, copyGBs = copyBytes / copyS / 1e9;
    std::printf("gpu(0): %s\n", rt::cuda::deviceName(0).c_str());
    std::printf("fused elementwise (%zu steps, %.1f MB moved): %.3f ms, %.0f GB/s\n",
                plan->steps.size(), bytes / 1e6, kernelS * 1e3, kernelGBs);
    std::printf("fused elementwise, Executor::run() waiting after each: %.3f ms, %.0f GB/s "
                "(%.2f of the copy bandwidth)\n",
                runS * 1e3, double(bytes) / runS / 1e9, double(bytes) / runS / 1e9 / copyGBs);
    std::printf("device-to-device copy (%.1f MB moved): %.3f ms, %.0f GB/s\n", copyBytes / 1e6,
                copyS * 1e3, copyGBs);
    std::printf("ratio: %.2f of the copy bandwidth\n", kernelGBs / copyGBs);
  } catch (const std::exception &e) {
    std::fprintf(stderr, "elementwise_bandwidth: %s\n", e.what());
    return 1;
  }
  return 0;
}
