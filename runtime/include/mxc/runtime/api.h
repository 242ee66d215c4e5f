/* api.h - symbol visibility for the runtime library (built with hidden
 * visibility; only what carries MXC_RUNTIME_API is exported). */
#ifndef MXC_RUNTIME_API_H
#define MXC_RUNTIME_API_H
#define MXC_RUNTIME_API __attribute__((visibility("default")))
#endif
