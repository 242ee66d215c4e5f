//===- RunCommand.cpp - mxc run and mxc codegen ---------------------------===//
//
// `mxc run` compiles a model for this CPU (through the JIT and its cache),
// fills the inputs and runs one forward pass; `mxc codegen` writes one stage
// of the same pipeline.
//
// With --warmup K and --repeat N, K untimed passes precede N timed ones, and
// (when N > 1 or K > 0) a line `latency: median X ms, p10 Y ms, p90 Z ms,
// min W ms over N runs after K warm-up` follows the output lines (and with
// -v, `mxc: timed runs (ms): t1 t2 ...` on stderr).
//
// Values of the inputs of `mxc run`, in order of precedence:
//   1. --input name=file.npy (dtype and shape must match the graph's);
//   2. the --params array of that name ("arg:"/"aux:" prefixes removed);
//   3. seeded random numbers. Each input has its own stream: splitmix64
//      seeded with seed * 0x9e3779b97f4a7c15 + fnv1a64(name), so a value
//      does not depend on the other inputs. Float inputs are uniform in:
//        data inputs            [-1, 1)
//        parameters, rank >= 2  [-a, a), a = sqrt(3 / fan_in), fan_in =
//                               product of all dimensions but the first
//                               (variance 1/fan_in: activations keep their
//                               scale through deep networks)
//        parameters, rank <= 1  [-1, 1)
//        auxiliary states       [0.5, 1.5) (BatchNorm's moving variance
//                               must be positive)
//      Integer inputs are uniform in {0, ..., 9}; bool inputs 0 or 1.
//
//===----------------------------------------------------------------------===//
#include "DriverSupport.h"

#include "mxc/Compiler/JIT.h"
#include "mxc/Compiler/Npy.h"
#include "mxc/Compiler/Pipeline.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Target/TargetMachine.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <map>
#include <set>

using namespace mlir;
using namespace mxc;
using namespace mxc::driver;

