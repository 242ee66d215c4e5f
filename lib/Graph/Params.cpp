//===- Params.cpp - MXNet .params (NDArray list) files ----------*- C++ -*-===//
//
// The layout, from MXNet's src/ndarray/ndarray.cc and include/mxnet/tuple.h
// (all little-endian):
//
//   file    := u64 0x112, u64 reserved, u64 count, record*count,
//              u64 nnames (0 or count), (u64 len, bytes)*nnames
//   Legacy  := u32 ndim (not a magic), u32 dim*ndim, [ctx, dtype, data]
//   V1      := u32 0xF993fac8, i32 ndim, i64 dim*ndim, [ctx, dtype, data]
//   V2, V3  := u32 0xF993fac9 / 0xF993faca, i32 stype, i32 ndim, i64 dim*ndim,
//              [ctx, dtype, data]
//   ctx     := i32 dev_type, i32 dev_id;  dtype := i32 mshadow type flag
//
// The bracketed part is absent for "none" arrays (shape unknown: ndim 0 before
// V3, ndim -1, or a -1 dimension in V3). Sparse V2 records (stype 1, 2) add a
// storage shape after stype and aux types/shapes/data; they are parsed only
// to be skipped and reported.
//
//===----------------------------------------------------------------------===//

#include "mxc/Graph/Params.h"

#include "Printable.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>

using namespace mxc::graph;
using llvm::StringRef;

namespace {

constexpr uint64_t kListMagic = 0x112;
constexpr uint32_t kV1Magic = 0xF993fac8;
constexpr uint32_t kV2Magic = 0xF993fac9;
constexpr uint32_t kV3Magic = 0xF993faca;

/// Sizes of the mshadow type flags MXNet knows but mxc does not support.
size_t unsupportedDTypeSize(int32_t flag, StringRef *name) {
  switch (flag) {
  case 8:
    *name = "int16";
    return 2;
  case 9:
    *name = "uint16";
    return 2;
  case 10:
    *name = "uint32";
    return 4;
  case 11:
    *name = "uint64";
    return 8;
  default:
    return 0;
  }
}

/// Product of non-negative dimensions, or nullopt on int64 overflow.
std::optional<int64_t> product(llvm::ArrayRef<int64_t> dims) {
  int64_t n = 1;
  for (int64_t d : dims)
    if (d < 0 || __builtin_mul_overflow(n, d, &n))
      return std::nullopt;
  return n;
}

/// The first problem found in a record that could still be stepped over (a
/// sparse record, an unsupported dtype): reported once the names are known.
struct Deferred {
  size_t offset;
  size_t record;
  std::string message;
};

class ParamsReader {
public:
  explicit ParamsReader(StringRef bytes) : data(bytes) {}
  llvm::Expected<std::vector<NDArrayData>> read();

private:
  // Errors ----------------------------------------------------------------
  llvm::Error error(size_t offset, const llvm::Twine &msg) {
    std::string where = "offset " + std::to_string(offset) + ": ";
    if (record)
      where += "record " + std::to_string(*record) + ": ";
    return llvm::createStringError(where + msg.str());
  }
  /// Fails unless `n` more bytes are there for `what`.
  llvm::Error need(size_t n, StringRef what) {
    if (left() >= n)
      return llvm::Error::success();
    return error(pos, llvm::formatv("truncated file: {0} needs {1} bytes, "
                                    "{2} left",
                                    what, n, left())
                          .str());
  }

  // Raw reads (callers check the size first) ------------------------------
  size_t left() const { return data.size() - pos; }
  uint32_t u32() {
    uint32_t v = llvm::support::endian::read32le(data.data() + pos);
    pos += 4;
    return v;
  }
  int32_t i32() { return int32_t(u32()); }
  uint64_t u64() {
    uint64_t v = llvm::support::endian::read64le(data.data() + pos);
    pos += 8;
    return v;
  }
  int64_t i64() { return int64_t(u64()); }

  llvm::Error readShape(NDArrayData &a, uint32_t legacyNDim = 0);
  llvm::Error readContextTypeData(NDArrayData &a);
  llvm::Error skipSparse(NDArrayData &a, int32_t stype, size_t start);
  llvm::Error readRecord(NDArrayData &a);

