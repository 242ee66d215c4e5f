//===- NodeNames.h - MXNet node names of a location -------------*- C++ -*-===//
//
// Private to the compiler's transforms: ops carry the MXNet node they came
// from as a NameLoc (Import.cpp); steps and diagnostics name them.
//
//===----------------------------------------------------------------------===//
#ifndef MXC_LIB_COMPILER_TRANSFORMS_NODENAMES_H
#define MXC_LIB_COMPILER_TRANSFORMS_NODENAMES_H

#include "mlir/IR/Location.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"

#include <string>

namespace mxc {

/// The MXNet node names a location carries (NameLoc names, in order, once).
inline llvm::SmallVector<std::string> nodeNames(mlir::Location loc) {
  llvm::SmallVector<std::string> names;
  loc->walk([&](mlir::Location l) {
    if (auto n = llvm::dyn_cast<mlir::NameLoc>(l)) {
      std::string s = n.getName().str();
      if (!llvm::is_contained(names, s))
        names.push_back(s);
    }
    return mlir::WalkResult::advance();
  });
  return names;
}

} // namespace mxc

#endif // MXC_LIB_COMPILER_TRANSFORMS_NODENAMES_H
