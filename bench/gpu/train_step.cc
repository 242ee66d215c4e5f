// train_step.cc - the training benchmark of scripts/gpu-check.sh: a training
// step compiled by `mxc compile --train --weights inputs --target cuda
// --emit obj` (linked into this program: its descriptor, plan and kernels),
// run through the runtime's executor with every input and output on the GPU
// (weights, data and gradients stay there between steps, as in a training
// loop), timed as the median of 7 batches of REPEAT steps after 3 untimed
// ones. A step is forward(is_train=True) + backward; the optimizer's update
// is not in it (bench/gpu/torch_train_step.py times PyTorch the same way).
// Prints the step time and images/s (the batch is the first dimension of the
// input named `data`); exits non-zero if a gradient is not finite.
//
//   train_step [REPEAT]
#include "linked_plan.h"

#include "mxc/runtime/ndarray.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

namespace rt = mxc::runtime;

namespace {
bool endsWith(const std::string &s, const std::string &suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}
} // namespace

int main(int argc, char **argv) {
  int repeat = argc > 1 ? std::atoi(argv[1]) : 3;
  try {
    std::unique_ptr<mxc_bench::LinkedPlan> linked = mxc_bench::loadLinkedPlan();
    const rt::Plan *plan = &linked->plan;
    rt::Executor &exec = *linked->executor;
    rt::Device gpu = rt::Device::gpu(0);
    std::mt19937 gen(3);
    std::normal_distribution<float> normal;
    std::vector<rt::NDArray> args, outs;
    int64_t batch = 0;
    for (size_t i = 0; i < plan->numArguments(); ++i) {
      const rt::PlanBuffer &b = exec.argumentSpec(i);
      if (b.dtype != rt::DType::F32)
        throw std::runtime_error("argument '" + b.name + "' is not float32");
      std::vector<float> h(b.size / sizeof(float));
      // Labels: classes 0..9; head gradients and variances: ones; data:
      // N(0, 1); weights: small N(0, 0.05^2).
      for (size_t j = 0; j < h.size(); ++j)
        h[j] = endsWith(b.name, "_label")                                  ? float(j % 10)
               : endsWith(b.name, "_grad") || endsWith(b.name, "_moving_var") ? 1.0f
               : b.name == "data"                                         ? normal(gen)
                                                                          : 0.05f * normal(gen);
      if (b.name == "data" && !b.shape.empty())
        batch = b.shape[0];
      args.emplace_back(b.shape, b.dtype, gpu);
      args.back().copyFromHost(h.data(), b.size);
    }
    for (size_t i = 0; i < plan->numOutputs(); ++i) {
      const rt::PlanBuffer &b = exec.outputSpec(i);
      outs.emplace_back(b.shape, b.dtype, gpu);
    }
    exec.bind(args, outs);
    for (int w = 0; w < 3; ++w)
      exec.run();
    // Every output (the heads and the gradients) finite after the warm-up.
    for (size_t i = 0; i < outs.size(); ++i) {
      std::vector<float> h(outs[i].numBytes() / sizeof(float));
      outs[i].copyToHost(h.data(), outs[i].numBytes());
      for (float v : h)
        if (!std::isfinite(v)) {
          std::fprintf(stderr, "output '%s' is not finite\n", exec.outputSpec(i).name.c_str());
          return 1;
        }
    }
    std::vector<double> times;
    for (int b = 0; b < 7; ++b) {
      auto t0 = std::chrono::steady_clock::now();
      for (int r = 0; r < repeat; ++r)
        exec.run();
      auto t1 = std::chrono::steady_clock::now();
      times.push_back(std::chrono::duration<double>(t1 - t0).count() / repeat);
    }
    std::sort(times.begin(), times.end());
    double step = times[times.size() / 2];
    std::printf("gpu(0): %s\n", rt::cuda::deviceName(0).c_str());
    std::printf("mxc training step (forward + backward, %zu plan steps), batch %lld: "
                "median %.2f ms (min %.2f, max %.2f), %.0f images/s\n",
                plan->steps.size(), (long long)batch, step * 1e3, times.front() * 1e3,
                times.back() * 1e3, double(batch) / step);
  } catch (const std::exception &e) {
    std::fprintf(stderr, "train_step: %s\n", e.what());
    return 1;
  }
  return 0;
}
