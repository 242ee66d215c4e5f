//===- RngSeed.h - the rng_seed argument of a graph -------------*- C++ -*-===//
//
// Random operators in mx graphs (Dropout and rrelu in training, the
// _random_* samplers) draw from the counter-based generator of
// mx.random_uniform / mx.dropout_mask: a pure function of one
// `tensor<1xi64>` argument of the function (mx.kind "rng_seed", set by the
// executor from mx.random's state), a per-node stream and the element index.
// mx-decompose (samplers) and mx-autodiff (Dropout, rrelu) share the
// argument and the stream numbering.
//
//===----------------------------------------------------------------------===//
#ifndef MXC_LIB_DIALECT_MX_TRANSFORMS_RNGSEED_H
#define MXC_LIB_DIALECT_MX_TRANSFORMS_RNGSEED_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/StringRef.h"

#include <string>

namespace mxc::mx {

/// The MXNet node name of `op` (its NameLoc), or "".
inline std::string nodeName(mlir::Operation *op) {
  mlir::Location loc = op->getLoc();
  if (auto name = llvm::dyn_cast<mlir::NameLoc>(loc))
    return name.getName().str();
  if (auto fused = llvm::dyn_cast<mlir::FusedLoc>(loc))
    for (mlir::Location l : fused.getLocations())
      if (auto name = llvm::dyn_cast<mlir::NameLoc>(l))
        return name.getName().str();
  return "";
}

/// FNV-1a of `s`: a node's stream from its name (stable across the
/// inference and training compilations of one graph).
inline uint64_t fnv1a64(llvm::StringRef s) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (char c : s) {
    h ^= uint8_t(c);
    h *= 0x100000001b3ull;
  }
  return h;
}

/// The function's rng_seed argument (mx.kind "rng_seed"), appended (named
/// "rng_seed", or "__rng_seed__" if a variable has that name) when it has
/// none yet.
inline mlir::Value getOrCreateRngSeed(mlir::func::FuncOp func) {
  mlir::MLIRContext *ctx = func.getContext();
  auto kindOf = [&](unsigned i) {
    auto k = func.getArgAttrOfType<mlir::StringAttr>(i, "mx.kind");
    return k ? k.getValue() : llvm::StringRef();
  };
  for (unsigned i = 0; i < func.getNumArguments(); ++i)
    if (kindOf(i) == "rng_seed")
      return func.getArgument(i);
  auto type = mlir::RankedTensorType::get({1}, mlir::IntegerType::get(ctx, 64));
  mlir::Block &block = func.front();
  mlir::Value seed = block.addArgument(type, func.getLoc());
  llvm::SmallVector<mlir::Type> inputs(func.getArgumentTypes());
  inputs.push_back(type);
  func.setType(mlir::FunctionType::get(ctx, inputs, func.getResultTypes()));
  std::string name = "rng_seed";
  for (unsigned i = 0; i + 1 < func.getNumArguments(); ++i)
    if (auto n = func.getArgAttrOfType<mlir::StringAttr>(i, "mx.name");
        n && n.getValue() == name)
      name = "__rng_seed__";
  unsigned idx = func.getNumArguments() - 1;
  func.setArgAttr(idx, "mx.name", mlir::StringAttr::get(ctx, name));
  func.setArgAttr(idx, "mx.kind", mlir::StringAttr::get(ctx, "rng_seed"));
  return seed;
}

} // namespace mxc::mx

#endif // MXC_LIB_DIALECT_MX_TRANSFORMS_RNGSEED_H
