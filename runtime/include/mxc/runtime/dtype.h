// dtype.h - element types, numbered as MXNet's type flags (mshadow
// kFloat32 = 0, ...), so the numbers in `.params` files and MXNet's C API mean
// the same here.
//
// Plain C++17: nothing here may include LLVM or MLIR.
#ifndef MXC_RUNTIME_DTYPE_H
#define MXC_RUNTIME_DTYPE_H

#include "mxc/runtime/api.h"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace mxc::runtime {

/// Element type; the values are MXNet's type flags.
enum class DType : int32_t {
  F32 = 0,
  F64 = 1,
  F16 = 2,
  U8 = 3,
  I32 = 4,
  I8 = 5,
  I64 = 6,
  Bool = 7,
  BF16 = 12,
};

/// A shape: one extent per axis, each >= 0; `{}` is a scalar (one element).
using Shape = std::vector<int64_t>;

/// Bytes per element (bool is one byte, as in MXNet).
MXC_RUNTIME_API size_t dtypeSize(DType t);
/// MXNet's name: "float32", "float64", "float16", "uint8", "int32", "int8",
/// "int64", "bool", "bfloat16".
MXC_RUNTIME_API const char *dtypeName(DType t);
/// The dtype named `name` (dtypeName's spelling); nullopt otherwise.
MXC_RUNTIME_API std::optional<DType> dtypeFromName(const std::string &name);
/// The dtype with MXNet type flag `flag`; nullopt for unknown flags.
MXC_RUNTIME_API std::optional<DType> dtypeFromFlag(int flag);

/// Number of elements of `shape`; nullopt if an extent is negative or the
/// product overflows int64.
MXC_RUNTIME_API std::optional<int64_t> shapeNumElements(const Shape &shape);
/// Bytes of an array of `shape` and `t`; nullopt as shapeNumElements, or if
/// the byte count overflows int64.
MXC_RUNTIME_API std::optional<int64_t> shapeNumBytes(const Shape &shape, DType t);
/// MXNet's spelling without spaces: "(2,3)", "(5,)", "()".
MXC_RUNTIME_API std::string shapeStr(const Shape &shape);

} // namespace mxc::runtime

#endif // MXC_RUNTIME_DTYPE_H
