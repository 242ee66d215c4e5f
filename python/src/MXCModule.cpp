//===- MXCModule.cpp - the mxc._mxc extension -----------------------------===//
//
// What the Python package needs from the compiler, on plain Python values:
//
//   op_specs()                       the mx dialect's MXNet operator table
//   normalize_json(text)             read + write symbol JSON (MXNet 1.9.1
//                                    layout, byte for byte as MXNet writes)
//   graph_lists(text)                list_arguments / list_auxiliary_states /
//                                    list_outputs
//   infer(text, shapes, dtypes)      import the graph; types of @main
//   compile(text, shapes, dtypes, outputs, train, wrt, grad_req, train_part)
//                                    -> Compiled (JIT + its caches)
//   Compiled.run(inputs, outputs)    on C-contiguous CPU arrays, no copies
//   load_params(path) / save_params(path, arrays)   MXNet .params files
//
// Every failure raises mxc.MXNetError; errors of the compiler carry the
// MXNet node they are about ("node 'fc1': ...").
//
//===----------------------------------------------------------------------===//
#include "mxc/Compiler/Import.h"
#ifdef MXC_PY_CLI_MAIN
#include "mxc/Compiler/Driver.h"
#endif
#include "mxc/Compiler/JIT.h"
#include "mxc/Compiler/Pipeline.h"
#include "mxc/Dialect/MX/IR/MXOpTable.h"
#include "mxc/Graph/Graph.h"
#include "mxc/Graph/Params.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"

#include "mxc/runtime/ndarray.h"
#include "mxc/runtime/cuda.h"
#include "mxc/runtime/engine.h"
#include <nanobind/nanobind.h>
#include <structmember.h> // PyMemberDef: NDArray's slot offsets (fast dispatch)
#include <nanobind/ndarray.h>
#include <nanobind/stl/map.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include <cstring>
#include <dlfcn.h>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

namespace nb = nanobind;
using namespace mxc;

// A kernel of the runtime: its address tells which file to make global.
extern "C" void mxc_kernel_gemm_f32();

namespace {

/// Raised as mxc.MXNetError.
struct MXNetError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// "node 'conv1': " for an op imported from an MXNet node.
std::string locationPrefix(mlir::Location loc) {
  if (auto name = llvm::dyn_cast<mlir::NameLoc>(loc))
    return "node '" + name.getName().str() + "': ";
  if (auto fused = llvm::dyn_cast<mlir::FusedLoc>(loc))
    for (mlir::Location l : fused.getLocations())
      if (auto p = locationPrefix(l); !p.empty())
        return p;
  if (auto callSite = llvm::dyn_cast<mlir::CallSiteLoc>(loc))
    return locationPrefix(callSite.getCallee());
  return "";
}

/// The process's MLIR context (every dialect the pipeline uses).
mlir::MLIRContext &context() {
  static mlir::MLIRContext *ctx = [] {
    mlir::DialectRegistry registry;
    registerCodegenDialects(registry);
    auto *c = new mlir::MLIRContext(registry);
    c->loadAllAvailableDialects();
    reusePassManagers(*c); // never destroyed
    return c;
  }();
  return *ctx;
}

/// One compiler operation at a time: the context's diagnostic handler is
/// per call, and the pipeline is not meant to run concurrently on one
/// context.
std::mutex &compilerMutex() {
  static std::mutex m;
  return m;
}

/// Collects the first error (and its notes) of the context while alive.
class ErrorCollector {
public:
  ErrorCollector()
      : handler(&context(), [this](mlir::Diagnostic &d) {
          if (d.getSeverity() == mlir::DiagnosticSeverity::Error &&
              first.empty())
            first = locationPrefix(d.getLocation()) + d.str();
          return mlir::success();
        }) {}
  [[noreturn]] void raise(const std::string &fallback) {
    throw MXNetError(first.empty() ? fallback : first);
  }

private:
  std::string first;
  mlir::ScopedDiagnosticHandler handler;
};

graph::Graph parseGraph(const std::string &json) {
  auto g = graph::readSymbolJSON(json);
  if (!g)
    throw MXNetError(llvm::toString(g.takeError()));
  if (auto err = g->verify())
    throw MXNetError(llvm::toString(std::move(err)));
  return std::move(*g);
}

using ShapeMap = std::map<std::string, std::vector<int64_t>>;
using DTypeMap = std::map<std::string, std::string>;

ImportOptions importOptions(const ShapeMap &shapes, const DTypeMap &dtypes) {
  ImportOptions opts;
  opts.shapes = shapes;
  for (const auto &[name, dt] : dtypes) {
    if (!graph::parseDType(dt))
      throw MXNetError("variable '" + name + "': unknown dtype '" + dt +
                       "' (float32, float64, float16, bfloat16, uint8, int8, "
                       "int32, int64, bool)");
    opts.dtypes[name] = dt;
  }
  return opts;
}

nb::tuple shapeTuple(const std::vector<int64_t> &shape) {
  nb::list l;
  for (int64_t d : shape)
    l.append(d);
  return nb::tuple(l);
}

nb::list specList(const std::vector<TensorSpec> &specs, bool withKind) {
  nb::list out;
  for (const TensorSpec &s : specs) {
    std::string dt = graph::dtypeName(s.dtype).str();
    if (withKind)
      out.append(nb::make_tuple(s.name, s.kind, shapeTuple(s.shape), dt));
    else
      out.append(nb::make_tuple(s.name, shapeTuple(s.shape), dt));
  }
  return out;
}

const char *attrKindName(mx::AttrKind k) {
  switch (k) {
  case mx::AttrKind::Int:
    return "int";
  case mx::AttrKind::Float:
    return "float";
  case mx::AttrKind::Bool:
    return "bool";
  case mx::AttrKind::Shape:
    return "shape";
  case mx::AttrKind::Enum:
    return "enum";
  case mx::AttrKind::DType:
    return "dtype";
  case mx::AttrKind::String:
    return "string";
  }
  return "string";
}

nb::list opSpecs() {
  nb::list out;
  for (const mx::OpSpec &op : mx::allOpSpecs()) {
    nb::dict d;
    d["name"] = op.mxnetName;
    d["mlir_name"] = op.opName;
    nb::list inputs, outputs, aliases, aux, attrs;
    for (const char *n : op.inputNames)
      inputs.append(n);
    for (const char *n : op.outputNames)
      outputs.append(n);
    for (const char *n : op.aliases)
      aliases.append(n);
    for (unsigned i : op.auxInputs)
      aux.append(i);
    for (const mx::AttrSpec &a : op.attrs) {
      nb::dict ad;
      ad["name"] = a.name;
      ad["kind"] = attrKindName(a.kind);
      ad["default"] =
          a.defaultValue ? nb::cast(std::string(a.defaultValue)) : nb::none();
      ad["values"] =
          a.enumValues ? nb::cast(std::string(a.enumValues)) : nb::none();
      attrs.append(ad);
    }
    d["inputs"] = inputs;
    d["num_required_inputs"] = op.numRequiredInputs;
    d["variadic"] = op.variadicInputs;
    d["num_outputs"] = op.numOutputs;
    d["num_visible_outputs"] = op.numVisibleOutputs;
    d["variadic_outputs"] = op.variadicOutputs;
    d["flist_input_names"] = op.hasFListInputNames;
    d["flist_output_names"] = op.hasFListOutputNames;
    d["shape_family"] = op.shapeFamily ? nb::object(nb::str(op.shapeFamily)) : nb::none();
    d["aux_inputs"] = aux;
    d["attrs"] = attrs;
    d["outputs"] = outputs;
    d["aliases"] = aliases;
    out.append(d);
  }
  return out;
}

/// A compiled graph, and the specs Python checks buffers against.
namespace rt = mxc::runtime;

/// Runs `fn` with the GIL released, turning the runtime's failures into
/// MXNetError (a failed operation names its step, i.e. its MXNet node).
template <typename Fn> void withoutGil(Fn &&fn) {
  std::string error;
  {
    nb::gil_scoped_release release;
    try {
      fn();
    } catch (const std::exception &e) {
      error = e.what();
    }
  }
  if (!error.empty())
    throw MXNetError(error);
}

/// Python objects whose memory runtime arrays borrowed (zero-copy numpy and
/// DLPack imports), released by engine operations once the array is done
/// with them. Engine threads never take the GIL: they queue the object here
/// and the interpreter's thread drops the references at its next array
/// call (drainReleased).
/// (Any device: a CUDA tensor's memory becomes a gpu(i) array.)
using BorrowedArray = nb::ndarray<nb::c_contig>;
std::mutex releasedMutex;
std::vector<BorrowedArray *> released;

void drainReleased() {
  std::vector<BorrowedArray *> drop;
  {
    std::lock_guard<std::mutex> lock(releasedMutex);
    drop.swap(released);
  }
  for (BorrowedArray *a : drop)
    delete a; // with the GIL: drops the reference to the source
}

/// A runtime array (runtime storage + engine variable) for mx.nd.NDArray.
struct PyArray {
  rt::NDArray array;

