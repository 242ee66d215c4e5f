// c_api_cpp_test.cc - the C API from C++: status codes and messages for
// every kind of failure, no exception crossing, handles independent.
#include "mxc/runtime/c_api.h"

#include <gtest/gtest.h>

#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

void copyKernel(void **b) { std::memcpy(b[1], b[0], 8); }
void throwingKernel(void **) { throw std::logic_error("C++ exception"); }

const std::string kPlan = "mxc-plan 1\n"
                          "buffer x argument 0 int32 (2,)\n"
                          "buffer y output 0 int32 (2,)\n"
                          "step copy k cpu(0) reads x writes y\n";

TEST(CApiNDArray, CreateCopyFree) {
  int64_t shape[] = {2};
  MXCNDArrayHandle a = nullptr, b = nullptr;
  ASSERT_EQ(mxcNDArrayCreate(shape, 1, 4, 1, 0, &a), MXC_OK);
  ASSERT_EQ(mxcNDArrayCreate(shape, 1, 4, 1, 0, &b), MXC_OK);
  int32_t in[] = {7, -7}, out[] = {0, 0};
  EXPECT_EQ(mxcNDArrayCopyFromHost(a, in, 8), MXC_OK);
  EXPECT_EQ(mxcNDArrayCopyTo(a, b), MXC_OK);
  EXPECT_EQ(mxcNDArrayFree(a), MXC_OK); // b's pending copy keeps going
  EXPECT_EQ(mxcNDArrayCopyToHost(b, out, 8), MXC_OK);
  EXPECT_EQ(out[0], 7);
  EXPECT_EQ(out[1], -7);
  EXPECT_EQ(mxcNDArrayFree(b), MXC_OK);
}

TEST(CApiNDArray, ScalarsAndEveryDType) {
  for (int flag : {0, 1, 2, 3, 4, 5, 6, 7, 12}) {
    MXCNDArrayHandle a = nullptr;
    ASSERT_EQ(mxcNDArrayCreate(nullptr, 0, flag, 1, 0, &a), MXC_OK) << flag;
    int ndim = -1, dtype = -1;
    const int64_t *dims = nullptr;
    EXPECT_EQ(mxcNDArrayGetShape(a, &ndim, &dims), MXC_OK);
    EXPECT_EQ(ndim, 0);
    EXPECT_EQ(mxcNDArrayGetDType(a, &dtype), MXC_OK);
    EXPECT_EQ(dtype, flag);
    mxcNDArrayFree(a);
  }
}

