//===- AOT.cpp - ahead-of-time compiled models ----------------------------===//
//
// The descriptor emitted here is mxc_model_desc of the public header
// runtime/include/mxc/runtime/compiled_module.h, which the model runtime
// (runtime/src/model/model.cc) reads; the static_asserts below tie the
// emitted layout to it.
//
//===----------------------------------------------------------------------===//
#include "mxc/Compiler/AOT.h"
#include "mxc/Compiler/Npy.h"
#include "mxc/Compiler/Pipeline.h"
#include "mxc/runtime/compiled_module.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DerivedTypes.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Module.h"
#include "llvm/Object/ELFObjectFile.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/TargetParser/Triple.h"

#include <cstring>

using namespace mxc;
using namespace mxc::aot;
using llvm::StringRef;

namespace {

constexpr int64_t kDescMagic = MXC_MODEL_DESC_MAGIC;
constexpr int64_t kDescVersion = MXC_MODEL_DESC_VERSION;
// Every field one 8-byte word, as emitted below.
static_assert(sizeof(mxc_model_desc) == 15 * 8 &&
                  offsetof(mxc_model_desc, plan) == 8 * 8 &&
                  offsetof(mxc_model_desc, weights_hash) == 14 * 8,
              "mxc_model_desc changed: change addModelDescriptor with it");
static_assert(sizeof(mxc_model_tensor_desc) == 7 * 8,
              "mxc_model_tensor_desc changed: change addModelDescriptor");

int64_t kindCode(StringRef kind) {
  // The seed (0) is a weight. (A training step's head gradients are ones
  // inside the graph: CompileCommand.cpp, headGradientsAsOnes.)
  if (kind == "param" || kind == "rng_seed")
    return 1;
  if (kind == "aux")
    return 2;
  return 0;
}

llvm::Error error(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

} // namespace

uint64_t aot::weightsHash(const uint8_t *data, size_t size) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (size_t i = 0; i + 8 <= size; i += 8) {
    uint64_t w = 0;
    for (int b = 7; b >= 0; --b)
      w = (w << 8) | data[i + size_t(b)];
    h = (h ^ w) * 0x100000001b3ull;
  }
  return h;
}

llvm::Expected<WeightsBlob>
aot::buildWeightsBlob(const EntrySignature &sig,
                      llvm::ArrayRef<graph::NDArrayData> params) {
  llvm::StringMap<const graph::NDArrayData *> byName;
  for (const graph::NDArrayData &p : params)
    byName[p.bareName()] = &p;
  WeightsBlob blob;
  // A zero-filled, 64-byte aligned region of `size` bytes for the next input.
  auto place = [&](size_t size) {
    size_t offset = (blob.bytes.size() + 63) / 64 * 64;
    blob.offsets.push_back(int64_t(offset));
    blob.bytes.resize(offset + size, 0);
    return blob.bytes.data() + offset;
  };
  for (const TensorSpec &spec : sig.inputs) {
    if (spec.kind == "data") {
      blob.offsets.push_back(-1);
      continue;
    }
    if (spec.kind == "rng_seed") {
      // The graph's samplers (mx.sym.random.*): an AOT model draws with seed
      // 0 on every run, as `mxc run` without --seed.
      place(spec.byteSize());
      continue;
    }
    if (spec.kind != "param" && spec.kind != "aux")
      return error("input '" + spec.name + "' (" + spec.kind +
                   "): an ahead-of-time model cannot take it");
    auto it = byName.find(spec.name);
    std::string want = formatShape(spec.shape) + " " +
                       graph::dtypeName(spec.dtype).str();
    if (it == byName.end())
      return error("node '" + spec.name + "': no value in --params for this " +
                   (spec.kind == "aux" ? "auxiliary state" : "parameter") +
                   " (" + want +
                   "); mxc compile needs every parameter and auxiliary state");
    const graph::NDArrayData &p = *it->second;
    if (p.dtype != spec.dtype || p.shape != spec.shape ||
        p.bytes.size() != spec.byteSize())
      return error("node '" + spec.name + "': the .params array '" + p.name +
                   "' is " + formatShape(p.shape) + " " +
                   graph::dtypeName(p.dtype).str() + ", the graph needs " +
                   want);
    std::memcpy(place(p.bytes.size()), p.bytes.data(), p.bytes.size());
  }
  blob.bytes.resize((blob.bytes.size() + 63) / 64 * 64, 0);
  blob.hash = weightsHash(blob.bytes.data(), blob.bytes.size());
  return blob;
}

