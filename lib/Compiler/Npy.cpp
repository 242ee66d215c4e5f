//===- Npy.cpp - numpy .npy files -----------------------------------------===//
//
// Format (numpy/lib/format.py): "\x93NUMPY", major, minor, header length
// (u16 for 1.0, u32 for 2.0/3.0, little-endian), then an ASCII (3.0: UTF-8)
// Python dict literal {'descr': '<f4', 'fortran_order': False, 'shape':
// (2, 3), } padded with spaces and ended by '\n', then the raw data.
//
//===----------------------------------------------------------------------===//
#include "mxc/Compiler/Npy.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <map>

using namespace mxc;
using llvm::StringRef;

namespace {

llvm::Error npyError(const llvm::Twine &msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), msg);
}

struct DescrEntry {
  const char *descr;
  graph::DType dtype;
};
// The spelling numpy writes first; then spellings it may also write.
const DescrEntry kDescrs[] = {
    {"<f4", graph::DType::Float32}, {"<f8", graph::DType::Float64},
    {"<f2", graph::DType::Float16}, {"<i4", graph::DType::Int32},
    {"<i8", graph::DType::Int64},   {"|u1", graph::DType::UInt8},
    {"|i1", graph::DType::Int8},    {"|b1", graph::DType::Bool},
    {"<u1", graph::DType::UInt8},   {"<i1", graph::DType::Int8},
    {"<b1", graph::DType::Bool},    {"|?", graph::DType::Bool},
};

/// A tiny reader for the header's dict literal: string keys, and values that
/// are strings, True/False, or tuples of integers.
class HeaderParser {
public:
  explicit HeaderParser(StringRef text) : s(text) {}

  llvm::Error parse(std::map<std::string, std::string> &strings,
                    std::map<std::string, bool> &bools,
                    std::map<std::string, std::vector<int64_t>> &tuples) {
    skip();
    if (!s.consume_front("{"))
      return npyError("header is not a dict literal");
    while (true) {
      skip();
      if (s.consume_front("}"))
        break;
      std::string key;
      if (!readString(key))
        return npyError("header: expected a quoted key");
      skip();
      if (!s.consume_front(":"))
        return npyError("header: expected ':' after '" + key + "'");
      skip();
      if (s.starts_with("'") || s.starts_with("\"")) {
        std::string v;
        if (!readString(v))
          return npyError("header: bad string value for '" + key + "'");
        strings[key] = v;
      } else if (s.consume_front("True")) {
        bools[key] = true;
      } else if (s.consume_front("False")) {
        bools[key] = false;
      } else if (s.consume_front("(")) {
        std::vector<int64_t> dims;
        while (true) {
          skip();
          if (s.consume_front(")"))
            break;
          size_t n = 0;
          while (n < s.size() && llvm::isDigit(s[n]))
            ++n;
          int64_t d;
          if (n == 0 || s.take_front(n).getAsInteger(10, d))
            return npyError("header: bad shape for '" + key + "'");
          dims.push_back(d);
          s = s.drop_front(n);
          skip();
          s.consume_front("L"); // Python 2 longs
          skip();
          if (!s.consume_front(",")) {
            skip();
            if (!s.consume_front(")"))
              return npyError("header: bad shape for '" + key + "'");
            break;
          }
        }
        tuples[key] = std::move(dims);
      } else {
        return npyError("header: unsupported value for '" + key + "'");
      }
      skip();
      if (s.consume_front(","))
        continue;
      skip();
      if (s.consume_front("}"))
        break;
      return npyError("header: expected ',' or '}'");
    }
    return llvm::Error::success();
  }

private:
  void skip() { s = s.ltrim(" \t\r\n"); }
  bool readString(std::string &out) {
    if (s.empty() || (s[0] != '\'' && s[0] != '"'))
      return false;
    char q = s[0];
    size_t end = s.find(q, 1);
    if (end == StringRef::npos)
      return false;
    out = s.substr(1, end - 1).str();
    s = s.drop_front(end + 1);
    return true;
  }
  StringRef s;
};

uint32_t readLE(StringRef bytes, unsigned n) {
  uint32_t v = 0;
  for (unsigned i = 0; i < n; ++i)
    v |= uint32_t(uint8_t(bytes[i])) << (8 * i);
  return v;
}

} // namespace

int64_t NpyArray::numElements() const {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

StringRef mxc::npyDescr(graph::DType dtype) {
  for (const DescrEntry &e : kDescrs)
    if (e.dtype == dtype)
      return e.descr;
  return "";
}

std::string mxc::formatShape(llvm::ArrayRef<int64_t> shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i)
      s += ", ";
    s += std::to_string(shape[i]);
  }
  if (shape.size() == 1)
    s += ",";
  return s + ")";
}

