//===- Prune.cpp - MXPrunePass (skeleton) -----------------------------------===//
#include "mxc/Dialect/MX/Transforms/Passes.h"
#include "mxc/Dialect/MX/IR/MXOps.h"

namespace mxc::mx {
#define GEN_PASS_DEF_MXPRUNEPASS
#include "mxc/Dialect/MX/Transforms/Passes.h.inc"
} // namespace mxc::mx

using namespace mlir;

namespace {
struct MXPrunePass : mxc::mx::impl::MXPrunePassBase<MXPrunePass> {
  using Base::Base;
  void runOnOperation() override {}
};
} // namespace
