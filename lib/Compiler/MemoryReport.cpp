//===- MemoryReport.cpp - mxc memory-report -------------------------------===//
//
//   mxc memory-report model-symbol.json --shape data=64,3,224,224 [--train]
//                     [--no-graph-fusion] [--outputs node[:i],...]
//
// The internal memory of a graph (every intermediate buffer and kernel
// workspace; arguments and outputs excluded, as Chen et al. 2015 count it)
// under each mx-plan-memory strategy, and the lower bound, in MB (2^20
// bytes). The pipeline stops at the bufferized form (lowerToBuffers), where
// mx-plan-memory runs; the planner is the same library code
// (mxc/Compiler/Transforms/MemoryPlan.h), so the numbers are the arena
// sizes `mxc run` and `mxc compile` use.
//
//===----------------------------------------------------------------------===//
#include "DriverSupport.h"
#include "mxc/Compiler/Transforms/MemoryPlan.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/Support/Format.h"

using namespace mlir;
using namespace mxc;
using namespace mxc::driver;

int driver::runMemoryReportCommand(const MemoryReportOptions &opts) {
  LoadedModel loaded = openModel(opts);
  if (!loaded.module)
    return loaded.status;
  OwningOpRef<ModuleOp> &module = loaded.module;
  PipelineOptions pipeline = pipelineOptionsFor(opts);
  pipeline.train = opts.train;
  // The paper's naive count on the graph: every op output of @main (after
  // the graph passes: pruned, differentiated, fused) its own buffer, except
  // the function's outputs.
  if (failed(runGraphPasses(*module, pipeline)))
    return kBadInput;
  int64_t graphNaive = 0;
  if (auto main = module->lookupSymbol<func::FuncOp>("main")) {
    for (Operation &op : main.getBody().front()) {
      if (op.hasTrait<OpTrait::ConstantLike>())
        continue;
      for (Value r : op.getResults()) {
        auto type = dyn_cast<RankedTensorType>(r.getType());
        if (!type || !type.hasStaticShape() ||
            llvm::any_of(r.getUsers(),
                         [](Operation *u) { return isa<func::ReturnOp>(u); }))
          continue;
        graphNaive += type.getNumElements() *
                      int64_t(llvm::divideCeil(
                          type.getElementType().getIntOrFloatBitWidth(), 8));
      }
    }
  }
  if (failed(lowerToLinalg(*module, pipeline)) ||
      failed(lowerToBuffers(*module, pipeline)))
    return kBadInput;
  auto func = module->lookupSymbol<func::FuncOp>(pipeline.entrySymbol);
  if (!func) {
    errorLine() << "internal error: no @" << pipeline.entrySymbol
                << " after bufferization\n";
    return kBadInput;
  }

  MemoryPlanner planner(func);
  const MemoryStrategy strategies[] = {
      MemoryStrategy::None, MemoryStrategy::Inplace,
      MemoryStrategy::Coshare, MemoryStrategy::Both};
  std::vector<MemoryPlan> plans;
  for (MemoryStrategy s : strategies)
    plans.push_back(planner.plan(s));

  llvm::raw_ostream &os = llvm::outs();
  const MemoryPlan &none = plans.front();
  os << "model: " << opts.model;
  for (const std::string &s : opts.shapes)
    os << " " << s;
  os << (opts.train ? " (training: forward + backward)" : " (inference)")
     << (opts.graphFusion ? "" : ", no graph fusion") << "\n";
  os << "internal memory: " << none.buffers.size() << " buffers in "
     << none.numSteps << " steps";
  if (none.numUnplanned)
    os << ", " << none.numUnplanned << " not planned (not counted)";
  os << "; MB = 2^20 bytes\n";
  auto mb = [](int64_t bytes) { return double(bytes) / 1048576.0; };
  auto row = [&](StringRef name, int64_t bytes, size_t storages) {
    os << "  " << llvm::left_justify(name, 12)
       << llvm::format("%12.2f MB", mb(bytes));
    if (bytes > 0)
      os << llvm::format("  %6.2fx", double(none.arenaBytes) / double(bytes));
    else
      os << "       -";
    if (storages)
      os << "  (" << storages << " storages)";
    os << "\n";
  };
  os << "  " << llvm::left_justify("strategy", 12)
     << llvm::right_justify("memory", 15) << "  "
     << "vs none\n";
  for (const MemoryPlan &p : plans)
    row(stringifyMemoryStrategy(p.strategy), p.arenaBytes,
        p.storageBytes.size());
  row("lower-bound", none.lowerBound, 0);
  os << "graph naive (every op output of the graph its own buffer, before "
        "bufferization): "
     << llvm::format("%.2f MB", mb(graphNaive)) << "\n";
  return kOk;
}