  /// A new array on `device` ("cpu", "gpu" or "cpu_pinned") number
  /// `deviceId` (cpu arrays are cpu(0)).
  PyArray(const std::vector<int64_t> &shape, const std::string &dtype,
          const std::string &device = "cpu", int deviceId = 0) {
    auto dt = rt::dtypeFromName(dtype);
    if (!dt)
      throw MXNetError("unknown dtype '" + dtype + "'");
    rt::Device where;
    if (device == "gpu")
      where = rt::Device::gpu(deviceId);
    else if (device == "cpu_pinned")
      where = rt::Device{rt::Device::Kind::CPUPinned, deviceId};
    else if (device != "cpu")
      throw MXNetError("unknown device '" + device + "' (cpu, gpu or cpu_pinned)");
    try {
      array = rt::NDArray(rt::Shape(shape.begin(), shape.end()), *dt, where);
    } catch (const std::exception &e) {
      throw MXNetError(e.what());
    }
  }
  explicit PyArray(rt::NDArray a) : array(std::move(a)) {}

  /// A runtime array over the memory of a C-contiguous CPU array (numpy, or
  /// anything with the buffer / DLPack protocol nanobind reads), no copy; the
  /// object stays referenced until the runtime array and every operation
  /// pushed on it are done. A DLPack tensor in CUDA memory (kDLCUDA: PyTorch's
  /// cuda tensors, to_dlpack_for_read of a gpu array) gives a gpu(i) array.
  static PyArray borrow(BorrowedArray a, const std::string &dtypeName) {
    drainReleased();
    rt::Device device = rt::Device::cpu();
    if (a.device_type() == nb::device::cuda::value) {
      device = rt::Device::gpu(a.device_id());
      try {
        rt::cuda::requireDevice(a.device_id());
      } catch (const std::exception &e) {
        throw MXNetError(std::string("from_dlpack: a CUDA tensor: ") + e.what());
      }
    } else if (a.device_type() != nb::device::cpu::value) {
      throw MXNetError("from_dlpack: a tensor on DLPack device type " +
                       std::to_string(a.device_type()) + " (cpu and cuda are supported)");
    }
    std::string dtype = dtypeName;
    if (dtype.empty()) { // from the array (a DLPack import)
      nb::dlpack::dtype t = a.dtype();
      auto code = nb::dlpack::dtype_code(t.code);
      if (t.lanes != 1)
        throw MXNetError("from_dlpack: vector dtypes are not supported");
      if (code == nb::dlpack::dtype_code::Float && t.bits == 32) dtype = "float32";
      else if (code == nb::dlpack::dtype_code::Float && t.bits == 64) dtype = "float64";
      else if (code == nb::dlpack::dtype_code::Float && t.bits == 16) dtype = "float16";
      else if (code == nb::dlpack::dtype_code::Int && t.bits == 32) dtype = "int32";
      else if (code == nb::dlpack::dtype_code::Int && t.bits == 64) dtype = "int64";
      else if (code == nb::dlpack::dtype_code::Int && t.bits == 8) dtype = "int8";
      else if (code == nb::dlpack::dtype_code::UInt && t.bits == 8) dtype = "uint8";
      else if (code == nb::dlpack::dtype_code::Bool) dtype = "bool";
      else
        throw MXNetError("from_dlpack: unsupported dtype (code " +
                         std::to_string(int(t.code)) + ", " +
                         std::to_string(t.bits) + " bits)");
    }
    auto dt = rt::dtypeFromName(dtype);
    if (!dt)
      throw MXNetError("unknown dtype '" + dtype + "'");
    if (a.itemsize() != rt::dtypeSize(*dt))
      throw MXNetError("from_numpy: " + std::to_string(a.itemsize()) +
                       "-byte elements are not " + dtype);
    rt::Shape shape;
    for (size_t i = 0; i < a.ndim(); ++i)
      shape.push_back(int64_t(a.shape(i)));
    auto *keep = new BorrowedArray(a); // holds the source object
    try {
      return PyArray(rt::NDArray::fromExternal(
          a.data(), shape, *dt, device, nullptr, [keep] {
            std::lock_guard<std::mutex> lock(releasedMutex);
            released.push_back(keep);
          }));
    } catch (const std::exception &e) {
      delete keep;
      throw MXNetError(e.what());
    }
  }

