//===- model_desc.h - what `mxc compile` puts next to the code --*- C++ -*-===//
//
// The ABI between an ahead-of-time compiled model and libmxc_model_rt. The
// object `mxc compile` writes defines, besides the entry `<entry>_packed`:
//
//   extern "C" const mxc_model_desc mxc_model_descriptor;
//
// emitted as LLVM IR globals by lib/Compiler/AOT.cpp (buildModelDescriptor):
// keep the two in step, and bump kMxcModelDescVersion on any change. Every
// field is one 8-byte word (pointer or int64_t), so the layout is the same on
// every LP64 target.
//
// Weights. Parameters and auxiliary states are one blob: each array at a
// 64-byte aligned offset, in entry argument order. Embedded (--weights
// embed): `weights` points at it (64-byte aligned, read-only). External
// (--weights external): `weights` is NULL and `weights_file` names a file
// beside the output holding a 64-byte header, then the blob:
//   char magic[8] = "MXCWGT01"; uint64_t blob_size; uint64_t blob_hash;
//   40 zero bytes
// blob_hash = mxc_weights_hash(blob) (below) = the descriptor's weights_hash.
//
//===----------------------------------------------------------------------===//
#ifndef MXC_RUNTIME_SRC_MODEL_MODEL_DESC_H
#define MXC_RUNTIME_SRC_MODEL_MODEL_DESC_H

#include <cstddef>
#include <cstdint>
#include <cstring>

constexpr int64_t kMxcModelDescMagic = 0x4c45444f4d43584dll; // "MXCMODEL"
constexpr int64_t kMxcModelDescVersion = 1;

enum MxcTensorKind : int64_t {
  kMxcKindData = 0,
  kMxcKindParam = 1,
  kMxcKindAux = 2,
  kMxcKindOutput = 3
};

struct mxc_model_tensor_desc {
  const char *name;
  int64_t kind;  // MxcTensorKind
  int64_t dtype; // MXNet dtype flag (mxc_model_dtype)
  int64_t ndim;
  const int64_t *shape;
  int64_t nbytes;
  int64_t weight_offset; // params and aux: offset in the blob; else -1
};

struct mxc_model_desc {
  int64_t magic;   // kMxcModelDescMagic
  int64_t version; // kMxcModelDescVersion
  const char *name;
  const char *target;
  int64_t num_args; // entry inputs, in argument order
  const mxc_model_tensor_desc *args;
  int64_t num_outputs;
  const mxc_model_tensor_desc *outputs;
  // void entry(void **descriptors): args, then outputs, then (when
  // arena_size is not NULL) the arena, one rank-1 i8 memref descriptor.
  void (*entry)(void **);
  const int64_t *arena_size; // `<entry>_arena_size`, or NULL
  const uint8_t *weights;    // embedded blob, or NULL
  int64_t weights_size;      // blob bytes
  const char *weights_file;  // external: file name; else NULL
  int64_t weights_hash;      // mxc_weights_hash of the blob
};

/// The checksum of a weights blob: FNV-1a over its 64-bit little-endian
/// words (the size is a multiple of 64). Same function in AOT.cpp.
inline uint64_t mxc_weights_hash(const uint8_t *data, size_t size) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (size_t i = 0; i + 8 <= size; i += 8) {
    uint64_t w; // both targets (x86-64, aarch64) are little endian
    std::memcpy(&w, data + i, 8);
    h = (h ^ w) * 0x100000001b3ull;
  }
  return h;
}

#endif // MXC_RUNTIME_SRC_MODEL_MODEL_DESC_H
