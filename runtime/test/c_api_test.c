/* c_api_test.c - the runtime's C API from C11: arrays, a plan with C
 * kernels, a failing kernel, error messages. Exits non-zero on failure. */
#include "mxc/runtime/c_api.h"

#include <stdio.h>
#include <string.h>

static int failures = 0;

#define CHECK(cond)                                                            \
  do {                                                                         \
    if (!(cond)) {                                                             \
      fprintf(stderr, "%s:%d: CHECK failed: %s (last error: %s)\n", __FILE__,  \
              __LINE__, #cond, mxcGetLastError());                             \
      ++failures;                                                              \
    }                                                                          \
  } while (0)

/* y = 2 * x over 4 floats. */
static void scale2(void **buffers) {
  const float *x = (const float *)buffers[0];
  float *y = (float *)buffers[1];
  for (int i = 0; i < 4; ++i)
    y[i] = 2.0f * x[i];
}

/* z = x + y over 4 floats. */
static void add(void **buffers) {
  const float *x = (const float *)buffers[0];
  const float *y = (const float *)buffers[1];
  float *z = (float *)buffers[2];
  for (int i = 0; i < 4; ++i)
    z[i] = x[i] + y[i];
}

static void fails(void **buffers) {
  (void)buffers;
  mxcKernelReportError("negative input");
}

static const char *kPlan = "mxc-plan 1\n"
                           "arena 16\n"
                           "buffer x argument 0 float32 (4,)\n"
                           "buffer y output 0 float32 (4,)\n"
                           "buffer t arena 0 16 float32 (4,)\n"
                           "step twice scale2 cpu(0) reads x writes t\n"
                           "step plus add cpu(0) reads t x writes y\n";

static void testArrays(void) {
  int64_t shape[2] = {2, 3};
  MXCNDArrayHandle a = NULL, b = NULL;
  CHECK(mxcNDArrayCreate(shape, 2, 0, 1, 0, &a) == MXC_OK);
  CHECK(mxcNDArrayCreate(shape, 2, 0, 1, 0, &b) == MXC_OK);
  int ndim = 0, dtype = -1, kind = 0, id = -1;
  const int64_t *dims = NULL;
  CHECK(mxcNDArrayGetShape(a, &ndim, &dims) == MXC_OK);
  CHECK(ndim == 2 && dims[0] == 2 && dims[1] == 3);
  CHECK(mxcNDArrayGetDType(a, &dtype) == MXC_OK && dtype == 0);
  CHECK(mxcNDArrayGetDevice(a, &kind, &id) == MXC_OK && kind == 1 && id == 0);
  float in[6] = {1, 2, 3, 4, 5, 6}, out[6] = {0};
  CHECK(mxcNDArrayCopyFromHost(a, in, sizeof in) == MXC_OK);
  CHECK(mxcNDArrayCopyTo(a, b) == MXC_OK);
  CHECK(mxcNDArrayWaitToRead(b) == MXC_OK);
  CHECK(mxcNDArrayCopyToHost(b, out, sizeof out) == MXC_OK);
  CHECK(memcmp(in, out, sizeof in) == 0);
  void *data = NULL;
  CHECK(mxcNDArrayWaitToWrite(b) == MXC_OK);
  CHECK(mxcNDArrayGetData(b, &data) == MXC_OK && data != NULL);
  CHECK(((float *)data)[5] == 6.0f);
  /* Errors are status codes with a message. */
  CHECK(mxcNDArrayCopyToHost(b, out, 5) == MXC_ERROR_INVALID_ARGUMENT);
  CHECK(strstr(mxcGetLastError(), "5 bytes given") != NULL);
  CHECK(mxcNDArrayCreate(shape, 2, 9, 1, 0, &a) == MXC_ERROR_INVALID_ARGUMENT);
  CHECK(strcmp(mxcGetLastError(), "unknown dtype flag 9") == 0);
  CHECK(mxcNDArrayGetShape(NULL, &ndim, &dims) == MXC_ERROR_INVALID_ARGUMENT);
  CHECK(mxcNDArrayFree(a) == MXC_OK);
  CHECK(mxcNDArrayFree(b) == MXC_OK);
  CHECK(mxcNDArrayFree(NULL) == MXC_OK);
}

static void testPlan(void) {
  MXCPlanHandle plan = NULL;
  CHECK(mxcPlanLoad(kPlan, strlen(kPlan), &plan) == MXC_OK);
  int n = -1;
  CHECK(mxcPlanGetNumArguments(plan, &n) == MXC_OK && n == 1);
  CHECK(mxcPlanGetNumOutputs(plan, &n) == MXC_OK && n == 1);

  const char *symbols[2] = {"scale2", "add"};
  MXCKernelFn kernels[2] = {scale2, add};
  MXCExecutorHandle exec = NULL;
  CHECK(mxcExecutorCreate(plan, symbols, kernels, 2, &exec) == MXC_OK);
  CHECK(mxcPlanFree(plan) == MXC_OK); /* the executor keeps its own copy */

  int64_t shape[1] = {4};
  MXCNDArrayHandle x = NULL, y = NULL;
  CHECK(mxcNDArrayCreate(shape, 1, 0, 1, 0, &x) == MXC_OK);
  float in[4] = {1, 2, 3, 4}, out[4] = {0};
  CHECK(mxcNDArrayCopyFromHost(x, in, sizeof in) == MXC_OK);
  CHECK(mxcExecutorBind(exec, &x, 1, NULL, 0) == MXC_OK);
  CHECK(mxcNDArrayFree(x) == MXC_OK); /* the executor holds a reference */
  CHECK(mxcExecutorRun(exec) == MXC_OK);
  CHECK(mxcExecutorGetOutput(exec, 0, &y) == MXC_OK);
  CHECK(mxcNDArrayCopyToHost(y, out, sizeof out) == MXC_OK);
  CHECK(out[0] == 3 && out[1] == 6 && out[2] == 9 && out[3] == 12);
  CHECK(mxcNDArrayFree(y) == MXC_OK);
  CHECK(mxcExecutorGetOutput(exec, 1, &y) == MXC_ERROR_INVALID_ARGUMENT);
  CHECK(mxcExecutorFree(exec) == MXC_OK);
  CHECK(mxcEngineWaitAll() == MXC_OK);
}

static void testBadPlanAndFailingKernel(void) {
  MXCPlanHandle plan = NULL;
  const char *bad = "mxc-plan 1\nbuffer x heap 0 float32 (4,)\n";
  CHECK(mxcPlanLoad(bad, strlen(bad), &plan) == MXC_ERROR_INVALID_PLAN);
  CHECK(strcmp(mxcGetLastError(),
               "line 2: unknown buffer kind 'heap' (expected argument, output "
               "or arena)") == 0);
  CHECK(mxcPlanLoad(kPlan, strlen(kPlan), &plan) == MXC_OK);

  /* A kernel table without 'add'. */
  const char *one[1] = {"scale2"};
  MXCKernelFn oneFn[1] = {scale2};
  MXCExecutorHandle exec = NULL;
  CHECK(mxcExecutorCreate(plan, one, oneFn, 1, &exec) ==
        MXC_ERROR_INVALID_PLAN);
  CHECK(strcmp(mxcGetLastError(), "line 7: step 'plus': kernel 'add' is not "
                                  "in the kernel table") == 0);

  /* 'scale2' replaced by a kernel that fails. */
  const char *symbols[2] = {"scale2", "add"};
  MXCKernelFn kernels[2] = {fails, add};
  CHECK(mxcExecutorCreate(plan, symbols, kernels, 2, &exec) == MXC_OK);
  int64_t shape[1] = {4};
  MXCNDArrayHandle x = NULL;
  CHECK(mxcNDArrayCreate(shape, 1, 0, 1, 0, &x) == MXC_OK);
  float in[4] = {1, 2, 3, 4};
  CHECK(mxcNDArrayCopyFromHost(x, in, sizeof in) == MXC_OK);
  CHECK(mxcExecutorBind(exec, &x, 1, NULL, 0) == MXC_OK);
  CHECK(mxcExecutorRun(exec) == MXC_ERROR_OPERATION_FAILED);
  CHECK(strcmp(mxcGetLastError(),
               "step 'twice' (kernel 'scale2') failed: negative input") == 0);
  /* run() raised the failure: waitall does not raise it again (one failure
     is reported once, as in MXNet; docs/runtime.md "Errors"). */
  CHECK(mxcEngineWaitAll() == MXC_OK);
  CHECK(mxcNDArrayFree(x) == MXC_OK);
  CHECK(mxcExecutorFree(exec) == MXC_OK);
  CHECK(mxcPlanFree(plan) == MXC_OK);
}

int main(void) {
  testArrays();
  testPlan();
  testBadPlanAndFailingKernel();
  if (failures) {
    fprintf(stderr, "%d check(s) failed\n", failures);
    return 1;
  }
  printf("c_api_test: all checks passed\n");
  return 0;
}
