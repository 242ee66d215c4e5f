//===- LowerKernelCalls.cpp - mxrt.kernel_call to func.call ---------------===//
//
// After bufferization: each kernel call on memrefs becomes a `func.call` of
// the runtime's C function, every buffer passed as a rank-1
// `memref<?xT, strided<[1], offset: ?>>` (five scalars in the C ABI), then
// the static arguments as i64 (runtime/src/kernels/kernels.h).
//
//===----------------------------------------------------------------------===//
#include "mxc/Dialect/MXRT/IR/MXRTOps.h"
#include "mxc/Dialect/MXRT/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"

#include "llvm/ADT/DenseMap.h"

#include <numeric>

namespace mxc::mxrt {
#define GEN_PASS_DEF_LOWERKERNELCALLSPASS
#include "mxc/Dialect/MXRT/Transforms/Passes.h.inc"
} // namespace mxc::mxrt

using namespace mlir;

namespace {

/// The rank-1 buffer type every kernel takes.
MemRefType kernelBufferType(Type elementType) {
  return MemRefType::get({ShapedType::kDynamic}, elementType,
                         StridedLayoutAttr::get(elementType.getContext(),
                                                ShapedType::kDynamic, {1}));
}

/// `buffer` (statically shaped, contiguous) as a rank-1 kernel buffer.
Value flatten(OpBuilder &b, Location loc, Value buffer) {
  auto type = cast<MemRefType>(buffer.getType());
  if (type.getRank() == 0)
    buffer = memref::ExpandShapeOp::create(b, loc, {1}, buffer,
                                           ArrayRef<ReassociationIndices>{});
  else if (type.getRank() > 1) {
    ReassociationIndices all(type.getRank());
    std::iota(all.begin(), all.end(), 0);
    buffer = memref::CollapseShapeOp::create(
        b, loc, buffer, ArrayRef<ReassociationIndices>{all});
  }
  return memref::CastOp::create(b, loc, kernelBufferType(type.getElementType()),
                                buffer);
}

/// `func.func private @name(types) -> ()` in `module`, created once; an
/// existing declaration must have exactly these argument types.
FailureOr<func::FuncOp> declareKernel(ModuleOp module, Operation *user,
                                      StringRef name, TypeRange types) {
  FunctionType fnType =
      FunctionType::get(module.getContext(), types, TypeRange());
  if (auto f = module.lookupSymbol<func::FuncOp>(name)) {
    if (f.getFunctionType() != fnType)
      return user->emitOpError("callee @")
             << name << " is declared with type " << f.getFunctionType()
             << ", expected " << fnType;
    return f;
  }
  if (module.lookupSymbol(name))
    return user->emitOpError("callee @") << name << " is not a function";
  OpBuilder b(module.getBodyRegion());
  auto f = func::FuncOp::create(b, module.getLoc(), name, fnType);
  f.setPrivate();
  return f;
}

struct LowerKernelCallsPass
    : mxc::mxrt::impl::LowerKernelCallsPassBase<LowerKernelCallsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<mxc::mxrt::KernelCallOp> calls;
    module.walk([&](mxc::mxrt::KernelCallOp op) { calls.push_back(op); });
    for (mxc::mxrt::KernelCallOp op : calls) {
      if (!op.getOutputs().empty()) {
        op.emitOpError("is still on tensors: run after bufferization");
        return signalPassFailure();
      }
      OpBuilder b(op);
      Location loc = op.getLoc();
      SmallVector<Value> args;
      for (Value v : op.getInputs())
        args.push_back(flatten(b, loc, v));
      for (Value v : op.getInits())
        args.push_back(flatten(b, loc, v));
      llvm::SmallDenseMap<int64_t, Value> constants;
      for (int64_t v : op.getStaticArgs()) {
        Value &c = constants[v];
        if (!c)
          c = arith::ConstantIntOp::create(b, loc, v, 64);
        args.push_back(c);
      }
      FailureOr<func::FuncOp> callee = declareKernel(
          module, op, op.getCallee(), ValueRange(args).getTypes());
      if (failed(callee))
        return signalPassFailure();
      func::CallOp::create(b, loc, *callee, args);
      op.erase();
    }
  }
};

} // namespace
