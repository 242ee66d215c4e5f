//===- CodegenCommand.cpp - mxc codegen -----------------------------------===//
//
// `mxc codegen` writes one stage of the pipeline `mxc run` compiles with:
// --emit=mlir-linalg (after lowerToLinalg), mlir-llvm (lowerToLLVMDialect),
// llvm (optimised LLVM IR for the target) or obj (an object file).
//
//===----------------------------------------------------------------------===//
#include "DriverSupport.h"

#include "mxc/Compiler/Pipeline.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OperationSupport.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Target/TargetMachine.h"

using namespace mlir;
using namespace mxc;
using namespace mxc::driver;

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
  LoadedModel loaded = openModel(opts);
  if (!loaded.module)
    return loaded.status;
  OwningOpRef<ModuleOp> &module = loaded.module;
  PipelineOptions pipeline = pipelineOptionsFor(opts);

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
