// env.h - reading the runtime's integer environment variables (the engine's
// options, the thread budget). Private to the runtime.
#ifndef MXC_RUNTIME_SRC_ENV_H
#define MXC_RUNTIME_SRC_ENV_H

#include <cerrno>
#include <cstdio>
#include <cstdlib>

namespace mxc::runtime::detail {

/// Reads the integer variable `name` into `out`: true if it is set and
/// well formed (an integer in [min, 2^40]); false if it is unset or empty,
/// and false with a warning on stderr if it is malformed. With
/// `allowList`, text after a first ',' is ignored (OpenMP's "4,2").
inline bool readEnvInteger(const char *name, long long min, long long &out,
                           bool allowList = false) {
  const char *text = std::getenv(name);
  if (!text || !*text)
    return false;
  errno = 0;
  char *end = nullptr;
  long long value = std::strtoll(text, &end, 10);
  bool ok = errno == 0 && end != text &&
            (*end == '\0' || (allowList && *end == ',')) && value >= min &&
            value <= (1LL << 40);
  if (!ok) {
    std::fprintf(stderr, "mxc: ignoring %s='%s' (want an integer >= %lld)\n",
                 name, text, min);
    return false;
  }
  out = value;
  return true;
}

} // namespace mxc::runtime::detail

#endif // MXC_RUNTIME_SRC_ENV_H
