// c_api.cc - C API entry points; every one catches all exceptions.
#include "mxc/runtime/c_api.h"
#include "mxc/runtime/device.h"
#include "mxc/runtime/error.h"
#include "mxc/runtime/ndarray.h"
#include "mxc/runtime/plan.h"
#include "mxc/runtime/profiler.h"

#include <exception>
#include <memory>
#include <new>
#include <string>
#include <string_view>

using namespace mxc::runtime;

struct MXCNDArray {
  NDArray array;
};
struct MXCPlan {
  Plan plan;
};
struct MXCExecutor {
  std::unique_ptr<Executor> exec;
};

namespace {
thread_local std::string lastError;

// Records `msg` as this thread's last error and returns `status`.
MXCStatus fail(MXCStatus status, std::string msg) {
  lastError = std::move(msg);
  return status;
}

// Runs `body` (which returns a status) and turns any exception into a status
// and message.
template <typename Body> MXCStatus guarded(Body &&body) {
  try {
    return body();
  } catch (const OperationError &e) {
    return fail(MXC_ERROR_OPERATION_FAILED, e.what());
  } catch (const OutOfMemoryError &e) {
    return fail(MXC_ERROR_OUT_OF_MEMORY, e.what());
  } catch (const Error &e) {
    return fail(MXC_ERROR_INVALID_ARGUMENT, e.what());
  } catch (const std::bad_alloc &) {
    return fail(MXC_ERROR_OUT_OF_MEMORY, "out of host memory");
  } catch (const std::exception &e) {
    return fail(MXC_ERROR_INTERNAL, e.what());
  } catch (...) {
    return fail(MXC_ERROR_INTERNAL, "unknown exception");
  }
}

MXCStatus nullArgument(const char *fn) {
  return fail(MXC_ERROR_INVALID_ARGUMENT, std::string(fn) + ": null argument");
}

// The device of a (kind, id) pair, or Error.
Device deviceOf(int kind, int id) {
  for (Device::Kind k : {Device::Kind::CPU, Device::Kind::GPU,
                         Device::Kind::CPUPinned, Device::Kind::CPUShared})
    if (static_cast<int>(k) == kind && id >= 0)
      return Device{k, id};
  throw Error("bad device: kind " + std::to_string(kind) + ", id " +
              std::to_string(id));
}
} // namespace

