// error.cc - the runtime's exception type (its key function lives here so
// its type information is exported once from the shared library).
#include "mxc/runtime/error.h"

namespace mxc::runtime {

Error::Error(const std::string &message) : std::runtime_error(message) {}
Error::~Error() = default;

OperationError::OperationError(const std::string &message) : Error(message) {}
OperationError::~OperationError() = default;

OutOfMemoryError::OutOfMemoryError(const std::string &message)
    : Error(message) {}
OutOfMemoryError::~OutOfMemoryError() = default;

} // namespace mxc::runtime
