//===- symbol_json_fuzzer.cpp - libFuzzer target for symbol JSON ----------===//
//
// Any input: readSymbolJSON must fail cleanly or give a graph that verifies,
// whose lists can be taken, and whose JSON reads back to the same JSON.
//
//===----------------------------------------------------------------------===//

#include "mxc/Graph/Graph.h"

#include <cstdio>
#include <cstdlib>

using namespace mxc::graph;

static void check(bool ok, const char *what) {
  if (!ok) {
    std::fprintf(stderr, "symbol_json_fuzzer: %s\n", what);
    std::abort();
  }
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  llvm::StringRef text(reinterpret_cast<const char *>(data), size);
  llvm::Expected<Graph> g = readSymbolJSON(text);
  if (!g) {
    std::string msg = llvm::toString(g.takeError());
    check(!msg.empty() && msg.find('\n') == std::string::npos,
          "error message is not one line");
    return 0;
  }
  check(!llvm::errorToBool(g->verify()), "graph read does not verify");
  (void)g->listArguments();
  (void)g->listAuxiliaryStates();
  (void)g->listOutputs();
  for (const Node &n : g->nodes)
    (void)outputNamesOf(n.op, n.attrs);

  std::string written = writeSymbolJSON(*g);
  llvm::Expected<Graph> back = readSymbolJSON(written);
  if (!back) {
    std::fprintf(stderr, "%s\n", llvm::toString(back.takeError()).c_str());
    check(false, "written JSON does not read back");
  }
  check(writeSymbolJSON(*back) == written, "JSON round trip is not stable");
  return 0;
}
