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
#include <optional>
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
  /// The stored ndim was -1 (V1/V3: shape unknown); `shape` is then empty.
  bool unknownNDim = false;

  /// MXNet's "none" array, stored as its shape alone (no context, dtype or
  /// data follow): ndim 0 in Legacy/V1/V2 records (V3 ndim 0 is a scalar),
  /// ndim -1, or (V3) a dimension of -1.
  bool isNone() const;

  /// Name without an "arg:" / "aux:" prefix.
  llvm::StringRef bareName() const;
  bool isAux() const { return llvm::StringRef(name).starts_with("aux:"); }
  /// Product of the dimensions (1 for a V3 scalar); 0 for a none array.
  int64_t numElements() const;
};

/// Parses a `.params` file image. Errors give the byte offset and the record
/// at fault ("offset 1234: record 3: data runs past the end of the file");
/// the record's name is given where it is known (names come after the
/// records: a sparse record is skipped, then reported with its name,
/// "offset 16: record 0 ('arg:w'): sparse storage (row_sparse) is not
/// supported"). Sizes are checked against the bytes left before anything is
/// allocated.
llvm::Expected<std::vector<NDArrayData>> readParams(llvm::StringRef bytes);
llvm::Expected<std::vector<NDArrayData>> readParamsFile(llvm::StringRef path);

/// Writes a `.params` image; each array is written in its own `version`
/// (MXNet 1.9 writes V2 for arrays with a shape and V3 under numpy semantics),
/// byte for byte as MXNet does. The names list is written empty when every
/// name is empty (as `mx.nd.save` of a list). `bytes` is written as given: it
/// should hold numElements() * dtypeSize(dtype) bytes (see checkArray).
std::string writeParams(const std::vector<NDArrayData> &arrays);
llvm::Error writeParamsFile(llvm::StringRef path,
                            const std::vector<NDArrayData> &arrays);
/// Checks that an array can be written as its `version` says: a known dtype,
/// no negative dimension (but V3's unknown -1), `bytes` of the right size,
/// dimensions that fit 32 bits in Legacy records. writeParamsFile checks
/// every array with it.
llvm::Error checkArray(const NDArrayData &array);

} // namespace mxc::graph

#endif // MXC_GRAPH_PARAMS_H
