//===- MemoryPlan.h - arena planning of a bufferized function ---*- C++ -*-===//
//
// The analysis behind mx-plan-memory, usable as a library (`mxc
// memory-report` calls it for every strategy on the same function).
//
// A *buffer* is a statically shaped `memref.alloc` of the function (at any
// depth) whose aliases never leave it. Its live interval [start, end] is in
// *steps*, the indices of the function body's top-level ops: start is the
// first step that touches its memory (any alias: subview, collapse/expand,
// cast, reinterpret_cast, view, extracted pointers ...; pure view ops do not
// count), end the last step that uses any alias. An op nested in a loop
// counts as its top-level ancestor.
//
// Strategies (Chen et al. 2015, "Training Deep Nets with Sublinear Memory
// Cost" / MXNet's NNVM plan_memory, section 3.3):
//   none     every buffer has its own storage.
//   inplace  when the reference count of an input buffer of an elementwise
//            step (an all-parallel linalg op with identity maps on that input
//            and on its output) drops to zero at that step, the output takes
//            the input's storage.
//   coshare  a storage whose occupants are all dead goes to a free pool; a
//            later buffer takes a pooled storage of similar size (within a
//            factor 16, larger ones first, growing a smaller one if needed,
//            as NNVM's GraphAllocator::Request) -- but only if every step
//            that touched the storage's previous occupants is an ancestor of
//            the new buffer's first step in the dependency DAG (SSA uses of
//            results other than allocations, views and pure ops, and
//            read/write conflicts on buffers and arguments), so that no
//            executor that respects the DAG could run the old users and the
//            new writer in parallel. The DAG's nodes are maximal runs of
//            consecutive top-level ops with the same location: the ops one
//            MXNet node lowered to (a pooling's fill and its loop nest), run
//            as one unit, in order, like the operators of the paper's graph.
//   both     inplace, then coshare.
// The same parallel-safety condition applies to inplace (every other user of
// the input must be an ancestor of the elementwise step).
//
// Each storage gets a 64-byte aligned offset in one arena; the arena size is
// the sum of the storages' sizes (each rounded up to 64 bytes).
//
// The lower bound: no plan can use fewer bytes than, at any step i, the
// buffers live across step i (start < i < end) plus the larger of those that
// die at i (start < i == end) and those that are born at i (start == i; an
// inplace output may share a dying input's bytes, so only the larger side
// counts). It is the maximum over steps of that sum, in exact bytes.
//
//===----------------------------------------------------------------------===//
#ifndef MXC_COMPILER_TRANSFORMS_MEMORYPLAN_H
#define MXC_COMPILER_TRANSFORMS_MEMORYPLAN_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Support/LLVM.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mxc {

enum class MemoryStrategy { None, Inplace, Coshare, Both };

/// "none" | "inplace" | "coshare" | "both".
std::optional<MemoryStrategy> parseMemoryStrategy(llvm::StringRef name);
llvm::StringRef stringifyMemoryStrategy(MemoryStrategy strategy);

/// Arenas and their offsets are aligned to this many bytes.
constexpr int64_t kArenaAlignment = 64;

/// One planned buffer.
struct PlannedBuffer {
  mlir::memref::AllocOp alloc;
  int64_t bytes = 0;    ///< exact size
  unsigned start = 0;   ///< first step touching its memory
  unsigned end = 0;     ///< last step using it
  unsigned storage = 0; ///< index into MemoryPlan::storageBytes
  int64_t offset = 0;   ///< byte offset in the arena (64-byte aligned)
  int inplaceOf = -1;   ///< the buffer whose storage it took in place
  bool shared = false;  ///< took a pooled storage (co-share)
};

/// The result of planning one function with one strategy.
struct MemoryPlan {
  MemoryStrategy strategy = MemoryStrategy::Both;
  std::vector<PlannedBuffer> buffers; ///< in the order of the allocs
  std::vector<int64_t> storageBytes;  ///< each storage's size (exact)
  std::vector<int64_t> storageOffset; ///< each storage's arena offset
  int64_t arenaBytes = 0;             ///< what the arena must hold
  int64_t lowerBound = 0;             ///< see the file comment
  unsigned numSteps = 0;
  /// Statically shaped allocs that cannot be planned (an alias escapes the
  /// function or a loop iteration, a non-identity layout, a memory space):
  /// they stay allocations.
  unsigned numUnplanned = 0;
};

/// The strategy-independent analysis of a function (buffers, intervals,
/// dependency DAG); plan() runs one strategy on it in linear time (plus the
/// reachability bitsets, built once).
class MemoryPlanner {
public:
  explicit MemoryPlanner(mlir::func::FuncOp func);
  ~MemoryPlanner();
  MemoryPlanner(const MemoryPlanner &) = delete;
  MemoryPlanner &operator=(const MemoryPlanner &) = delete;

  MemoryPlan plan(MemoryStrategy strategy) const;

private:
  struct Impl;
  std::unique_ptr<Impl> impl;
};

/// Rewrites `func` to use `plan`: appends the arena argument
/// `memref<Nxi8>` (N = plan.arenaBytes; attribute `llvm.noalias`), replaces
/// each planned alloc by a `memref.view` of the arena at its offset, erases
/// their deallocs, and records N as the function's `mx.arena_size` (i64). Fails
/// (with an error on the function) if the function is called from somewhere
/// (its signature changes).
mlir::LogicalResult applyMemoryPlan(mlir::func::FuncOp func,
                                    const MemoryPlan &plan);

/// The name of the function attribute holding the arena size.
inline constexpr llvm::StringLiteral kArenaSizeAttrName = "mx.arena_size";

} // namespace mxc

#endif // MXC_COMPILER_TRANSFORMS_MEMORYPLAN_H
