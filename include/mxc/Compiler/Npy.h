//===- Npy.h - numpy .npy files ---------------------------------*- C++ -*-===//
//
// Reads and writes numpy's .npy format (versions 1.0, 2.0 and 3.0 headers),
// for the dtypes mxc runs: little-endian float32/64/16, int32/64, uint8,
// int8 and bool, C order. Errors are one line without a file name in front
// (the caller adds it).
//
//===----------------------------------------------------------------------===//
#ifndef MXC_COMPILER_NPY_H
#define MXC_COMPILER_NPY_H

#include "mxc/Graph/Params.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mxc {

struct NpyArray {
  graph::DType dtype = graph::DType::Float32;
  std::vector<int64_t> shape;
  std::vector<uint8_t> bytes; ///< little-endian, C order

  int64_t numElements() const;
};

/// Parses a .npy image.
llvm::Expected<NpyArray> readNpy(llvm::StringRef bytes);
/// Reads a .npy file; errors start with the path.
llvm::Expected<NpyArray> readNpyFile(llvm::StringRef path);

/// The .npy image of `array` (version 1.0 header, padded to 64 bytes as
/// numpy does). Fails for dtypes numpy has no name for (bfloat16).
llvm::Expected<std::string> writeNpy(const NpyArray &array);
llvm::Error writeNpyFile(llvm::StringRef path, const NpyArray &array);

/// numpy's descr for a dtype ("<f4", "|b1"), or "" if numpy has none.
llvm::StringRef npyDescr(graph::DType dtype);

/// "(2, 3)", "(5,)", "()": a shape as numpy prints it.
std::string formatShape(llvm::ArrayRef<int64_t> shape);

} // namespace mxc

#endif // MXC_COMPILER_NPY_H
