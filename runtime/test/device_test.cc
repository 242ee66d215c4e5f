// device_test.cc - Device spelling and the C API's error reporting.
#include "mxc/runtime/c_api.h"
#include "mxc/runtime/device.h"

#include <gtest/gtest.h>

using mxc::runtime::Device;

TEST(Device, PrintsAsMXNet) {
  EXPECT_EQ(Device::cpu().str(), "cpu(0)");
  EXPECT_EQ(Device::gpu(3).str(), "gpu(3)");
}

TEST(Device, ParsesWhatItPrints) {
  for (Device d : {Device::cpu(0), Device::gpu(1), Device{Device::Kind::CPUPinned, 2}}) {
    auto back = Device::parse(d.str());
    ASSERT_TRUE(back.has_value()) << d.str();
    EXPECT_EQ(*back, d);
  }
}

TEST(Device, RejectsMalformed) {
  for (const char *bad : {"", "cpu", "cpu()", "cpu(-1)", "tpu(0)", "cpu(0", "gpu(1)x",
                          "cpu(99999999999)"})
    EXPECT_FALSE(Device::parse(bad).has_value()) << bad;
}

TEST(CApi, ReportsErrorsAsStatus) {
  int kind = 0, id = 0;
  EXPECT_EQ(mxcDeviceParse("gpu(2)", &kind, &id), MXC_OK);
  EXPECT_EQ(kind, 2);
  EXPECT_EQ(id, 2);
  EXPECT_EQ(mxcDeviceParse("nope", &kind, &id), MXC_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(mxcGetLastError(), "not a device: 'nope'");
  EXPECT_EQ(mxcDeviceParse(nullptr, &kind, &id), MXC_ERROR_INVALID_ARGUMENT);
  EXPECT_GT(mxcRuntimeVersion(), 0);
}