  StringRef data;
  size_t pos = 0;
  std::optional<size_t> record;
  std::optional<Deferred> deferred;
};

/// Reads a shape in the record's encoding into `a.shape` / `a.unknownNDim`.
/// Legacy records have no magic: their first word, `legacyNDim`, is the ndim
/// and the dims are u32.
llvm::Error ParamsReader::readShape(NDArrayData &a, uint32_t legacyNDim) {
  size_t at = pos;
  if (a.version == RecordVersion::Legacy) {
    if (legacyNDim > left() / 4)
      return error(at - 4,
                   llvm::formatv("unknown record magic {0:x8} (read as a "
                                 "legacy record's ndim it asks for {1} "
                                 "dimensions, more than the {2} bytes left "
                                 "hold)",
                                 legacyNDim, legacyNDim, left())
                       .str());
    a.shape.reserve(legacyNDim);
    for (uint32_t i = 0; i < legacyNDim; ++i)
      a.shape.push_back(int64_t(u32()));
    return llvm::Error::success();
  }
  if (llvm::Error err = need(4, "the shape's ndim"))
    return err;
  int32_t ndim = i32();
  if (ndim < -1 || (ndim == -1 && a.version == RecordVersion::V2))
    return error(at, llvm::formatv("invalid shape: ndim {0}", ndim).str());
  if (ndim == -1) {
    a.unknownNDim = true;
    return llvm::Error::success();
  }
  if (uint64_t(ndim) > left() / 8)
    return error(pos, llvm::formatv("truncated file: a shape of {0} "
                                   "dimensions needs {1} bytes, {2} left",
                                   ndim, uint64_t(ndim) * 8, left())
                         .str());
  a.shape.reserve(ndim);
  for (int32_t i = 0; i < ndim; ++i) {
    size_t dimAt = pos;
    int64_t d = i64();
    // V3 (numpy semantics) writes -1 for a dimension it does not know.
    if (d < 0 && !(d == -1 && a.version == RecordVersion::V3))
      return error(dimAt,
                   llvm::formatv("invalid shape: dimension {0} is {1} "
                                 "(negative)",
                                 i, d)
                       .str());
    a.shape.push_back(d);
  }
  return llvm::Error::success();
}

/// Context, dtype flag and data of a dense array whose shape is known.
llvm::Error ParamsReader::readContextTypeData(NDArrayData &a) {
  if (llvm::Error err = need(12, "the context and dtype"))
    return err;
  a.devType = i32();
  a.devId = i32();
  size_t flagAt = pos;
  int32_t flag = i32();
  a.dtype = DType(flag);
  size_t size = dtypeSize(a.dtype);
  StringRef unsupported;
  size_t skipSize = size ? size : unsupportedDTypeSize(flag, &unsupported);
  if (!skipSize)
    return error(flagAt, llvm::formatv("unknown dtype flag {0}", flag).str());
  std::optional<int64_t> n = product(a.shape);
  if (!n || uint64_t(*n) > UINT64_MAX / skipSize)
    return error(flagAt, "the shape has too many elements to be stored");
  uint64_t nbytes = uint64_t(*n) * skipSize;
  if (nbytes > left())
    return error(pos, llvm::formatv("data runs past the end of the file: "
                                    "needs {0} bytes, {1} left",
                                    nbytes, left())
                          .str());
  if (!size) {
    if (!deferred)
      deferred = Deferred{flagAt, *record,
                          llvm::formatv("dtype {0} (flag {1}) is not "
                                        "supported",
                                        unsupported, flag)
                              .str()};
    pos += nbytes;
    return llvm::Error::success();
  }
  a.bytes.assign(data.bytes_begin() + pos, data.bytes_begin() + pos + nbytes);
  pos += nbytes;
  return llvm::Error::success();
}

/// Steps over a sparse record (MXNet's NDArray::Save with aux data) so that
/// the names can still be read, and remembers the error.
llvm::Error ParamsReader::skipSparse(NDArrayData &a, int32_t stype,
                                     size_t start) {
  StringRef kind = stype == 1 ? "row_sparse" : "csr";
  if (!deferred)
    deferred = Deferred{start, *record,
                        ("sparse storage (" + kind + ") is not supported")
                            .str()};
  // Storage shape, then the shape (V2 encoding: no unknown dims).
  NDArrayData storage;
  storage.version = RecordVersion::V2;
  if (llvm::Error err = readShape(storage))
    return err;
  if (llvm::Error err = readShape(a))
    return err;
  if (a.shape.empty() || a.unknownNDim)
    return llvm::Error::success();
  if (llvm::Error err = need(12, "the context and dtype"))
    return err;
  pos += 8;
  size_t flagAt = pos;
  int32_t flag = i32();
  StringRef unused;
  size_t size = dtypeSize(DType(flag));
  if (!size)
    size = unsupportedDTypeSize(flag, &unused);
  if (!size)
    return error(flagAt, llvm::formatv("unknown dtype flag {0}", flag).str());
  int numAux = stype == 1 ? 1 : 2;
  std::vector<std::pair<size_t, NDArrayData>> aux;
  for (int i = 0; i < numAux; ++i) {
    if (llvm::Error err = need(4, "an aux dtype"))
      return err;
    size_t auxFlagAt = pos;
    int32_t auxFlag = i32();
    size_t auxSize = dtypeSize(DType(auxFlag));
    if (!auxSize)
      auxSize = unsupportedDTypeSize(auxFlag, &unused);
    if (!auxSize)
      return error(auxFlagAt,
                   llvm::formatv("unknown aux dtype flag {0}", auxFlag).str());
    NDArrayData auxShape;
    auxShape.version = RecordVersion::V2;
    if (llvm::Error err = readShape(auxShape))
      return err;
    aux.push_back({auxSize, std::move(auxShape)});
  }
  auto skip = [&](size_t elemSize, const std::vector<int64_t> &shape,
                  StringRef what) -> llvm::Error {
    std::optional<int64_t> n = product(shape);
    if (!n || uint64_t(*n) > left() / elemSize)
      return error(pos, (what + " runs past the end of the file").str());
    pos += uint64_t(*n) * elemSize;
    return llvm::Error::success();
  };
  if (llvm::Error err = skip(size, storage.shape, "data"))
    return err;
  for (auto &[auxSize, auxShape] : aux)
    if (llvm::Error err = skip(auxSize, auxShape.shape, "aux data"))
      return err;
  return llvm::Error::success();
}

llvm::Error ParamsReader::readRecord(NDArrayData &a) {
  size_t start = pos;
  if (llvm::Error err = need(4, "the record magic"))
    return err;
  uint32_t magic = u32();
  switch (magic) {
  case kV1Magic:
    a.version = RecordVersion::V1;
    break;
  case kV2Magic:
    a.version = RecordVersion::V2;
    break;
  case kV3Magic:
    a.version = RecordVersion::V3;
    break;
  default:
    // No magic: MXNet before 0.9 wrote the shape's ndim first.
    a.version = RecordVersion::Legacy;
    break;
  }
  if (a.version == RecordVersion::V2 || a.version == RecordVersion::V3) {
    if (llvm::Error err = need(4, "the storage type"))
      return err;
    size_t stypeAt = pos;
    int32_t stype = i32();
    if (stype == 1 || stype == 2)
      return skipSparse(a, stype, start);
    if (stype != 0)
      return error(stypeAt,
                   llvm::formatv("unknown storage type {0}", stype).str());
  }
  if (llvm::Error err = readShape(a, magic))
    return err;
  if (a.isNone())
    return llvm::Error::success();
  return readContextTypeData(a);
}

llvm::Expected<std::vector<NDArrayData>> ParamsReader::read() {
  if (data.size() < 16)
    return error(0, llvm::formatv("truncated file: {0} bytes is too short for "
                                  "the 16-byte list header",
                                  data.size())
                        .str());
  uint64_t magic = u64();
  if (magic != kListMagic)
    return error(0, llvm::formatv("wrong list magic {0:x} (expected 0x112): "
                                  "not an MXNet NDArray list (.params) file",
                                  magic)
                        .str());
  (void)u64(); // reserved
  size_t countAt = pos;
  if (llvm::Error err = need(8, "the array count"))
    return std::move(err);
  uint64_t count = u64();
  // Every record takes at least 4 bytes.
  if (count > left() / 4)
    return error(countAt, llvm::formatv("array count {0} is absurdly large: "
                                        "the {1} bytes left hold at most {2} "
                                        "records",
                                        count, left(), left() / 4)
                              .str());
  std::vector<NDArrayData> arrays;
  for (uint64_t r = 0; r < count; ++r) {
    record = r;
    NDArrayData a;
    if (llvm::Error err = readRecord(a))
      return std::move(err);
    arrays.push_back(std::move(a));
  }
  record.reset();

  size_t namesAt = pos;
  if (llvm::Error err = need(8, "the names count"))
    return std::move(err);
  uint64_t nnames = u64();
  if (nnames != 0 && nnames != count)
    return error(namesAt, llvm::formatv("names count {0} does not match the "
                                        "array count {1}",
                                        nnames, count)
                              .str());
  for (uint64_t i = 0; i < nnames; ++i) {
    size_t nameAt = pos;
    if (llvm::Error err = need(8, "a name's length"))
      return std::move(err);
    uint64_t len = u64();
    if (len > left())
      return error(nameAt, llvm::formatv("name {0} (of record {0}): length "
                                         "{1} runs past the end of the file "
                                         "({2} bytes left)",
                                         i, len, left())
                               .str());
    arrays[i].name = data.substr(pos, len).str();
    pos += len;
  }
  if (pos != data.size())
    return error(pos, llvm::formatv("trailing garbage: {0} bytes after the "
                                    "names list",
                                    data.size() - pos)
                          .str());
  if (deferred) {
    std::string name = detail::printable(arrays[deferred->record].name);
    return llvm::createStringError(
        llvm::formatv("offset {0}: record {1}{2}: {3}", deferred->offset,
                      deferred->record,
                      name.empty() ? "" : " ('" + name + "')",
                      deferred->message)
            .str());
  }
  return std::move(arrays);
}

// Writing -----------------------------------------------------------------

void put32(std::string &out, uint32_t v) {
  char buf[4];
  llvm::support::endian::write32le(buf, v);
  out.append(buf, 4);
}
void put64(std::string &out, uint64_t v) {
  char buf[8];
  llvm::support::endian::write64le(buf, v);
  out.append(buf, 8);
}

void writeRecord(std::string &out, const NDArrayData &a) {
  switch (a.version) {
  case RecordVersion::Legacy:
    put32(out, uint32_t(a.shape.size()));
    for (int64_t d : a.shape)
      put32(out, uint32_t(d));
    break;
  case RecordVersion::V1:
  case RecordVersion::V2:
  case RecordVersion::V3:
    put32(out, a.version == RecordVersion::V1   ? kV1Magic
               : a.version == RecordVersion::V2 ? kV2Magic
                                                : kV3Magic);
    if (a.version != RecordVersion::V1)
      put32(out, 0); // dense storage
    put32(out, a.unknownNDim ? uint32_t(-1) : uint32_t(a.shape.size()));
    for (int64_t d : a.shape)
      put64(out, uint64_t(d));
    break;
  }
  if (a.isNone())
    return;
  put32(out, uint32_t(a.devType));
  put32(out, uint32_t(a.devId));
  put32(out, uint32_t(a.dtype));
  out.append(reinterpret_cast<const char *>(a.bytes.data()), a.bytes.size());
}

} // namespace

