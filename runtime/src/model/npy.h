//===- npy.h - .npy files for compiled model executables -------*- C++ -*-===//
//
// NumPy's .npy format (versions 1-3), plain C++17: little-endian, C-order
// arrays of the dtypes mxc_model.h lists (bfloat16 has no .npy spelling).
//
//===----------------------------------------------------------------------===//
#ifndef MXC_RUNTIME_SRC_MODEL_NPY_H
#define MXC_RUNTIME_SRC_MODEL_NPY_H

#include <cstdint>
#include <string>
#include <vector>

namespace mxc::aot {

struct NpyArray {
  int dtype = 0; ///< mxc_model_dtype
  std::vector<int64_t> shape;
  std::vector<uint8_t> bytes;
};

/// Element size of an mxc_model_dtype; 0 if unknown.
size_t dtypeSize(int dtype);
/// MXNet's name of an mxc_model_dtype ("float32").
const char *dtypeName(int dtype);
/// "(1,3,224,224)"
std::string formatShape(const int64_t *shape, size_t ndim);

/// Reads `path`; on failure returns false and sets `error` (one line).
bool readNpy(const std::string &path, NpyArray &out, std::string &error);
/// Writes a version 1.0 file.
bool writeNpy(const std::string &path, int dtype, const int64_t *shape,
              size_t ndim, const void *data, size_t nbytes,
              std::string &error);

} // namespace mxc::aot

#endif // MXC_RUNTIME_SRC_MODEL_NPY_H
