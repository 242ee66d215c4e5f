//===- Autodiff.cpp - MXAutodiffPass (skeleton) -----------------------------------===//
#include "mxc/Dialect/MX/Transforms/Passes.h"
#include "mxc/Dialect/MX/IR/MXOps.h"

namespace mxc::mx {
#define GEN_PASS_DEF_MXAUTODIFFPASS
#include "mxc/Dialect/MX/Transforms/Passes.h.inc"
} // namespace mxc::mx

using namespace mlir;

namespace {
struct MXAutodiffPass : mxc::mx::impl::MXAutodiffPassBase<MXAutodiffPass> {
  using Base::Base;
  void runOnOperation() override {}
};
} // namespace
