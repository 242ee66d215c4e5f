//===- StridedCopiesToLinalg.cpp - mxc-strided-copies-to-linalg -----------===//
//
// memref.copy between non-contiguous memrefs as linalg.copy (loops LLVM
// vectorizes) instead of the runner utils' element-by-element memrefCopy.
// See the pass description in Passes.td.
//
//===----------------------------------------------------------------------===//
#include "mxc/Compiler/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"

namespace mxc {
#define GEN_PASS_DEF_STRIDEDCOPIESTOLINALGPASS
#include "mxc/Compiler/Transforms/Passes.h.inc"
} // namespace mxc

using namespace mlir;

namespace {

struct StridedCopiesToLinalgPass
    : mxc::impl::StridedCopiesToLinalgPassBase<StridedCopiesToLinalgPass> {
  using StridedCopiesToLinalgPassBase::StridedCopiesToLinalgPassBase;
  void runOnOperation() override {
    SmallVector<memref::CopyOp> copies;
    getOperation().walk([&](memref::CopyOp copy) {
      auto src = cast<MemRefType>(copy.getSource().getType());
      auto dst = cast<MemRefType>(copy.getTarget().getType());
      if (all || !src.getLayout().isIdentity() || !dst.getLayout().isIdentity())
        copies.push_back(copy);
    });
    for (memref::CopyOp copy : copies) {
      OpBuilder b(copy);
      linalg::CopyOp::create(b, copy.getLoc(), copy.getSource(),
                             copy.getTarget());
      copy.erase();
    }
  }
};

} // namespace
