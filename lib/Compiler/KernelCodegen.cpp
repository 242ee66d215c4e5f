//===- KernelCodegen.cpp - one object per kernel, cached by content -------===//
//
// See KernelCodegen.h. The split works on the LLVM IR translateToLLVMIR
// leaves before optimisation: the kernel table `<entry>_kernels` names each
// step's kernel function; a kernel's partition is that function and every
// definition it reaches (its outlined step function, the parallel loop
// bodies, private constants). Functions and constants two kernels share are
// copied into both (internal in each); a mutable global two kernels (or a
// kernel and the glue) share keeps the module whole.
//
//===----------------------------------------------------------------------===//
#include "mxc/Compiler/KernelCodegen.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Transforms/Utils/Cloning.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <thread>

using namespace mxc;

namespace {

constexpr llvm::StringLiteral kSymbolPrefix = "mxc_k_";

/// The globals `gv`'s body or initialiser names, through constant
/// expressions.
void directRefs(llvm::GlobalValue *gv,
                llvm::SmallVectorImpl<llvm::GlobalValue *> &out) {
  llvm::SmallPtrSet<const llvm::Constant *, 32> seen;
  auto visit = [&](auto &self, const llvm::Constant *c) -> void {
    if (!seen.insert(c).second)
      return;
    if (auto *ref = llvm::dyn_cast<llvm::GlobalValue>(c)) {
      out.push_back(const_cast<llvm::GlobalValue *>(ref));
      return;
    }
    for (const llvm::Use &op : c->operands())
      if (auto *oc = llvm::dyn_cast<llvm::Constant>(op.get()))
        self(self, oc);
  };
  if (auto *f = llvm::dyn_cast<llvm::Function>(gv)) {
    for (llvm::Instruction &inst : llvm::instructions(*f))
      for (const llvm::Use &op : inst.operands())
        if (auto *c = llvm::dyn_cast<llvm::Constant>(op.get()))
          visit(visit, c);
  } else if (auto *var = llvm::dyn_cast<llvm::GlobalVariable>(gv)) {
    if (var->hasInitializer())
      visit(visit, var->getInitializer());
  }
}

/// The definitions (functions with bodies, initialised globals) `root`
/// reaches. Declarations are not followed.
void collectReachable(llvm::GlobalValue *root,
                      llvm::SetVector<llvm::GlobalValue *> &out) {
  llvm::SmallVector<llvm::GlobalValue *> work{root};
  while (!work.empty()) {
    llvm::GlobalValue *gv = work.pop_back_val();
    if (gv->isDeclaration() || !out.insert(gv))
      continue;
    directRefs(gv, work);
  }
}

/// Erases declarations and local-linkage globals nothing uses, until none
/// is left to erase.
void eraseUnused(llvm::Module &m, llvm::GlobalValue *keep) {
  bool changed = true;
  while (changed) {
    changed = false;
    for (llvm::Function &f : llvm::make_early_inc_range(m.functions()))
      if (&f != keep && f.use_empty() &&
          (f.isDeclaration() || f.hasLocalLinkage())) {
        f.eraseFromParent();
        changed = true;
      }
    for (llvm::GlobalVariable &g : llvm::make_early_inc_range(m.globals()))
      if (&g != keep && (g.isDeclaration() || g.hasLocalLinkage())) {
        g.removeDeadConstantUsers();
        if (g.use_empty()) {
          g.eraseFromParent();
          changed = true;
        }
      }
  }
}

std::string sha256Hex(llvm::ArrayRef<llvm::StringRef> parts) {
  llvm::SHA256 sha;
  for (llvm::StringRef p : parts) {
    sha.update(p);
    sha.update("\n");
  }
  std::array<uint8_t, 32> digest = sha.final();
  return llvm::toHex(digest, /*LowerCase=*/true);
}

/// Target machines for one target, kept across the modules of one
/// emitKernelObjects (a machine is used by one thread at a time; ORC's
/// compilers reuse theirs the same way). Making one reads the target's
/// ~200 feature flags into a subtarget: a millisecond or two each.
class MachinePool {
public:
  explicit MachinePool(const ResolvedTarget &target) : target(target) {}
  llvm::Expected<std::unique_ptr<llvm::TargetMachine>> take(unsigned level) {
    {
      std::lock_guard<std::mutex> lock(mutex);
      auto &list = free[level];
      if (!list.empty()) {
        auto tm = std::move(list.back());
        list.pop_back();
        return std::move(tm);
      }
    }
    return createTargetMachine(target, level);
  }
  void give(unsigned level, std::unique_ptr<llvm::TargetMachine> tm) {
    std::lock_guard<std::mutex> lock(mutex);
    free[level].push_back(std::move(tm));
  }

private:
  const ResolvedTarget &target;
  std::mutex mutex;
  std::map<unsigned, std::vector<std::unique_ptr<llvm::TargetMachine>>> free;
};

/// Optimises `m` at `level` and writes its object code.
llvm::Expected<std::string> codegenModule(llvm::Module &m, MachinePool &pool,
                                          unsigned level) {
  auto tm = pool.take(level);
  if (!tm)
    return tm.takeError();
  optimizeLLVMModule(m, **tm, level);
  auto object = emitObjectFile(m, **tm);
  pool.give(level, std::move(*tm));
  return object;
}

/// codegenModule on a module's bitcode, in a context of its own (what the
/// worker threads run).
llvm::Expected<std::string> compileBitcode(llvm::StringRef bitcode,
                                           MachinePool &pool, unsigned level) {
  llvm::LLVMContext ctx;
  auto module =
      llvm::parseBitcodeFile(llvm::MemoryBufferRef(bitcode, "mxc-kernel"), ctx);
  if (!module)
    return module.takeError();
  return codegenModule(**module, pool, level);
}

} // namespace