llvm::Expected<NpyArray> mxc::readNpy(StringRef bytes) {
  if (!bytes.starts_with("\x93NUMPY"))
    return npyError("not a .npy file (no \\x93NUMPY magic)");
  if (bytes.size() < 10)
    return npyError("truncated .npy header");
  unsigned major = uint8_t(bytes[6]);
  unsigned lenBytes;
  if (major == 1)
    lenBytes = 2;
  else if (major == 2 || major == 3)
    lenBytes = 4;
  else
    return npyError("unsupported .npy version " + llvm::Twine(major) + "." +
                    llvm::Twine(unsigned(uint8_t(bytes[7]))));
  if (bytes.size() < 8 + lenBytes)
    return npyError("truncated .npy header");
  uint64_t headerLen = readLE(bytes.drop_front(8), lenBytes);
  uint64_t dataStart = 8 + lenBytes + headerLen;
  if (dataStart > bytes.size())
    return npyError("truncated .npy header (" + llvm::Twine(headerLen) +
                    " header bytes announced, " +
                    llvm::Twine(bytes.size() - 8 - lenBytes) + " present)");
  StringRef header = bytes.substr(8 + lenBytes, headerLen);

  std::map<std::string, std::string> strings;
  std::map<std::string, bool> bools;
  std::map<std::string, std::vector<int64_t>> tuples;
  if (llvm::Error err = HeaderParser(header).parse(strings, bools, tuples))
    return std::move(err);
  if (!strings.count("descr"))
    return npyError("header has no 'descr'");
  if (!tuples.count("shape"))
    return npyError("header has no 'shape'");
  if (bools.count("fortran_order") && bools["fortran_order"])
    return npyError("Fortran-order arrays are not supported (save a C-order "
                    "array: np.ascontiguousarray)");

  NpyArray array;
  StringRef descr = strings["descr"];
  bool found = false;
  for (const DescrEntry &e : kDescrs)
    if (descr == e.descr) {
      array.dtype = e.dtype;
      found = true;
    }
  // '=' is native order, little-endian on every host mxc runs on.
  if (!found && descr.starts_with("="))
    for (const DescrEntry &e : kDescrs)
      if (descr.drop_front(1) == StringRef(e.descr).drop_front(1)) {
        array.dtype = e.dtype;
        found = true;
      }
  if (!found) {
    if (descr.starts_with(">"))
      return npyError("big-endian dtype '" + descr +
                      "' is not supported (use a little-endian array)");
    return npyError("unsupported dtype '" + descr +
                    "' (float32, float64, float16, int32, int64, uint8, "
                    "int8, bool)");
  }
  array.shape = tuples["shape"];
  size_t elemSize = graph::dtypeSize(array.dtype);
  // Size check against the bytes present; products past 2^62 are absurd.
  uint64_t available = bytes.size() - dataStart;
  uint64_t need = elemSize;
  bool absurd = false;
  for (int64_t d : array.shape) {
    if (d != 0 && need > (uint64_t(1) << 62) / uint64_t(d))
      absurd = true;
    else
      need *= uint64_t(d);
  }
  if (absurd || need != available)
    return npyError(
        "data size mismatch: shape " + formatShape(array.shape) + " of " +
        descr + " needs " +
        (absurd ? std::string("more than 2^62") : std::to_string(need)) +
        " bytes, the file has " + llvm::Twine(available));
  StringRef data = bytes.drop_front(dataStart);
  array.bytes.assign(data.bytes_begin(), data.bytes_end());
  return array;
}

llvm::Expected<NpyArray> mxc::readNpyFile(StringRef path) {
  auto buf = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                         /*RequiresNullTerminator=*/false);
  if (!buf)
    return npyError(path + ": " + buf.getError().message());
  auto array = readNpy((*buf)->getBuffer());
  if (!array)
    return npyError(path + ": " + llvm::toString(array.takeError()));
  return array;
}

llvm::Expected<std::string> mxc::writeNpy(const NpyArray &array) {
  StringRef descr = npyDescr(array.dtype);
  if (descr.empty())
    return npyError("dtype " + graph::dtypeName(array.dtype) +
                    " has no .npy spelling");
  std::string dict =
      "{'descr': '" + descr.str() +
      "', 'fortran_order': False, 'shape': " + formatShape(array.shape) + ", }";
  // magic(6) + version(2) + len(2) + dict + padding + '\n' = multiple of 64.
  size_t total = 10 + dict.size() + 1;
  size_t padded = (total + 63) / 64 * 64;
  dict.append(padded - total, ' ');
  dict += '\n';
  std::string out = "\x93NUMPY";
  out += char(1);
  out += char(0);
  out += char(dict.size() & 0xff);
  out += char((dict.size() >> 8) & 0xff);
  out += dict;
  out.append(reinterpret_cast<const char *>(array.bytes.data()),
             array.bytes.size());
  return out;
}

llvm::Error mxc::writeNpyFile(StringRef path, const NpyArray &array) {
  auto bytes = writeNpy(array);
  if (!bytes)
    return npyError(path + ": " + llvm::toString(bytes.takeError()));
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec, llvm::sys::fs::OF_None);
  if (ec)
    return npyError(path + ": " + ec.message());
  os << *bytes;
  os.close();
  if (os.has_error()) {
    std::string msg = os.error().message();
    os.clear_error();
    return npyError(path + ": " + msg);
  }
  return llvm::Error::success();
}
