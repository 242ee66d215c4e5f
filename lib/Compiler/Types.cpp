//===- Types.cpp - MXNet dtypes <-> MLIR element types ---------------------===//
#include "mxc/Compiler/Types.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;

Type mxc::elementTypeForDType(MLIRContext *ctx, llvm::StringRef dtype) {
  Builder b(ctx);
  if (dtype == "float32")
    return b.getF32Type();
  if (dtype == "float64")
    return b.getF64Type();
  if (dtype == "float16")
    return b.getF16Type();
  if (dtype == "bfloat16")
    return b.getBF16Type();
  if (dtype == "uint8")
    return IntegerType::get(ctx, 8, IntegerType::Unsigned);
  if (dtype == "int8")
    return b.getI8Type();
  if (dtype == "int32")
    return b.getI32Type();
  if (dtype == "int64")
    return b.getI64Type();
  if (dtype == "bool")
    return b.getI1Type();
  return nullptr;
}

std::string mxc::dtypeForElementType(Type t) {
  if (t.isF32())
    return "float32";
  if (t.isF64())
    return "float64";
  if (t.isF16())
    return "float16";
  if (t.isBF16())
    return "bfloat16";
  if (t.isUnsignedInteger(8))
    return "uint8";
  if (t.isSignlessInteger(8))
    return "int8";
  if (t.isSignlessInteger(32))
    return "int32";
  if (t.isSignlessInteger(64))
    return "int64";
  if (t.isSignlessInteger(1))
    return "bool";
  return "";
}
