//===- Params.h - MXNet .params files ---------------------------*- C++ -*-===//
//
// Reads and writes MXNet's NDArray list files (`.params`): magic 0x112, then
// the arrays (V1, V2, V3 or legacy records), then their names ("arg:fc1_weight",
// "aux:bn_moving_mean", or bare). docs/formats.md has the byte layout.
//
//===----------------------------------------------------------------------===//
#ifndef MXC_GRAPH_PARAMS_H
#define MXC_GRAPH_PARAMS_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mxc::graph {

/// MXNet's type flags (mshadow), as stored in the files.
enum class DType : int32_t {
  Float32 = 0, Float64 = 1, Float16 = 2, UInt8 = 3, Int32 = 4, Int8 = 5,
  Int64 = 6, Bool = 7, BFloat16 = 12,
};
/// Size in bytes of one element; 0 for an unknown flag.
size_t dtypeSize(DType t);
/// MXNet's name ("float32", "bfloat16", "bool"); "" for an unknown flag.
llvm::StringRef dtypeName(DType t);
/// Parses MXNet's name.
std::optional<DType> parseDType(llvm::StringRef name);

/// The on-disk record format of one array.
enum class RecordVersion { Legacy, V1, V2, V3 };

struct NDArrayData {
  std::string name;            ///< as stored: "arg:fc1_weight", "fc1_weight"
  DType dtype = DType::Float32;
  std::vector<int64_t> shape;
  std::vector<uint8_t> bytes;  ///< little-endian, row-major
  RecordVersion version = RecordVersion::V2;
  int32_t devType = 1, devId = 0; ///< context as stored (1 = cpu)

  /// Name without an "arg:" / "aux:" prefix.
  llvm::StringRef bareName() const;
  bool isAux() const { return llvm::StringRef(name).starts_with("aux:"); }
  int64_t numElements() const;
};

/// Parses a `.params` file image. Errors give the byte offset and the record
/// at fault ("offset 1234: record 3 ('arg:fc1_weight'): data runs past the end
/// of the file"); sparse records are "not supported".
llvm::Expected<std::vector<NDArrayData>> readParams(llvm::StringRef bytes);
llvm::Expected<std::vector<NDArrayData>> readParamsFile(llvm::StringRef path);

/// Writes a `.params` image; each array is written in its own `version`
/// (MXNet 1.9 writes V2 for arrays with a shape and V3 under numpy semantics).
std::string writeParams(const std::vector<NDArrayData> &arrays);
llvm::Error writeParamsFile(llvm::StringRef path,
                            const std::vector<NDArrayData> &arrays);

} // namespace mxc::graph

#endif // MXC_GRAPH_PARAMS_H
