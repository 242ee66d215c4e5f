//===- KernelCodegenTest.cpp - one object per kernel, cached by content ---===//
//
// emitKernelObjects on hand-written LLVM IR shaped as translateToLLVMIR
// leaves it (a kernel table `mxc_main_kernels` of {name, kernel} rows):
// shared helpers and constants copied into each kernel, identical kernels
// under other names compiled once, the kernel cache, the glue naming its
// kernels, and the modules that stay whole.
//
//===----------------------------------------------------------------------===//
#include "mxc/Compiler/KernelCodegen.h"
#include "mxc/Compiler/JIT.h"

#include "llvm/AsmParser/Parser.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/SourceMgr.h"

#include <gtest/gtest.h>

#include <set>

using namespace mxc;

namespace {

/// Two kernels: step0 and step2 are the same code under other names (and
/// read the same private constant through the same internal helper); step1
/// differs. `extra` is appended (more globals or functions).
std::string kernelsIR(const std::string &extra = "",
                      const std::string &step1Body =
                          "  %v = load float, ptr @tbl\n"
                          "  %w = fadd float %v, 1.0\n"
                          "  store float %w, ptr %p\n") {
  auto kernel = [](const std::string &name, const std::string &body) {
    return "define void @" + name + "(ptr %b) {\n"
           "  %p = load ptr, ptr %b\n" + body + "  ret void\n}\n";
  };
  std::string twice = "  %v = load float, ptr @tbl\n"
                      "  %w = call float @helper(float %v)\n"
                      "  store float %w, ptr %p\n";
  return "@tbl = private constant [2 x float] [float 1.0, float 2.0]\n"
         "@n0 = private constant [3 x i8] c\"k0\\00\"\n"
         "@n1 = private constant [3 x i8] c\"k1\\00\"\n"
         "@n2 = private constant [3 x i8] c\"k2\\00\"\n"
         "@mxc_main_kernels = constant [3 x {ptr, ptr}] [\n"
         "  {ptr, ptr} {ptr @n0, ptr @mxc_main_step0_kernel},\n"
         "  {ptr, ptr} {ptr @n1, ptr @mxc_main_step1_kernel},\n"
         "  {ptr, ptr} {ptr @n2, ptr @mxc_main_step2_kernel}]\n"
         "@mxc_main_num_kernels = constant i64 3\n"
         "@mxc_main_arena_size = constant i64 0\n"
         "define internal float @helper(float %x) {\n"
         "  %y = fmul float %x, 2.0\n  ret float %y\n}\n" +
         kernel("mxc_main_step0_kernel", twice) +
         kernel("mxc_main_step1_kernel", step1Body) +
         kernel("mxc_main_step2_kernel", twice) + extra;
}

std::unique_ptr<llvm::Module> parse(llvm::LLVMContext &ctx,
                                    const std::string &ir,
                                    const ResolvedTarget &target) {
  llvm::SMDiagnostic diag;
  auto m = llvm::parseAssemblyString(ir, diag, ctx);
  if (!m) {
    std::string msg;
    llvm::raw_string_ostream os(msg);
    diag.print("test", os);
    ADD_FAILURE() << msg;
    return nullptr;
  }
  m->setTargetTriple(llvm::Triple(target.triple));
  return m;
}

/// The defined symbols of an object file.
std::set<std::string> definedSymbols(const std::string &object) {
  std::set<std::string> names;
  auto file = llvm::object::ObjectFile::createObjectFile(
      llvm::MemoryBufferRef(object, "test"));
  if (!file) {
    ADD_FAILURE() << llvm::toString(file.takeError());
    return names;
  }
  for (const auto &sym : (*file)->symbols()) {
    auto flags = sym.getFlags();
    auto name = sym.getName();
    if (flags && name && !(*flags & llvm::object::SymbolRef::SF_Undefined))
      names.insert(name->str());
    else if (!flags)
      llvm::consumeError(flags.takeError());
    if (!name)
      llvm::consumeError(name.takeError());
  }
  return names;
}

std::string tempDir() {
  llvm::SmallString<128> dir;
  EXPECT_FALSE(llvm::sys::fs::createUniqueDirectory("mxc-kernel-test", dir));
  return std::string(dir);
}

TEST(KernelCodegen, SplitsDeduplicatesAndCaches) {
  auto target = resolveTarget({});
  ASSERT_TRUE(bool(target)) << llvm::toString(target.takeError());
  std::string dir = tempDir();
  KernelCodegenOptions opts;
  opts.cacheDir = dir;
  opts.keySalt = "test";
  opts.threads = 2;

  llvm::LLVMContext ctx;
  auto first = emitKernelObjects(parse(ctx, kernelsIR(), *target), *target,
                                 opts);
  ASSERT_TRUE(bool(first)) << llvm::toString(first.takeError());
  EXPECT_EQ(first->stats.unsplitReason, "");
  EXPECT_EQ(first->stats.steps, 3u);
  EXPECT_EQ(first->stats.distinct, 2u); // step0 and step2 are one kernel
  EXPECT_EQ(first->stats.compiled, 2u);
  EXPECT_EQ(first->stats.cached, 0u);
  ASSERT_EQ(first->kernels.size(), 2u);

  // Each kernel object defines its content-named symbol (and has its own
  // copy of the helper and the constant); the glue names both kernels and
  // defines the table, not the kernels.
  std::set<std::string> keys;
  for (const auto &[key, object] : first->kernels) {
    EXPECT_EQ(key.size(), 32u);
    keys.insert(key);
    EXPECT_TRUE(definedSymbols(object).count(kernelSymbol(key)))
        << kernelSymbol(key);
    EXPECT_TRUE(llvm::sys::fs::exists(kernelObjectPath(dir, key)));
  }
  auto referenced = referencedKernelKeys(first->glue);
  ASSERT_TRUE(bool(referenced)) << llvm::toString(referenced.takeError());
  EXPECT_EQ(std::set<std::string>(referenced->begin(), referenced->end()),
            keys);
  std::set<std::string> glue = definedSymbols(first->glue);
  EXPECT_TRUE(glue.count("mxc_main_kernels"));
  EXPECT_FALSE(glue.count("mxc_main_step0_kernel"));

  // Again, with step1 changed: step0/step2's kernel comes from the cache.
  llvm::LLVMContext ctx2;
  auto second = emitKernelObjects(
      parse(ctx2,
            kernelsIR("", "  %v = load float, ptr @tbl\n"
                          "  %w = fsub float %v, 1.0\n"
                          "  store float %w, ptr %p\n"),
            *target),
      *target, opts);
  ASSERT_TRUE(bool(second)) << llvm::toString(second.takeError());
  EXPECT_EQ(second->stats.distinct, 2u);
  EXPECT_EQ(second->stats.cached, 1u);
  EXPECT_EQ(second->stats.compiled, 1u);

  // Another -O level is another key.
  opts.optLevel = 1;
  llvm::LLVMContext ctx3;
  auto third =
      emitKernelObjects(parse(ctx3, kernelsIR(), *target), *target, opts);
  ASSERT_TRUE(bool(third)) << llvm::toString(third.takeError());
  EXPECT_EQ(third->stats.cached, 0u);
  EXPECT_EQ(third->stats.compiled, 2u);
  llvm::sys::fs::remove_directories(dir);
}

TEST(KernelCodegen, MovesAnExternalConstantIntoItsKernel) {
  auto target = resolveTarget({});
  ASSERT_TRUE(bool(target)) << llvm::toString(target.takeError());
  KernelCodegenOptions opts;
  opts.keySalt = "test";
  // @ext has external linkage and only step1 reads it: it goes with step1's
  // kernel (internal there); the glue neither defines nor declares it.
  llvm::LLVMContext ctx;
  auto split = emitKernelObjects(
      parse(ctx,
            kernelsIR("@ext = constant float 3.0\n",
                      "  %v = load float, ptr @ext\n  store float %v, ptr %p\n"),
            *target),
      *target, opts);
  ASSERT_TRUE(bool(split)) << llvm::toString(split.takeError());
  EXPECT_EQ(split->stats.unsplitReason, "");
  EXPECT_EQ(split->stats.distinct, 2u);
  EXPECT_FALSE(definedSymbols(split->glue).count("ext"));
  for (const auto &kernel : split->kernels)
    EXPECT_FALSE(definedSymbols(kernel.second).count("ext"));
}

TEST(KernelCodegen, KeepsTheModuleWholeWhenKernelsShareState) {
  auto target = resolveTarget({});
  ASSERT_TRUE(bool(target)) << llvm::toString(target.takeError());
  KernelCodegenOptions opts;
  opts.keySalt = "test";
  // A mutable global two kernels write.
  std::string counter = "  %c = load i64, ptr @count\n"
                        "  %d = add i64 %c, 1\n"
                        "  store i64 %d, ptr @count\n";
  llvm::LLVMContext ctx;
  auto shared = emitKernelObjects(
      parse(ctx,
            kernelsIR("@count = internal global i64 0\n",
                      counter + "  store float 0.0, ptr %p\n") +
                "define void @other(ptr %p) {\n" + counter + "  ret void\n}\n",
            *target),
      *target, opts);
  ASSERT_TRUE(bool(shared)) << llvm::toString(shared.takeError());
  // @other (glue) and step1 (a kernel) share @count.
  EXPECT_NE(shared->stats.unsplitReason, "");
  EXPECT_TRUE(shared->kernels.empty());
  EXPECT_TRUE(definedSymbols(shared->glue).count("mxc_main_step1_kernel"));

  // Two kernels with the same code, each with a mutable global of its own:
  // split, but not merged into one kernel (they would share the state).
  auto own = [](const std::string &name, const std::string &var) {
    return "define void @" + name + "(ptr %b) {\n"
           "  %c = load i64, ptr @" + var + "\n"
           "  %d = add i64 %c, 1\n"
           "  store i64 %d, ptr @" + var + "\n  ret void\n}\n";
  };
  std::string stateful =
      "@s0 = internal global i64 0\n@s1 = internal global i64 0\n"
      "@n0 = private constant [3 x i8] c\"k0\\00\"\n"
      "@n1 = private constant [3 x i8] c\"k1\\00\"\n"
      "@mxc_main_kernels = constant [2 x {ptr, ptr}] [\n"
      "  {ptr, ptr} {ptr @n0, ptr @mxc_main_step0_kernel},\n"
      "  {ptr, ptr} {ptr @n1, ptr @mxc_main_step1_kernel}]\n" +
      own("mxc_main_step0_kernel", "s0") + own("mxc_main_step1_kernel", "s1");
  llvm::LLVMContext ctx3;
  auto separate =
      emitKernelObjects(parse(ctx3, stateful, *target), *target, opts);
  ASSERT_TRUE(bool(separate)) << llvm::toString(separate.takeError());
  EXPECT_EQ(separate->stats.unsplitReason, "");
  EXPECT_EQ(separate->stats.steps, 2u);
  EXPECT_EQ(separate->stats.distinct, 2u);

  // A module without the table is an error, not a crash.
  llvm::LLVMContext ctx2;
  auto noTable = emitKernelObjects(
      parse(ctx2, "define void @f() {\n  ret void\n}\n", *target), *target,
      opts);
  ASSERT_FALSE(bool(noTable));
  EXPECT_NE(llvm::toString(noTable.takeError()).find("mxc_main_kernels"),
            std::string::npos);
}

} // namespace
