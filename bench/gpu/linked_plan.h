// linked_plan.h - what the GPU benchmarks (elementwise_bandwidth.cc,
// train_step.cc) share: the model object linked into them (`mxc compile
// --target cuda --emit obj`: its descriptor, plan and kernels), its plan
// parsed and an executor of it, once gpu(0) is known to be there.
#ifndef MXC_BENCH_GPU_LINKED_PLAN_H
#define MXC_BENCH_GPU_LINKED_PLAN_H

#include "mxc/runtime/compiled_module.h"
#include "mxc/runtime/cuda.h"
#include "mxc/runtime/plan.h"

#include <memory>
#include <stdexcept>

extern "C" const mxc_model_desc mxc_model_descriptor;

namespace mxc_bench {

struct LinkedPlan {
  mxc::runtime::KernelTable kernels;
  mxc::runtime::Plan plan;
  std::unique_ptr<mxc::runtime::Executor> executor; ///< of `plan` and `kernels`
};

/// The linked model's plan and an executor of it; throws (with the reason)
/// where gpu(0) is not available or the plan does not parse.
inline std::unique_ptr<LinkedPlan> loadLinkedPlan() {
  namespace rt = mxc::runtime;
  rt::cuda::requireDevice(0);
  const mxc_model_desc &d = mxc_model_descriptor;
  auto linked = std::make_unique<LinkedPlan>(
      LinkedPlan{rt::KernelTable(d.kernels, size_t(d.num_kernels)), rt::Plan(), nullptr});
  rt::PlanError err;
  std::optional<rt::Plan> plan = rt::Plan::parse(d.plan, &err, &linked->kernels);
  if (!plan)
    throw std::runtime_error("plan: " + err.str());
  linked->plan = std::move(*plan);
  linked->executor = std::make_unique<rt::Executor>(linked->plan, linked->kernels);
  return linked;
}

} // namespace mxc_bench

#endif // MXC_BENCH_GPU_LINKED_PLAN_H