extern "C" {

int mxcRuntimeVersion(void) { return 100; /* 0.1.0 */ }

const char *mxcGetLastError(void) { return lastError.c_str(); }

MXCStatus mxcDeviceParse(const char *text, int *kind, int *id) {
  return guarded([&] {
    if (!text || !kind || !id)
      return fail(MXC_ERROR_INVALID_ARGUMENT, "mxcDeviceParse: null argument");
    auto dev = Device::parse(text);
    if (!dev)
      return fail(MXC_ERROR_INVALID_ARGUMENT,
                  std::string("not a device: '") + text + "'");
    *kind = static_cast<int>(dev->kind);
    *id = dev->id;
    return MXC_OK;
  });
}

// ---- NDArray ---------------------------------------------------------------

MXCStatus mxcNDArrayCreate(const int64_t *shape, int ndim, int dtype,
                           int dev_kind, int dev_id, MXCNDArrayHandle *out) {
  return guarded([&] {
    if (!out || (ndim > 0 && !shape) || ndim < 0)
      return nullArgument("mxcNDArrayCreate");
    auto type = dtypeFromFlag(dtype);
    if (!type)
      return fail(MXC_ERROR_INVALID_ARGUMENT,
                  "unknown dtype flag " + std::to_string(dtype));
    Shape s(shape, shape + ndim);
    auto h = std::make_unique<MXCNDArray>();
    h->array = NDArray(std::move(s), *type, deviceOf(dev_kind, dev_id));
    *out = h.release();
    return MXC_OK;
  });
}

MXCStatus mxcNDArrayFree(MXCNDArrayHandle array) {
  return guarded([&] {
    delete array;
    return MXC_OK;
  });
}

MXCStatus mxcNDArrayGetShape(MXCNDArrayHandle array, int *ndim,
                             const int64_t **shape) {
  return guarded([&] {
    if (!array || !ndim || !shape)
      return nullArgument("mxcNDArrayGetShape");
    *ndim = static_cast<int>(array->array.shape().size());
    *shape = array->array.shape().data();
    return MXC_OK;
  });
}

MXCStatus mxcNDArrayGetDType(MXCNDArrayHandle array, int *dtype) {
  return guarded([&] {
    if (!array || !dtype)
      return nullArgument("mxcNDArrayGetDType");
    *dtype = static_cast<int>(array->array.dtype());
    return MXC_OK;
  });
}

MXCStatus mxcNDArrayGetDevice(MXCNDArrayHandle array, int *dev_kind,
                              int *dev_id) {
  return guarded([&] {
    if (!array || !dev_kind || !dev_id)
      return nullArgument("mxcNDArrayGetDevice");
    Device d = array->array.device();
    *dev_kind = static_cast<int>(d.kind);
    *dev_id = d.id;
    return MXC_OK;
  });
}

MXCStatus mxcNDArrayGetData(MXCNDArrayHandle array, void **data) {
  return guarded([&] {
    if (!array || !data)
      return nullArgument("mxcNDArrayGetData");
    *data = array->array.data();
    return MXC_OK;
  });
}

MXCStatus mxcNDArrayCopyFromHost(MXCNDArrayHandle array, const void *src,
                                 size_t bytes) {
  return guarded([&] {
    if (!array || (!src && bytes))
      return nullArgument("mxcNDArrayCopyFromHost");
    array->array.copyFromHost(src, bytes);
    return MXC_OK;
  });
}

MXCStatus mxcNDArrayCopyToHost(MXCNDArrayHandle array, void *dst,
                               size_t bytes) {
  return guarded([&] {
    if (!array || (!dst && bytes))
      return nullArgument("mxcNDArrayCopyToHost");
    array->array.copyToHost(dst, bytes);
    return MXC_OK;
  });
}

MXCStatus mxcNDArrayCopyTo(MXCNDArrayHandle src, MXCNDArrayHandle dst) {
  return guarded([&] {
    if (!src || !dst)
      return nullArgument("mxcNDArrayCopyTo");
    src->array.copyTo(dst->array);
    return MXC_OK;
  });
}

MXCStatus mxcNDArrayWaitToRead(MXCNDArrayHandle array) {
  return guarded([&] {
    if (!array)
      return nullArgument("mxcNDArrayWaitToRead");
    array->array.waitToRead();
    return MXC_OK;
  });
}

MXCStatus mxcNDArrayWaitToWrite(MXCNDArrayHandle array) {
  return guarded([&] {
    if (!array)
      return nullArgument("mxcNDArrayWaitToWrite");
    array->array.waitToWrite();
    return MXC_OK;
  });
}

// ---- Plans and executors ---------------------------------------------------

MXCStatus mxcPlanLoad(const char *text, size_t len, MXCPlanHandle *out) {
  return guarded([&] {
    if (!out || (!text && len))
      return nullArgument("mxcPlanLoad");
    PlanError err;
    auto plan = Plan::parse(std::string_view(text ? text : "", len), &err);
    if (!plan)
      return fail(MXC_ERROR_INVALID_PLAN, err.str());
    *out = new MXCPlan{std::move(*plan)};
    return MXC_OK;
  });
}

MXCStatus mxcPlanFree(MXCPlanHandle plan) {
  return guarded([&] {
    delete plan;
    return MXC_OK;
  });
}

MXCStatus mxcPlanGetNumArguments(MXCPlanHandle plan, int *n) {
  return guarded([&] {
    if (!plan || !n)
      return nullArgument("mxcPlanGetNumArguments");
    *n = static_cast<int>(plan->plan.numArguments());
    return MXC_OK;
  });
}

MXCStatus mxcPlanGetNumOutputs(MXCPlanHandle plan, int *n) {
  return guarded([&] {
    if (!plan || !n)
      return nullArgument("mxcPlanGetNumOutputs");
    *n = static_cast<int>(plan->plan.numOutputs());
    return MXC_OK;
  });
}

MXCStatus mxcExecutorCreate(MXCPlanHandle plan, const char *const *symbols,
                            const MXCKernelFn *kernels, int num_kernels,
                            MXCExecutorHandle *out) {
  return guarded([&] {
    if (!plan || !out || num_kernels < 0 ||
        (num_kernels > 0 && (!symbols || !kernels)))
      return nullArgument("mxcExecutorCreate");
    KernelTable table;
    for (int i = 0; i < num_kernels; ++i) {
      if (!symbols[i] || !kernels[i])
        return fail(MXC_ERROR_INVALID_ARGUMENT,
                    "mxcExecutorCreate: kernel " + std::to_string(i) +
                        " has a null symbol or function");
      table.add(symbols[i], kernels[i]);
    }
    if (auto err = plan->plan.checkKernels(table))
      return fail(MXC_ERROR_INVALID_PLAN, err->str());
    auto h = std::make_unique<MXCExecutor>();
    h->exec = std::make_unique<Executor>(plan->plan, std::move(table));
    *out = h.release();
    return MXC_OK;
  });
}

MXCStatus mxcExecutorBind(MXCExecutorHandle exec, const MXCNDArrayHandle *args,
                          int num_args, const MXCNDArrayHandle *outputs,
                          int num_outputs) {
  return guarded([&] {
    if (!exec || num_args < 0 || (num_args > 0 && !args) ||
        (outputs && num_outputs < 0))
      return nullArgument("mxcExecutorBind");
    std::vector<NDArray> a, o;
    for (int i = 0; i < num_args; ++i) {
      if (!args[i])
        return fail(MXC_ERROR_INVALID_ARGUMENT,
                    "mxcExecutorBind: argument " + std::to_string(i) +
                        " is null");
      a.push_back(args[i]->array);
    }
    for (int i = 0; outputs && i < num_outputs; ++i) {
      if (!outputs[i])
        return fail(MXC_ERROR_INVALID_ARGUMENT,
                    "mxcExecutorBind: output " + std::to_string(i) +
                        " is null");
      o.push_back(outputs[i]->array);
    }
    if (outputs && o.size() != exec->exec->plan().numOutputs())
      return fail(MXC_ERROR_INVALID_ARGUMENT,
                  "mxcExecutorBind: the plan has " +
                      std::to_string(exec->exec->plan().numOutputs()) +
                      " outputs, " + std::to_string(o.size()) + " given");
    exec->exec->bind(a, o);
    return MXC_OK;
  });
}

MXCStatus mxcExecutorRun(MXCExecutorHandle exec) {
  return guarded([&] {
    if (!exec)
      return nullArgument("mxcExecutorRun");
    exec->exec->run();
    return MXC_OK;
  });
}

MXCStatus mxcExecutorGetOutput(MXCExecutorHandle exec, int i,
                               MXCNDArrayHandle *out) {
  return guarded([&] {
    if (!exec || !out)
      return nullArgument("mxcExecutorGetOutput");
    if (i < 0)
      return fail(MXC_ERROR_INVALID_ARGUMENT,
                  "mxcExecutorGetOutput: negative index");
    const NDArray &o = exec->exec->output(static_cast<size_t>(i));
    if (o.isNone())
      return fail(MXC_ERROR_INVALID_ARGUMENT,
                  "mxcExecutorGetOutput: output " + std::to_string(i) +
                      " is neither bound nor computed yet");
    *out = new MXCNDArray{o};
    return MXC_OK;
  });
}

MXCStatus mxcExecutorFree(MXCExecutorHandle exec) {
  return guarded([&] {
    delete exec;
    return MXC_OK;
  });
}

void mxcKernelReportError(const char *message) {
  try {
    reportKernelError(message ? message : "kernel failed");
  } catch (...) {
    // Out of memory while copying the message: nothing more can be said.
  }
}

MXCStatus mxcEngineWaitAll(void) {
  return guarded([&] {
    if (auto err = defaultEngine().waitForAll())
      return fail(MXC_ERROR_OPERATION_FAILED, err->str());
    return MXC_OK;
  });
}

MXCStatus mxcProfilerSetConfig(int num_params, const char *const *keys,
                               const char *const *vals) {
  return guarded([&] {
    if (num_params < 0 || (num_params > 0 && (!keys || !vals)))
      return nullArgument("mxcProfilerSetConfig");
    for (int i = 0; i < num_params; ++i) {
      if (!keys[i] || !vals[i])
        return nullArgument("mxcProfilerSetConfig");
      Profiler::get().setConfig(keys[i], vals[i]);
    }
    return MXC_OK;
  });
}

MXCStatus mxcProfilerSetState(int state) {
  return guarded([&] {
    if (state != 0 && state != 1)
      return fail(MXC_ERROR_INVALID_ARGUMENT,
                  "mxcProfilerSetState: state " + std::to_string(state) +
                      " (want 0 = stop or 1 = run)");
    Profiler::get().setState(state ? Profiler::State::Run : Profiler::State::Stop);
    return MXC_OK;
  });
}

MXCStatus mxcProfilerGetState(int *state) {
  return guarded([&] {
    if (!state)
      return nullArgument("mxcProfilerGetState");
    *state = Profiler::get().state() == Profiler::State::Run ? 1 : 0;
    return MXC_OK;
  });
}

MXCStatus mxcProfilerPause(int paused) {
  return guarded([&] {
    if (paused)
      Profiler::get().pause();
    else
      Profiler::get().resume();
    return MXC_OK;
  });
}

MXCStatus mxcProfilerDump(int finished) {
  return guarded([&] {
    Profiler::get().dump(finished != 0);
    return MXC_OK;
  });
}

MXCStatus mxcProfilerDumps(int reset, const char *format, const char **out) {
  return guarded([&] {
    if (!out)
      return nullArgument("mxcProfilerDumps");
    static thread_local std::string text;
    text = Profiler::get().aggregateStats(reset != 0, format ? format : "table");
    *out = text.c_str();
    return MXC_OK;
  });
}

} // extern "C"