TEST(CApiNDArray, BadArgumentsAreStatusCodes) {
  int64_t shape[] = {2, -3};
  MXCNDArrayHandle a = nullptr;
  EXPECT_EQ(mxcNDArrayCreate(shape, 2, 0, 1, 0, &a), MXC_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(mxcGetLastError(), "bad array shape (2,-3)");
  EXPECT_EQ(mxcNDArrayCreate(shape, 1, 0, 7, 0, &a), MXC_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(mxcGetLastError(), "bad device: kind 7, id 0");
  EXPECT_EQ(mxcNDArrayCreate(shape, 1, 0, 5, 0, &a), MXC_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(mxcGetLastError(),
               "no storage is registered for device cpu_shared(0)");
  EXPECT_EQ(mxcNDArrayCreate(shape, 1, 0, 1, 0, nullptr),
            MXC_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(mxcGetLastError(), "mxcNDArrayCreate: null argument");
  EXPECT_EQ(mxcNDArrayCreate(nullptr, 2, 0, 1, 0, &a), MXC_ERROR_INVALID_ARGUMENT);
  int64_t huge[] = {int64_t(1) << 40, int64_t(1) << 20};
  EXPECT_EQ(mxcNDArrayCreate(huge, 2, 0, 1, 0, &a), MXC_ERROR_OUT_OF_MEMORY);
  EXPECT_EQ(mxcNDArrayWaitToRead(nullptr), MXC_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(mxcNDArrayCopyTo(nullptr, nullptr), MXC_ERROR_INVALID_ARGUMENT);
}

TEST(CApiPlan, LoadReportsTheLine) {
  MXCPlanHandle p = nullptr;
  std::string bad = "mxc-plan 7\n";
  EXPECT_EQ(mxcPlanLoad(bad.data(), bad.size(), &p), MXC_ERROR_INVALID_PLAN);
  EXPECT_STREQ(mxcGetLastError(),
               "line 1: unsupported plan version 7 (this runtime reads version 1)");
  EXPECT_EQ(mxcPlanLoad(nullptr, 3, &p), MXC_ERROR_INVALID_ARGUMENT);
  // Not NUL-terminated: only `len` bytes are read.
  std::string padded = kPlan + "garbage";
  ASSERT_EQ(mxcPlanLoad(padded.data(), kPlan.size(), &p), MXC_OK);
  int n = 0;
  EXPECT_EQ(mxcPlanGetNumArguments(p, &n), MXC_OK);
  EXPECT_EQ(n, 1);
  EXPECT_EQ(mxcPlanFree(p), MXC_OK);
}

TEST(CApiExecutor, ExceptionsInKernelsBecomeStatusCodes) {
  MXCPlanHandle p = nullptr;
  ASSERT_EQ(mxcPlanLoad(kPlan.data(), kPlan.size(), &p), MXC_OK);
  const char *symbols[] = {"k"};
  MXCKernelFn fns[] = {throwingKernel};
  MXCExecutorHandle e = nullptr;
  ASSERT_EQ(mxcExecutorCreate(p, symbols, fns, 1, &e), MXC_OK);
  EXPECT_EQ(mxcExecutorRun(e), MXC_ERROR_INVALID_ARGUMENT); // x unbound
  EXPECT_STREQ(mxcGetLastError(), "run: argument 0 ('x') is not bound");
  int64_t shape[] = {2};
  MXCNDArrayHandle x = nullptr, y = nullptr, wrong = nullptr;
  ASSERT_EQ(mxcNDArrayCreate(shape, 1, 4, 1, 0, &x), MXC_OK);
  ASSERT_EQ(mxcNDArrayCreate(shape, 1, 4, 1, 0, &y), MXC_OK);
  ASSERT_EQ(mxcNDArrayCreate(shape, 1, 0, 1, 0, &wrong), MXC_OK);
  EXPECT_EQ(mxcExecutorBind(e, &wrong, 1, nullptr, 0), MXC_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(mxcGetLastError(), "bind argument 0 'x': the plan wants (2,) "
                                  "int32, the array is (2,) float32");
  MXCNDArrayHandle twoOutputs[] = {y, y};
  EXPECT_EQ(mxcExecutorBind(e, &x, 1, twoOutputs, 2), MXC_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(mxcGetLastError(),
               "mxcExecutorBind: the plan has 1 outputs, 2 given");
  EXPECT_EQ(mxcExecutorBind(e, &x, 1, &y, 1), MXC_OK);
  EXPECT_EQ(mxcExecutorRun(e), MXC_ERROR_OPERATION_FAILED);
  EXPECT_STREQ(mxcGetLastError(), "step 'copy' (kernel 'k') failed: C++ exception");
  EXPECT_EQ(mxcNDArrayWaitToRead(y), MXC_ERROR_OPERATION_FAILED); // y stays failed
  // run() and the wait raised it: waitall does not raise it again (MXNet's rule)
  EXPECT_EQ(mxcEngineWaitAll(), MXC_OK);
  mxcExecutorFree(e);

  // A working kernel table: the output bound above receives the result.
  fns[0] = copyKernel;
  ASSERT_EQ(mxcExecutorCreate(p, symbols, fns, 1, &e), MXC_OK);
  int32_t in[] = {3, 4}, out[] = {0, 0};
  EXPECT_EQ(mxcNDArrayCopyFromHost(x, in, 8), MXC_OK);
  EXPECT_EQ(mxcExecutorBind(e, &x, 1, &y, 1), MXC_OK);
  EXPECT_EQ(mxcExecutorRun(e), MXC_OK);
  EXPECT_EQ(mxcNDArrayCopyToHost(y, out, 8), MXC_OK);
  EXPECT_EQ(out[0], 3);
  EXPECT_EQ(out[1], 4);
  EXPECT_EQ(mxcExecutorFree(e), MXC_OK);
  for (MXCNDArrayHandle h : {x, y, wrong})
    mxcNDArrayFree(h);
  mxcPlanFree(p);
  EXPECT_EQ(mxcEngineWaitAll(), MXC_OK);
}

TEST(CApiExecutor, NullKernelEntriesAreRejected) {
  MXCPlanHandle p = nullptr;
  ASSERT_EQ(mxcPlanLoad(kPlan.data(), kPlan.size(), &p), MXC_OK);
  const char *symbols[] = {nullptr};
  MXCKernelFn fns[] = {copyKernel};
  MXCExecutorHandle e = nullptr;
  EXPECT_EQ(mxcExecutorCreate(p, symbols, fns, 1, &e), MXC_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(mxcExecutorCreate(p, nullptr, nullptr, 1, &e),
            MXC_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(mxcExecutorCreate(nullptr, symbols, fns, 1, &e),
            MXC_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(mxcExecutorRun(nullptr), MXC_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(mxcExecutorFree(nullptr), MXC_OK);
  mxcPlanFree(p);
}

} // namespace