//===----------------------------------------------------------------------===//
// DType and NDArrayData
//===----------------------------------------------------------------------===//

size_t mxc::graph::dtypeSize(DType t) {
  switch (t) {
  case DType::Float32:
  case DType::Int32:
    return 4;
  case DType::Float64:
  case DType::Int64:
    return 8;
  case DType::Float16:
  case DType::BFloat16:
    return 2;
  case DType::UInt8:
  case DType::Int8:
  case DType::Bool:
    return 1;
  }
  return 0;
}

StringRef mxc::graph::dtypeName(DType t) {
  switch (t) {
  case DType::Float32:
    return "float32";
  case DType::Float64:
    return "float64";
  case DType::Float16:
    return "float16";
  case DType::UInt8:
    return "uint8";
  case DType::Int32:
    return "int32";
  case DType::Int8:
    return "int8";
  case DType::Int64:
    return "int64";
  case DType::Bool:
    return "bool";
  case DType::BFloat16:
    return "bfloat16";
  }
  return "";
}

std::optional<DType> mxc::graph::parseDType(StringRef name) {
  return llvm::StringSwitch<std::optional<DType>>(name)
      .Case("float32", DType::Float32)
      .Case("float64", DType::Float64)
      .Case("float16", DType::Float16)
      .Case("uint8", DType::UInt8)
      .Case("int32", DType::Int32)
      .Case("int8", DType::Int8)
      .Case("int64", DType::Int64)
      .Case("bool", DType::Bool)
      .Case("bfloat16", DType::BFloat16)
      .Default(std::nullopt);
}

