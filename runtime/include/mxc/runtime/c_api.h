/* c_api.h - the mxc runtime's C API.
 *
 * Used by AOT binaries and language bindings. Every function returns a status
 * code (MXC_OK = 0); on failure the message is available from
 * mxcGetLastError(). No C++ exception crosses this boundary.
 */
#ifndef MXC_RUNTIME_C_API_H
#define MXC_RUNTIME_C_API_H

#include "mxc/runtime/api.h"

#ifdef __cplusplus
extern "C" {
#endif


typedef enum {
  MXC_OK = 0,
  MXC_ERROR_INVALID_ARGUMENT = 1,
  MXC_ERROR_INTERNAL = 2,
} MXCStatus;

/* Runtime version as major*10000 + minor*100 + patch. Never fails. */
MXC_RUNTIME_API int mxcRuntimeVersion(void);

/* The message of the last failed call on this thread; "" if none. The string
 * is owned by the runtime and valid until the next failing call on this
 * thread. */
MXC_RUNTIME_API const char *mxcGetLastError(void);

/* Parses a device spelling ("cpu(0)", "gpu(1)"). On success writes its kind
 * (1 = cpu, 2 = gpu, 3 = cpu_pinned, 5 = cpu_shared) and ordinal. The caller
 * owns all pointers. */
MXC_RUNTIME_API MXCStatus mxcDeviceParse(const char *text, int *kind, int *id);

#ifdef __cplusplus
}
#endif

#endif /* MXC_RUNTIME_C_API_H */