std::string mxc::kernelSymbol(llvm::StringRef key) {
  return (kSymbolPrefix + key).str();
}

std::string mxc::kernelCacheDir(llvm::StringRef cacheDir) {
  if (cacheDir.empty())
    return {};
  llvm::SmallString<256> path(cacheDir);
  llvm::sys::path::append(path, "kernels");
  return std::string(path);
}

std::string KernelStats::describe() const {
  if (!unsplitReason.empty())
    return "compiled as one module (" + unsplitReason + ")";
  if (!steps)
    return {};
  char split[32];
  std::snprintf(split, sizeof split, "%.1f", splitMs);
  return std::to_string(steps) + " steps, " + std::to_string(distinct) +
         " distinct, " + std::to_string(compiled) + " compiled on " +
         std::to_string(threads) + " threads, " + std::to_string(cached) +
         " from the kernel cache, " + std::to_string(inGlue) +
         " small ones in the glue (split " + split + " ms)";
}

std::string mxc::kernelObjectPath(llvm::StringRef dir, llvm::StringRef key) {
  llvm::SmallString<256> path(dir);
  llvm::sys::path::append(path, key + ".o");
  return std::string(path);
}

size_t mxc::defaultKernelMinInstructions() {
  if (const char *env = std::getenv("MXC_KERNEL_MIN_INSTRUCTIONS"))
    return size_t(std::strtoull(env, nullptr, 10));
  return 0;
}

size_t mxc::defaultModuleMinInstructions() {
  if (const char *env = std::getenv("MXC_KERNEL_SPLIT_MIN"))
    return size_t(std::strtoull(env, nullptr, 10));
  return 0;
}

unsigned mxc::defaultCompileThreads() {
  if (const char *env = std::getenv("MXC_COMPILE_THREADS")) {
    int n = std::atoi(env);
    if (n > 0)
      return unsigned(n);
  }
  return std::max(1u, std::thread::hardware_concurrency());
}

llvm::Error mxc::writeFileAtomically(llvm::StringRef path,
                                     llvm::StringRef bytes) {
  llvm::SmallString<256> tmp;
  int fd;
  if (std::error_code ec =
          llvm::sys::fs::createUniqueFile(path + ".tmp-%%%%%%%%", fd, tmp))
    return llvm::createStringError(ec, "cannot create a file in the cache: " +
                                           ec.message());
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    os << bytes;
    os.close();
    if (os.has_error()) {
      std::string msg = os.error().message();
      os.clear_error();
      llvm::sys::fs::remove(tmp);
      return llvm::createStringError("cannot write " + tmp + ": " + msg);
    }
  }
  if (std::error_code ec = llvm::sys::fs::rename(tmp, path)) {
    llvm::sys::fs::remove(tmp);
    return llvm::createStringError(ec, "cannot rename into the cache: " +
                                           ec.message());
  }
  return llvm::Error::success();
}

llvm::Expected<std::vector<std::string>>
mxc::referencedKernelKeys(llvm::StringRef object) {
  auto file = llvm::object::ObjectFile::createObjectFile(
      llvm::MemoryBufferRef(object, "mxc-glue"));
  if (!file)
    return file.takeError();
  std::vector<std::string> keys;
  std::set<std::string> seen;
  for (const llvm::object::SymbolRef &sym : (*file)->symbols()) {
    auto flags = sym.getFlags();
    if (!flags)
      return flags.takeError();
    if (!(*flags & llvm::object::SymbolRef::SF_Undefined))
      continue;
    auto name = sym.getName();
    if (!name)
      return name.takeError();
    if (name->starts_with(kSymbolPrefix)) {
      std::string key = name->drop_front(kSymbolPrefix.size()).str();
      if (seen.insert(key).second)
        keys.push_back(key);
    }
  }
  return keys;
}

