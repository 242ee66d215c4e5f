// error.h - the exception the runtime's C++ API throws.
//
// Inside the runtime, failures are C++ exceptions of this type (or of the
// standard library); the C API (c_api.h) turns every exception into a status
// code and a message, so none crosses that boundary.
//
// Plain C++17: nothing here may include LLVM or MLIR.
#ifndef MXC_RUNTIME_ERROR_H
#define MXC_RUNTIME_ERROR_H

#include "mxc/runtime/api.h"

#include <stdexcept>
#include <string>

namespace mxc::runtime {

/// A runtime failure with a one-line message: a bad argument, a failed
/// operation (the message names it), storage that could not be allocated.
class MXC_RUNTIME_API Error : public std::runtime_error {
public:
  explicit Error(const std::string &message);
  ~Error() override;
};

/// An engine operation failed (a plan step, a copy); the message names it.
class MXC_RUNTIME_API OperationError : public Error {
public:
  explicit OperationError(const std::string &message);
  ~OperationError() override;
};

/// A device had no memory for an allocation.
class MXC_RUNTIME_API OutOfMemoryError : public Error {
public:
  explicit OutOfMemoryError(const std::string &message);
  ~OutOfMemoryError() override;
};

} // namespace mxc::runtime

#endif // MXC_RUNTIME_ERROR_H
