//===- Printable.h - names in one-line error messages -----------*- C++ -*-===//
//
// Private to lib/Graph: node, attribute and array names come from files and
// may hold any byte; error messages must stay one line.
//
//===----------------------------------------------------------------------===//
#ifndef MXC_LIB_GRAPH_PRINTABLE_H
#define MXC_LIB_GRAPH_PRINTABLE_H

#include "llvm/ADT/StringRef.h"

#include <string>

namespace mxc::graph::detail {

/// `s` with control characters escaped ("\n", "\x01"); other bytes as they
/// are.
inline std::string printable(llvm::StringRef s) {
  static const char hex[] = "0123456789abcdef";
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    unsigned char u = static_cast<unsigned char>(c);
    if (c == '\n') {
      out += "\\n";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c == '\r') {
      out += "\\r";
    } else if (u < 0x20 || u == 0x7f) {
      out += "\\x";
      out += hex[u >> 4];
      out += hex[u & 15];
    } else {
      out += c;
    }
  }
  return out;
}

} // namespace mxc::graph::detail

#endif // MXC_LIB_GRAPH_PRINTABLE_H