llvm::Expected<KernelObjects>
mxc::emitKernelObjects(std::unique_ptr<llvm::Module> module,
                       const ResolvedTarget &target,
                       const KernelCodegenOptions &opts) {
  using Clock = std::chrono::steady_clock;
  auto start = Clock::now();
  KernelObjects result;
  llvm::Module &m = *module;
  MachinePool machines(target);
  auto whole = [&](std::string reason) -> llvm::Expected<KernelObjects> {
    result.stats.unsplitReason = std::move(reason);
    result.stats.splitMs = 0;
    auto object = codegenModule(m, machines, opts.optLevel);
    if (!object)
      return object.takeError();
    result.glue = std::move(*object);
    result.stats.threads = 1;
    return std::move(result);
  };

  if (const char *env = std::getenv("MXC_KERNEL_SPLIT");
      env && std::string(env) == "0")
    return whole("MXC_KERNEL_SPLIT=0");

  // A module under opts.minModuleInstructions is compiled whole (a knob: by
  // default every module is split; no graph measured so far compiles
  // faster whole).
  size_t total = 0;
  for (llvm::Function &f : m.functions())
    total += f.getInstructionCount();
  if (total < opts.minModuleInstructions)
    return whole("a small module: " + std::to_string(total) +
                 " LLVM IR instructions, under MXC_KERNEL_SPLIT_MIN=" +
                 std::to_string(opts.minModuleInstructions));

  // The kernels, from the table's rows {name, kernel}.
  std::string tableName = opts.entrySymbol + "_kernels";
  llvm::GlobalVariable *table = m.getGlobalVariable(tableName);
  if (!table || !table->hasInitializer())
    return llvm::createStringError("internal error: no " + tableName +
                                   " in the LLVM module");
  std::vector<llvm::Function *> kernels;
  if (auto *rows = llvm::dyn_cast<llvm::ConstantArray>(table->getInitializer()))
    for (const llvm::Use &row : rows->operands()) {
      auto *st = llvm::dyn_cast<llvm::ConstantStruct>(row.get());
      auto *fn = st ? llvm::dyn_cast<llvm::Function>(st->getOperand(1))
                    : nullptr;
      if (!fn || fn->isDeclaration())
        return llvm::createStringError("internal error: a row of " + tableName +
                                       " is not a defined kernel");
      kernels.push_back(fn);
    }
  result.stats.steps = unsigned(kernels.size());
  if (kernels.empty())
    return whole("no kernels");

  // Each kernel's definitions. A kernel smaller than opts.minInstructions
  // stays in the glue (a knob, off by default: unoptimised instruction
  // counts said little about what a kernel costs to compile).
  std::vector<llvm::SetVector<llvm::GlobalValue *>> allParts(kernels.size());
  llvm::SmallPtrSet<llvm::GlobalValue *, 16> kernelSet(kernels.begin(),
                                                       kernels.end());
  std::vector<llvm::Function *> splitKernels;
  std::vector<llvm::SetVector<llvm::GlobalValue *>> parts;
  for (auto [i, fn] : llvm::enumerate(kernels)) {
    collectReachable(fn, allParts[i]);
    size_t size = 0;
    for (llvm::GlobalValue *gv : allParts[i]) {
      if (gv != fn && kernelSet.count(gv))
        return whole("kernel " + fn->getName().str() + " calls another kernel");
      if (auto *f = llvm::dyn_cast<llvm::Function>(gv))
        size += f->getInstructionCount();
    }
    if (size < opts.minInstructions) {
      ++result.stats.inGlue;
      continue;
    }
    if (llvm::is_contained(splitKernels, fn))
      continue; // a table row repeated
    splitKernels.push_back(fn);
    parts.push_back(std::move(allParts[i]));
  }
  // Who needs what: a definition two split kernels reach is copied into
  // both; one the glue reaches too (through a kernel kept there) stays in
  // the glue as well. Shared mutable state keeps the module whole.
  llvm::DenseMap<llvm::GlobalValue *, unsigned> owners;
  llvm::SmallPtrSet<llvm::GlobalValue *, 16> splitSet(splitKernels.begin(),
                                                      splitKernels.end());
  for (const auto &part : parts)
    for (llvm::GlobalValue *gv : part)
      ++owners[gv];
  auto isMutable = [](llvm::GlobalValue *gv) {
    auto *var = llvm::dyn_cast<llvm::GlobalVariable>(gv);
    return var && !var->isConstant();
  };
  for (auto &[gv, n] : owners)
    if (n > 1 && isMutable(gv))
      return whole("the mutable global " + gv->getName().str() +
                   " is shared by two kernels");
  llvm::SmallPtrSet<llvm::GlobalValue *, 32> keptInGlue;
  {
    llvm::SmallVector<llvm::GlobalValue *> work;
    for (llvm::GlobalValue &gv : m.global_values())
      if (!gv.isDeclaration() && !owners.count(&gv))
        work.push_back(&gv);
    llvm::SmallPtrSet<llvm::GlobalValue *, 32> seen;
    while (!work.empty()) {
      llvm::GlobalValue *gv = work.pop_back_val();
      if (gv->isDeclaration() || splitSet.count(gv) || !seen.insert(gv).second)
        continue;
      if (owners.count(gv)) {
        if (isMutable(gv))
          return whole("the mutable global " + gv->getName().str() +
                       " is shared by a kernel and the glue");
        keptInGlue.insert(gv);
      }
      directRefs(gv, work);
    }
  }

  // Each kernel's module: its definitions cloned, every other global a
  // declaration (erased when unused), internal names made canonical, the
  // declarations in name order; its key is the hash of that text.
  std::string salt = opts.keySalt + "\n" + target.triple + "\n" + target.cpu +
                     "\n" + target.features + "\nO" +
                     std::to_string(opts.optLevel);
  std::vector<std::string> keys(splitKernels.size());
  std::map<std::string, std::string> bitcodeOf; // distinct keys to compile
  std::vector<std::string> order;               // distinct keys, first use
  for (auto [i, fn] : llvm::enumerate(splitKernels)) {
    llvm::ValueToValueMapTy vmap;
    const auto &part = parts[i];
    std::unique_ptr<llvm::Module> k =
        llvm::CloneModule(m, vmap, [&](const llvm::GlobalValue *gv) {
          return part.count(const_cast<llvm::GlobalValue *>(gv)) > 0;
        });
    auto *kfn = llvm::cast<llvm::Function>(vmap[fn]);
    eraseUnused(*k, kfn);
    k->setModuleIdentifier("mxc-kernel");
    k->setSourceFileName("mxc-kernel");
    kfn->setName("mxc_kernel");
    unsigned nf = 0, ng = 0;
    std::vector<llvm::Function *> decls;
    for (llvm::Function &f : k->functions()) {
      if (&f == kfn)
        continue;
      if (f.isDeclaration()) {
        decls.push_back(&f);
        continue;
      }
      f.setLinkage(llvm::GlobalValue::InternalLinkage);
      f.setName("k.f" + std::to_string(nf++));
    }
    for (llvm::GlobalVariable &g : k->globals())
      if (!g.isDeclaration()) {
        if (!g.hasLocalLinkage())
          g.setLinkage(llvm::GlobalValue::InternalLinkage);
        g.setName("k.g" + std::to_string(ng++));
      }
    std::sort(decls.begin(), decls.end(), [](auto *a, auto *b) {
      return a->getName() < b->getName();
    });
    for (llvm::Function *f : decls) {
      f->removeFromParent();
      k->getFunctionList().push_back(f);
    }
    std::string text;
    {
      llvm::raw_string_ostream os(text);
      k->print(os, nullptr);
    }
    // A kernel with state of its own (a mutable global) is not shared with
    // another step, even one with the same code.
    bool stateful = llvm::any_of(part, [](llvm::GlobalValue *gv) {
      auto *var = llvm::dyn_cast<llvm::GlobalVariable>(gv);
      return var && !var->isConstant();
    });
    std::string key =
        sha256Hex({"mxc-kernel-object v1", salt, text,
                   stateful ? fn->getName() : llvm::StringRef()})
            .substr(0, 32);
    keys[i] = key;
    if (bitcodeOf.count(key))
      continue;
    order.push_back(key);
    kfn->setName(kernelSymbol(key));
    {
      std::string verifyErr;
      llvm::raw_string_ostream vos(verifyErr);
      if (llvm::verifyModule(*k, &vos))
        return llvm::createStringError("internal error: the kernel of " +
                                       fn->getName().str() +
                                       " is invalid LLVM IR: " + verifyErr);
    }
    std::string bitcode;
    {
      llvm::raw_string_ostream os(bitcode);
      llvm::WriteBitcodeToFile(*k, os);
    }
    bitcodeOf[key] = std::move(bitcode);
  }
  result.stats.distinct = unsigned(order.size());

  // The glue: the kernels' bodies dropped, the table pointing at the
  // content-named symbols.
  for (auto [i, fn] : llvm::enumerate(splitKernels)) {
    std::string sym = kernelSymbol(keys[i]);
    llvm::Function *decl = m.getFunction(sym);
    if (!decl)
      decl = llvm::Function::Create(fn->getFunctionType(),
                                    llvm::GlobalValue::ExternalLinkage, sym, m);
    fn->replaceAllUsesWith(decl);
  }
  // The split kernels' definitions become declarations (the glue does not
  // use them, but for what it keeps), which eraseUnused then removes.
  for (auto &[gv, n] : owners) {
    if (keptInGlue.count(gv))
      continue;
    if (auto *f = llvm::dyn_cast<llvm::Function>(gv)) {
      f->deleteBody();
    } else if (auto *var = llvm::dyn_cast<llvm::GlobalVariable>(gv)) {
      var->setInitializer(nullptr);
      if (var->hasLocalLinkage())
        var->setLinkage(llvm::GlobalValue::ExternalLinkage);
    }
  }
  for (llvm::Function *fn : splitKernels)
    fn->eraseFromParent();
  owners.clear();
  eraseUnused(m, nullptr);
  {
    std::string verifyErr;
    llvm::raw_string_ostream vos(verifyErr);
    if (llvm::verifyModule(m, &vos))
      return llvm::createStringError(
          "internal error: the glue module is invalid LLVM IR: " + verifyErr);
  }

  // The cache, then the rest compiled on the pool; the glue on this thread.
  std::vector<std::string> missing;
  std::map<std::string, std::string> objectOf;
  for (const std::string &key : order) {
    if (!opts.cacheDir.empty()) {
      if (auto buf = llvm::MemoryBuffer::getFile(
              kernelObjectPath(opts.cacheDir, key), /*IsText=*/false,
              /*RequiresNullTerminator=*/false)) {
        objectOf[key] = (*buf)->getBuffer().str();
        ++result.stats.cached;
        continue;
      }
    }
    missing.push_back(key);
  }
  result.stats.splitMs =
      std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  // Largest first (by bitcode size), so that a big kernel started last does
  // not leave the other threads idle at the end.
  std::sort(missing.begin(), missing.end(),
            [&](const std::string &a, const std::string &b) {
              size_t sa = bitcodeOf.at(a).size(), sb = bitcodeOf.at(b).size();
              return sa != sb ? sa > sb : a < b;
            });
  unsigned threads = opts.threads ? opts.threads : defaultCompileThreads();
  threads = std::max(1u, std::min<unsigned>(threads, missing.size()));
  result.stats.threads = threads;
  std::mutex mutex;
  std::string firstError;
  {
    std::optional<llvm::DefaultThreadPool> pool;
    if (threads > 1)
      pool.emplace(llvm::hardware_concurrency(threads));
    auto work = [&](const std::string &key) {
      // at(): a const lookup, which threads may do side by side.
      auto object = compileBitcode(bitcodeOf.at(key), machines, opts.optLevel);
      std::lock_guard<std::mutex> lock(mutex);
      if (!object) {
        std::string msg = llvm::toString(object.takeError());
        if (firstError.empty())
          firstError = msg;
        return;
      }
      objectOf[key] = std::move(*object);
    };
    for (const std::string &key : missing) {
      if (pool)
        pool->async([&work, &key] { work(key); });
      else
        work(key);
    }
    // Without functions (the JIT's glue is data only) -O0 does as well.
    bool code = llvm::any_of(
        m.functions(), [](llvm::Function &f) { return !f.isDeclaration(); });
    auto glue = codegenModule(m, machines, code ? opts.optLevel : 0);
    if (pool)
      pool->wait();
    if (!glue)
      return glue.takeError();
    result.glue = std::move(*glue);
  }
  if (!firstError.empty())
    return llvm::createStringError("code generation of a kernel failed: " +
                                   firstError);
  result.stats.compiled = unsigned(missing.size());
  if (!opts.cacheDir.empty() && !missing.empty()) {
    std::error_code ec = llvm::sys::fs::create_directories(opts.cacheDir);
    for (const std::string &key : missing)
      if (!ec)
        (void)llvm::errorToBool(writeFileAtomically(
            kernelObjectPath(opts.cacheDir, key), objectOf[key]));
  }
  for (const std::string &key : order)
    result.kernels.emplace_back(key, std::move(objectOf[key]));
  return std::move(result);
}