llvm::Error aot::writeWeightsFile(StringRef path, const WeightsBlob &blob) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec, llvm::sys::fs::OF_None);
  if (ec)
    return error(path + ": " + ec.message());
  char header[64] = {};
  std::memcpy(header, "MXCWGT01", 8);
  uint64_t size = blob.bytes.size(), hash = blob.hash;
  std::memcpy(header + 8, &size, 8);
  std::memcpy(header + 16, &hash, 8);
  os.write(header, 64);
  os.write(reinterpret_cast<const char *>(blob.bytes.data()),
           blob.bytes.size());
  os.close();
  if (os.has_error())
    return error(path + ": " + os.error().message());
  return llvm::Error::success();
}

llvm::Error aot::addModelDescriptor(llvm::Module &m, const EntrySignature &sig,
                                    const WeightsBlob &weights,
                                    const DescriptorOptions &opts) {
  llvm::LLVMContext &ctx = m.getContext();
  auto *i64 = llvm::Type::getInt64Ty(ctx);
  auto *ptr = llvm::PointerType::getUnqual(ctx);
  auto *nullPtr = llvm::ConstantPointerNull::get(ptr);
  auto cInt = [&](int64_t v) { return llvm::ConstantInt::get(i64, v, true); };

  // The plan and its kernels (translateToLLVMIR adds them).
  llvm::GlobalVariable *plan =
      m.getNamedGlobal(runtime::planSymbol(opts.entrySymbol));
  llvm::GlobalVariable *kernels =
      m.getNamedGlobal(runtime::kernelTableSymbol(opts.entrySymbol));
  if (!plan || !kernels)
    return error("internal error: no " + runtime::planSymbol(opts.entrySymbol) +
                 " / " + runtime::kernelTableSymbol(opts.entrySymbol) +
                 " in the LLVM module");
  auto *tableTy = llvm::dyn_cast<llvm::ArrayType>(kernels->getValueType());
  if (!tableTy)
    return error("internal error: the kernel table is not an array");
  auto string = [&](StringRef s, StringRef name) -> llvm::Constant * {
    auto *init = llvm::ConstantDataArray::getString(ctx, s, true);
    auto *g = new llvm::GlobalVariable(m, init->getType(), true,
                                       llvm::GlobalValue::PrivateLinkage,
                                       init, name);
    g->setUnnamedAddr(llvm::GlobalValue::UnnamedAddr::Global);
    return g;
  };
  // {name, kind, dtype, ndim, shape, nbytes, weight_offset}
  auto *tensorTy = llvm::StructType::get(ctx, {ptr, i64, i64, i64, ptr, i64,
                                               i64});
  auto tensors = [&](llvm::ArrayRef<TensorSpec> specs, bool outputs,
                     StringRef prefix) -> llvm::Constant * {
    std::vector<llvm::Constant *> elems;
    for (size_t i = 0; i < specs.size(); ++i) {
      const TensorSpec &s = specs[i];
      std::vector<uint64_t> dims(s.shape.begin(), s.shape.end());
      llvm::Constant *shape = nullPtr;
      if (!dims.empty()) {
        auto *init = llvm::ConstantDataArray::get(ctx, dims);
        shape = new llvm::GlobalVariable(
            m, init->getType(), true, llvm::GlobalValue::PrivateLinkage, init,
            "mxc_model." + prefix + ".shape." + llvm::Twine(i));
      }
      int64_t offset = outputs ? -1 : weights.offsets[i];
      elems.push_back(llvm::ConstantStruct::get(
          tensorTy,
          {string(s.name, "mxc_model.name"),
           cInt(outputs ? 3 : kindCode(s.kind)), cInt(int64_t(s.dtype)),
           cInt(int64_t(s.shape.size())), shape, cInt(int64_t(s.byteSize())),
           cInt(offset)}));
    }
    auto *arrTy = llvm::ArrayType::get(tensorTy, elems.size());
    auto *g = new llvm::GlobalVariable(
        m, arrTy, true, llvm::GlobalValue::PrivateLinkage,
        llvm::ConstantArray::get(arrTy, elems), "mxc_model." + prefix);
    return g;
  };

  llvm::Constant *weightsPtr = nullPtr, *weightsFile = nullPtr;
  if (opts.embedWeights && !weights.bytes.empty()) {
    auto *init = llvm::ConstantDataArray::getRaw(
        StringRef(reinterpret_cast<const char *>(weights.bytes.data()),
                  weights.bytes.size()),
        weights.bytes.size(), llvm::Type::getInt8Ty(ctx));
    auto *g = new llvm::GlobalVariable(m, init->getType(), true,
                                       llvm::GlobalValue::PrivateLinkage, init,
                                       "mxc_model.weights");
    g->setAlignment(llvm::Align(64));
    g->setSection(kWeightsSection);
    weightsPtr = g;
  } else if (!opts.embedWeights) {
    weightsFile = string(opts.weightsFile, "mxc_model.weights_file");
  }

  // mxc_model_desc (compiled_module.h): {magic, version, name, target,
  // num_args, args, num_outputs, outputs, plan, kernels, num_kernels,
  // weights, weights_size, weights_file, weights_hash}
  std::vector<llvm::Constant *> fields = {
      cInt(kDescMagic),
      cInt(kDescVersion),
      string(opts.modelName, "mxc_model.model_name"),
      string(opts.triple, "mxc_model.target"),
      cInt(int64_t(sig.inputs.size())),
      tensors(sig.inputs, false, "args"),
      cInt(int64_t(sig.outputs.size())),
      tensors(sig.outputs, true, "outputs"),
      plan,
      kernels,
      cInt(int64_t(tableTy->getNumElements())),
      weightsPtr,
      cInt(int64_t(weights.bytes.size())),
      weightsFile,
      cInt(int64_t(weights.hash))};
  std::vector<llvm::Type *> types;
  for (llvm::Constant *c : fields)
    types.push_back(c->getType());
  auto *descTy = llvm::StructType::get(ctx, types);
  auto *desc = new llvm::GlobalVariable(
      m, descTy, true, llvm::GlobalValue::ExternalLinkage,
      llvm::ConstantStruct::get(descTy, fields), "mxc_model_descriptor");
  desc->setAlignment(llvm::Align(8));
  desc->setVisibility(llvm::GlobalValue::DefaultVisibility);
  return llvm::Error::success();
}

