// device.cc - Device spelling.
#include "mxc/runtime/device.h"

#include <cstdlib>

namespace mxc::runtime {

namespace {
struct KindName {
  Device::Kind kind;
  const char *name;
};
// The spellings MXNet prints for each device kind.
constexpr KindName kKindNames[] = {
    {Device::Kind::CPU, "cpu"},
    {Device::Kind::GPU, "gpu"},
    {Device::Kind::CPUPinned, "cpu_pinned"},
    {Device::Kind::CPUShared, "cpu_shared"},
};
} // namespace

std::string Device::str() const {
  for (const KindName &k : kKindNames)
    if (k.kind == kind)
      return std::string(k.name) + "(" + std::to_string(id) + ")";
  return "unknown(" + std::to_string(id) + ")";
}

std::optional<Device> Device::parse(const std::string &text) {
  size_t open = text.find('(');
  if (open == std::string::npos || text.size() < open + 3 || text.back() != ')')
    return std::nullopt;
  std::string name = text.substr(0, open);
  std::string num = text.substr(open + 1, text.size() - open - 2);
  if (num.empty() || num.find_first_not_of("0123456789") != std::string::npos ||
      num.size() > 9)
    return std::nullopt;
  for (const KindName &k : kKindNames)
    if (name == k.name)
      return Device{k.kind, static_cast<int32_t>(std::atoi(num.c_str()))};
  return std::nullopt;
}

std::optional<Device> Device::fromOption(const std::string &text) {
  if (text == "cpu")
    return cpu();
  if (text == "gpu")
    return gpu();
  if (text.compare(0, 4, "gpu:") == 0)
    return parse("gpu(" + text.substr(4) + ")");
  return parse(text);
}

} // namespace mxc::runtime