  /// A numpy view of the storage (no copy, no wait: the caller waits).
  nb::object view() const {
    if (!array.device().isHost())
      throw MXNetError("no numpy view of an array on " + array.device().str() +
                       ": its memory is the GPU's (copy it to the cpu first)");
    return nb::cast(nb::ndarray<nb::numpy>(exported(/*cuda=*/false)));
  }
  /// The storage as a DLPack capsule (no copy, no wait: the caller waits):
  /// kDLCPU for host memory, kDLCUDA with the device for a gpu(i) array's.
  nb::object dlpack() const {
    return nb::cast(exported(array.device().kind == rt::Device::Kind::GPU));
  }
  /// The storage as a tensor of nanobind's that keeps the array alive.
  nb::ndarray<> exported(bool cuda) const {
    auto *keep = new rt::NDArray(array);
    nb::capsule owner(keep, [](void *p) noexcept {
      delete static_cast<rt::NDArray *>(p);
    });
    std::vector<size_t> shape(array.shape().begin(), array.shape().end());
    nb::dlpack::dtype dt;
    switch (array.dtype()) {
    case rt::DType::F32: dt = nb::dtype<float>(); break;
    case rt::DType::F64: dt = nb::dtype<double>(); break;
    case rt::DType::I32: dt = nb::dtype<int32_t>(); break;
    case rt::DType::I64: dt = nb::dtype<int64_t>(); break;
    case rt::DType::I8: dt = nb::dtype<int8_t>(); break;
    case rt::DType::U8: dt = nb::dtype<uint8_t>(); break;
    case rt::DType::Bool: dt = nb::dtype<bool>(); break;
    case rt::DType::F16: dt = {uint8_t(nb::dlpack::dtype_code::Float), 16, 1}; break;
    default:
      throw MXNetError(std::string("no numpy or DLPack view of ") +
                       rt::dtypeName(array.dtype()) + " arrays");
    }
    return nb::ndarray<>(array.data(), shape.size(), shape.data(), owner, nullptr, dt,
                         cuda ? nb::device::cuda::value : nb::device::cpu::value,
                         cuda ? array.device().id : 0);
  }
  void waitToRead() const { withoutGil([&] { array.waitToRead(); }); }
  void waitToWrite() const { withoutGil([&] { array.waitToWrite(); }); }
  /// An engine operation copying this array into `dst` (same byte size).
  void copyTo(const PyArray &dst) const {
    if (dst.array.numBytes() != array.numBytes())
      throw MXNetError("copyto: " + rt::shapeStr(array.shape()) + " into " +
                       rt::shapeStr(dst.array.shape()));
    try {
      array.copyTo(dst.array);
    } catch (const std::exception &e) {
      throw MXNetError(e.what());
    }
  }
  bool sharesStorageWith(const PyArray &o) const {
    return array.sharesStorageWith(o.array);
  }
  /// Pushes an engine operation named `op` that writes this array and fails
  /// with `message`: the error surfaces where the array (or anything later
  /// computed from it) is waited for, as MXNet's operators report a bad
  /// parameter at the next wait rather than at the call.
  void pushFailure(const std::string &op, const std::string &message) const {
    try {
      rt::defaultEngine().pushAsync(
          [message](rt::RunContext, rt::CompleteCallback done) {
            done(message);
          },
          array.device(), {}, {array.var()}, rt::FnProperty::Normal, 0, op);
    } catch (const std::exception &e) {
      throw MXNetError(e.what());
    }
  }
};

class PyCompiled {
public:
  std::shared_ptr<CompiledGraph> graph;
  std::string outcome; ///< "compiled", "memory", "disk"

  nb::list inputs() const { return specList(graph->signature().inputs, true); }
  /// Indices of the inputs the step never reads (head_grads marked
  /// mx.unused by mx-autodiff).
  std::vector<int64_t> unusedInputs() const {
    std::vector<int64_t> out;
    const auto &in = graph->signature().inputs;
    for (size_t i = 0; i < in.size(); ++i)
      if (in[i].unused)
        out.push_back(static_cast<int64_t>(i));
    return out;
  }
  nb::list outputs() const {
    return specList(graph->signature().outputs, true);
  }
  /// For each output, the index of the last plan step that writes it (the
  /// order in which a pushed plan makes its outputs ready; -1: none).
  std::vector<int64_t> outputSteps() const {
    const rt::Plan &plan = graph->plan();
    std::vector<int64_t> out(plan.numOutputs(), -1);
    for (size_t i = 0; i < plan.numOutputs(); ++i) {
      uint32_t b = plan.outputBuffer(i);
      for (size_t s = 0; s < plan.steps.size(); ++s)
        for (uint32_t w : plan.steps[s].writes)
          if (w == b)
            out[i] = static_cast<int64_t>(s);
    }
    return out;
  }

  using Array = nb::ndarray<nb::device::cpu, nb::c_contig>;
  /// Inputs may be read-only arrays.
  using InArray = nb::ndarray<nb::ro, nb::device::cpu, nb::c_contig>;

  /// Pushes the graph onto the engine on runtime arrays; returns at once.
  void push(const std::vector<PyArray *> &in,
            const std::vector<PyArray *> &out) const {
    std::vector<rt::NDArray> ins, outs;
    for (PyArray *a : in)
      ins.push_back(a->array);
    for (PyArray *a : out)
      outs.push_back(a->array);
    try {
      graph->push(ins, outs);
    } catch (const std::exception &e) {
      throw MXNetError(e.what());
    }
  }

