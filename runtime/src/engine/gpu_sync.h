// gpu_sync.h - how the threaded engine orders GPU operations that run on
// different streams without waiting for the device after each (MXNet 1.x's
// engine: OnStartGPU / OnCompleteGPU and a CUDA event per operation, kept on
// the variables it read and wrote).
//
// A GPU operation (a user operation pushed on a gpu(i) device) runs on one of
// the engine's GPU workers, each with its own stream per device. Before the
// operation, its worker's stream is made to wait (on the device, not on the
// host) for the events of the last write of every variable it reads, and of
// the last write and the later reads of every variable it writes. The
// operation then leaves its stream running (a stream batch: cuda::synchronize
// returns at once), and when it is done the worker records an event on the
// stream and hands it to the variables: the engine marks the writes done at
// once, and the next operation on another stream waits for the event on the
// device. Whatever needs the data on the host waits for the event there:
// waitForVar, waitForAll (every stream), and an operation that runs on the
// CPU (a CPU operation reading a GPU array's variable, deleting a variable
// whose memory goes back to a pool).
//
// The engine itself knows nothing of CUDA: the CUDA runtime
// (cuda/cuda_device.cc) registers its implementation when it loads; a runtime
// without it never runs an operation on a GPU. MXC_ENGINE_GPU_EVENTS=0 (or
// EngineOptions::gpuEvents) goes back to synchronous GPU operations (each
// waits for its stream before its writes are marked done).
//
// Plain C++17: nothing here may include LLVM, MLIR or CUDA.
#ifndef MXC_RUNTIME_ENGINE_GPU_SYNC_H
#define MXC_RUNTIME_ENGINE_GPU_SYNC_H

#include <memory>
#include <string>

namespace mxc::runtime::detail {

/// The point the streams an operation used had reached when it was done (a
/// CUDA event per stream). Shared by the variables the operation read or
/// wrote; freed with the last of them.
class GpuEvent {
public:
  explicit GpuEvent(std::string opName) : opName_(std::move(opName)) {}
  virtual ~GpuEvent() = default;
  /// Blocks the calling thread until the device has passed the point;
  /// returns "" or what the device reported (a kernel's fault shows here).
  virtual std::string hostWait() const = 0;
  /// Whether passing this point implies passing `earlier` (recorded before
  /// it on every stream `earlier` is on).
  virtual bool covers(const GpuEvent &earlier) const = 0;
  /// The operation that recorded it (errors name it).
  const std::string &opName() const { return opName_; }

private:
  std::string opName_;
};
using GpuEventPtr = std::shared_ptr<const GpuEvent>;

/// What the CUDA runtime gives the engine.
class GpuStreamSync {
public:
  virtual ~GpuStreamSync() = default;
  /// Opens a stream batch on the calling thread: the GPU work it starts is
  /// left running (cuda::synchronize and the generated steps' stream
  /// synchronisation return at once).
  virtual void begin() = 0;
  /// Makes the calling thread's stream on gpu(device) wait, on the device,
  /// for `event` (nothing for the part of it recorded on that very stream).
  /// Throws on a driver failure.
  virtual void streamWait(int device, const GpuEvent &event) = 0;
  /// Closes the batch begin() opened. With `hostComplete`, waits for every
  /// stream the batch used and returns null; otherwise records an event on
  /// each of them and on the thread's stream on gpu(device), named `opName`.
  /// Throws what the device reports (the batch is closed either way).
  virtual GpuEventPtr end(int device, bool hostComplete, const std::string &opName) = 0;
  /// Waits for every stream of every thread; "" or what the device reported.
  virtual std::string synchronizeAll() = 0;
};

/// The registered implementation, or null (no CUDA in this runtime).
GpuStreamSync *gpuStreamSync();
/// Registers it (the CUDA runtime, when it loads).
void setGpuStreamSync(GpuStreamSync *sync);

} // namespace mxc::runtime::detail

#endif // MXC_RUNTIME_ENGINE_GPU_SYNC_H
