// internal.h - what the runtime's CUDA files share (private): the calling
// thread's device binding and stream (cuda_device.cc), the device the mgpu*
// functions target (mgpu_wrappers.cc), and loading a library's function
// table with dlopen (the driver, cuBLAS, cuDNN all load this way, so that a
// CUDA build runs where they are missing).
#ifndef MXC_RUNTIME_CUDA_INTERNAL_H
#define MXC_RUNTIME_CUDA_INTERNAL_H

#include "driver.h"

#include <dlfcn.h>

#include <cstdlib>
#include <initializer_list>
#include <string>

namespace mxc::runtime::cuda {

/// Makes gpu(id)'s primary context current on the calling thread.
const Driver &bindDevice(int id);
/// The calling thread's stream on gpu(id) (created once, kept).
CUstream streamOf(int id);
/// The device mgpuSetDefaultDevice chose on this thread (0 by default).
int mgpuCurrentDevice();
/// Whether a stream batch (a bulk GPU run, mxc_cuda_stream_batch_begin) is
/// open on this thread; if so, notes that gpu(id)'s
/// stream has work the batch's finish() must wait for (synchronize() and the
/// generated steps' stream synchronisation then return at once).
bool deferSynchronize(int id);
/// Waits for the calling thread's stream on gpu(id), batch or not (before
/// memory the stream may still use is given back).
void synchronizeNow(int id);

/// Whether MXC_CUDA_ALLOW_TF32=1: f32 GEMMs and convolutions may use TF32
/// tensor cores (off by default: MXNet's f32 semantics).
inline bool allowTf32() {
  const char *v = std::getenv("MXC_CUDA_ALLOW_TF32");
  return v && std::string(v) == "1";
}

/// dlopen's the first of `names` that loads (RTLD_NOW | RTLD_LOCAL); on
/// failure nullptr and `*error` = "cannot load WHAT (first name): dlerror".
inline void *openLibrary(std::initializer_list<const char *> names, const char *what,
                         std::string *error) {
  for (const char *lib : names)
    if (void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL))
      return h;
  const char *e = dlerror();
  std::string first = *names.begin();
  *error = std::string("cannot load ") + what + (first == what ? "" : " (" + first + ")") +
           ": " + (e ? e : "not found");
  return nullptr;
}

/// Looks `name` up in `lib` into `fn`; on failure `*error` = "WHAT has no
/// NAME" and false.
template <typename Fn>
bool loadSymbol(void *lib, const char *name, Fn &fn, const char *what, std::string *error) {
  fn = reinterpret_cast<Fn>(dlsym(lib, name));
  if (!fn)
    *error = std::string(what) + " has no " + name;
  return fn != nullptr;
}

#define MXC_CUDA_STR2(x) #x
/// The name after macro expansion: cuMemAlloc -> "cuMemAlloc_v2".
#define MXC_CUDA_STR(x) MXC_CUDA_STR2(x)

} // namespace mxc::runtime::cuda

#endif // MXC_RUNTIME_CUDA_INTERNAL_H
