// ndarray.h - the runtime's array: a shape and dtype viewing a chunk of device
// storage that carries one engine variable. Every operation on an array is an
// engine operation that reads or writes that variable, so array work,
// compiled plans and copies are ordered by the one dependency engine.
//
// Plain C++17: nothing here may include LLVM or MLIR.
#ifndef MXC_RUNTIME_NDARRAY_H
#define MXC_RUNTIME_NDARRAY_H

#include "mxc/runtime/api.h"
#include "mxc/runtime/device.h"
#include "mxc/runtime/dtype.h"
#include "mxc/runtime/engine.h"
#include "mxc/runtime/error.h"
#include "mxc/runtime/storage.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>

namespace mxc::runtime {

/// An n-dimensional array (MXNet's NDArray). A value type: copies of an
/// NDArray, and views made by reshape/slice, share the same chunk (storage
/// and engine variable). The chunk's storage is given back to its
/// StorageManager by an engine operation that writes the variable, so only
/// after every operation pushed on it has finished; then the variable is
/// deleted. Not synchronised: two threads may use different NDArray values
/// (even of one chunk) but not one value at once.
class MXC_RUNTIME_API NDArray {
public:
  /// The none array (isNone()); only assignment and isNone are valid on it.
  NDArray();
  /// A new array of `shape` and `dtype` on `device`, its storage from
  /// storageManager(device); its contents are undefined. `engine` orders its
  /// operations (nullptr: defaultEngine()) and must outlive the array's
  /// pending operations. Throws Error for a negative extent, an unknown
  /// dtype, a device without storage, or no memory.
  NDArray(Shape shape, DType dtype, Device device = Device::cpu(),
          Engine *engine = nullptr);

  /// An array over memory the caller owns: `data` holds at least the
  /// array's bytes, aligned for `dtype`; nothing is copied. The caller keeps
  /// the memory alive (and leaves it to the engine's operations) until the
  /// last view of the array is gone and every operation pushed on it has
  /// finished; then `release`, if given, runs as an engine operation. numpy
  /// interop and the JIT's CompiledGraph::run bind caller buffers this way.
  static NDArray fromExternal(void *data, Shape shape, DType dtype,
                              Device device = Device::cpu(),
                              Engine *engine = nullptr,
                              std::function<void()> release = {});

  bool isNone() const { return chunk_ == nullptr; }
  const Shape &shape() const { return shape_; }
  DType dtype() const { return dtype_; }
  Device device() const;
  int64_t numElements() const;
  size_t numBytes() const;
  /// Address of the first element; valid while any array of the chunk lives.
  /// Reading or writing it directly needs waitToRead / waitToWrite first.
  void *data() const;
  /// The engine variable of the chunk (shared by all its views).
  VarHandle var() const;
  Engine &engine() const;
  /// Whether `other` views the same chunk.
  bool sharesStorageWith(const NDArray &other) const;

  /// A view with the same elements in `shape` (one extent may be -1, then
  /// inferred). Throws Error if the element counts differ.
  NDArray reshape(Shape shape) const;
  /// The view of rows [begin, end) along axis 0. Throws Error for a scalar
  /// or a range outside [0, shape[0]].
  NDArray slice(int64_t begin, int64_t end) const;

  /// Pushes a copy of this array into `dst` (same shape and dtype, any
  /// devices with a registered copier, one engine): an engine operation that
  /// reads this array's variable and writes dst's. Returns at once.
  void copyTo(const NDArray &dst) const;
  /// A new array on `device` and copyTo it. Returns at once.
  NDArray copyTo(Device device) const;

  /// Copies `bytes` (== numBytes()) from host memory `src` into the array
  /// and returns when done (after the writes and reads pushed before).
  /// Throws Error on a size mismatch or a failed copy.
  void copyFromHost(const void *src, size_t bytes) const;
  /// Copies the array into host memory `dst` (`bytes` == numBytes()) after
  /// the writes pushed before; returns when done. Throws Error on a size
  /// mismatch or if an operation that wrote the array failed (its message
  /// names the operation).
  void copyToHost(void *dst, size_t bytes) const;

  /// Sets every element to `pattern`, the element's bytes in its low
  /// dtypeSize(dtype()) bytes (little-endian: 1.0f is 0x3f800000): an engine
  /// operation on the array's device that writes it, after the operations
  /// pushed before; returns at once. On a GPU a memset of the device (no host
  /// buffer, no copy; mx.nd.zeros / ones / full there).
  void fill(uint64_t pattern) const;

  /// Blocks until every write pushed so far on the chunk has finished; throws
  /// Error naming the operation if one failed.
  void waitToRead() const;
  /// Blocks until every read and write pushed so far on the chunk has
  /// finished; throws as waitToRead.
  void waitToWrite() const;

private:
  struct Chunk;
  NDArray(std::shared_ptr<Chunk> chunk, Shape shape, DType dtype,
          size_t offset);
  void requireNotNone(const char *what) const;

  std::shared_ptr<Chunk> chunk_;
  Shape shape_;
  DType dtype_ = DType::F32;
  size_t offset_ = 0; ///< bytes from the chunk's start to element 0
};

/// Copies `bytes` from `src` on `from` to `dst` on `to`; runs inside an
/// engine operation on the device named by the registration.
using CopyFn = std::function<void(const void *src, Device from, void *dst,
                                  Device to, size_t bytes, RunContext ctx)>;

/// Registers (or replaces) how data moves from devices of kind `from` to
/// devices of kind `to`: `fn` runs in an engine operation of property `prop`
/// on the source device (`runOnDestination` false) or the destination. The
/// runtime registers CPU -> CPU (memcpy); the GPU issue adds its own.
MXC_RUNTIME_API void registerCopier(Device::Kind from, Device::Kind to,
                                    CopyFn fn, FnProperty prop,
                                    bool runOnDestination);

/// Sets `bytes` bytes at `dst` on `device` to repetitions of the
/// `width`-byte `pattern` (width 1, 2, 4 or 8; bytes a multiple of it); runs
/// inside an engine operation on the device.
using FillFn = std::function<void(void *dst, Device device, size_t bytes, uint64_t pattern,
                                  unsigned width, RunContext ctx)>;

/// Registers (or replaces) how arrays on devices of `kind` are filled
/// (NDArray::fill). The runtime registers the CPU's; the GPU backend its own.
MXC_RUNTIME_API void registerFiller(Device::Kind kind, FillFn fn);

} // namespace mxc::runtime

#endif // MXC_RUNTIME_NDARRAY_H