std::string aot::modelHeader(const EntrySignature &sig, StringRef modelName) {
  std::string prefix = "MXC_MODEL";
  std::string guard;
  for (char c : modelName)
    guard += llvm::isAlnum(c) ? llvm::toUpper(c) : '_';
  std::string s;
  llvm::raw_string_ostream os(s);
  os << "/* Generated by mxc compile: model '" << modelName
     << "'. Link the object with libmxc_model_rt.a and OpenBLAS; the API is "
        "mxc/mxc_model.h (docs/aot.md). */\n";
  os << "#ifndef MXC_MODEL_" << guard << "_H\n#define MXC_MODEL_" << guard
     << "_H\n#include \"mxc/mxc_model.h\"\n\n";
  auto list = [&](llvm::ArrayRef<TensorSpec> specs, StringRef what) {
    size_t n = 0;
    for (const TensorSpec &t : specs) {
      if (what == "INPUT" && t.kind != "data")
        continue;
      std::string p = prefix + "_" + what.str() + "_" + std::to_string(n++);
      os << "#define " << p << "_NAME \"" << t.name << "\"\n";
      os << "#define " << p << "_DTYPE " << int(t.dtype) << " /* "
         << graph::dtypeName(t.dtype) << " */\n";
      os << "#define " << p << "_NDIM " << t.shape.size() << "\n";
      os << "#define " << p << "_SHAPE {";
      for (size_t i = 0; i < t.shape.size(); ++i)
        os << (i ? ", " : "") << t.shape[i];
      os << "}\n#define " << p << "_NBYTES " << t.byteSize() << "\n";
    }
    os << "#define " << prefix << "_NUM_" << what << "S " << n << "\n\n";
  };
  list(sig.inputs, "INPUT");
  list(sig.outputs, "OUTPUT");
  os << "#endif\n";
  return s;
}

