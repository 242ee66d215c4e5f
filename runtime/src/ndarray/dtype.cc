// dtype.cc - element types and shapes.
#include "mxc/runtime/dtype.h"

#include <limits>

namespace mxc::runtime {

namespace {
struct DTypeInfo {
  DType type;
  const char *name;
  size_t size;
};
// MXNet's type flags, names and element sizes.
constexpr DTypeInfo kDTypes[] = {
    {DType::F32, "float32", 4}, {DType::F64, "float64", 8},
    {DType::F16, "float16", 2}, {DType::U8, "uint8", 1},
    {DType::I32, "int32", 4},   {DType::I8, "int8", 1},
    {DType::I64, "int64", 8},   {DType::Bool, "bool", 1},
    {DType::BF16, "bfloat16", 2},
};

// The table row of `t`, or nullptr for a value outside the enum.
const DTypeInfo *info(DType t) {
  for (const DTypeInfo &d : kDTypes)
    if (d.type == t)
      return &d;
  return nullptr;
}
} // namespace

size_t dtypeSize(DType t) {
  const DTypeInfo *d = info(t);
  return d ? d->size : 0;
}

const char *dtypeName(DType t) {
  const DTypeInfo *d = info(t);
  return d ? d->name : "unknown";
}

std::optional<DType> dtypeFromName(const std::string &name) {
  for (const DTypeInfo &d : kDTypes)
    if (name == d.name)
      return d.type;
  return std::nullopt;
}

std::optional<DType> dtypeFromFlag(int flag) {
  for (const DTypeInfo &d : kDTypes)
    if (static_cast<int>(d.type) == flag)
      return d.type;
  return std::nullopt;
}

std::optional<int64_t> shapeNumElements(const Shape &shape) {
  int64_t n = 1;
  for (int64_t e : shape) {
    if (e < 0)
      return std::nullopt;
    if (e != 0 && n > std::numeric_limits<int64_t>::max() / e)
      return std::nullopt;
    n *= e;
  }
  return n;
}

std::optional<int64_t> shapeNumBytes(const Shape &shape, DType t) {
  auto n = shapeNumElements(shape);
  int64_t size = static_cast<int64_t>(dtypeSize(t));
  if (!n || size == 0 || *n > std::numeric_limits<int64_t>::max() / size)
    return std::nullopt;
  return *n * size;
}

std::string shapeStr(const Shape &shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i)
      s += ",";
    s += std::to_string(shape[i]);
  }
  if (shape.size() == 1)
    s += ",";
  return s + ")";
}

} // namespace mxc::runtime