namespace {

//===----------------------------------------------------------------------===//
// Values
//===----------------------------------------------------------------------===//

/// A 64-byte aligned byte buffer.
struct Buffer {
  explicit Buffer(size_t size)
      : data(static_cast<uint8_t *>(std::aligned_alloc(
            64, std::max<size_t>(64, (size + 63) / 64 * 64)))),
        size(size) {
    std::memset(data, 0, size);
  }
  ~Buffer() { std::free(data); }
  Buffer(const Buffer &) = delete;
  Buffer &operator=(const Buffer &) = delete;
  uint8_t *data;
  size_t size;
};

struct SplitMix64 {
  uint64_t state;
  uint64_t next() {
    uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  /// Uniform in [0, 1) with 53 random bits.
  double uniform() { return double(next() >> 11) * 0x1.0p-53; }
};

uint64_t fnv1a64(StringRef s) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (char c : s) {
    h ^= uint8_t(c);
    h *= 0x100000001b3ull;
  }
  return h;
}

/// Rounds `value` to the 16-bit float format `sem` (IEEE half or bfloat16).
uint16_t toHalfBits(double value, const llvm::fltSemantics &sem) {
  llvm::APFloat f(value);
  bool lost;
  f.convert(sem, llvm::APFloat::rmNearestTiesToEven, &lost);
  return uint16_t(f.bitcastToAPInt().getZExtValue());
}

double fromHalfBits(uint16_t bits, const llvm::fltSemantics &sem) {
  llvm::APFloat f(sem, llvm::APInt(16, bits));
  bool lost;
  f.convert(llvm::APFloat::IEEEdouble(), llvm::APFloat::rmNearestTiesToEven,
            &lost);
  return f.convertToDouble();
}

/// Writes element `i` of a `dtype` array from a double.
void storeElement(graph::DType dtype, uint8_t *data, int64_t i, double v) {
  switch (dtype) {
  case graph::DType::Float32: {
    float f = float(v);
    std::memcpy(data + 4 * i, &f, 4);
    return;
  }
  case graph::DType::Float64:
    std::memcpy(data + 8 * i, &v, 8);
    return;
  case graph::DType::Float16: {
    uint16_t h = toHalfBits(v, llvm::APFloat::IEEEhalf());
    std::memcpy(data + 2 * i, &h, 2);
    return;
  }
  case graph::DType::BFloat16: {
    uint16_t h = toHalfBits(v, llvm::APFloat::BFloat());
    std::memcpy(data + 2 * i, &h, 2);
    return;
  }
  case graph::DType::Int32: {
    int32_t x = int32_t(v);
    std::memcpy(data + 4 * i, &x, 4);
    return;
  }
  case graph::DType::Int64: {
    int64_t x = int64_t(v);
    std::memcpy(data + 8 * i, &x, 8);
    return;
  }
  case graph::DType::UInt8:
    data[i] = uint8_t(v);
    return;
  case graph::DType::Int8:
    data[i] = uint8_t(int8_t(v));
    return;
  case graph::DType::Bool:
    data[i] = v != 0;
    return;
  }
}

/// Reads element `i` of a `dtype` array as a double.
double loadElement(graph::DType dtype, const uint8_t *data, int64_t i) {
  switch (dtype) {
  case graph::DType::Float32: {
    float f;
    std::memcpy(&f, data + 4 * i, 4);
    return f;
  }
  case graph::DType::Float64: {
    double d;
    std::memcpy(&d, data + 8 * i, 8);
    return d;
  }
  case graph::DType::Float16:
  case graph::DType::BFloat16: {
    uint16_t h;
    std::memcpy(&h, data + 2 * i, 2);
    return fromHalfBits(h, dtype == graph::DType::Float16
                               ? llvm::APFloat::IEEEhalf()
                               : llvm::APFloat::BFloat());
  }
  case graph::DType::Int32: {
    int32_t x;
    std::memcpy(&x, data + 4 * i, 4);
    return x;
  }
  case graph::DType::Int64: {
    int64_t x;
    std::memcpy(&x, data + 8 * i, 8);
    return double(x);
  }
  case graph::DType::UInt8:
    return data[i];
  case graph::DType::Int8:
    return int8_t(data[i]);
  case graph::DType::Bool:
    return data[i] != 0;
  }
  return 0;
}

bool isFloat(graph::DType t) {
  return t == graph::DType::Float32 || t == graph::DType::Float64 ||
         t == graph::DType::Float16 || t == graph::DType::BFloat16;
}

/// The documented random fill (see the file comment); returns its range as
/// text for -v.
std::string fillRandom(const TensorSpec &spec, uint64_t seed, uint8_t *data) {
  SplitMix64 rng{seed * 0x9e3779b97f4a7c15ull + fnv1a64(spec.name)};
  int64_t n = spec.numElements();
  if (!isFloat(spec.dtype)) {
    bool isBool = spec.dtype == graph::DType::Bool;
    for (int64_t i = 0; i < n; ++i)
      storeElement(spec.dtype, data, i, double(rng.next() % (isBool ? 2 : 10)));
    return isBool ? "{0, 1}" : "{0..9}";
  }
  double lo = -1, hi = 1;
  if (spec.kind == "aux") {
    lo = 0.5;
    hi = 1.5;
  } else if (spec.kind == "param" && spec.shape.size() >= 2) {
    int64_t fanIn = 1;
    for (size_t i = 1; i < spec.shape.size(); ++i)
      fanIn *= spec.shape[i];
    hi = std::sqrt(3.0 / double(fanIn));
    lo = -hi;
  }
  for (int64_t i = 0; i < n; ++i)
    storeElement(spec.dtype, data, i, lo + (hi - lo) * rng.uniform());
  std::string range;
  llvm::raw_string_ostream os(range);
  os << "[" << llvm::format("%.6g", lo) << ", " << llvm::format("%.6g", hi)
     << ")";
  return range;
}

std::string describe(const TensorSpec &spec) {
  return formatShape(spec.shape) + " " + graph::dtypeName(spec.dtype).str();
}

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

using Clock = std::chrono::steady_clock;
double msSince(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start)
      .count();
}

} // namespace

