// c_api.cc - C API entry points; every one catches all exceptions.
#include "mxc/runtime/c_api.h"
#include "mxc/runtime/device.h"

#include <exception>
#include <string>

namespace {
thread_local std::string lastError;

// Records `msg` as this thread's last error and returns `status`.
MXCStatus fail(MXCStatus status, std::string msg) {
  lastError = std::move(msg);
  return status;
}
} // namespace

extern "C" {

int mxcRuntimeVersion(void) { return 100; /* 0.1.0 */ }

const char *mxcGetLastError(void) { return lastError.c_str(); }

MXCStatus mxcDeviceParse(const char *text, int *kind, int *id) {
  try {
    if (!text || !kind || !id)
      return fail(MXC_ERROR_INVALID_ARGUMENT, "mxcDeviceParse: null argument");
    auto dev = mxc::runtime::Device::parse(text);
    if (!dev)
      return fail(MXC_ERROR_INVALID_ARGUMENT,
                  std::string("not a device: '") + text + "'");
    *kind = static_cast<int>(dev->kind);
    *id = dev->id;
    return MXC_OK;
  } catch (const std::exception &e) {
    return fail(MXC_ERROR_INTERNAL, e.what());
  } catch (...) {
    return fail(MXC_ERROR_INTERNAL, "unknown exception");
  }
}

} // extern "C"
