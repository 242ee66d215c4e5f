/* plan_test.c - runs the plan of `mxc compile --emit plan` on the runtime's
 * plan executor (mxc/runtime/c_api.h), with the compiled object's kernel
 * table `mxc_main_kernels` (one kernel per step; mxc/runtime/compiled_module.h)
 * (test/python/test_aot.py builds it from plan_test.c + the object +
 * libmxc_runtime.so).
 *
 *   plan_test PLAN MANIFEST
 *
 * MANIFEST lines: "arg FILE DTYPE NDIM D0 D1 ..." for every plan argument in
 * order (raw little-endian bytes in FILE), then "out FILE DTYPE NDIM D0 ..."
 * for output 0, which is written to FILE. Prints "plan_test: ok".
 */
#include "mxc/runtime/c_api.h"
#include "mxc/runtime/compiled_module.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const mxc_kernel_entry mxc_main_kernels[];
extern const int64_t mxc_main_num_kernels;

static size_t dtypeSize(int dtype) {
  switch (dtype) {
  case 0: case 4: return 4;
  case 1: case 6: return 8;
  case 2: case 12: return 2;
  default: return 1;
  }
}

static int check(MXCStatus st, const char *what) {
  if (st != MXC_OK) {
    fprintf(stderr, "plan_test: %s: %s\n", what, mxcGetLastError());
    exit(1);
  }
  return 0;
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: plan_test PLAN MANIFEST\n");
    return 2;
  }
  FILE *f = fopen(argv[1], "rb");
  if (!f) {
    perror(argv[1]);
    return 1;
  }
  static char text[1 << 20];
  size_t len = fread(text, 1, sizeof text, f);
  fclose(f);
  MXCPlanHandle plan;
  check(mxcPlanLoad(text, len, &plan), "mxcPlanLoad");
  int numArgs = 0, numOutputs = 0;
  check(mxcPlanGetNumArguments(plan, &numArgs), "arguments");
  check(mxcPlanGetNumOutputs(plan, &numOutputs), "outputs");

  int numKernels = (int)mxc_main_num_kernels;
  const char **symbols = calloc((size_t)numKernels, sizeof *symbols);
  MXCKernelFn *kernels = calloc((size_t)numKernels, sizeof *kernels);
  for (int k = 0; k < numKernels; ++k) {
    symbols[k] = mxc_main_kernels[k].symbol;
    kernels[k] = mxc_main_kernels[k].fn;
  }
  MXCExecutorHandle exec;
  check(mxcExecutorCreate(plan, symbols, kernels, numKernels, &exec),
        "executor");

  FILE *m = fopen(argv[2], "r");
  if (!m) {
    perror(argv[2]);
    return 1;
  }
  MXCNDArrayHandle *args = calloc((size_t)numArgs, sizeof *args);
  char kind[8], path[4096], outPath[4096] = "";
  int dtype, ndim, n = 0;
  int64_t outShape[32];
  int outNdim = 0, outDtype = 0;
  while (fscanf(m, "%7s %4095s %d %d", kind, path, &dtype, &ndim) == 4) {
    int64_t shape[32];
    size_t bytes = dtypeSize(dtype);
    for (int d = 0; d < ndim; ++d) {
      long long v;
      if (fscanf(m, "%lld", &v) != 1)
        return 1;
      shape[d] = v;
      bytes *= (size_t)v;
    }
    if (strcmp(kind, "out") == 0) {
      strcpy(outPath, path);
      memcpy(outShape, shape, sizeof shape);
      outNdim = ndim;
      outDtype = dtype;
      continue;
    }
    if (n >= numArgs) {
      fprintf(stderr, "plan_test: more arguments than the plan's %d\n",
              numArgs);
      return 1;
    }
    void *data = malloc(bytes ? bytes : 1);
    FILE *a = fopen(path, "rb");
    if (!a || fread(data, 1, bytes, a) != bytes) {
      fprintf(stderr, "plan_test: %s: cannot read %zu bytes\n", path, bytes);
      return 1;
    }
    fclose(a);
    check(mxcNDArrayCreate(shape, ndim, dtype, 1, 0, &args[n]), "create");
    check(mxcNDArrayCopyFromHost(args[n], data, bytes), "copy in");
    free(data);
    ++n;
  }
  fclose(m);
  if (n != numArgs || !outPath[0]) {
    fprintf(stderr, "plan_test: manifest has %d arguments, plan %d\n", n,
            numArgs);
    return 1;
  }
  check(mxcExecutorBind(exec, args, numArgs, NULL, 0), "bind");
  check(mxcExecutorRun(exec), "run");
  MXCNDArrayHandle out;
  check(mxcExecutorGetOutput(exec, 0, &out), "output");
  size_t outBytes = dtypeSize(outDtype);
  for (int d = 0; d < outNdim; ++d)
    outBytes *= (size_t)outShape[d];
  void *y = malloc(outBytes);
  check(mxcNDArrayCopyToHost(out, y, outBytes), "copy out");
  FILE *o = fopen(outPath, "wb");
  if (!o || fwrite(y, 1, outBytes, o) != outBytes)
    return 1;
  fclose(o);
  mxcNDArrayFree(out);
  for (int i = 0; i < numArgs; ++i)
    mxcNDArrayFree(args[i]);
  mxcExecutorFree(exec);
  mxcPlanFree(plan);
  free(args);
  free(y);
  printf("plan_test: ok (%d arguments, %d outputs)\n", numArgs, numOutputs);
  return 0;
}