StringRef NDArrayData::bareName() const {
  StringRef n = name;
  if (n.starts_with("arg:") || n.starts_with("aux:"))
    return n.drop_front(4);
  return n;
}

bool NDArrayData::isNone() const {
  if (unknownNDim)
    return true;
  if (version == RecordVersion::V3)
    return llvm::is_contained(shape, -1);
  return shape.empty();
}

int64_t NDArrayData::numElements() const {
  if (isNone())
    return 0;
  std::optional<int64_t> n = product(shape);
  return n ? *n : 0;
}

llvm::Error mxc::graph::checkArray(const NDArrayData &a) {
  auto fail = [&](const llvm::Twine &msg) {
    return llvm::createStringError(
        ("array '" + detail::printable(a.name) + "': " + msg).str());
  };
  if (!dtypeSize(a.dtype))
    return fail("unknown dtype flag " + llvm::Twine(int32_t(a.dtype)));
  if (a.unknownNDim &&
      (a.version == RecordVersion::Legacy || a.version == RecordVersion::V2))
    return fail("an unknown ndim (-1) needs a V1 or V3 record");
  if (a.unknownNDim && !a.shape.empty())
    return fail("an unknown ndim (-1) cannot have dimensions");
  if (a.shape.size() > size_t(INT32_MAX))
    return fail("too many dimensions");
  for (int64_t d : a.shape) {
    if (d < -1 || (d == -1 && a.version != RecordVersion::V3))
      return fail("negative dimension " + llvm::Twine(d));
    if (a.version == RecordVersion::Legacy && d > int64_t(UINT32_MAX))
      return fail("dimension " + llvm::Twine(d) +
                  " does not fit a legacy record's 32 bits");
  }
  if (a.isNone()) {
    if (!a.bytes.empty())
      return fail("a none array (shape unknown) stores no data");
    return llvm::Error::success();
  }
  std::optional<int64_t> n = product(a.shape);
  if (!n || uint64_t(*n) > UINT64_MAX / dtypeSize(a.dtype))
    return fail("too many elements");
  uint64_t want = uint64_t(*n) * dtypeSize(a.dtype);
  if (a.bytes.size() != want)
    return fail(llvm::formatv("has {0} bytes of data; its shape and dtype "
                              "need {1}",
                              a.bytes.size(), want)
                    .str());
  return llvm::Error::success();
}