  void run(std::vector<InArray> in, std::vector<Array> out) const {
    const EntrySignature &sig = graph->signature();
    if (in.size() != sig.inputs.size() || out.size() != sig.outputs.size())
      throw MXNetError("compiled graph takes " +
                       std::to_string(sig.inputs.size()) + " inputs and " +
                       std::to_string(sig.outputs.size()) + " outputs, got " +
                       std::to_string(in.size()) + " and " +
                       std::to_string(out.size()));
    std::vector<const void *> inPtrs;
    std::vector<void *> outPtrs;
    auto check = [](const TensorSpec &spec, const auto &a, const char *what) {
      bool ok = a.ndim() == spec.shape.size() &&
                a.itemsize() == graph::dtypeSize(spec.dtype);
      for (size_t i = 0; ok && i < a.ndim(); ++i)
        ok = int64_t(a.shape(i)) == spec.shape[i];
      if (!ok) {
        std::string got = "(";
        for (size_t i = 0; i < a.ndim(); ++i)
          got += (i ? ", " : "") + std::to_string(a.shape(i));
        got += a.ndim() == 1 ? ",)" : ")";
        throw MXNetError(std::string(what) + " '" + spec.name + "': expected " +
                         graph::dtypeName(spec.dtype).str() + " of shape " +
                         nb::repr(shapeTuple(spec.shape)).c_str() + ", got " +
                         std::to_string(a.itemsize()) +
                         "-byte elements of shape " + got);
      }
    };
    for (size_t i = 0; i < in.size(); ++i) {
      check(sig.inputs[i], in[i], "input");
      inPtrs.push_back(in[i].data());
    }
    for (size_t i = 0; i < out.size(); ++i) {
      check(sig.outputs[i], out[i], "output");
      outPtrs.push_back(out[i].data());
    }
    llvm::Error err = llvm::Error::success();
    {
      nb::gil_scoped_release release;
      err = graph->run(inPtrs, outPtrs);
    }
    if (err)
      throw MXNetError(llvm::toString(std::move(err)));
  }
};

std::shared_ptr<PyCompiled>
compile(const std::string &json, const ShapeMap &shapes, const DTypeMap &dtypes,
        const std::vector<std::string> &outputs, bool useDiskCache, bool train,
        const std::vector<std::string> &wrt,
        const std::vector<std::string> &gradReq, const std::string &trainPart,
        const std::vector<std::string> &inPlace, const std::string &cudaArch) {
  graph::Graph g = parseGraph(json);
  ImportOptions importOpts = importOptions(shapes, dtypes);
  JITOptions jitOpts;
  // "emulated": the CUDA target's kernel mapping run as host loops
  // (PipelineOptions::emulateGpuKernels): the driver double's tests, whose
  // "device" memory is host memory (ndarray._cuda_arch).
  if (cudaArch == "emulated")
    jitOpts.pipeline.emulateGpuKernels = true;
  else
    jitOpts.pipeline.cudaArch = cudaArch;
  jitOpts.pipeline.trainPart = trainPart;
  jitOpts.pipeline.inPlace = inPlace;
  jitOpts.pipeline.outputs = outputs;
  jitOpts.pipeline.train = train;
  jitOpts.pipeline.wrt = wrt;
  jitOpts.pipeline.gradReq = gradReq;
  jitOpts.useDiskCache = useDiskCache;
  // Small graphs at -O0 first (JITOptions::tiered); MXC_JIT_TIERED=0: -O3
  // at once (bench/compile compares the two).
  const char *tiered = std::getenv("MXC_JIT_TIERED");
  jitOpts.tiered = !(tiered && std::string(tiered) == "0");
  CompileInfo info;
  mlir::FailureOr<std::shared_ptr<CompiledGraph>> compiled;
  {
    nb::gil_scoped_release release;
    std::lock_guard<std::mutex> lock(compilerMutex());
    ErrorCollector errors;
    compiled = compileGraph(context(), g, importOpts, jitOpts, &info);
    if (mlir::failed(compiled))
      errors.raise("compilation failed");
  }
  auto result = std::make_shared<PyCompiled>();
  result->graph = *compiled;
  switch (info.outcome) {
  case CacheOutcome::Compiled:
    result->outcome = "compiled";
    break;
  case CacheOutcome::MemoryHit:
    result->outcome = "memory";
    break;
  case CacheOutcome::DiskHit:
    result->outcome = "disk";
    break;
  }
  return result;
}

/// Shapes and dtypes of every input and output of the imported graph.
nb::tuple infer(const std::string &json, const ShapeMap &shapes,
                const DTypeMap &dtypes) {
  graph::Graph g = parseGraph(json);
  ImportOptions importOpts = importOptions(shapes, dtypes);
  std::lock_guard<std::mutex> lock(compilerMutex());
  ErrorCollector errors;
  mlir::OwningOpRef<mlir::ModuleOp> module =
      importGraph(context(), g, importOpts);
  if (!module || mlir::failed(mlir::verify(*module)))
    errors.raise("shape inference failed");
  mlir::FailureOr<EntrySignature> sig = getEntrySignature(*module);
  if (mlir::failed(sig))
    errors.raise("shape inference failed");
  return nb::make_tuple(specList(sig->inputs, true),
                        specList(sig->outputs, false));
}

/// The training graph of `json` (forward + backward, mx-autodiff with
/// grad_req write for `wrt`, no fusion) exported back as MXNet symbol JSON,
/// with the inputs and outputs of its entry (name, kind, shape, dtype):
/// autograd's create_graph replays it as recorded operators, so that the
/// gradients are themselves differentiable.
nb::tuple gradientGraph(const std::string &json, const ShapeMap &shapes,
                        const DTypeMap &dtypes,
                        const std::vector<std::string> &wrt) {
  graph::Graph g = parseGraph(json);
  ImportOptions importOpts = importOptions(shapes, dtypes);
  PipelineOptions opts;
  opts.train = true;
  opts.wrt = wrt;
  for (const std::string &w : wrt)
    opts.gradReq.push_back(w + "=write");
  opts.fuseGraph = false;
  std::lock_guard<std::mutex> lock(compilerMutex());
  ErrorCollector errors;
  mlir::OwningOpRef<mlir::ModuleOp> module =
      importGraph(context(), g, importOpts);
  if (!module || mlir::failed(mlir::verify(*module)) ||
      mlir::failed(runGraphPasses(*module, opts)))
    errors.raise("gradient graph failed");
  mlir::FailureOr<EntrySignature> sig = getEntrySignature(*module);
  if (mlir::failed(sig))
    errors.raise("gradient graph failed");
  mlir::FailureOr<graph::Graph> exported = exportGraph(*module);
  if (mlir::failed(exported))
    errors.raise("the gradient graph cannot be written as MXNet operators");
  return nb::make_tuple(graph::writeSymbolJSON(*exported),
                        specList(sig->inputs, true),
                        specList(sig->outputs, true));
}

nb::dict graphLists(const std::string &json) {
  graph::Graph g = parseGraph(json);
  nb::list args, aux, outs;
  for (uint32_t i : g.listArguments())
    args.append(g.nodes[i].name);
  for (uint32_t i : g.listAuxiliaryStates())
    aux.append(g.nodes[i].name);
  for (const std::string &o : g.listOutputs())
    outs.append(o);
  nb::dict d;
  d["arguments"] = args;
  d["auxiliary_states"] = aux;
  d["outputs"] = outs;
  return d;
}

nb::list paramsToPython(std::vector<graph::NDArrayData> arrays) {
  nb::list out;
  for (graph::NDArrayData &a : arrays) {
    if (a.isNone()) {
      out.append(nb::make_tuple(a.name, nb::none(), nb::none(), nb::none()));
      continue;
    }
    nb::bytes data(reinterpret_cast<const char *>(a.bytes.data()),
                   a.bytes.size());
    out.append(nb::make_tuple(a.name, graph::dtypeName(a.dtype).str(),
                              shapeTuple(a.shape), data));
  }
  return out;
}

/// mx.nd.load's check (MXNet's NDArray::Load): records saved under NumPy
/// shape semantics (V3) load only under them, and the others only outside.
void checkShapeSemantics(const std::vector<graph::NDArrayData> &arrays,
                         std::optional<bool> npShape) {
  if (!npShape)
    return;
  for (const graph::NDArrayData &a : arrays) {
    bool v3 = a.version == graph::RecordVersion::V3;
    if (v3 && !*npShape)
      throw MXNetError("array '" + a.name +
                       "': ndarray was saved in np shape semantics, must be loaded in the "
                       "same semantics: turn them on with `with mx.np_shape(True)` or the "
                       "decorator `use_np_shape` around the load");
    if (!v3 && *npShape)
      throw MXNetError("array '" + a.name +
                       "': ndarray was not saved in np shape semantics, but is being loaded "
                       "in np shape semantics: load it under `with mx.np_shape(False)`");
  }
}

nb::list loadParams(const std::string &path, std::optional<bool> npShape) {
  auto arrays = graph::readParamsFile(path);
  if (!arrays)
    throw MXNetError(llvm::toString(arrays.takeError()));
  checkShapeSemantics(*arrays, npShape);
  return paramsToPython(std::move(*arrays));
}

nb::list loadParamsBytes(nb::bytes data, std::optional<bool> npShape) {
  auto arrays = graph::readParams(llvm::StringRef(data.c_str(), data.size()));
  if (!arrays)
    throw MXNetError(llvm::toString(arrays.takeError()));
  checkShapeSemantics(*arrays, npShape);
  return paramsToPython(std::move(*arrays));
}

/// `arrays`: (name, dtype name, shape, C-contiguous array) tuples; V3
/// records (NumPy shape semantics: () a scalar) with `npShape`, else V2.
std::vector<graph::NDArrayData> paramsFromPython(nb::list arrays,
                                                 bool npShape = false) {
  std::vector<graph::NDArrayData> out;
  for (nb::handle item : arrays) {
    auto t = nb::cast<nb::tuple>(item);
    graph::NDArrayData a;
    a.name = nb::cast<std::string>(t[0]);
    std::string dt = nb::cast<std::string>(t[1]);
    auto dtype = graph::parseDType(dt);
    if (!dtype)
      throw MXNetError("array '" + a.name + "': dtype '" + dt +
                       "' cannot be stored in a .params file");
    a.dtype = *dtype;
    a.shape = nb::cast<std::vector<int64_t>>(t[2]);
    auto arr = nb::cast<PyCompiled::InArray>(t[3]);
    const auto *p = static_cast<const uint8_t *>(arr.data());
    a.bytes.assign(p, p + arr.nbytes());
    a.version = npShape ? graph::RecordVersion::V3 : graph::RecordVersion::V2;
    if (auto err = graph::checkArray(a))
      throw MXNetError("array '" + a.name +
                       "': " + llvm::toString(std::move(err)));
    out.push_back(std::move(a));
  }
  return out;
}

void saveParams(const std::string &path, nb::list arrays, bool npShape) {
  if (auto err = graph::writeParamsFile(path, paramsFromPython(arrays, npShape)))
    throw MXNetError(llvm::toString(std::move(err)));
}

nb::bytes saveParamsBytes(nb::list arrays, bool npShape) {
  std::string image = graph::writeParams(paramsFromPython(arrays, npShape));
  return nb::bytes(image.data(), image.size());
}

std::string normalizeJSON(const std::string &json) {
  return graph::writeSymbolJSON(parseGraph(json));
}

/// The JIT resolves the runtime's kernels among the process's global
/// symbols; Python loads extensions (and their dependencies) with
/// RTLD_LOCAL, so promote libmxc_runtime.so to global scope.
void makeRuntimeGlobal() {
  Dl_info info;
  if (dladdr(reinterpret_cast<void *>(&mxc_kernel_gemm_f32), &info) &&
      info.dli_fname)
    dlopen(info.dli_fname, RTLD_NOW | RTLD_GLOBAL | RTLD_NOLOAD);
}

} // namespace