namespace {

std::string runtimeSubdir(StringRef triple) {
  llvm::Triple t(triple);
  return (llvm::Triple::getArchTypeName(t.getArch()) + "-linux-gnu").str();
}

bool hasRuntime(StringRef dir) {
  llvm::SmallString<256> p(dir);
  llvm::sys::path::append(p, "libmxc_model_rt.a");
  return llvm::sys::fs::exists(p);
}

int anchor;

} // namespace

llvm::Expected<std::string> aot::findRuntimeDir(StringRef triple,
                                                StringRef override) {
  std::string sub = runtimeSubdir(triple);
  std::vector<std::string> tried;
  auto consider = [&](const llvm::Twine &dir) {
    std::string d = dir.str();
    tried.push_back(d);
    return hasRuntime(d);
  };
  if (!override.empty()) {
    if (consider(override))
      return override.str();
    if (consider(override + "/lib/mxc/" + sub))
      return tried.back();
    if (consider(override + "/" + sub))
      return tried.back();
    return error("--runtime-dir " + override + ": no libmxc_model_rt.a for " +
                 sub + " there");
  }
  std::string exe = llvm::sys::fs::getMainExecutable(
      "mxc", reinterpret_cast<void *>(&anchor));
  if (!exe.empty()) {
    StringRef binDir = llvm::sys::path::parent_path(exe);
    if (consider(llvm::sys::path::parent_path(binDir) + "/lib/mxc/" + sub))
      return tried.back();
  }
#ifdef MXC_SOURCE_DIR
  llvm::Triple t(triple);
  if (consider(llvm::Twine(MXC_SOURCE_DIR) + "/build-runtime-" +
               llvm::Triple::getArchTypeName(t.getArch()) + "/lib/mxc/" + sub))
    return tried.back();
#endif
  std::string where;
  for (const std::string &d : tried)
    where += (where.empty() ? "" : ", ") + d;
  return error("no AOT runtime for " + sub + " (libmxc_model_rt.a not in " +
               where + "; for aarch64 run scripts/build-runtime-aarch64.sh)");
}

