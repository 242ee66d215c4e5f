/* c_api_demo.c - the mxc runtime's C API (mxc/runtime/c_api.h) from C11,
 * built against an installed mxc (find_package(mxc), target mxc::runtime):
 * arrays, and a plan of two steps with C kernels run by the executor on the
 * dependency engine:  y = 2x + x. Exits non-zero on any failure. */
#include "mxc/runtime/c_api.h"

#include <stdio.h>
#include <string.h>

#define N 8

#define CHECK(call)                                                            \
  do {                                                                         \
    if ((call) != MXC_OK) {                                                    \
      fprintf(stderr, "c_api_demo: %s failed: %s\n", #call, mxcGetLastError()); \
      return 1;                                                                \
    }                                                                          \
  } while (0)

/* Kernel ABI: the step's reads, then its writes. */
static void twice(void **buffers) {
  const float *x = (const float *)buffers[0];
  float *t = (float *)buffers[1];
  for (int i = 0; i < N; ++i)
    t[i] = 2.0f * x[i];
}

static void add(void **buffers) {
  const float *t = (const float *)buffers[0];
  const float *x = (const float *)buffers[1];
  float *y = (float *)buffers[2];
  for (int i = 0; i < N; ++i)
    y[i] = t[i] + x[i];
}

static const char kPlan[] = "mxc-plan 1\n"
                            "arena 32\n"
                            "buffer x argument 0 float32 (8,)\n"
                            "buffer y output 0 float32 (8,)\n"
                            "buffer t arena 0 32 float32 (8,)\n"
                            "step twice k_twice cpu(0) reads x writes t\n"
                            "step plus k_add cpu(0) reads t x writes y\n";

int main(void) {
  int version = mxcRuntimeVersion();
  printf("c_api_demo: runtime version %d\n", version);
#ifdef MXC_PACKAGE_VERSION_NUMBER
  if (version != MXC_PACKAGE_VERSION_NUMBER) {
    fprintf(stderr, "c_api_demo: the library says %d, the CMake package %d\n",
            version, MXC_PACKAGE_VERSION_NUMBER);
    return 1;
  }
#endif

  int64_t shape[1] = {N};
  MXCNDArrayHandle x = NULL, y = NULL;
  CHECK(mxcNDArrayCreate(shape, 1, /*float32*/ 0, /*cpu*/ 1, 0, &x));
  CHECK(mxcNDArrayCreate(shape, 1, 0, 1, 0, &y));
  float in[N], out[N];
  for (int i = 0; i < N; ++i)
    in[i] = (float)i - 3.0f;
  CHECK(mxcNDArrayCopyFromHost(x, in, sizeof in));

  MXCPlanHandle plan = NULL;
  CHECK(mxcPlanLoad(kPlan, sizeof kPlan - 1, &plan));
  const char *symbols[2] = {"k_twice", "k_add"};
  const MXCKernelFn kernels[2] = {twice, add};
  MXCExecutorHandle exec = NULL;
  CHECK(mxcExecutorCreate(plan, symbols, kernels, 2, &exec));
  CHECK(mxcPlanFree(plan));
  CHECK(mxcExecutorBind(exec, &x, 1, &y, 1));
  CHECK(mxcExecutorRun(exec));
  CHECK(mxcNDArrayCopyToHost(y, out, sizeof out));
  for (int i = 0; i < N; ++i) {
    if (out[i] != 3.0f * in[i]) {
      fprintf(stderr, "c_api_demo: y[%d] = %g, expected %g\n", i, out[i],
              3.0f * in[i]);
      return 1;
    }
  }

  /* Errors are status codes with a message, never a crash. */
  if (mxcPlanLoad("mxc-plan 9\n", 11, &plan) != MXC_ERROR_INVALID_PLAN) {
    fprintf(stderr, "c_api_demo: a version 9 plan was accepted\n");
    return 1;
  }
  printf("c_api_demo: expected error: %s\n", mxcGetLastError());

  CHECK(mxcExecutorFree(exec));
  CHECK(mxcNDArrayFree(x));
  CHECK(mxcNDArrayFree(y));
  CHECK(mxcEngineWaitAll());
  printf("c_api_demo: OK: y = 2x + x over %d elements, y[%d] = %g\n", N, N - 1,
         out[N - 1]);
  return 0;
}