// mx.profiler's bindings (Profiler.cpp) and mx.kv's (KVStore.cpp).
void bindProfiler(nb::module_ &m);
void bindKVStore(nb::module_ &m);

// The seam KVStore.cpp uses: runtime arrays in and out of _mxc.Array.
rt::NDArray runtimeArrayOf(nb::handle array) {
  if (!nb::isinstance<PyArray>(array))
    throw MXNetError("expected a runtime array (mxc._mxc.Array)");
  return nb::cast<PyArray &>(array).array;
}
nb::object wrapRuntimeArray(const rt::NDArray &array) {
  return nb::cast(PyArray(array));
}
[[noreturn]] void raiseMXNetError(const std::string &message) {
  throw MXNetError(message);
}

/// The imperative dispatch fast path of mx.nd (ndarray.py's `_fast`): a
/// call seen before, on runtime arrays, not recorded by autograd, pushed and
/// its output NDArrays made without running Python code. The NDArray class's
/// slots are read and written at their offsets (the class is Python's, with
/// __slots__); a call it cannot take returns None and takes the Python path.
struct FastDispatch {
  // Strong references, dropped by clear() at interpreter exit (atexit in
  // ndarray.py): a static's destructor would run after the interpreter.
  PyTypeObject *ndType = nullptr; // mxc.ndarray.NDArray
  PyObject *table = nullptr;      // dict: (op, attribute items, input sigs) -> entry
  PyObject *agState = nullptr;    // autograd's thread-local state
  PyObject *recording = nullptr;  // "recording"
  PyObject *null = nullptr;       // "null" (_grad_req)
  Py_ssize_t npv = 0, sig = 0, rt = 0, ctx = 0, grad = 0, gradReq = 0, ag = 0;

  void clear() {
    Py_CLEAR(ndType);
    Py_CLEAR(table);
    Py_CLEAR(agState);
    Py_CLEAR(recording);
    Py_CLEAR(null);
  }
};
FastDispatch fastDispatch;

Py_ssize_t slotOffset(nb::handle type, const char *name) {
  nb::object d = nb::getattr(type, name);
  if (!Py_IS_TYPE(d.ptr(), &PyMemberDescr_Type))
    throw MXNetError(std::string("fast dispatch: NDArray.") + name +
                     " is not a __slots__ member");
  return reinterpret_cast<PyMemberDescrObject *>(d.ptr())->d_member->offset;
}

inline PyObject *&slotAt(PyObject *obj, Py_ssize_t offset) {
  return *reinterpret_cast<PyObject **>(reinterpret_cast<char *>(obj) + offset);
}

void initFastDispatch(nb::handle ndType, nb::handle table, nb::handle agState) {
  if (!PyType_Check(ndType.ptr()) || !PyDict_Check(table.ptr()))
    throw MXNetError("init_fast_dispatch: wants the NDArray class and a dict");
  FastDispatch &fd = fastDispatch;
  fd.clear();
  fd.npv = slotOffset(ndType, "_npv");
  fd.sig = slotOffset(ndType, "_sig");
  fd.rt = slotOffset(ndType, "_rt");
  fd.ctx = slotOffset(ndType, "_ctx");
  fd.grad = slotOffset(ndType, "_grad");
  fd.gradReq = slotOffset(ndType, "_grad_req");
  fd.ag = slotOffset(ndType, "_ag");
  fd.table = Py_NewRef(table.ptr());
  fd.agState = Py_NewRef(agState.ptr());
  fd.recording = PyUnicode_InternFromString("recording");
  fd.null = PyUnicode_InternFromString("null");
  fd.ndType = reinterpret_cast<PyTypeObject *>(Py_NewRef(ndType.ptr()));
}

