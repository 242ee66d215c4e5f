//===- params_fuzzer.cpp - libFuzzer target for .params files -------------===//
//
// Any input: readParams must fail cleanly (one line, with an offset) or give
// arrays that pass checkArray and whose image reads back to the same image.
//
//===----------------------------------------------------------------------===//

#include "mxc/Graph/Params.h"

#include <cstdio>
#include <cstdlib>

using namespace mxc::graph;

static void check(bool ok, const char *what) {
  if (!ok) {
    std::fprintf(stderr, "params_fuzzer: %s\n", what);
    std::abort();
  }
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  llvm::StringRef bytes(reinterpret_cast<const char *>(data), size);
  auto arrays = readParams(bytes);
  if (!arrays) {
    std::string msg = llvm::toString(arrays.takeError());
    check(llvm::StringRef(msg).starts_with("offset "),
          "error message does not start with an offset");
    check(msg.find('\n') == std::string::npos, "error message is not one line");
    return 0;
  }
  for (const NDArrayData &a : *arrays) {
    if (llvm::Error err = checkArray(a)) {
      std::fprintf(stderr, "%s\n", llvm::toString(std::move(err)).c_str());
      check(false, "an array read does not pass checkArray");
    }
    (void)a.bareName();
    (void)a.numElements();
  }
  std::string written = writeParams(*arrays);
  auto back = readParams(written);
  if (!back) {
    std::fprintf(stderr, "%s\n", llvm::toString(back.takeError()).c_str());
    check(false, "written image does not read back");
  }
  check(writeParams(*back) == written, "params round trip is not stable");
  return 0;
}
