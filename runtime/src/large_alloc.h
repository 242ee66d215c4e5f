// large_alloc.h - aligned heap blocks, on transparent huge pages when they
// are large. Private to the runtime.
//
// Blocks of 2 MB or more (an executor's arena, the kept re-laid convolution
// weights: ~94 MB for ResNet-50, the AOT model's weights) are 2 MB aligned
// and advised MADV_HUGEPAGE: this machine's kernel gives transparent huge
// pages only where asked ("madvise" mode), and on 4 KB pages ResNet-50's
// batch-1 pass, which streams its weights, ran 2-3% slower (three
// interleaved pairs with glibc's equivalent tunable, glibc.malloc.hugetlb=1;
// docs/runtime.md). Freed with std::free.
#ifndef MXC_RUNTIME_SRC_LARGE_ALLOC_H
#define MXC_RUNTIME_SRC_LARGE_ALLOC_H

#include <cstddef>
#include <cstdlib>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace mxc::runtime::detail {

constexpr size_t kHugePageBytes = size_t(2) << 20;

/// `bytes` (rounded up to `alignment`) aligned to `alignment` (a power of
/// two, at least sizeof(void *)), or to 2 MB and advised onto huge pages from
/// 2 MB on; null when out of memory.
inline void *alignedAllocate(size_t bytes, size_t alignment = 64) {
  if (bytes >= kHugePageBytes && alignment < kHugePageBytes)
    alignment = kHugePageBytes;
  bytes = (bytes + alignment - 1) / alignment * alignment;
  void *p = nullptr;
  if (posix_memalign(&p, alignment, bytes ? bytes : alignment) != 0)
    return nullptr;
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  if (alignment >= kHugePageBytes)
    (void)madvise(p, bytes, MADV_HUGEPAGE); // advice: failure changes nothing
#endif
  return p;
}

} // namespace mxc::runtime::detail

#endif // MXC_RUNTIME_SRC_LARGE_ALLOC_H
