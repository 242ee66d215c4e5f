/* compiled_module.h - what compiled code exports next to its kernels: the one
 * ABI between the compiler (lib/Compiler: the JIT and `mxc compile`, which
 * emit these symbols as LLVM IR) and the runtime (the JIT's loader, the AOT
 * model runtime), which read them. Plain C, so that C programs linking an
 * `mxc compile --emit obj` object can read it too.
 *
 * For an entry symbol E (default "mxc_main") a compiled module defines:
 *
 *   const char    E_plan[];                  the plan, "mxc-plan" text (plan.h,
 *                                            docs/runtime.md "Plan format"),
 *                                            NUL-terminated
 *   const mxc_kernel_entry E_kernels[];      every kernel the plan names
 *   const int64_t E_num_kernels;
 *   const int64_t E_arena_size;              bytes of the plan's arena
 *
 * and one kernel per plan step, `void E_step<i>_kernel(void **buffers)`: the
 * kernel ABI of plan.h (buffers[k] = data pointer of the step's k-th buffer,
 * its reads in order, then its writes; shapes and dtypes are baked in).
 *
 * An AOT model (`mxc compile --emit exe|shared|obj`) also defines
 * `const mxc_model_desc mxc_model_descriptor` (below), read by the model
 * runtime (runtime/src/model/model.cc). Every field is one 8-byte word
 * (pointer or int64_t), so the layout is the same on every LP64 target; the
 * compiler checks its emitted layout against these structs.
 *
 * Weights. Parameters and auxiliary states are one blob: each array at a
 * 64-byte aligned offset, in entry argument order. Embedded (--weights
 * embed): `weights` points at it (64-byte aligned, read-only). External
 * (--weights external): `weights` is NULL and `weights_file` names a file
 * beside the output holding a 64-byte header, then the blob:
 *   char magic[8] = "MXCWGT01"; uint64_t blob_size; uint64_t blob_hash;
 *   40 zero bytes
 * blob_hash = mxc_weights_hash(blob) = the descriptor's weights_hash.
 */
#ifndef MXC_RUNTIME_COMPILED_MODULE_H
#define MXC_RUNTIME_COMPILED_MODULE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The kernel ABI (plan.h's KernelFn). */
typedef void (*mxc_kernel_fn)(void **buffers);

/* One row of E_kernels. */
typedef struct mxc_kernel_entry {
  const char *symbol;
  mxc_kernel_fn fn;
} mxc_kernel_entry;

#define MXC_MODEL_DESC_MAGIC 0x4c45444f4d43584dll /* "MXCMODEL" */
/* 2: the model is a plan + kernel table run by the executor (1 had one
 * packed entry function). */
#define MXC_MODEL_DESC_VERSION 2

enum mxc_tensor_kind {
  MXC_KIND_DATA = 0,
  MXC_KIND_PARAM = 1,
  MXC_KIND_AUX = 2,
  MXC_KIND_OUTPUT = 3
};

typedef struct mxc_model_tensor_desc {
  const char *name;
  int64_t kind;  /* mxc_tensor_kind */
  int64_t dtype; /* MXNet dtype flag (mxc_model_dtype) */
  int64_t ndim;
  const int64_t *shape;
  int64_t nbytes;
  int64_t weight_offset; /* params and aux: offset in the blob; else -1 */
} mxc_model_tensor_desc;

typedef struct mxc_model_desc {
  int64_t magic;   /* MXC_MODEL_DESC_MAGIC */
  int64_t version; /* MXC_MODEL_DESC_VERSION */
  const char *name;
  const char *target;
  int64_t num_args; /* plan arguments (entry inputs), in order */
  const mxc_model_tensor_desc *args;
  int64_t num_outputs; /* plan outputs, in order */
  const mxc_model_tensor_desc *outputs;
  const char *plan;                 /* E_plan */
  const mxc_kernel_entry *kernels;  /* E_kernels */
  int64_t num_kernels;              /* E_num_kernels */
  const uint8_t *weights;           /* embedded blob, or NULL */
  int64_t weights_size;             /* blob bytes */
  const char *weights_file;         /* external: file name; else NULL */
  int64_t weights_hash;             /* mxc_weights_hash of the blob */
} mxc_model_desc;

/* The checksum of a weights blob: FNV-1a over its 64-bit little-endian words
 * (the size is a multiple of 64). */
static inline uint64_t mxc_weights_hash(const uint8_t *data, size_t size) {
  uint64_t h = 0xcbf29ce484222325ull;
  size_t i;
  for (i = 0; i + 8 <= size; i += 8) {
    uint64_t w; /* both targets (x86-64, aarch64) are little endian */
    memcpy(&w, data + i, 8);
    h = (h ^ w) * 0x100000001b3ull;
  }
  return h;
}

#ifdef __cplusplus
} /* extern "C" */

#include <string>

namespace mxc::runtime {
/// The symbols of a compiled module with entry symbol `entry`.
inline std::string planSymbol(const std::string &entry) { return entry + "_plan"; }
inline std::string kernelTableSymbol(const std::string &entry) {
  return entry + "_kernels";
}
inline std::string numKernelsSymbol(const std::string &entry) {
  return entry + "_num_kernels";
}
inline std::string arenaSizeSymbol(const std::string &entry) {
  return entry + "_arena_size";
}
/// `void <entry>_module_init(void)` / `_module_fini`: the module's
/// constructors and destructors (a CUDA plan's kernel-binary loads and
/// unloads), for a loader that runs no .init_array (the JIT's ORC). Only
/// in modules the JIT compiled for a GPU (exposeModuleInitializers).
inline std::string moduleInitSymbol(const std::string &entry) {
  return entry + "_module_init";
}
inline std::string moduleFiniSymbol(const std::string &entry) {
  return entry + "_module_fini";
}
/// The kernel of step `i` and the function it calls (the outlined step).
inline std::string stepFunctionName(const std::string &entry, size_t i) {
  return entry + "_step" + std::to_string(i);
}
inline std::string stepKernelSymbol(const std::string &entry, size_t i) {
  return stepFunctionName(entry, i) + "_kernel";
}
} // namespace mxc::runtime
#endif

#endif /* MXC_RUNTIME_COMPILED_MODULE_H */