/// Loads `opts.model` (symbol JSON, imported with --shape/--dtype/--params;
/// or an .mlir module) into `ctx`. Prints errors; sets `status`.
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

int driver::runRunCommand(const RunCommandOptions &opts) {
  std::unique_ptr<MLIRContext> ctx = makeContext();
  OneLineDiagnostics diags(*ctx, /*firstErrorOnly=*/true);
  std::vector<graph::NDArrayData> params;
  int status;
  OwningOpRef<ModuleOp> module = loadModel(*ctx, opts, params, status);
  if (!module)
    return status;
  // The graph passes (mx-prune drops arguments) before the signature.
  PipelineOptions pipeline;
  pipeline.outputs = opts.outputs;
  pipeline.fuseGraph = opts.graphFusion;
  pipeline.memoryPlan = opts.memoryPlan;
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
  llvm::StringMap<const graph::NDArrayData *> paramsByName;
  for (const graph::NDArrayData &p : params)
    paramsByName[p.bareName()] = &p;

  // Input values.
  std::vector<std::unique_ptr<Buffer>> inputBuffers;
  for (const TensorSpec &spec : sig->inputs) {
    auto buf = std::make_unique<Buffer>(spec.byteSize());
    auto fileIt = inputFiles.find(spec.name);
    auto paramIt = paramsByName.find(spec.name);
    if (fileIt != inputFiles.end()) {
      auto array = readNpyFile(fileIt->second);
      if (!array) {
        errorLine() << "input '" << spec.name
                    << "': " << llvm::toString(array.takeError()) << "\n";
        return kBadInput;
      }
      if (array->dtype != spec.dtype || array->shape != spec.shape) {
        errorLine() << "input '" << spec.name << "': " << fileIt->second
                    << " holds " << formatShape(array->shape) << " "
                    << graph::dtypeName(array->dtype) << ", the graph needs "
                    << describe(spec) << "\n";
        return kBadInput;
      }
      std::memcpy(buf->data, array->bytes.data(), spec.byteSize());
      if (opts.verbose)
        llvm::errs() << "mxc: input '" << spec.name << "' " << describe(spec)
                     << " from " << fileIt->second << "\n";
    } else if (paramIt != paramsByName.end()) {
      const graph::NDArrayData &p = *paramIt->second;
      if (p.dtype != spec.dtype || p.shape != spec.shape ||
          p.bytes.size() != spec.byteSize()) {
        errorLine() << "input '" << spec.name << "': the .params array '"
                    << p.name << "' is " << formatShape(p.shape) << " "
                    << graph::dtypeName(p.dtype) << ", the graph needs "
                    << describe(spec) << "\n";
        return kBadInput;
      }
      std::memcpy(buf->data, p.bytes.data(), spec.byteSize());
    } else if (spec.kind == "head_grad" || spec.kind == "grad_in" ||
               spec.kind == "rng_seed") {
      // Training-step inputs: head gradients default to ones (MXNet's
      // backward() of a loss), previous gradients (grad_req add) to zeros,
      // the Dropout seed to --seed.
      int64_t n = spec.numElements();
      if (spec.kind == "head_grad")
        for (int64_t j = 0; j < n; ++j)
          storeElement(spec.dtype, buf->data, j, 1.0);
      else if (spec.kind == "rng_seed" && spec.dtype == graph::DType::Int64)
        for (int64_t j = 0; j < n; ++j)
          std::memcpy(buf->data + 8 * j, &opts.seed, 8);
      if (opts.verbose)
        llvm::errs() << "mxc: " << spec.kind << " '" << spec.name << "' "
                     << describe(spec) << ": "
                     << (spec.kind == "head_grad"  ? "ones"
                         : spec.kind == "grad_in" ? "zeros"
                                                  : "the --seed")
                     << "\n";
    } else {
      std::string range = fillRandom(spec, opts.seed, buf->data);
      if (opts.verbose)
        llvm::errs() << "mxc: " << spec.kind << " '" << spec.name << "' "
                     << describe(spec) << ": random " << range << " (seed "
                     << opts.seed << ")\n";
    }
    inputBuffers.push_back(std::move(buf));
  }

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
    if (llvm::Error err = (*compiled)->run(inPtrs, outPtrs)) {
      llvm::errs() << "mxc: error: " << llvm::toString(std::move(err)) << "\n";
      return false;
    }
    return true;
  };
  for (unsigned i = 0; i < opts.warmup; ++i)
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
  if (opts.repeat > 1 || opts.warmup > 0) {
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
                 << opts.warmup << " warm-up\n";
  }
  return kOk;
}