/// `op(*args, **kwargs)` through the fast path: the outputs (one NDArray or
/// a list), or None where the Python path must take the call.
nb::object fastDispatchCall(nb::handle op, nb::handle args, nb::handle kwargs) {
  FastDispatch &fd = fastDispatch;
  if (!fd.ndType || !(PyTuple_Check(args.ptr()) || PyList_Check(args.ptr())))
    return nb::none();
  const Py_ssize_t n = PySequence_Fast_GET_SIZE(args.ptr());
  if (n == 0) // no input to take the context from: the Python path
    return nb::none();
  PyObject *const *items = PySequence_Fast_ITEMS(args.ptr());
  nb::object sigs = nb::steal(PyTuple_New(n));
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject *a = items[i];
    if (!PyObject_TypeCheck(a, fd.ndType))
      return nb::none();
    PyObject *s = slotAt(a, fd.sig);
    if (!s)
      return nb::none();
    PyTuple_SET_ITEM(sigs.ptr(), i, Py_NewRef(s));
  }
  // tuple(kwargs.items()), in call order as Python builds it.
  nb::object attrs;
  Py_ssize_t numAttrs =
      kwargs.is_valid() && !kwargs.is_none() ? PyDict_Size(kwargs.ptr()) : 0;
  if (numAttrs < 0)
    throw nb::python_error();
  attrs = nb::steal(PyTuple_New(numAttrs));
  if (numAttrs) {
    Py_ssize_t pos = 0, k = 0;
    PyObject *key, *value;
    while (PyDict_Next(kwargs.ptr(), &pos, &key, &value))
      PyTuple_SET_ITEM(attrs.ptr(), k++, PyTuple_Pack(2, key, value));
  }
  // A call on GPU arrays is keyed with its first input's context too (the
  // entry's code is for the GPU, the CPU's table entry of the same shapes
  // is another).
  PyObject *rt0 = slotAt(items[0], fd.rt);
  if (!rt0 || !nb::isinstance<PyArray>(rt0))
    return nb::none();
  const rt::Device device = nb::inst_ptr<PyArray>(rt0)->array.device();
  const bool onGpu = device.kind == rt::Device::Kind::GPU;
  PyObject *ctx = slotAt(items[0], fd.ctx);
  if (!ctx)
    return nb::none();
  nb::object key = nb::steal(onGpu ? PyTuple_Pack(4, op.ptr(), attrs.ptr(), sigs.ptr(), ctx)
                                   : PyTuple_Pack(3, op.ptr(), attrs.ptr(), sigs.ptr()));
  PyObject *found = PyDict_GetItemWithError(fd.table, key.ptr());
  if (!found) {
    if (PyErr_Occurred()) { // an unhashable attribute value: the Python path
      if (!PyErr_ExceptionMatches(PyExc_TypeError))
        throw nb::python_error();
      PyErr_Clear();
    }
    return nb::none();
  }
  nb::object entry = nb::borrow(found);
  // Not while autograd records (its state may have no attribute yet).
  if (PyObject *rec = PyObject_GetAttr(fd.agState, fd.recording)) {
    int on = PyObject_IsTrue(rec);
    Py_DECREF(rec);
    if (on)
      return nb::none();
    if (on < 0)
      throw nb::python_error();
  } else {
    PyErr_Clear();
  }
  // entry: (Compiled, tuple of input positions, tuple of output sigs)
  if (!PyTuple_Check(entry.ptr()) || PyTuple_GET_SIZE(entry.ptr()) != 3)
    return nb::none();
  nb::handle compiledObj = PyTuple_GET_ITEM(entry.ptr(), 0);
  nb::handle order = PyTuple_GET_ITEM(entry.ptr(), 1);
  nb::handle outSigs = PyTuple_GET_ITEM(entry.ptr(), 2);
  if (!nb::isinstance<PyCompiled>(compiledObj) || !PyTuple_Check(order.ptr()) ||
      !PyTuple_Check(outSigs.ptr()))
    return nb::none();
  const PyCompiled &compiled = *nb::inst_ptr<PyCompiled>(compiledObj);
  const rt::Plan &plan = compiled.graph->plan();
  const Py_ssize_t numIn = PyTuple_GET_SIZE(order.ptr());
  if (size_t(numIn) != plan.numArguments() ||
      size_t(PyTuple_GET_SIZE(outSigs.ptr())) != plan.numOutputs())
    return nb::none();
  std::vector<rt::NDArray> ins, outs;
  ins.reserve(numIn);
  for (Py_ssize_t i = 0; i < numIn; ++i) {
    Py_ssize_t at = PyLong_AsSsize_t(PyTuple_GET_ITEM(order.ptr(), i));
    if (at < 0 || at >= n) {
      PyErr_Clear();
      return nb::none();
    }
    PyObject *r = slotAt(items[at], fd.rt);
    if (!r || !nb::isinstance<PyArray>(r))
      return nb::none();
    ins.push_back(nb::inst_ptr<PyArray>(r)->array);
    // Every array on the first one's device (the Python path names a
    // mismatch); a CPU entry only for host arrays (cpu, cpu_pinned: the
    // outputs go there too, as MXNet's). (A GPU entry's plan says gpu(0), or
    // is a CPU plan over the driver double's host memory: the push runs it
    // on the arrays' device, CompiledGraph::push.)
    if (!(ins.back().device() == device) || (!onGpu && !device.isHost()))
      return nb::none();
  }
  try {
    outs.reserve(plan.numOutputs());
    for (size_t i = 0; i < plan.numOutputs(); ++i) {
      const rt::PlanBuffer &b = plan.buffers[plan.outputBuffer(i)];
      outs.emplace_back(b.shape, b.dtype, device);
    }
    compiled.graph->push(ins, outs);
  } catch (const std::exception &e) {
    throw MXNetError(e.what());
  }
  auto wrap = [&](size_t i) {
    nb::object rtObj = nb::cast(PyArray(std::move(outs[i])), nb::rv_policy::move);
    PyObject *o = fd.ndType->tp_alloc(fd.ndType, 0);
    if (!o)
      throw nb::python_error();
    slotAt(o, fd.npv) = Py_NewRef(Py_None);
    slotAt(o, fd.sig) = Py_NewRef(PyTuple_GET_ITEM(outSigs.ptr(), i));
    slotAt(o, fd.rt) = rtObj.release().ptr();
    slotAt(o, fd.ctx) = Py_NewRef(ctx);
    slotAt(o, fd.grad) = Py_NewRef(Py_None);
    slotAt(o, fd.gradReq) = Py_NewRef(fd.null);
    slotAt(o, fd.ag) = Py_NewRef(Py_None);
    return nb::steal(o);
  };
  if (outs.size() == 1)
    return wrap(0);
  nb::list result;
  for (size_t i = 0; i < outs.size(); ++i)
    result.append(wrap(i));
  return result;
}