llvm::Error aot::linkModel(llvm::ArrayRef<std::string> objectPaths,
                           StringRef outputPath, const LinkOptions &opts) {
  std::string clang;
  if (const char *env = std::getenv("MXC_CLANG"); env && *env)
    clang = env;
  if (clang.empty()) {
#ifdef MXC_LLVM_TOOLS_DIR
    if (auto p = llvm::sys::findProgramByName("clang", {MXC_LLVM_TOOLS_DIR}))
      clang = *p;
#endif
  }
  if (clang.empty()) {
    auto p = llvm::sys::findProgramByName("clang-22");
    if (!p)
      return error("cannot find clang (LLVM's bin directory or clang-22 on "
                   "PATH) to link with; set MXC_CLANG");
    clang = *p;
  }
  llvm::Triple t(opts.triple);
  std::string target = runtimeSubdir(opts.triple);
  llvm::SmallString<128> scriptPath;
  std::vector<std::string> args = {clang, "--target=" + target,
                                   "-fuse-ld=lld", "-o", outputPath.str()};
  args.insert(args.end(), objectPaths.begin(), objectPaths.end());
  if (opts.shared) {
    // Export the model API only (the kernels stay internal).
    int fd;
    if (auto ec = llvm::sys::fs::createTemporaryFile("mxc-exports", "map", fd,
                                                     scriptPath))
      return error("temporary file: " + ec.message());
    llvm::raw_fd_ostream os(fd, true);
    os << "{ global: mxc_model_api_version; mxc_model_create; mxc_model_create_on; "
          "mxc_model_destroy; mxc_model_last_error; mxc_model_name; "
          "mxc_model_target; mxc_model_num_inputs; mxc_model_num_outputs; "
          "mxc_model_input_info; mxc_model_output_info; mxc_model_run;\n"
          "  local: *; };\n";
    os.close();
    args.push_back("-shared");
    args.push_back("-Wl,--version-script=" + scriptPath.str().str());
  } else {
    args.push_back(opts.runtimeDir + "/libmxc_model_main.a");
  }
  // The whole model API goes into a shared library (nothing in it refers
  // to the API; an executable's main does).
  if (opts.shared)
    args.push_back("-Wl,--whole-archive");
  args.push_back(opts.runtimeDir + "/libmxc_model_rt.a");
  if (opts.shared)
    args.push_back("-Wl,--no-whole-archive");
  args.push_back("-Wl,--as-needed");
  // The runtime's own link dependencies (runtime/CMakeLists.txt writes them:
  // "-lopenblas", or nothing with the portable GEMM); OpenBLAS if absent.
  if (auto deps = llvm::MemoryBuffer::getFile(opts.runtimeDir +
                                              "/link-libs.txt")) {
    llvm::SmallVector<StringRef> words;
    StringRef((*deps)->getBuffer()).split(words, ' ', -1, false);
    for (StringRef w : words)
      if (!w.trim().empty())
        args.push_back(w.trim().str());
  } else {
    args.push_back("-lopenblas");
  }
  args.push_back("-lstdc++");
  args.push_back("-lm");
  args.push_back("-Wl,-O1");
  args.push_back("-s"); // no symbol table: the size report counts what runs
  if (opts.verbose) {
    llvm::errs() << "mxc: link:";
    for (const std::string &a : args)
      llvm::errs() << " " << a;
    llvm::errs() << "\n";
  }
  llvm::SmallString<128> errPath;
  if (auto ec = llvm::sys::fs::createTemporaryFile("mxc-link", "err", errPath))
    return error("temporary file: " + ec.message());
  std::vector<StringRef> argRefs(args.begin(), args.end());
  std::optional<StringRef> redirects[] = {std::nullopt, errPath.str(),
                                          errPath.str()};
  std::string execError;
  int rc = llvm::sys::ExecuteAndWait(clang, argRefs, std::nullopt, redirects,
                                     0, 0, &execError);
  std::string out;
  if (auto buf = llvm::MemoryBuffer::getFile(errPath))
    out = (*buf)->getBuffer().trim().str();
  llvm::sys::fs::remove(errPath);
  if (!scriptPath.empty())
    llvm::sys::fs::remove(scriptPath);
  if (rc != 0) {
    // One line: the first error the linker printed.
    std::string first = execError;
    for (StringRef line : llvm::split(StringRef(out), '\n'))
      if (line.contains("error")) {
        first = line.trim().str();
        break;
      }
    if (first.empty())
      first = StringRef(out).split('\n').first.str();
    return error("linking " + outputPath + " for " + target + " failed: " +
                 first);
  }
  return llvm::Error::success();
}

llvm::Expected<BinarySizes> aot::measureBinary(StringRef path) {
  auto buf = llvm::MemoryBuffer::getFile(path);
  if (!buf)
    return error(path + ": " + buf.getError().message());
  auto obj = llvm::object::ObjectFile::createObjectFile(**buf);
  if (!obj)
    return obj.takeError();
  BinarySizes sizes;
  sizes.fileBytes = (*buf)->getBufferSize();
  for (const llvm::object::SectionRef &sec : (*obj)->sections()) {
    auto name = sec.getName();
    uint64_t size = sec.getSize();
    if (name && *name == kWeightsSection) {
      sizes.weightsBytes += size;
      continue;
    }
    auto elf = llvm::object::ELFSectionRef(sec);
    if (!(elf.getFlags() & llvm::ELF::SHF_ALLOC) || sec.isBSS())
      continue;
    if (sec.isText())
      sizes.codeBytes += size;
    else
      sizes.dataBytes += size;
  }
  return sizes;
}
