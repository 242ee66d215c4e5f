// device.h - devices the runtime knows (MXNet's Context).
//
// Plain C++17: nothing here may include LLVM or MLIR.
#ifndef MXC_RUNTIME_DEVICE_H
#define MXC_RUNTIME_DEVICE_H

#include "mxc/runtime/api.h"

#include <cstdint>
#include <optional>
#include <string>

namespace mxc::runtime {

/// A device: a kind and an ordinal, as MXNet's `mx.cpu(0)` / `mx.gpu(1)`.
/// The numeric kinds match MXNet's dev_type values stored in `.params` files.
struct MXC_RUNTIME_API Device {
  enum class Kind : int32_t { CPU = 1, GPU = 2, CPUPinned = 3, CPUShared = 5 };
  Kind kind = Kind::CPU;
  int32_t id = 0;

  static Device cpu(int32_t id = 0) { return {Kind::CPU, id}; }
  static Device gpu(int32_t id = 0) { return {Kind::GPU, id}; }

  /// Memory the host reads and writes directly (cpu, cpu_pinned,
  /// cpu_shared): CPU code runs on it; only gpu(i) memory is the device's.
  bool isHost() const { return kind != Kind::GPU; }

  bool operator==(const Device &o) const { return kind == o.kind && id == o.id; }
  bool operator!=(const Device &o) const { return !(*this == o); }

  /// "cpu(0)", "gpu(1)", "cpu_pinned(0)", "cpu_shared(0)".
  std::string str() const;
  /// Parses the spelling of str(); nullopt for anything else.
  static std::optional<Device> parse(const std::string &text);
  /// A device named on a command line (`mxc run --device`, a compiled
  /// model's --device): "cpu", "gpu" (gpu(0)), "gpu:N", or str()'s
  /// spelling; nullopt for anything else.
  static std::optional<Device> fromOption(const std::string &text);
};

} // namespace mxc::runtime

#endif // MXC_RUNTIME_DEVICE_H