NB_MODULE(_mxc, m) {
  m.doc() = "mxc's compiler, JIT and file formats (internal; use mxc)";
  makeRuntimeGlobal();
  nb::exception<MXNetError>(m, "MXNetError", PyExc_RuntimeError);
  bindProfiler(m);
  bindKVStore(m);

  nb::class_<PyCompiled>(m, "Compiled")
      .def_prop_ro("inputs", &PyCompiled::inputs,
                   "[(name, kind, shape, dtype)] in argument order")
      .def_prop_ro("unused_inputs", &PyCompiled::unusedInputs,
                   "indices of the inputs the step never reads (the head "
                   "gradients of outputs no gradient flows back from)")
      .def_prop_ro("outputs", &PyCompiled::outputs,
                   "[(name, kind, shape, dtype)] in output order; kind '' "
                   "for a head, 'grad' or 'aux_out' after mx-autodiff")
      .def_prop_ro(
          "arena_bytes",
          [](const PyCompiled &c) { return c.graph->plan().arenaBytes; },
          "bytes of the plan's arena (the memory planner's intermediates)")
      .def_prop_ro(
          "device",
          [](const PyCompiled &c) { return c.graph->plan().device().str(); },
          "where the plan's steps run: 'cpu(0)' or 'gpu(0)'")
      .def_prop_ro("num_steps",
                   [](const PyCompiled &c) { return c.graph->plan().steps.size(); },
                   "steps of the plan")
      .def_prop_ro("output_steps", &PyCompiled::outputSteps,
                   "per output, the last plan step writing it (-1: none)")
      .def_ro("outcome", &PyCompiled::outcome,
              "'compiled', 'memory' or 'disk': where the code came from")
      .def_prop_ro("fast_tier",
                   [](const PyCompiled &c) { return c.graph->isFastTier(); },
                   "whether the kernels are still tiered compilation's -O0 "
                   "fast tier (small graphs; recompiled after enough runs)")
      .def(
          "tier_up",
          [](const PyCompiled &c) {
            std::string error;
            bool done;
            {
              nb::gil_scoped_release release;
              done = c.graph->tierUp(&error);
            }
            if (!error.empty())
              throw std::runtime_error(error);
            return done;
          },
          "Recompiles a fast-tier graph at -O3 now; False when it was not on "
          "the fast tier")
      .def("run", &PyCompiled::run, nb::arg("inputs"), nb::arg("outputs"),
           "Runs the graph on C-contiguous CPU arrays (outputs written in "
           "place).")
      .def("push", &PyCompiled::push, nb::arg("inputs"), nb::arg("outputs"),
           "Pushes the graph's plan onto the engine on runtime arrays "
           "(Array) and returns at once.");
  m.def("init_fast_dispatch", &initFastDispatch, nb::arg("ndarray_type"),
        nb::arg("table"), nb::arg("autograd_state"),
        "Sets up fast_dispatch: mx.nd's NDArray class, its table of cached "
        "calls and autograd's thread-local state");
  m.def("clear_fast_dispatch", [] { fastDispatch.clear(); },
        "Drops fast_dispatch's references (at interpreter exit)");
  m.def("fast_dispatch", &fastDispatchCall, nb::arg("op").none(),
        nb::arg("args").none(), nb::arg("kwargs").none(),
        "A cached mx.nd call (op, inputs tuple or list, attributes dict) pushed in C++: its "
        "outputs, or None where the Python path must take it");

  nb::class_<PyArray>(m, "Array",
                      "A runtime array: storage + engine variable")
      .def("__init__",
           [](PyArray *self, const std::vector<int64_t> &shape,
              const std::string &dtype, const std::string &device, int deviceId) {
             drainReleased();
             new (self) PyArray(shape, dtype, device, deviceId);
           },
           nb::arg("shape"), nb::arg("dtype"), nb::arg("device") = "cpu",
           nb::arg("device_id") = 0)
      .def_prop_ro(
          "device",
          [](const PyArray &a) {
            rt::Device d = a.array.device();
            std::string spelled = d.str(); // "cpu_pinned(0)": the kind before the '('
            return nb::make_tuple(spelled.substr(0, spelled.find('(')), d.id);
          },
          "(kind, id): where the storage is, ('cpu', 0), ('gpu', i) or ('cpu_pinned', i)")
      .def_static("borrow", &PyArray::borrow, nb::arg("array"), nb::arg("dtype"),
                  "A runtime array over a C-contiguous CPU array's memory (no "
                  "copy); the source stays referenced while the runtime uses it")
      .def("view", &PyArray::view,
           "A numpy view of the storage (no copy; wait first)")
      .def("dlpack", &PyArray::dlpack,
           "The storage as a DLPack capsule (no copy; wait first): CUDA memory for a gpu "
           "array")
      .def("wait_to_read", &PyArray::waitToRead)
      .def("wait_to_write", &PyArray::waitToWrite)
      .def("copy_to", &PyArray::copyTo, nb::arg("dst"),
           "Pushes a copy into dst (an engine operation)")
      .def(
          "fill",
          [](const PyArray &a, uint64_t pattern) {
            try {
              a.array.fill(pattern);
            } catch (const std::exception &e) {
              throw MXNetError(e.what());
            }
          },
          nb::arg("pattern"),
          "Pushes an operation setting every element to pattern, the element's "
          "bytes as a little-endian integer (on a GPU a device memset)")
      .def("shares_storage_with", &PyArray::sharesStorageWith)
      .def_prop_ro(
          "data_ptr",
          [](const PyArray &a) { return reinterpret_cast<uintptr_t>(a.array.data()); },
          "The address of element 0 (a view's includes its offset); device memory's for a "
          "gpu array")
      .def("push_failure", &PyArray::pushFailure, nb::arg("op"), nb::arg("message"),
           "Pushes an operation named op, writing this array, that fails with message")
      .def(
          "reshape",
          [](const PyArray &a, const std::vector<int64_t> &shape) {
            try {
              return PyArray(a.array.reshape(rt::Shape(shape.begin(), shape.end())));
            } catch (const std::exception &e) {
              throw MXNetError(e.what());
            }
          },
          nb::arg("shape"), "A view with another shape (same storage and variable)")
      .def(
          "slice",
          [](const PyArray &a, int64_t begin, int64_t end) {
            try {
              return PyArray(a.array.slice(begin, end));
            } catch (const std::exception &e) {
              throw MXNetError(e.what());
            }
          },
          nb::arg("begin"), nb::arg("end"),
          "A view of [begin, end) of axis 0 (same storage and variable)")
      .def_prop_ro("shape", [](const PyArray &a) {
        return std::vector<int64_t>(a.array.shape().begin(),
                                    a.array.shape().end());
      })
      .def_prop_ro("dtype",
                   [](const PyArray &a) { return rt::dtypeName(a.array.dtype()); });
  // Waits for every pushed operation with the GIL released (operations may
  // release borrowed Python arrays meanwhile).
  auto waitForAll = [](rt::Engine &e) {
    drainReleased();
    std::optional<rt::EngineError> err;
    withoutGil([&] { err = e.waitForAll(); });
    return err;
  };
  m.def("engine_wait_all", [waitForAll] {
    if (auto err = waitForAll(rt::defaultEngine()))
      throw MXNetError(err->str());
  }, "Blocks until every pushed operation finished (mx.nd.waitall)");
  m.def("engine_drain_at_exit", [waitForAll]() -> std::optional<std::string> {
    // The interpreter is exiting: operations still in flight finish while
    // Python's objects (arrays whose memory the engine writes) and the
    // kernels' libraries are alive. Creates no engine.
    rt::Engine *e = rt::defaultEngineIfCreated();
    if (!e)
      return std::nullopt;
    if (auto err = waitForAll(*e))
      return err->str();
    return std::nullopt;
  }, "At interpreter exit: waits for the default engine if it exists; the "
     "first failure not yet reported, or None");
  m.def("engine_num_pending", [] { return rt::defaultEngine().numPending(); },
        "Operations pushed to the default engine and not yet finished");

  // gpu(i) (runtime/include/mxc/runtime/cuda.h): what mx.context asks.
  m.def("cuda_built", &rt::cuda::builtWithCuda, "Whether the runtime has its CUDA backend");
  m.def("cuda_device_count", &rt::cuda::deviceCount,
        "The number of GPUs (0 without a driver)");
  m.def("cuda_unavailable_reason", &rt::cuda::unavailableReason,
        "Why there is no GPU ('' when the driver loaded)");
  m.def("cuda_require_device", &rt::cuda::requireDevice, nb::arg("id"),
        "Raises MXNetError unless gpu(id) exists");
  m.def("cuda_memory_info", [](int id) {
    size_t freeBytes = 0, total = 0;
    rt::cuda::memoryInfo(id, &freeBytes, &total);
    return std::make_pair(freeBytes, total);
  }, nb::arg("id"), "(free, total) bytes of gpu(id)");
  m.def("cuda_device_name", &rt::cuda::deviceName, nb::arg("id"));
  m.def("cuda_device_memory_is_host_memory", &rt::cuda::deviceMemoryIsHostMemory,
        nb::arg("id"),
        "True only on the tests' CUDA driver double (its device memory is host memory)");
  m.def(
      "cuda_compute_capability",
      [](int id) {
        try {
          return rt::cuda::computeCapability(id);
        } catch (const std::exception &e) {
          throw MXNetError(e.what());
        }
      },
      nb::arg("id"), "gpu(id)'s compute capability (90 for sm_90)");

  m.def("op_specs", &opSpecs);
  m.def("normalize_json", &normalizeJSON, nb::arg("json"));
  m.def(
      "input_names",
      [](const std::string &op,
         const std::map<std::string, std::string> &attrs) {
        return graph::inputNamesOf(op, attrs);
      },
      nb::arg("op"), nb::arg("attrs"),
      "MXNet's input names of an operator given its attributes");
  m.def(
      "num_outputs",
      [](const std::string &op,
         const std::map<std::string, std::string> &attrs) {
        return graph::numOutputsOf(op, attrs);
      },
      nb::arg("op"), nb::arg("attrs"),
      "Output count of an operator given its attributes (hidden included)");
  m.def(
      "output_names",
      [](const std::string &op,
         const std::map<std::string, std::string> &attrs) {
        return graph::outputNamesOf(op, attrs);
      },
      nb::arg("op"), nb::arg("attrs"),
      "MXNet's visible output names of an operator given its attributes");
  m.def("graph_lists", &graphLists, nb::arg("json"));
  m.def("infer", &infer, nb::arg("json"), nb::arg("shapes"), nb::arg("dtypes"));
  m.def("gradient_graph", &gradientGraph, nb::arg("json"), nb::arg("shapes"),
        nb::arg("dtypes"), nb::arg("wrt"));
  m.def("compile", &compile, nb::arg("json"), nb::arg("shapes"),
        nb::arg("dtypes"), nb::arg("outputs") = std::vector<std::string>(),
        nb::arg("disk_cache") = true, nb::arg("train") = false,
        nb::arg("wrt") = std::vector<std::string>(),
        nb::arg("grad_req") = std::vector<std::string>(),
        nb::arg("train_part") = std::string(),
        nb::arg("in_place") = std::vector<std::string>(),
        nb::arg("cuda_arch") = std::string(),
        "Compiles a graph. train=True: mx-autodiff's training step (extra "
        "inputs head_grad / grad_in / rng_seed, extra outputs grad / "
        "aux_out, see Compiled.inputs/outputs kinds); train_part='forward' "
        "/ 'backward': one half of it (mx-split-training: the forward "
        "returns 'residual' outputs, the backward reads them as 'residual' "
        "inputs named fwd<j>, result j of the forward). in_place: 'J=NAME' "
        "entries, output J will be passed the same buffer as input NAME "
        "(PipelineOptions::inPlace; the caller checks num_steps == 1). "
        "cuda_arch ('sm_90'): every step as GPU kernels on gpu(0) (the CUDA "
        "target through the JIT, as mxc run --device gpu; run() copies its "
        "inputs and outputs through device memory); 'emulated': a CPU "
        "plan whose steps are the CUDA target's kernels run as host loops "
        "(--emulate-gpu-kernels; the driver double's tests).");
  // np_shape: mx.nd.save / load under mx.np_shape() (V3 records, and the
  // load's check of the semantics they were saved in); None: no check.
  m.def("load_params", &loadParams, nb::arg("path"), nb::arg("np_shape") = nb::none());
  m.def("load_params_bytes", &loadParamsBytes, nb::arg("data"),
        nb::arg("np_shape") = nb::none());
  m.def("save_params", &saveParams, nb::arg("path"), nb::arg("arrays"),
        nb::arg("np_shape") = false);
  m.def("save_params_bytes", &saveParamsBytes, nb::arg("arrays"),
        nb::arg("np_shape") = false);
  m.def("default_cache_dir", &defaultCacheDir);
#ifdef MXC_PY_CLI_MAIN
  // The `mxc` command line inside the extension (scripts/gpu-check.sh's
  // build for the device machine, where one library holds the compiler for
  // both: its bin/mxc imports this extension alone and calls cli_main).
  m.def(
      "cli_main",
      [](std::vector<std::string> args) {
        std::vector<char *> argv;
        for (std::string &a : args)
          argv.push_back(a.data());
        argv.push_back(nullptr);
        int rc;
        {
          nb::gil_scoped_release release;
          rc = mxc::driverMain(int(args.size()), argv.data());
        }
        return rc;
      },
      nb::arg("argv"), "Runs `mxc` with argv (argv[0] the program's name); its exit status");
#endif
}
