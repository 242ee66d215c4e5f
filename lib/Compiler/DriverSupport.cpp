//===- DriverSupport.cpp - shared pieces of the mxc commands --------------===//
#include "DriverSupport.h"

#include "mxc/Dialect/MX/IR/MXOpTable.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/WithColor.h"

using namespace mlir;
using namespace mxc;
using namespace mxc::driver;

llvm::raw_ostream &driver::errorLine() {
  llvm::errs() << "mxc: ";
  return llvm::WithColor::error(llvm::errs(), "", /*DisableColors=*/true);
}

std::string driver::locationPrefix(Location loc) {
  if (auto name = dyn_cast<NameLoc>(loc))
    return "node '" + name.getName().str() + "': ";
  if (auto flc = dyn_cast<FileLineColLoc>(loc))
    return flc.getFilename().str() + ":" + std::to_string(flc.getLine()) + ":" +
           std::to_string(flc.getColumn()) + ": ";
  if (auto fused = dyn_cast<FusedLoc>(loc))
    for (Location l : fused.getLocations())
      if (auto p = locationPrefix(l); !p.empty())
        return p;
  if (auto callSite = dyn_cast<CallSiteLoc>(loc))
    return locationPrefix(callSite.getCallee());
  return "";
}

OneLineDiagnostics::OneLineDiagnostics(MLIRContext &ctx, bool firstErrorOnly)
    : firstErrorOnly(firstErrorOnly), handler(&ctx, [this](Diagnostic &d) {
        if (d.getSeverity() == DiagnosticSeverity::Error) {
          if (errors++ == 0 || !this->firstErrorOnly)
            errorLine() << locationPrefix(d.getLocation()) << d.str() << "\n";
        } else if (d.getSeverity() == DiagnosticSeverity::Warning) {
          llvm::errs() << "mxc: warning: " << locationPrefix(d.getLocation())
                       << d.str() << "\n";
        }
        return success();
      }) {}

bool driver::splitAssignment(StringRef text, std::string &name,
                             std::string &value) {
  auto [n, v] = text.split('=');
  if (n.empty() || v.empty() || !text.contains('='))
    return false;
  name = n.trim().str();
  value = v.trim().str();
  return true;
}

std::optional<int>
driver::parseImportOptions(ArrayRef<std::string> shapes,
                           ArrayRef<std::string> dtypes, StringRef paramsFile,
                           ImportOptions &opts,
                           std::vector<graph::NDArrayData> &params) {
  for (const std::string &s : shapes) {
    std::string name, value;
    if (!splitAssignment(s, name, value)) {
      errorLine() << "--shape '" << s << "': expected name=d0,d1,...\n";
      return kBadUsage;
    }
    std::vector<int64_t> dims;
    for (StringRef d : llvm::split(StringRef(value), ',')) {
      int64_t x;
      if (d.trim().getAsInteger(10, x) || x <= 0) {
        errorLine() << "--shape '" << s << "': '" << d
                    << "' is not a positive integer\n";
        return kBadUsage;
      }
      dims.push_back(x);
    }
    opts.shapes[name] = dims;
  }
  for (const std::string &s : dtypes) {
    std::string name, value;
    if (!splitAssignment(s, name, value)) {
      errorLine() << "--dtype '" << s << "': expected name=dtype\n";
      return kBadUsage;
    }
    MLIRContext probe;
    if (!mx::getElementTypeForMXNetDType(&probe, value)) {
      errorLine() << "--dtype '" << s << "': unknown dtype '" << value
                  << "' (float32, float64, float16, bfloat16, uint8, int8, "
                     "int32, int64, bool)\n";
      return kBadUsage;
    }
    opts.dtypes[name] = value;
  }
  if (!paramsFile.empty()) {
    auto p = graph::readParamsFile(paramsFile);
    if (!p) {
      errorLine() << llvm::toString(p.takeError()) << "\n";
      return kBadInput;
    }
    params = std::move(*p);
    opts.params = &params;
  }
  return std::nullopt;
}

OwningOpRef<ModuleOp> driver::loadModel(MLIRContext &ctx,
                                        const CompileCommandOptions &opts,
                                        std::vector<graph::NDArrayData> &params,
                                        int &status) {
  status = kBadInput;
  if (StringRef(opts.model).ends_with(".mlir")) {
    if (!opts.shapes.empty() || !opts.dtypes.empty()) {
      errorLine() << "--shape and --dtype apply to symbol JSON input; an "
                     ".mlir module has its shapes\n";
      status = kBadUsage;
      return nullptr;
    }
    if (!opts.paramsFile.empty()) {
      auto p = graph::readParamsFile(opts.paramsFile);
      if (!p) {
        errorLine() << llvm::toString(p.takeError()) << "\n";
        return nullptr;
      }
      params = std::move(*p);
    }
    if (!llvm::sys::fs::exists(opts.model)) {
      errorLine() << opts.model << ": no such file\n";
      return nullptr;
    }
    llvm::SourceMgr sm;
    OwningOpRef<ModuleOp> module =
        parseSourceFile<ModuleOp>(opts.model, sm, &ctx);
    if (!module)
      return nullptr;
    status = kOk;
    return module;
  }
  ImportOptions importOpts;
  if (auto rc = parseImportOptions(opts.shapes, opts.dtypes, opts.paramsFile,
                                   importOpts, params)) {
    status = *rc;
    return nullptr;
  }
  auto g = graph::readSymbolFile(opts.model);
  if (!g) {
    errorLine() << llvm::toString(g.takeError()) << "\n";
    return nullptr;
  }
  OwningOpRef<ModuleOp> module = importGraph(ctx, *g, importOpts);
  if (!module || failed(verify(*module)))
    return nullptr;
  status = kOk;
  return module;
}

std::unique_ptr<MLIRContext> driver::makeContext() {
  DialectRegistry registry;
  registerCodegenDialects(registry);
  auto ctx = std::make_unique<MLIRContext>(registry);
  ctx->loadAllAvailableDialects();
  return ctx;
}

LoadedModel driver::openModel(const CompileCommandOptions &opts) {
  LoadedModel m;
  m.context = makeContext();
  m.diagnostics = std::make_unique<OneLineDiagnostics>(*m.context,
                                                       /*firstErrorOnly=*/true);
  m.module = loadModel(*m.context, opts, m.params, m.status);
  return m;
}

PipelineOptions driver::pipelineOptionsFor(const CompileCommandOptions &opts) {
  PipelineOptions pipeline;
  pipeline.outputs = opts.outputs;
  pipeline.fuseGraph = opts.graphFusion;
  pipeline.fuseConvolution = opts.convFusion;
  pipeline.blockedLayout = pipeline.blockedLayout && opts.blockedLayout;
  pipeline.parallelLoops = opts.parallelLoops;
  pipeline.memoryPlan = opts.memoryPlan;
  pipeline.splitReductions = opts.splitReductions;
  pipeline.splitTargetThreads = opts.splitTargetThreads;
  pipeline.splitMaxChunks = opts.splitMaxChunks;
  pipeline.libraryBatchNorm = opts.libraryBatchNorm;
  pipeline.cudaArch = opts.cudaArch;
  pipeline.cudaBlockSize = opts.cudaBlockSize;
  pipeline.cudaElementsPerThread = opts.cudaElementsPerThread;
  pipeline.emulateGpuKernels = opts.emulateGpuKernels;
  pipeline.emulateGpuReversed = opts.emulateGpuReversed;
  return pipeline;
}
