//===- PlanMemory.cpp - MXPlanMemoryPass (skeleton) -----------------------------------===//
#include "mxc/Dialect/MX/Transforms/Passes.h"
#include "mxc/Dialect/MX/IR/MXOps.h"

namespace mxc::mx {
#define GEN_PASS_DEF_MXPLANMEMORYPASS
#include "mxc/Dialect/MX/Transforms/Passes.h.inc"
} // namespace mxc::mx

using namespace mlir;

namespace {
struct MXPlanMemoryPass : mxc::mx::impl::MXPlanMemoryPassBase<MXPlanMemoryPass> {
  using Base::Base;
  void runOnOperation() override {}
};
} // namespace
