//===- ParamsTest.cpp - MXNet .params reader and writer -------------------===//
//
// File images are assembled here byte by byte from the format description
// (MXNet's ndarray.cc / tuple.h), independently of writeParams; the real
// files in test/Inputs/mxnet-params were written by MXNet 1.9.1.
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

#include "mxc/Graph/Params.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Path.h"

#include <cmath>
#include <cstring>

using namespace mxc::graph;
using namespace mxc::test;

namespace {

/// Little-endian byte image builder.
struct Bytes {
  std::string s;
  Bytes &u32(uint32_t v) {
    for (int i = 0; i < 4; ++i)
      s += char((v >> (8 * i)) & 0xff);
    return *this;
  }
  Bytes &i32(int32_t v) { return u32(uint32_t(v)); }
  Bytes &u64(uint64_t v) {
    for (int i = 0; i < 8; ++i)
      s += char((v >> (8 * i)) & 0xff);
    return *this;
  }
  Bytes &i64(int64_t v) { return u64(uint64_t(v)); }
  Bytes &raw(const std::string &b) {
    s += b;
    return *this;
  }
  Bytes &str(const std::string &b) { return u64(b.size()).raw(b); }
  size_t size() const { return s.size(); }
};

constexpr uint32_t kV1 = 0xF993fac8, kV2 = 0xF993fac9, kV3 = 0xF993faca;

/// `n` bytes 1, 2, 3, ... as array data.
std::string pattern(size_t n) {
  std::string d;
  for (size_t i = 0; i < n; ++i)
    d += char(i * 7 + 1);
  return d;
}

/// The list header for `count` arrays.
Bytes header(uint64_t count) {
  Bytes b;
  b.u64(0x112).u64(0).u64(count);
  return b;
}

/// One dense record with a known shape, per the version's layout.
void denseRecord(Bytes &b, RecordVersion v, const std::vector<int64_t> &shape,
                 int32_t flag, const std::string &data, int32_t devType = 1,
                 int32_t devId = 0) {
  switch (v) {
  case RecordVersion::Legacy:
    b.u32(uint32_t(shape.size()));
    for (int64_t d : shape)
      b.u32(uint32_t(d));
    break;
  case RecordVersion::V1:
    b.u32(kV1).i32(int32_t(shape.size()));
    for (int64_t d : shape)
      b.i64(d);
    break;
  case RecordVersion::V2:
  case RecordVersion::V3:
    b.u32(v == RecordVersion::V2 ? kV2 : kV3).i32(0).i32(int32_t(shape.size()));
    for (int64_t d : shape)
      b.i64(d);
    break;
  }
  b.i32(devType).i32(devId).i32(flag).raw(data);
}

void names(Bytes &b, const std::vector<std::string> &ns) {
  b.u64(ns.size());
  for (const std::string &n : ns)
    b.str(n);
}

std::vector<NDArrayData> read(const std::string &image) {
  return take(readParams(image));
}

std::string readError(const std::string &image) {
  return errorOf(readParams(image));
}

const char *versionName(RecordVersion v) {
  switch (v) {
  case RecordVersion::Legacy:
    return "Legacy";
  case RecordVersion::V1:
    return "V1";
  case RecordVersion::V2:
    return "V2";
  case RecordVersion::V3:
    return "V3";
  }
  return "?";
}

const RecordVersion kVersions[] = {RecordVersion::Legacy, RecordVersion::V1,
                                   RecordVersion::V2, RecordVersion::V3};
const DType kDTypes[] = {DType::Float32, DType::Float64, DType::Float16,
                         DType::BFloat16, DType::UInt8,   DType::Int8,
                         DType::Int32,   DType::Int64,   DType::Bool};

/// A V2 image of one f32 [2, 3] array called "arg:w".
Bytes oneV2() {
  Bytes b = header(1);
  denseRecord(b, RecordVersion::V2, {2, 3}, 0, pattern(24));
  names(b, {"arg:w"});
  return b;
}

} // namespace

//===----------------------------------------------------------------------===//
// Byte-exact images of each record version
//===----------------------------------------------------------------------===//

