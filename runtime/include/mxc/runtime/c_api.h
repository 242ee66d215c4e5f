/* c_api.h - the mxc runtime's C API.
 *
 * Used by AOT binaries and language bindings. Every function returns a status
 * code (MXC_OK = 0); on failure the message is available from
 * mxcGetLastError(). No C++ exception crosses this boundary.
 */
#ifndef MXC_RUNTIME_C_API_H
#define MXC_RUNTIME_C_API_H

#include "mxc/runtime/api.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  MXC_OK = 0,
  MXC_ERROR_INVALID_ARGUMENT = 1,
  MXC_ERROR_INTERNAL = 2,
  /* The plan text is malformed or invalid; the message starts "line N: ". */
  MXC_ERROR_INVALID_PLAN = 3,
  /* An engine operation (a plan step, a copy) failed; the message names it. */
  MXC_ERROR_OPERATION_FAILED = 4,
  /* A device had no memory for an allocation. */
  MXC_ERROR_OUT_OF_MEMORY = 5,
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

/* ---- Handles ------------------------------------------------------------
 * Every handle is created by one mxc*Create / mxc*Load / mxc*Get call, owned
 * by the caller from then on, and released by the matching mxc*Free (NULL is
 * accepted and ignored). Handles are independent: freeing one never
 * invalidates another (an NDArray handle keeps its storage alive; a freed
 * array's storage is recycled only after the operations pushed on it). All
 * arrays and executors of this API use the process-wide engine (MXC_ENGINE
 * picks naive or threaded). */
typedef struct MXCNDArray *MXCNDArrayHandle;
typedef struct MXCPlan *MXCPlanHandle;
typedef struct MXCExecutor *MXCExecutorHandle;

/* ---- NDArray --------------------------------------------------------------
 * dtype is MXNet's type flag: 0 float32, 1 float64, 2 float16, 3 uint8,
 * 4 int32, 5 int8, 6 int64, 7 bool, 12 bfloat16. dev_kind / dev_id as in
 * mxcDeviceParse. */

/* Creates an array of `ndim` extents `shape` (copied; each >= 0) with
 * undefined contents. On success *out is a new handle the caller owns. */
MXC_RUNTIME_API MXCStatus mxcNDArrayCreate(const int64_t *shape, int ndim,
                                           int dtype, int dev_kind, int dev_id,
                                           MXCNDArrayHandle *out);
/* Releases the handle (storage is reused once pending operations finish). */
MXC_RUNTIME_API MXCStatus mxcNDArrayFree(MXCNDArrayHandle array);
/* *ndim and *shape: the array's rank and extents. *shape points into the
 * handle (owned by it, valid until mxcNDArrayFree). */
MXC_RUNTIME_API MXCStatus mxcNDArrayGetShape(MXCNDArrayHandle array, int *ndim,
                                             const int64_t **shape);
/* *dtype: the array's type flag. */
MXC_RUNTIME_API MXCStatus mxcNDArrayGetDType(MXCNDArrayHandle array, int *dtype);
/* *dev_kind, *dev_id: the array's device. */
MXC_RUNTIME_API MXCStatus mxcNDArrayGetDevice(MXCNDArrayHandle array,
                                              int *dev_kind, int *dev_id);
/* *data: address of the first element, owned by the array (valid until
 * mxcNDArrayFree). Does not wait: call mxcNDArrayWaitToRead (to read) or
 * mxcNDArrayWaitToWrite (to write) first. */
MXC_RUNTIME_API MXCStatus mxcNDArrayGetData(MXCNDArrayHandle array, void **data);
/* Copies `bytes` (must equal the array's size in bytes) from host memory
 * `src` (owned by the caller, read before the call returns) into the array;
 * waits for earlier operations on it and for the copy. */
MXC_RUNTIME_API MXCStatus mxcNDArrayCopyFromHost(MXCNDArrayHandle array,
                                                 const void *src, size_t bytes);
/* Copies the array into host memory `dst` (owned by the caller, `bytes` equal
 * to the array's size) once earlier writes finished; returns when done.
 * MXC_ERROR_OPERATION_FAILED if a write of the array failed. */
MXC_RUNTIME_API MXCStatus mxcNDArrayCopyToHost(MXCNDArrayHandle array,
                                               void *dst, size_t bytes);
/* Pushes a copy of `src` into `dst` (same shape and dtype); returns at once. */
MXC_RUNTIME_API MXCStatus mxcNDArrayCopyTo(MXCNDArrayHandle src,
                                           MXCNDArrayHandle dst);
/* Blocks until pending writes (WaitToRead) or pending reads and writes
 * (WaitToWrite) of the array have finished; MXC_ERROR_OPERATION_FAILED, with
 * the operation's name, if one failed. */
MXC_RUNTIME_API MXCStatus mxcNDArrayWaitToRead(MXCNDArrayHandle array);
MXC_RUNTIME_API MXCStatus mxcNDArrayWaitToWrite(MXCNDArrayHandle array);

/* ---- Plans and executors ------------------------------------------------
 * Plan text: docs/runtime.md, "Plan format". Kernel ABI: a kernel receives
 * the data pointers of its step's reads, then its writes; it reports a
 * failure with mxcKernelReportError. */
typedef void (*MXCKernelFn)(void **buffers);

