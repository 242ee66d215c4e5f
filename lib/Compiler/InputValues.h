//===- InputValues.h - the values mxc run gives a graph's inputs -*- C++
//-*-===//
//
// Internal to lib/Compiler (RunCommand.cpp): buffers for inputs and outputs,
// element access by dtype, and the documented choice of each input's value
// (InputValues.cpp).
//
//===----------------------------------------------------------------------===//
#ifndef MXC_LIB_COMPILER_INPUTVALUES_H
#define MXC_LIB_COMPILER_INPUTVALUES_H

#include "mxc/Compiler/JIT.h"
#include "mxc/Graph/Graph.h"

#include "llvm/ADT/ArrayRef.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace mxc::driver {

/// A 64-byte aligned byte buffer.
struct Buffer {
  explicit Buffer(size_t size)
      : data(static_cast<uint8_t *>(std::aligned_alloc(
            64, std::max<size_t>(64, (size + 63) / 64 * 64)))),
        size(size) {
    std::memset(data, 0, size);
  }
  ~Buffer() { std::free(data); }
  Buffer(const Buffer &) = delete;
  Buffer &operator=(const Buffer &) = delete;
  uint8_t *data;
  size_t size;
};

/// Writes element `i` of a `dtype` array from a double.
void storeElement(graph::DType dtype, uint8_t *data, int64_t i, double v);

/// Reads element `i` of a `dtype` array as a double.
double loadElement(graph::DType dtype, const uint8_t *data, int64_t i);

/// "(2, 3) float32".
std::string describe(const TensorSpec &spec);

/// One buffer per input of `sig`, in order, holding its value (see
/// InputValues.cpp): the file `inputFiles` names for it (input name ->
/// .npy path), else the `params` array of that name, else ones, zeros or
/// the seed for training-step inputs, else seeded random numbers. With
/// `verbose`, one line per input on stderr says which. Prints an error and
/// returns the exit code when a file does not match; kOk otherwise.
int makeInputValues(const EntrySignature &sig,
                    const std::map<std::string, std::string> &inputFiles,
                    llvm::ArrayRef<graph::NDArrayData> params, uint64_t seed,
                    bool verbose,
                    std::vector<std::unique_ptr<Buffer>> &buffers,
                    llvm::StringRef paramsFile = "", bool allowMissing = true);

} // namespace mxc::driver

#endif // MXC_LIB_COMPILER_INPUTVALUES_H