TEST(Params, DTypeTable) {
  const std::pair<DType, std::pair<int, size_t>> flags[] = {
      {DType::Float32, {0, 4}}, {DType::Float64, {1, 8}},
      {DType::Float16, {2, 2}}, {DType::UInt8, {3, 1}},
      {DType::Int32, {4, 4}},   {DType::Int8, {5, 1}},
      {DType::Int64, {6, 8}},   {DType::Bool, {7, 1}},
      {DType::BFloat16, {12, 2}}};
  for (const auto &[t, fs] : flags) {
    EXPECT_EQ(int(t), fs.first);
    EXPECT_EQ(dtypeSize(t), fs.second);
    EXPECT_EQ(parseDType(dtypeName(t)), std::optional<DType>(t));
  }
  EXPECT_EQ(dtypeName(DType::BFloat16), "bfloat16");
  EXPECT_EQ(dtypeSize(DType(8)), 0u);
  EXPECT_EQ(dtypeName(DType(42)), "");
  EXPECT_FALSE(parseDType("float8").has_value());
}

TEST(Params, V2Record) {
  Bytes b = oneV2();
  auto arrays = read(b.s);
  ASSERT_EQ(arrays.size(), 1u);
  const NDArrayData &a = arrays[0];
  EXPECT_EQ(a.name, "arg:w");
  EXPECT_EQ(a.bareName(), "w");
  EXPECT_FALSE(a.isAux());
  EXPECT_EQ(a.version, RecordVersion::V2);
  EXPECT_EQ(a.dtype, DType::Float32);
  EXPECT_EQ(a.shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(a.numElements(), 6);
  EXPECT_EQ(a.devType, 1);
  EXPECT_EQ(a.devId, 0);
  EXPECT_EQ(std::string(a.bytes.begin(), a.bytes.end()), pattern(24));
  EXPECT_EQ(writeParams(arrays), b.s);
}

TEST(Params, V1Record) {
  Bytes b = header(1);
  denseRecord(b, RecordVersion::V1, {4}, 4, pattern(16), 2, 3);
  names(b, {"aux:bn_moving_mean"});
  auto arrays = read(b.s);
  ASSERT_EQ(arrays.size(), 1u);
  EXPECT_EQ(arrays[0].version, RecordVersion::V1);
  EXPECT_EQ(arrays[0].dtype, DType::Int32);
  EXPECT_EQ(arrays[0].shape, (std::vector<int64_t>{4}));
  EXPECT_EQ(arrays[0].devType, 2); // stored context is kept (gpu 3)
  EXPECT_EQ(arrays[0].devId, 3);
  EXPECT_TRUE(arrays[0].isAux());
  EXPECT_EQ(arrays[0].bareName(), "bn_moving_mean");
  EXPECT_EQ(writeParams(arrays), b.s);
}

TEST(Params, LegacyRecord) {
  // No magic: u32 ndim, u32 dims (verified against ndarray.cc's
  // LegacyTShapeLoad), then context, dtype, data.
  Bytes b = header(2);
  b.u32(2).u32(2).u32(2).i32(1).i32(0).i32(3).raw(pattern(4));
  b.u32(0); // a none array: ndim 0 and nothing else
  names(b, {"a", "b"});
  auto arrays = read(b.s);
  ASSERT_EQ(arrays.size(), 2u);
  EXPECT_EQ(arrays[0].version, RecordVersion::Legacy);
  EXPECT_EQ(arrays[0].dtype, DType::UInt8);
  EXPECT_EQ(arrays[0].shape, (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(arrays[0].bytes.size(), 4u);
  EXPECT_EQ(arrays[1].version, RecordVersion::Legacy);
  EXPECT_TRUE(arrays[1].isNone());
  EXPECT_EQ(arrays[1].numElements(), 0);
  EXPECT_EQ(writeParams(arrays), b.s);
}

TEST(Params, V2NoneRecord) {
  // V2 ndim 0 is a none array: magic, stype, ndim and nothing more.
  Bytes b = header(1);
  b.u32(kV2).i32(0).i32(0);
  names(b, {"n"});
  auto arrays = read(b.s);
  ASSERT_EQ(arrays.size(), 1u);
  EXPECT_TRUE(arrays[0].isNone());
  EXPECT_TRUE(arrays[0].shape.empty());
  EXPECT_TRUE(arrays[0].bytes.empty());
  EXPECT_EQ(writeParams(arrays), b.s);
}

TEST(Params, V3Records) {
  Bytes b = header(5);
  denseRecord(b, RecordVersion::V3, {}, 1, pattern(8)); // scalar: 1 element
  denseRecord(b, RecordVersion::V3, {0, 3}, 0, "");     // zero-size
  b.u32(kV3).i32(0).i32(-1);                            // unknown ndim
  b.u32(kV3).i32(0).i32(2).i64(2).i64(-1);              // unknown dim
  denseRecord(b, RecordVersion::V3, {2}, 7, pattern(2));
  names(b, {"scalar", "empty", "unknown", "partial", "flags"});
  auto arrays = read(b.s);
  ASSERT_EQ(arrays.size(), 5u);
  EXPECT_FALSE(arrays[0].isNone());
  EXPECT_TRUE(arrays[0].shape.empty());
  EXPECT_EQ(arrays[0].numElements(), 1);
  EXPECT_EQ(arrays[0].dtype, DType::Float64);
  EXPECT_EQ(arrays[0].bytes.size(), 8u);
  EXPECT_FALSE(arrays[1].isNone());
  EXPECT_EQ(arrays[1].numElements(), 0);
  EXPECT_TRUE(arrays[2].isNone());
  EXPECT_TRUE(arrays[2].unknownNDim);
  EXPECT_TRUE(arrays[3].isNone());
  EXPECT_EQ(arrays[3].shape, (std::vector<int64_t>{2, -1}));
  EXPECT_EQ(arrays[4].dtype, DType::Bool);
  for (const NDArrayData &a : arrays)
    EXPECT_EQ(a.version, RecordVersion::V3);
  EXPECT_EQ(writeParams(arrays), b.s);
}

TEST(Params, V1UnknownNDim) {
  Bytes b = header(1);
  b.u32(kV1).i32(-1);
  names(b, {"u"});
  auto arrays = read(b.s);
  ASSERT_EQ(arrays.size(), 1u);
  EXPECT_TRUE(arrays[0].unknownNDim);
  EXPECT_EQ(writeParams(arrays), b.s);
}

TEST(Params, EveryVersionAndDType) {
  for (RecordVersion v : kVersions) {
    for (DType t : kDTypes) {
      SCOPED_TRACE(std::string(versionName(v)) + " " +
                   dtypeName(t).str());
      std::string data = pattern(6 * dtypeSize(t));
      Bytes b = header(2);
      denseRecord(b, v, {2, 3}, int32_t(t), data);
      denseRecord(b, v, {1}, int32_t(t), pattern(dtypeSize(t)), 1, 0);
      names(b, {"arg:x", "aux:y"});
      auto arrays = read(b.s);
      ASSERT_EQ(arrays.size(), 2u);
      EXPECT_EQ(arrays[0].version, v);
      EXPECT_EQ(arrays[0].dtype, t);
      EXPECT_EQ(arrays[0].shape, (std::vector<int64_t>{2, 3}));
      EXPECT_EQ(std::string(arrays[0].bytes.begin(), arrays[0].bytes.end()),
                data);
      EXPECT_FALSE(llvm::errorToBool(checkArray(arrays[0])));
      EXPECT_EQ(writeParams(arrays), b.s);
    }
  }
}

TEST(Params, MixedVersionsAndUnnamedList) {
  // Names count 0: an `mx.nd.save` of a list.
  Bytes b = header(4);
  denseRecord(b, RecordVersion::Legacy, {3}, 0, pattern(12));
  denseRecord(b, RecordVersion::V1, {3}, 0, pattern(12));
  denseRecord(b, RecordVersion::V2, {3}, 0, pattern(12));
  denseRecord(b, RecordVersion::V3, {3}, 0, pattern(12));
  b.u64(0);
  auto arrays = read(b.s);
  ASSERT_EQ(arrays.size(), 4u);
  for (const NDArrayData &a : arrays)
    EXPECT_EQ(a.name, "");
  EXPECT_EQ(arrays[0].version, RecordVersion::Legacy);
  EXPECT_EQ(arrays[3].version, RecordVersion::V3);
  EXPECT_EQ(writeParams(arrays), b.s);
}

TEST(Params, EmptyList) {
  Bytes b = header(0);
  b.u64(0);
  EXPECT_TRUE(read(b.s).empty());
  EXPECT_EQ(writeParams({}), b.s);
}

//===----------------------------------------------------------------------===//
// Real files written by MXNet 1.9.1
//===----------------------------------------------------------------------===//

namespace {

float halfToFloat(uint16_t h) {
  int exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
  float v = exp == 0    ? std::ldexp(float(mant), -24)
            : exp == 31 ? (mant ? NAN : INFINITY)
                        : std::ldexp(float(mant | 0x400), exp - 25);
  return (h & 0x8000) ? -v : v;
}

/// Element `i` of an array as a double.
double element(const NDArrayData &a, size_t i) {
  const uint8_t *p = a.bytes.data() + i * dtypeSize(a.dtype);
  auto load = [&](auto x) {
    std::memcpy(&x, p, sizeof(x));
    return x;
  };
  switch (a.dtype) {
  case DType::Float32:
    return load(float());
  case DType::Float64:
    return load(double());
  case DType::Float16:
    return halfToFloat(load(uint16_t()));
  case DType::BFloat16: {
    uint32_t bits = uint32_t(load(uint16_t())) << 16;
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
  }
  case DType::UInt8:
    return load(uint8_t());
  case DType::Int8:
    return load(int8_t());
  case DType::Int32:
    return load(int32_t());
  case DType::Int64:
    return double(load(int64_t()));
  case DType::Bool:
    return load(uint8_t());
  }
  return NAN;
}

void expectValues(const NDArrayData &a, const llvm::json::Array &values) {
  ASSERT_EQ(values.size(), std::min<size_t>(values.size(), a.numElements()));
  for (size_t i = 0; i < values.size(); ++i) {
    double want = values[i].getAsBoolean()
                      ? double(*values[i].getAsBoolean())
                      : values[i].getAsNumber().value_or(NAN);
    if (auto exact = values[i].getAsInteger(); exact && a.dtype == DType::Int64) {
      int64_t got;
      std::memcpy(&got, a.bytes.data() + 8 * i, 8);
      EXPECT_EQ(got, *exact) << "element " << i;
      continue;
    }
    EXPECT_DOUBLE_EQ(element(a, i), want) << "element " << i;
  }
}

} // namespace

TEST(Params, RealMXNetFiles) {
  auto expected = llvm::json::parse(readInput("mxnet-params/expected.json"));
  ASSERT_TRUE(bool(expected)) << llvm::toString(expected.takeError());
  const llvm::json::Object *files =
      expected->getAsObject()->getObject("files");
  ASSERT_TRUE(files);
  unsigned checked = 0;
  for (const auto &[fileName, entry] : *files) {
    if (fileName == "sparse.params")
      continue;
    SCOPED_TRACE(fileName.str());
    std::string image = readInput("mxnet-params/" + fileName.str());
    auto arrays = read(image);
    const llvm::json::Object *e = entry.getAsObject();
    std::vector<const llvm::json::Object *> wanted;
    if (*e->getString("kind") == "list") {
      for (const llvm::json::Value &v : *e->getArray("arrays"))
        wanted.push_back(v.getAsObject());
      for (const NDArrayData &a : arrays)
        EXPECT_EQ(a.name, "");
    } else {
      const llvm::json::Array *order = e->getArray("order");
      ASSERT_EQ(arrays.size(), order->size());
      for (size_t i = 0; i < order->size(); ++i) {
        std::string name = (*order)[i].getAsString()->str();
        EXPECT_EQ(arrays[i].name, name);
        wanted.push_back(e->getObject("arrays")->getObject(name));
      }
    }
    ASSERT_EQ(arrays.size(), wanted.size());
    for (size_t i = 0; i < arrays.size(); ++i) {
      const NDArrayData &a = arrays[i];
      const llvm::json::Object *w = wanted[i];
      SCOPED_TRACE("array " + std::to_string(i) + " " + a.name);
      EXPECT_EQ(dtypeName(a.dtype), *w->getString("dtype"));
      std::vector<int64_t> shape;
      for (const llvm::json::Value &d : *w->getArray("shape"))
        shape.push_back(*d.getAsInteger());
      EXPECT_EQ(a.shape, shape);
      EXPECT_EQ(a.bytes.size(), size_t(a.numElements()) * dtypeSize(a.dtype));
      EXPECT_EQ(a.version, fileName == "npx.params" ? RecordVersion::V3
                                                    : RecordVersion::V2);
      if (const llvm::json::Array *bits = w->getArray("bits")) {
        for (size_t k = 0; k < bits->size(); ++k) {
          uint16_t got;
          std::memcpy(&got, a.bytes.data() + 2 * k, 2);
          EXPECT_EQ(int64_t(got), *(*bits)[k].getAsInteger());
        }
      }
      if (const llvm::json::Array *values = w->getArray("values"))
        expectValues(a, *values);
      if (const llvm::json::Array *first = w->getArray("first")) {
        expectValues(a, *first);
        double sum = 0;
        for (int64_t k = 0; k < a.numElements(); ++k)
          sum += element(a, size_t(k));
        EXPECT_NEAR(sum, *w->getNumber("sum"), 1e-6 * *w->getNumber("sum_abs"));
      }
    }
    // Written back byte for byte.
    EXPECT_EQ(writeParams(arrays), image);
    ++checked;
  }
  EXPECT_EQ(checked, 6u);
}

TEST(Params, RealSparseFileIsRejectedByName) {
  std::string msg = errorOf(readParamsFile(inputPath("mxnet-params/sparse.params")));
  EXPECT_NE(msg.find("sparse.params: offset 24: record 0 ('csr'): sparse "
                     "storage (csr) is not supported"),
            std::string::npos)
      << msg;
}

TEST(Params, FilesOnDisk) {
  llvm::SmallString<128> path;
  ASSERT_FALSE(llvm::sys::fs::createTemporaryFile("mxc-params", "params", path));
  auto arrays = read(oneV2().s);
  ASSERT_FALSE(llvm::errorToBool(writeParamsFile(path, arrays)));
  auto back = take(readParamsFile(path));
  EXPECT_EQ(writeParams(back), oneV2().s);
  // writeParamsFile checks every array first.
  arrays[0].bytes.pop_back();
  EXPECT_EQ(llvm::toString(writeParamsFile(path, arrays)),
            "array 'arg:w': has 23 bytes of data; its shape and dtype need 24");
  llvm::sys::fs::remove(path);
  std::string msg = errorOf(readParamsFile("/no/such/dir/x.params"));
  EXPECT_EQ(msg.rfind("cannot read '/no/such/dir/x.params'", 0), 0u) << msg;
}

TEST(Params, CheckArray) {
  NDArrayData a;
  a.name = "w";
  a.shape = {2};
  a.bytes.resize(8);
  EXPECT_FALSE(llvm::errorToBool(checkArray(a)));
  a.dtype = DType(9);
  EXPECT_EQ(llvm::toString(checkArray(a)), "array 'w': unknown dtype flag 9");
  a.dtype = DType::Float32;
  a.shape = {-1};
  EXPECT_EQ(llvm::toString(checkArray(a)), "array 'w': negative dimension -1");
  a.version = RecordVersion::V3;
  a.bytes.clear();
  EXPECT_FALSE(llvm::errorToBool(checkArray(a))); // V3 unknown dim: none
  a.version = RecordVersion::Legacy;
  a.shape = {int64_t(1) << 33};
  EXPECT_EQ(llvm::toString(checkArray(a)),
            "array 'w': dimension 8589934592 does not fit a legacy record's "
            "32 bits");
  a.version = RecordVersion::V2;
  a.shape = {};
  a.unknownNDim = true;
  EXPECT_EQ(llvm::toString(checkArray(a)),
            "array 'w': an unknown ndim (-1) needs a V1 or V3 record");
}

//===----------------------------------------------------------------------===//
// Bad input: byte offset, record index, name when known
//===----------------------------------------------------------------------===//

TEST(ParamsErrors, ListHeader) {
  EXPECT_EQ(readError("\x12\x01"),
            "offset 0: truncated file: 2 bytes is too short for the 16-byte "
            "list header");
  Bytes b;
  b.u64(0x113).u64(0).u64(0).u64(0);
  EXPECT_EQ(readError(b.s),
            "offset 0: wrong list magic 0x113 (expected 0x112): not an MXNet "
            "NDArray list (.params) file");
  Bytes noCount;
  noCount.u64(0x112).u64(0);
  EXPECT_EQ(readError(noCount.s),
            "offset 16: truncated file: the array count needs 8 bytes, 0 left");
  Bytes absurd = header(uint64_t(1) << 60);
  absurd.u64(0);
  EXPECT_EQ(readError(absurd.s),
            "offset 16: array count 1152921504606846976 is absurdly large: "
            "the 8 bytes left hold at most 2 records");
}

TEST(ParamsErrors, Records) {
  // Truncated inside the shape.
  Bytes b = header(1);
  b.u32(kV2).i32(0).i32(2).i64(2);
  EXPECT_EQ(readError(b.s),
            "offset 36: record 0: truncated file: a shape of 2 dimensions "
            "needs 16 bytes, 8 left");
  // Data running past the end.
  Bytes d = header(1);
  d.u32(kV2).i32(0).i32(2).i64(2).i64(3).i32(1).i32(0).i32(0).raw(pattern(10));
  EXPECT_EQ(readError(d.s),
            "offset 64: record 0: data runs past the end of the file: needs "
            "24 bytes, 10 left");
  // Negative dimension (V2), -2 in V3, ndim -1 in V2, ndim -2.
  Bytes neg = header(1);
  neg.u32(kV2).i32(0).i32(2).i64(2).i64(-3);
  EXPECT_EQ(readError(neg.s),
            "offset 44: record 0: invalid shape: dimension 1 is -3 (negative)");
  Bytes v3 = header(1);
  v3.u32(kV3).i32(0).i32(1).i64(-2);
  EXPECT_EQ(readError(v3.s),
            "offset 36: record 0: invalid shape: dimension 0 is -2 (negative)");
  Bytes v2unknown = header(1);
  v2unknown.u32(kV2).i32(0).i32(-1);
  EXPECT_EQ(readError(v2unknown.s), "offset 32: record 0: invalid shape: ndim -1");
  Bytes ndim = header(1);
  ndim.u32(kV3).i32(0).i32(-2);
  EXPECT_EQ(readError(ndim.s), "offset 32: record 0: invalid shape: ndim -2");
  // A huge shape whose element count overflows.
  Bytes huge = header(1);
  huge.u32(kV2).i32(0).i32(3).i64(INT64_MAX).i64(INT64_MAX).i64(2).i32(1).i32(0).i32(0);
  EXPECT_EQ(readError(huge.s),
            "offset 68: record 0: the shape has too many elements to be stored");
  // Big but not overflowing: still refused before allocating.
  Bytes big = header(1);
  big.u32(kV2).i32(0).i32(1).i64(int64_t(1) << 40).i32(1).i32(0).i32(0);
  EXPECT_EQ(readError(big.s),
            "offset 56: record 0: data runs past the end of the file: needs "
            "4398046511104 bytes, 0 left");
  // An unknown dtype flag, an unknown storage type.
  Bytes flag = header(1);
  flag.u32(kV2).i32(0).i32(1).i64(1).i32(1).i32(0).i32(42).raw(pattern(4));
  EXPECT_EQ(readError(flag.s), "offset 52: record 0: unknown dtype flag 42");
  Bytes stype = header(1);
  stype.u32(kV2).i32(5);
  EXPECT_EQ(readError(stype.s), "offset 28: record 0: unknown storage type 5");
}

TEST(ParamsErrors, WrongRecordMagic) {
  // Not a magic, and as a legacy ndim far more than the file holds.
  Bytes b = header(1);
  b.u32(0xF993fab0).u32(0);
  EXPECT_EQ(readError(b.s),
            "offset 24: record 0: unknown record magic 0xf993fab0 (read as a "
            "legacy record's ndim it asks for 4187224752 dimensions, more than "
            "the 4 bytes left hold)");
  // The second record is bad: the index says which.
  Bytes two = header(2);
  denseRecord(two, RecordVersion::V2, {1}, 0, pattern(4));
  two.u32(0xdeadbeef);
  EXPECT_EQ(readError(two.s).rfind("offset 60: record 1: unknown record magic "
                                   "0xdeadbeef",
                                   0),
            0u);
}

TEST(ParamsErrors, Names) {
  Bytes mismatch = header(1);
  denseRecord(mismatch, RecordVersion::V2, {1}, 0, pattern(4));
  names(mismatch, {"a", "b"});
  EXPECT_EQ(readError(mismatch.s),
            "offset 60: names count 2 does not match the array count 1");
  Bytes longName = header(1);
  denseRecord(longName, RecordVersion::V2, {1}, 0, pattern(4));
  longName.u64(1).u64(1000).raw("abc");
  EXPECT_EQ(readError(longName.s),
            "offset 68: name 0 (of record 0): length 1000 runs past the end "
            "of the file (3 bytes left)");
  Bytes noNames = header(1);
  denseRecord(noNames, RecordVersion::V2, {1}, 0, pattern(4));
  EXPECT_EQ(readError(noNames.s),
            "offset 60: truncated file: the names count needs 8 bytes, 0 left");
  Bytes trailing = oneV2();
  trailing.raw("xyz");
  EXPECT_EQ(readError(trailing.s),
            "offset 109: trailing garbage: 3 bytes after the names list");
}

TEST(ParamsErrors, SparseAndUnsupportedAreNamed) {
  // A row_sparse record (storage shape [1, 2], shape [5, 2], one aux array
  // of int64 indices [1]) followed by a dense one: the sparse record is
  // stepped over and reported with its name.
  Bytes b = header(2);
  b.u32(kV2).i32(1);
  b.i32(2).i64(1).i64(2);                 // storage shape
  b.i32(2).i64(5).i64(2);                 // shape
  b.i32(1).i32(0).i32(0);                 // ctx, float32
  b.i32(6).i32(1).i64(1);                 // aux: int64 [1]
  b.raw(pattern(8)).raw(pattern(8));      // data, aux data
  denseRecord(b, RecordVersion::V2, {1}, 0, pattern(4));
  names(b, {"arg:emb", "arg:w"});
  EXPECT_EQ(readError(b.s),
            "offset 24: record 0 ('arg:emb'): sparse storage (row_sparse) is "
            "not supported");
  // int16 (flag 8) is an MXNet type mxc does not support.
  Bytes i16 = header(1);
  denseRecord(i16, RecordVersion::V2, {2}, 8, pattern(4));
  names(i16, {"arg:q"});
  EXPECT_EQ(readError(i16.s),
            "offset 52: record 0 ('arg:q'): dtype int16 (flag 8) is not "
            "supported");
}

TEST(ParamsErrors, EveryTruncationFailsCleanly) {
  // Every prefix of valid images is an error naming an offset, never a
  // crash.
  std::vector<std::string> images = {oneV2().s,
                                     readInput("mxnet-params/npx.params"),
                                     readInput("mxnet-params/list.params"),
                                     readInput("mxnet-params/sparse.params"),
                                     readInput("mxnet-params/dtypes.params")};
  for (const std::string &image : images) {
    for (size_t n = 0; n < image.size(); ++n) {
      std::string msg = readError(image.substr(0, n));
      EXPECT_EQ(msg.rfind("offset ", 0), 0u) << n << ": " << msg;
    }
  }
}

TEST(ParamsErrors, NamesInMessagesStayOneLine) {
  Bytes i16 = header(1);
  denseRecord(i16, RecordVersion::V2, {2}, 8, pattern(4));
  names(i16, {"arg:\nq"});
  EXPECT_EQ(readError(i16.s),
            "offset 52: record 0 ('arg:\\nq'): dtype int16 (flag 8) is not "
            "supported");
}