int driver::runCodegenCommand(const CodegenCommandOptions &opts) {
  StringRef emit = opts.emit;
  if (emit != "mlir-linalg" && emit != "mlir-llvm" && emit != "llvm" &&
      emit != "obj") {
    errorLine() << "--emit='" << emit
                << "': expected mlir-linalg, mlir-llvm, llvm or obj\n";
    return kBadUsage;
  }
  auto target = resolveTarget(opts.target);
  if (!target) {
    errorLine() << llvm::toString(target.takeError()) << "\n";
    return kBadUsage;
  }
  std::unique_ptr<MLIRContext> ctx = makeContext();
  OneLineDiagnostics diags(*ctx, /*firstErrorOnly=*/true);
  std::vector<graph::NDArrayData> params;
  int status;
  OwningOpRef<ModuleOp> module = loadModel(*ctx, opts, params, status);
  if (!module)
    return status;
  PipelineOptions pipeline;
  pipeline.outputs = opts.outputs;
  pipeline.fuseGraph = opts.graphFusion;
  pipeline.memoryPlan = opts.memoryPlan;

  auto open = [&](bool binary) -> std::unique_ptr<llvm::ToolOutputFile> {
    std::error_code ec;
    auto out = std::make_unique<llvm::ToolOutputFile>(
        opts.output, ec,
        binary ? llvm::sys::fs::OF_None : llvm::sys::fs::OF_Text);
    if (ec) {
      errorLine() << opts.output << ": " << ec.message() << "\n";
      return nullptr;
    }
    return out;
  };
  auto printModule = [&]() {
    auto out = open(false);
    if (!out)
      return int(kBadInput);
    module->print(out->os(), OpPrintingFlags().enableDebugInfo(
                                 true, /*prettyForm=*/false));
    out->keep();
    return int(kOk);
  };

  if (failed(lowerToLinalg(*module, pipeline)))
    return kBadInput;
  if (emit == "mlir-linalg")
    return printModule();
  if (failed(lowerToLLVMDialect(*module, pipeline)))
    return kBadInput;
  if (emit == "mlir-llvm")
    return printModule();

  llvm::LLVMContext llvmCtx;
  auto translated = translateForTarget(*module, *target, llvmCtx, pipeline);
  if (!translated) {
    errorLine() << llvm::toString(translated.takeError()) << "\n";
    return kBadInput;
  }
  llvm::Module &llvmModule = *translated->module;
  llvm::TargetMachine &tm = *translated->machine;
  if (opts.verbose)
    llvm::errs() << "mxc: target " << target->triple << " cpu " << target->cpu
                 << "\n";
  if (emit == "llvm") {
    auto out = open(false);
    if (!out)
      return kBadInput;
    llvmModule.print(out->os(), nullptr);
    out->keep();
    return kOk;
  }
  auto object = emitObjectFile(llvmModule, tm);
  if (!object) {
    errorLine() << llvm::toString(object.takeError()) << "\n";
    return kBadInput;
  }
  auto out = open(true);
  if (!out)
    return kBadInput;
  out->os() << *object;
  out->keep();
  return kOk;
}
