//===- RunCommand.cpp - mxc run -------------------------------------------===//
//
// `mxc run` compiles a model for this CPU (through the JIT and its cache),
// fills the inputs (InputValues.h: --input files, --params arrays, seeded
// random numbers) and runs one forward pass, or a training step with
// --train. With --device gpu the graph is compiled for the GPU (the CUDA
// target of `mxc compile`, here through the JIT: docs/gpu.md) and runs on
// gpu(0) (or --device gpu(N)), its inputs and outputs copied through device memory.
//
// With --warmup K and --repeat N, K untimed passes precede N timed ones
// (more of them until --warmup-ms T ms have passed, when given), and
// (when N > 1 or there was a warm-up) a line `latency: median X ms, p10 Y ms, p90 Z ms,
// min W ms over N runs after K warm-up` follows the output lines (and with
// -v, `mxc: timed runs (ms): t1 t2 ...` on stderr).
//
//===----------------------------------------------------------------------===//
#include "DriverSupport.h"
#include "InputValues.h"

#include "mxc/Compiler/JIT.h"
#include "mxc/Compiler/Npy.h"
#include "mxc/Compiler/Pipeline.h"
#include "mxc/runtime/cuda.h"
#include "mxc/runtime/threads.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <set>

using namespace mlir;
using namespace mxc;
using namespace mxc::driver;

namespace {

/// A file name for an output: path separators and NULs become '_'.
std::string fileNameFor(StringRef name) {
  std::string s = name.str();
  for (char &c : s)
    if (c == '/' || c == '\\' || c == '\0')
      c = '_';
  if (s.empty() || s == "." || s == "..")
    s = "output" + s;
  return s;
}

} // namespace