//===----------------------------------------------------------------------===//
// Files
//===----------------------------------------------------------------------===//

llvm::Expected<std::vector<NDArrayData>>
mxc::graph::readParams(StringRef bytes) {
  return ParamsReader(bytes).read();
}

llvm::Expected<std::vector<NDArrayData>>
mxc::graph::readParamsFile(StringRef path) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buf =
      llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                  /*RequiresNullTerminator=*/false);
  if (!buf)
    return llvm::createStringError(buf.getError(),
                                   "cannot read '" + path +
                                       "': " + buf.getError().message());
  auto arrays = readParams((*buf)->getBuffer());
  if (!arrays)
    return llvm::createStringError(path + ": " +
                                   llvm::toString(arrays.takeError()));
  return arrays;
}

std::string mxc::graph::writeParams(const std::vector<NDArrayData> &arrays) {
  std::string out;
  put64(out, kListMagic);
  put64(out, 0);
  put64(out, arrays.size());
  for (const NDArrayData &a : arrays)
    writeRecord(out, a);
  bool named = llvm::any_of(arrays, [](const NDArrayData &a) {
    return !a.name.empty();
  });
  put64(out, named ? arrays.size() : 0);
  if (named) {
    for (const NDArrayData &a : arrays) {
      put64(out, a.name.size());
      out += a.name;
    }
  }
  return out;
}

llvm::Error
mxc::graph::writeParamsFile(StringRef path,
                            const std::vector<NDArrayData> &arrays) {
  for (const NDArrayData &a : arrays)
    if (llvm::Error err = checkArray(a))
      return err;
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec, llvm::sys::fs::OF_None);
  if (ec)
    return llvm::createStringError(ec, "cannot write '" + path +
                                           "': " + ec.message());
  os << writeParams(arrays);
  os.close();
  if (os.has_error())
    return llvm::createStringError(os.error(), "cannot write '" + path +
                                                   "': " +
                                                   os.error().message());
  return llvm::Error::success();
}
