//===- npy.cc - .npy files for compiled model executables -----------------===//
#include "npy.h"

#include <cerrno>
#include <cstdio>
#include <cstring>

namespace mxc::aot {
namespace {

struct DTypeEntry {
  int dtype;
  const char *name;
  const char *descr; // .npy descr; nullptr if none
  size_t size;
};

const DTypeEntry kDTypes[] = {
    {0, "float32", "<f4", 4}, {1, "float64", "<f8", 8},
    {2, "float16", "<f2", 2}, {3, "uint8", "|u1", 1},
    {4, "int32", "<i4", 4},   {5, "int8", "|i1", 1},
    {6, "int64", "<i8", 8},   {7, "bool", "|b1", 1},
    {12, "bfloat16", nullptr, 2},
};

const DTypeEntry *lookup(int dtype) {
  for (const DTypeEntry &e : kDTypes)
    if (e.dtype == dtype)
      return &e;
  return nullptr;
}

/// The value of 'key' in the header dict, as raw text up to the next
/// top-level ',' or '}' (a tuple is kept whole).
bool dictValue(const std::string &header, const char *key,
               std::string &value) {
  std::string q1 = std::string("'") + key + "'";
  size_t at = header.find(q1);
  if (at == std::string::npos)
    return false;
  at = header.find(':', at + q1.size());
  if (at == std::string::npos)
    return false;
  ++at;
  while (at < header.size() && header[at] == ' ')
    ++at;
  size_t end = at;
  int depth = 0;
  for (; end < header.size(); ++end) {
    char c = header[end];
    if (c == '(')
      ++depth;
    else if (c == ')')
      --depth;
    else if ((c == ',' || c == '}') && depth == 0)
      break;
  }
  value = header.substr(at, end - at);
  while (!value.empty() && value.back() == ' ')
    value.pop_back();
  return true;
}

} // namespace

size_t dtypeSize(int dtype) {
  const DTypeEntry *e = lookup(dtype);
  return e ? e->size : 0;
}

const char *dtypeName(int dtype) {
  const DTypeEntry *e = lookup(dtype);
  return e ? e->name : "unknown";
}

std::string formatShape(const int64_t *shape, size_t ndim) {
  std::string s = "(";
  for (size_t i = 0; i < ndim; ++i)
    s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + (ndim == 1 ? ",)" : ")");
}

bool readNpy(const std::string &path, NpyArray &out, std::string &error) {
  FILE *f = std::fopen(path.c_str(), "rb");
  if (!f) {
    error = path + ": " + std::strerror(errno);
    return false;
  }
  auto bad = [&](const std::string &what) {
    std::fclose(f);
    error = path + ": " + what;
    return false;
  };
  unsigned char magic[8];
  if (std::fread(magic, 1, 8, f) != 8 ||
      std::memcmp(magic, "\x93NUMPY", 6) != 0)
    return bad("not a .npy file");
  uint32_t headerLen = 0;
  if (magic[6] == 1) {
    unsigned char b[2];
    if (std::fread(b, 1, 2, f) != 2)
      return bad("truncated header");
    headerLen = b[0] | (uint32_t(b[1]) << 8);
  } else if (magic[6] == 2 || magic[6] == 3) {
    unsigned char b[4];
    if (std::fread(b, 1, 4, f) != 4)
      return bad("truncated header");
    headerLen = b[0] | (uint32_t(b[1]) << 8) | (uint32_t(b[2]) << 16) |
                (uint32_t(b[3]) << 24);
  } else {
    return bad("unsupported .npy version " + std::to_string(magic[6]));
  }
  if (headerLen > (1u << 20))
    return bad("header too long");
  std::string header(headerLen, '\0');
  if (std::fread(&header[0], 1, headerLen, f) != headerLen)
    return bad("truncated header");
  std::string descr, order, shape;
  if (!dictValue(header, "descr", descr) ||
      !dictValue(header, "fortran_order", order) ||
      !dictValue(header, "shape", shape))
    return bad("malformed header");
  if (order != "False")
    return bad("Fortran-order arrays are not supported");
  if (descr.size() >= 2 && (descr.front() == '\'' || descr.front() == '"'))
    descr = descr.substr(1, descr.size() - 2);
  if (descr == "<u1" || descr == "u1")
    descr = "|u1";
  if (descr == "<i1" || descr == "i1")
    descr = "|i1";
  if (descr == "<b1" || descr == "?" || descr == "|?")
    descr = "|b1";
  const DTypeEntry *dt = nullptr;
  for (const DTypeEntry &e : kDTypes)
    if (e.descr && descr == e.descr)
      dt = &e;
  if (!dt)
    return bad("unsupported dtype '" + descr + "'");
  out.dtype = dt->dtype;
  out.shape.clear();
  if (shape.size() < 2 || shape.front() != '(' || shape.back() != ')')
    return bad("malformed shape");
  size_t count = 1;
  std::string inner = shape.substr(1, shape.size() - 2);
  size_t pos = 0;
  while (pos < inner.size()) {
    size_t comma = inner.find(',', pos);
    std::string tok = inner.substr(pos, comma == std::string::npos
                                            ? std::string::npos
                                            : comma - pos);
    size_t b = tok.find_first_not_of(' '), e = tok.find_last_not_of(' ');
    if (b != std::string::npos) {
      tok = tok.substr(b, e - b + 1);
      char *endp = nullptr;
      long long v = std::strtoll(tok.c_str(), &endp, 10);
      if (!endp || *endp || v < 0)
        return bad("malformed shape");
      out.shape.push_back(v);
      count *= size_t(v);
    }
    if (comma == std::string::npos)
      break;
    pos = comma + 1;
  }
  size_t nbytes = count * dt->size;
  out.bytes.resize(nbytes);
  if (nbytes && std::fread(out.bytes.data(), 1, nbytes, f) != nbytes)
    return bad("truncated data (" + std::to_string(nbytes) + " bytes needed)");
  std::fclose(f);
  return true;
}

bool writeNpy(const std::string &path, int dtype, const int64_t *shape,
              size_t ndim, const void *data, size_t nbytes,
              std::string &error) {
  const DTypeEntry *dt = lookup(dtype);
  if (!dt || !dt->descr) {
    error = path + ": dtype " + dtypeName(dtype) + " has no .npy spelling";
    return false;
  }
  std::string header = std::string("{'descr': '") + dt->descr +
                       "', 'fortran_order': False, 'shape': " +
                       formatShape(shape, ndim) + ", }";
  size_t total = 10 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  FILE *f = std::fopen(path.c_str(), "wb");
  if (!f) {
    error = path + ": " + std::strerror(errno);
    return false;
  }
  unsigned char pre[10] = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0,
                           (unsigned char)(header.size() & 0xff),
                           (unsigned char)(header.size() >> 8)};
  bool ok = std::fwrite(pre, 1, 10, f) == 10 &&
            std::fwrite(header.data(), 1, header.size(), f) == header.size() &&
            std::fwrite(data, 1, nbytes, f) == nbytes;
  ok = (std::fclose(f) == 0) && ok;
  if (!ok)
    error = path + ": write failed";
  return ok;
}

} // namespace mxc::aot
