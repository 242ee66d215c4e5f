//===- TestUtil.h - helpers for the Graph unit tests ------------*- C++ -*-===//
#ifndef MXC_TEST_UNIT_GRAPH_TESTUTIL_H
#define MXC_TEST_UNIT_GRAPH_TESTUTIL_H

#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"

#include <gtest/gtest.h>

#include <string>

namespace mxc::test {

/// Path of a file under test/Inputs.
inline std::string inputPath(llvm::StringRef rel) {
  return std::string(MXC_TEST_INPUTS) + "/" + rel.str();
}

/// Contents of a file under test/Inputs ("" and a test failure if missing).
inline std::string readInput(llvm::StringRef rel) {
  auto buf = llvm::MemoryBuffer::getFile(inputPath(rel), /*IsText=*/false,
                                         /*RequiresNullTerminator=*/false);
  if (!buf) {
    ADD_FAILURE() << "cannot read " << inputPath(rel);
    return "";
  }
  return (*buf)->getBuffer().str();
}

/// The message of an Expected that must have failed ("" and a test failure
/// if it succeeded).
template <typename T> std::string errorOf(llvm::Expected<T> e) {
  if (e) {
    ADD_FAILURE() << "expected an error";
    return "";
  }
  return llvm::toString(e.takeError());
}

/// Unwraps an Expected that must have succeeded.
template <typename T> T take(llvm::Expected<T> e) {
  if (!e) {
    ADD_FAILURE() << "unexpected error: " << llvm::toString(e.takeError());
    return T();
  }
  return std::move(*e);
}

} // namespace mxc::test

#endif // MXC_TEST_UNIT_GRAPH_TESTUTIL_H
