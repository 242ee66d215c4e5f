//===- mxc-opt.cpp - mlir-opt with the mx dialect -----------------------===//
#include "mxc/Compiler/Transforms/Passes.h"
#include "mxc/Conversion/Passes.h"
#include "mxc/Dialect/MX/IR/MXDialect.h"
#include "mxc/Dialect/MX/Transforms/Passes.h"
#include "mxc/Dialect/MXRT/IR/MXRTDialect.h"
#include "mxc/Dialect/MXRT/Transforms/Passes.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

namespace mxc {
// Test-only passes (TestPasses.td).
void registerTestPasses();
} // namespace mxc

int main(int argc, char **argv) {
  mlir::registerAllPasses();
  mxc::registerTestPasses();
  mxc::registerMXCConversionPasses();
  mxc::mxrt::registerMXRTPasses();
  mxc::mx::registerMXPasses();
  mxc::registerMXCCompilerPasses();
  mxc::registerCudaKernelsPipeline();
  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  // The dialects' conversions to LLVM / NVVM (the CUDA target's pipeline).
  mlir::registerAllExtensions(registry);
  registry.insert<mxc::mx::MXDialect, mxc::mxrt::MXRTDialect>();
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "mxc optimizer driver\n", registry));
}
