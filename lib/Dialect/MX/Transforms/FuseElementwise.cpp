//===- FuseElementwise.cpp - MXFuseElementwisePass (skeleton) -----------------------------------===//
#include "mxc/Dialect/MX/Transforms/Passes.h"
#include "mxc/Dialect/MX/IR/MXOps.h"

namespace mxc::mx {
#define GEN_PASS_DEF_MXFUSEELEMENTWISEPASS
#include "mxc/Dialect/MX/Transforms/Passes.h.inc"
} // namespace mxc::mx

using namespace mlir;

namespace {
struct MXFuseElementwisePass : mxc::mx::impl::MXFuseElementwisePassBase<MXFuseElementwisePass> {
  using Base::Base;
  void runOnOperation() override {}
};
} // namespace
