//===- Types.h - MXNet dtypes <-> MLIR element types ------------*- C++ -*-===//
#ifndef MXC_COMPILER_TYPES_H
#define MXC_COMPILER_TYPES_H

#include "mlir/IR/Types.h"
#include "llvm/ADT/StringRef.h"

#include <string>

namespace mxc {
/// float32 -> f32, float64 -> f64, float16 -> f16, bfloat16 -> bf16,
/// uint8 -> ui8, int8 -> i8, int32 -> i32, int64 -> i64, bool -> i1;
/// null for anything else.
mlir::Type elementTypeForDType(mlir::MLIRContext *ctx, llvm::StringRef dtype);
/// The inverse; "" for a type MXNet has no name for.
std::string dtypeForElementType(mlir::Type type);
} // namespace mxc

#endif // MXC_COMPILER_TYPES_H