int driver::runRunCommand(const RunCommandOptions &opts) {
  // --device gpu: the GPU first (one line saying why it is not there,
  // before any compiling), and kernels for its own architecture unless
  // --cuda-arch names one.
  std::string cudaArch = opts.cudaArch;
  std::string deviceName;
  const mxc::runtime::Device gpu = mxc::runtime::Device::gpu(opts.gpuDevice);
  if (!cudaArch.empty()) {
    try {
      mxc::runtime::cuda::requireDevice(gpu.id);
      deviceName = mxc::runtime::cuda::deviceName(gpu.id);
      int cc = mxc::runtime::cuda::computeCapability(gpu.id);
      if (!opts.cudaArchGiven) {
        if (cc < 75 || cc > 121) {
          errorLine() << "--device gpu: " << gpu.str() << " (" << deviceName << ") is sm_" << cc
                      << "; mxc generates code for sm_75 to sm_121\n";
          return kBadInput;
        }
        cudaArch = "sm_" + std::to_string(cc);
      }
    } catch (const std::exception &e) {
      errorLine() << "--device gpu: " << e.what() << "\n";
      return kBadInput;
    }
  }
  LoadedModel loaded = openModel(opts);
  if (!loaded.module)
    return loaded.status;
  OwningOpRef<ModuleOp> &module = loaded.module;
  // The graph passes (mx-prune drops arguments) before the signature.
  PipelineOptions pipeline = pipelineOptionsFor(opts);
  pipeline.cudaArch = cudaArch;
  // --train: mx-autodiff makes @main the training step (head gradients in,
  // gradients and updated aux states out).
  if (!opts.train && (!opts.wrt.empty() || !opts.gradReq.empty() ||
                      !opts.headGrads.empty())) {
    errorLine() << "--wrt, --grad-req and --head-grad need --train\n";
    return kBadUsage;
  }
  pipeline.train = opts.train;
  pipeline.wrt = opts.wrt;
  pipeline.gradReq = opts.gradReq;
  // The parameters are loaded once and never change between the passes of
  // --repeat (a --sweep may vary one: not then).
  pipeline.constantParams = !opts.train && opts.sweeps.empty();
  // Arguments before mx-prune: an --input for one that the passes removed
  // (a label in inference, layers after --outputs) is accepted and unused,
  // as MXNet's inference ignores them.
  std::set<std::string> argumentsBeforePasses;
  if (auto main = module->lookupSymbol<func::FuncOp>("main"))
    for (unsigned i = 0; i < main.getNumArguments(); ++i)
      if (auto n = main.getArgAttrOfType<StringAttr>(i, "mx.name"))
        argumentsBeforePasses.insert(n.getValue().str());
  if (failed(runGraphPasses(*module, pipeline)))
    return kBadInput;
  FailureOr<EntrySignature> sig = getEntrySignature(*module);
  if (failed(sig))
    return kBadInput;

  // --input name=file.npy
  std::map<std::string, std::string> inputFiles;
  for (const std::string &s : opts.inputs) {
    std::string name, path;
    if (!splitAssignment(s, name, path)) {
      errorLine() << "--input '" << s << "': expected name=file.npy\n";
      return kBadUsage;
    }
    bool known = llvm::any_of(
        sig->inputs, [&](const TensorSpec &t) { return t.name == name; });
    if (!known && argumentsBeforePasses.count(name)) {
      if (opts.verbose)
        llvm::errs() << "mxc: input '" << name
                     << "' is not needed for these outputs (unused)\n";
      continue;
    }
    if (!known) {
      std::string names;
      for (const TensorSpec &t : sig->inputs)
        if (t.kind == "data")
          names += (names.empty() ? "" : ", ") + t.name;
      errorLine() << "--input '" << s << "': the graph has no input named '"
                  << name << "' (data inputs: " << names << ")\n";
      return kBadUsage;
    }
    if (!inputFiles.emplace(name, path).second) {
      errorLine() << "--input '" << s << "': '" << name << "' is given twice\n";
      return kBadUsage;
    }
  }
  // --head-grad output=file.npy: the head_grad input "<output>_grad".
  for (const std::string &s : opts.headGrads) {
    std::string name, path;
    if (!splitAssignment(s, name, path)) {
      errorLine() << "--head-grad '" << s << "': expected output=file.npy\n";
      return kBadUsage;
    }
    auto it = llvm::find_if(sig->inputs, [&](const TensorSpec &t) {
      return t.kind == "head_grad" && t.name == name + "_grad";
    });
    if (it == sig->inputs.end()) {
      std::string names;
      for (const TensorSpec &t : sig->outputs)
        if (t.kind.empty())
          names += (names.empty() ? "" : ", ") + t.name;
      errorLine() << "--head-grad '" << s << "': the graph has no output named '"
                  << name << "' (outputs: " << names << ")\n";
      return kBadUsage;
    }
    if (!inputFiles.emplace(it->name, path).second) {
      errorLine() << "--head-grad '" << s << "': '" << it->name
                  << "' is given twice\n";
      return kBadUsage;
    }
  }
  // Input values.
  std::vector<std::unique_ptr<Buffer>> inputBuffers;
  if (int rc = makeInputValues(*sig, inputFiles, loaded.params, opts.seed,
                               opts.verbose, inputBuffers, opts.paramsFile,
                               opts.allowMissing))
    return rc;

  // --sweep name=file.npy: K values of one input, stacked on axis 0.
  struct Sweep {
    size_t input;
    NpyArray array;
  };
  std::vector<Sweep> sweeps;
  int64_t sweepCount = -1;
  for (const std::string &s : opts.sweeps) {
    std::string name, path;
    if (!splitAssignment(s, name, path)) {
      errorLine() << "--sweep '" << s << "': expected name=file.npy\n";
      return kBadUsage;
    }
    auto it = llvm::find_if(sig->inputs,
                            [&](const TensorSpec &t) { return t.name == name; });
    if (it == sig->inputs.end()) {
      errorLine() << "--sweep '" << s << "': the graph has no input named '"
                  << name << "'\n";
      return kBadUsage;
    }
    auto array = readNpyFile(path);
    if (!array) {
      errorLine() << "--sweep '" << s
                  << "': " << llvm::toString(array.takeError()) << "\n";
      return kBadInput;
    }
    if (array->dtype != it->dtype || array->shape.size() != it->shape.size() + 1 ||
        !std::equal(it->shape.begin(), it->shape.end(),
                    array->shape.begin() + 1) ||
        (sweepCount >= 0 && array->shape[0] != sweepCount)) {
      errorLine() << "--sweep '" << s << "': " << path << " holds "
                  << formatShape(array->shape) << " "
                  << graph::dtypeName(array->dtype) << ", expected (K, "
                  << describe(*it) << ")"
                  << (sweepCount >= 0 ? " with the K of the other sweeps" : "")
                  << "\n";
      return kBadInput;
    }
    sweepCount = array->shape[0];
    sweeps.push_back({size_t(it - sig->inputs.begin()), std::move(*array)});
  }

  // Compile.
  JITOptions jitOpts;
  jitOpts.target = opts.target;
  jitOpts.useDiskCache = !opts.noCache;
  jitOpts.useMemoryCache = !opts.noCache;
  jitOpts.pipeline = pipeline;
  CompileInfo info;
  auto start = Clock::now();
  FailureOr<std::shared_ptr<CompiledGraph>> compiled =
      compileModule(*module, jitOpts, &info);
  if (failed(compiled))
    return kBadInput;
  if (opts.verbose) {
    llvm::errs() << "mxc: target " << info.target.triple << " cpu "
                 << info.target.cpu << "\n";
    if (!cudaArch.empty())
      llvm::errs() << "mxc: device " << gpu.str() << " " << deviceName << ", kernels for "
                   << cudaArch << "\n";
    // The kernels' threads and the BLAS kernels they run (OpenBLAS's own
    // choice may have been replaced: threads.h, blasCore()).
    std::string blas = mxc::runtime::blasCore();
    llvm::errs() << "mxc: kernel threads " << mxc::runtime::kernelThreads()
                 << ", OpenBLAS kernels " << (blas.empty() ? "(none)" : blas)
                 << "\n";
    switch (info.outcome) {
    case CacheOutcome::DiskHit:
      llvm::errs() << "mxc: cache hit (disk): " << info.cachePath << "\n";
      break;
    case CacheOutcome::MemoryHit:
      llvm::errs() << "mxc: cache hit (memory)\n";
      break;
    case CacheOutcome::Compiled:
      llvm::errs() << "mxc: cache miss: compiled (lowering "
                   << llvm::format("%.1f", info.lowerMs) << " ms, codegen "
                   << llvm::format("%.1f", info.codegenMs) << " ms)";
      if (!info.cachePath.empty())
        llvm::errs() << ", stored " << info.cachePath;
      llvm::errs() << "\n";
      if (std::string kernels = info.kernelStats.describe(); !kernels.empty())
        llvm::errs() << "mxc: kernels: " << kernels << "\n";
      break;
    }
    if (!info.cacheNote.empty())
      llvm::errs() << "mxc: cache: " << info.cacheNote << "\n";
    llvm::errs() << "mxc: compile " << llvm::format("%.1f", msSince(start))
                 << " ms (load " << llvm::format("%.1f", info.loadMs)
                 << " ms)\n";
  }

  // Run.
  std::vector<std::unique_ptr<Buffer>> outputBuffers;
  std::vector<const void *> inPtrs;
  std::vector<void *> outPtrs;
  for (auto &b : inputBuffers)
    inPtrs.push_back(b->data);
  for (const TensorSpec &spec : sig->outputs) {
    outputBuffers.push_back(std::make_unique<Buffer>(spec.byteSize()));
    outPtrs.push_back(outputBuffers.back()->data);
  }
  // A failing step is one line naming it (its MXNet node) and its kernel.
  auto runOnce = [&]() {
    if (llvm::Error err = cudaArch.empty() ? (*compiled)->run(inPtrs, outPtrs)
                                           : (*compiled)->run(inPtrs, outPtrs, gpu)) {
      llvm::errs() << "mxc: error: " << llvm::toString(std::move(err)) << "\n";
      return false;
    }
    return true;
  };
  unsigned warmups = 0;
  for (auto warmStart = Clock::now();
       warmups < opts.warmup ||
       (opts.warmupMs && msSince(warmStart) < double(opts.warmupMs));
       ++warmups)
    if (!runOnce())
      return kBadInput;
  std::vector<double> times;
  for (unsigned i = 0; i < std::max(1u, opts.repeat); ++i) {
    start = Clock::now();
    if (!runOnce())
      return kBadInput;
    times.push_back(msSince(start));
  }
  if (!sweeps.empty()) {
    // One run per swept value; outputs stacked on a new axis 0.
    std::vector<std::unique_ptr<Buffer>> stacked;
    for (const TensorSpec &spec : sig->outputs)
      stacked.push_back(
          std::make_unique<Buffer>(size_t(sweepCount) * spec.byteSize()));
    for (int64_t k = 0; k < sweepCount; ++k) {
      for (const Sweep &sw : sweeps) {
        size_t bytes = sig->inputs[sw.input].byteSize();
        std::memcpy(inputBuffers[sw.input]->data,
                    sw.array.bytes.data() + size_t(k) * bytes, bytes);
      }
      if (!runOnce())
        return kBadInput;
      for (size_t i = 0; i < sig->outputs.size(); ++i) {
        size_t bytes = sig->outputs[i].byteSize();
        std::memcpy(stacked[i]->data + size_t(k) * bytes,
                    outputBuffers[i]->data, bytes);
      }
    }
    outputBuffers = std::move(stacked);
    for (TensorSpec &spec : sig->outputs)
      spec.shape.insert(spec.shape.begin(), sweepCount);
  }
  if (opts.verbose) {
    llvm::errs() << "mxc: forward " << llvm::format("%.3f", times[0]) << " ms";
    if (times.size() > 1) {
      std::vector<double> rest(times.begin() + 1, times.end());
      std::sort(rest.begin(), rest.end());
      llvm::errs() << " (first run); then over " << rest.size()
                   << " runs: median "
                   << llvm::format("%.3f", rest[rest.size() / 2]) << " ms, min "
                   << llvm::format("%.3f", rest.front()) << " ms";
    }
    llvm::errs() << "\n";
    if (opts.warmup > 0 || times.size() > 1) {
      llvm::errs() << "mxc: timed runs (ms):";
      for (double t : times)
        llvm::errs() << " " << llvm::format("%.3f", t);
      llvm::errs() << "\n";
    }
  }

  // Report and write.
  if (!opts.outputDir.empty()) {
    if (std::error_code ec =
            llvm::sys::fs::create_directories(opts.outputDir)) {
      errorLine() << opts.outputDir << ": " << ec.message() << "\n";
      return kBadInput;
    }
  }
  for (size_t i = 0; i < sig->outputs.size(); ++i) {
    const TensorSpec &spec = sig->outputs[i];
    const uint8_t *data = outputBuffers[i]->data;
    double sum = 0, sumAbs = 0;
    for (int64_t j = 0, n = spec.numElements(); j < n; ++j) {
      double v = loadElement(spec.dtype, data, j);
      sum += v;
      sumAbs += std::fabs(v);
    }
    // Gradients print and save as <arg>.grad, updated aux states as
    // <aux>.aux (mx-autodiff names them <arg>_grad and <aux>).
    std::string shown = spec.name;
    if (spec.kind == "grad") {
      StringRef base(spec.name);
      base.consume_back("_grad");
      shown = base.str() + ".grad";
    } else if (spec.kind == "aux_out") {
      shown = spec.name + ".aux";
    }
    llvm::outs() << shown << ": shape " << formatShape(spec.shape) << " "
                 << graph::dtypeName(spec.dtype) << " sum "
                 << llvm::format("%.6g", sum) << " abs_sum "
                 << llvm::format("%.6g", sumAbs) << "\n";
    if (opts.outputDir.empty())
      continue;
    NpyArray array;
    array.dtype = spec.dtype;
    array.shape = spec.shape;
    array.bytes.assign(data, data + spec.byteSize());
    llvm::SmallString<256> path(opts.outputDir);
    llvm::sys::path::append(path, fileNameFor(shown) + ".npy");
    if (llvm::Error err = writeNpyFile(path, array)) {
      errorLine() << "output '" << spec.name
                  << "': " << llvm::toString(std::move(err)) << "\n";
      return kBadInput;
    }
  }
  // The timed runs (after --warmup), for benchmarks: percentiles by linear
  // interpolation between the sorted times (numpy's default).
  if (opts.repeat > 1 || warmups > 0) {
    std::vector<double> sorted = times;
    std::sort(sorted.begin(), sorted.end());
    auto percentile = [&](double p) {
      double pos = p * double(sorted.size() - 1);
      size_t lo = size_t(pos);
      size_t hi = std::min(lo + 1, sorted.size() - 1);
      return sorted[lo] + (pos - double(lo)) * (sorted[hi] - sorted[lo]);
    };
    llvm::outs() << "latency: median " << llvm::format("%.3f", percentile(0.5))
                 << " ms, p10 " << llvm::format("%.3f", percentile(0.1))
                 << " ms, p90 " << llvm::format("%.3f", percentile(0.9))
                 << " ms, min " << llvm::format("%.3f", sorted.front())
                 << " ms over " << sorted.size() << " runs after "
                 << warmups << " warm-up\n";
  }
  return kOk;
}