/* Parses and validates `len` bytes of plan text (`text` is owned by the
 * caller, not kept). On success *out is a new handle the caller owns; on
 * MXC_ERROR_INVALID_PLAN the message is "line N: <what is wrong>". */
MXC_RUNTIME_API MXCStatus mxcPlanLoad(const char *text, size_t len,
                                      MXCPlanHandle *out);
MXC_RUNTIME_API MXCStatus mxcPlanFree(MXCPlanHandle plan);
/* Number of arguments and outputs of the plan. */
MXC_RUNTIME_API MXCStatus mxcPlanGetNumArguments(MXCPlanHandle plan, int *n);
MXC_RUNTIME_API MXCStatus mxcPlanGetNumOutputs(MXCPlanHandle plan, int *n);

/* Creates an executor for `plan` (copied: the plan handle may be freed after)
 * with the kernel table `symbols[i]` -> `kernels[i]`, i < num_kernels (copied;
 * the functions must stay loaded while the executor lives). Every step's
 * kernel must be in the table (else MXC_ERROR_INVALID_PLAN). On success *out
 * is a new handle the caller owns. */
MXC_RUNTIME_API MXCStatus mxcExecutorCreate(MXCPlanHandle plan,
                                            const char *const *symbols,
                                            const MXCKernelFn *kernels,
                                            int num_kernels,
                                            MXCExecutorHandle *out);
/* Binds the plan's arguments (`num_args` must equal the plan's count) and,
 * unless `outputs` is NULL, its outputs. The executor keeps its own
 * references: the caller still owns (and may free) the handles. Arrays must
 * have their plan buffer's shape, dtype and device. */
MXC_RUNTIME_API MXCStatus mxcExecutorBind(MXCExecutorHandle exec,
                                          const MXCNDArrayHandle *args,
                                          int num_args,
                                          const MXCNDArrayHandle *outputs,
                                          int num_outputs);
/* Runs every step and waits; MXC_ERROR_OPERATION_FAILED names the failed
 * step: "step 's' (kernel 'k') failed: <message>". */
MXC_RUNTIME_API MXCStatus mxcExecutorRun(MXCExecutorHandle exec);
/* *out: a new handle (owned by the caller) to output `i`, sharing its
 * storage; valid after a run (or a bind of that output). */
MXC_RUNTIME_API MXCStatus mxcExecutorGetOutput(MXCExecutorHandle exec, int i,
                                               MXCNDArrayHandle *out);
/* Releases the executor; its arena is freed after its pushed steps. */
MXC_RUNTIME_API MXCStatus mxcExecutorFree(MXCExecutorHandle exec);

/* Called by a kernel (on the thread running it) to report that it failed;
 * the executor fails the step with `message` (copied) once the kernel
 * returns. Only the first report of a kernel call counts. Never fails. */
MXC_RUNTIME_API void mxcKernelReportError(const char *message);

/* ---- Engine -------------------------------------------------------------*/
/* Blocks until every operation pushed on the process-wide engine has
 * finished; MXC_ERROR_OPERATION_FAILED with the first failure since the last
 * wait-all. */
MXC_RUNTIME_API MXCStatus mxcEngineWaitAll(void);

/* ---- Profiler -----------------------------------------------------------
 * The process-wide profiler of engine operations (docs/runtime.md,
 * "Profiler"; MXNet's MXSetProcessProfilerConfig / MXSetProcessProfilerState
 * / MXProcessProfilePause / MXDumpProcessProfile / MXAggregateProfileStatsPrint).
 * While it runs, every operation an engine runs becomes one event of a
 * Chrome trace. */

/* Sets `num_params` configuration values keys[i] = vals[i] (strings owned by
 * the caller), spelled as MXNet's profiler.set_config: filename,
 * profile_all, profile_symbolic, profile_imperative (booleans "true" /
 * "false" / "1" / "0"), and profile_memory, profile_api, aggregate_stats,
 * continuous_dump, dump_period, profile_process (accepted, ignored).
 * MXC_ERROR_INVALID_ARGUMENT names an unknown key or a bad value; the values
 * before it are set. */
MXC_RUNTIME_API MXCStatus mxcProfilerSetConfig(int num_params,
                                               const char *const *keys,
                                               const char *const *vals);
/* state: 0 = stop, 1 = run. */
MXC_RUNTIME_API MXCStatus mxcProfilerSetState(int state);
MXC_RUNTIME_API MXCStatus mxcProfilerGetState(int *state);
/* paused: 1 = pause recording, 0 = resume (the state is unchanged). */
MXC_RUNTIME_API MXCStatus mxcProfilerPause(int paused);
/* Writes the trace to the configured file (atomically). finished != 0: the
 * trace is complete and the next dump starts a new one. */
MXC_RUNTIME_API MXCStatus mxcProfilerDump(int finished);
/* *out: aggregate statistics per operation name, `format` "table" or
 * "json" (NULL: "table"); reset != 0 clears them after. The string is owned
 * by the runtime, valid until the next mxcProfilerDumps on this thread. */
MXC_RUNTIME_API MXCStatus mxcProfilerDumps(int reset, const char *format,
                                           const char **out);

#ifdef __cplusplus
}
#endif

#endif /* MXC_RUNTIME_C_API_H */
