//===- MXOpTable.h - MXNet operator table of the mx dialect -----*- C++ -*-===//
//
// The table that ties MXNet operator names and attribute strings to `mx` ops
// and typed MLIR attributes. It is generated with the ODS from one Python
// table (scripts/gen_mx_ops.py) so the importer, the exporter and the ODS can
// never disagree.
//
//===----------------------------------------------------------------------===//
#ifndef MXC_DIALECT_MX_IR_MXOPTABLE_H
#define MXC_DIALECT_MX_IR_MXOPTABLE_H

#include "mlir/IR/Attributes.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <string>

namespace mxc::mx {

/// How an MXNet attribute string maps to an MLIR attribute.
enum class AttrKind {
  Int,      ///< "3"                -> i64 IntegerAttr
  Float,    ///< "0.001"            -> f64 FloatAttr
  Bool,     ///< "True" / "1"       -> BoolAttr
  Shape,    ///< "(3, 3)" / "[3,3]" -> DenseI64ArrayAttr ("()" is empty)
  Enum,     ///< "relu"             -> StringAttr checked against enumValues
  DType,    ///< "float32"          -> StringAttr (MX_DTypeAttr)
  String,   ///< anything           -> StringAttr
};

struct AttrSpec {
  const char *name;          ///< MXNet spelling, also the MLIR attribute name
  AttrKind kind;
  /// MXNet's default in MXNet's spelling; nullptr when the attribute is
  /// required. "None" marks an optional attribute without a default (absent
  /// from the op when not given).
  const char *defaultValue;
  /// '|'-separated allowed values for Enum ("relu|sigmoid|tanh|softrelu|softsign").
  const char *enumValues;
};

struct OpSpec {
  const char *mxnetName;     ///< canonical MXNet operator name ("Convolution")
  const char *opName;        ///< full MLIR name ("mx.Convolution")
  llvm::ArrayRef<const char *> inputNames; ///< MXNet's list_arguments names
  unsigned numRequiredInputs;///< leading inputs that must be present
  bool variadicInputs;       ///< Concat: any number of data inputs
  unsigned numOutputs;       ///< all outputs, hidden included (BatchNorm: 3)
  llvm::ArrayRef<unsigned> auxInputs; ///< inputs that are auxiliary states
  llvm::ArrayRef<AttrSpec> attrs;
};

/// Looks an operator up by its MXNet name or any alias MXNet registers
/// ("_Plus", "_plus" -> elemwise_add; "Reshape" / "reshape").
const OpSpec *lookupMXNetOp(llvm::StringRef name);
/// Looks an operator up by its MLIR name ("mx.Convolution").
const OpSpec *lookupMLIROp(llvm::StringRef opName);
llvm::ArrayRef<OpSpec> allOpSpecs();

/// Parses an MXNet attribute string into the typed attribute for `spec`.
/// On failure returns null and sets `error` to a one-line reason
/// ("expected a shape like (3, 3), got 'abc'").
mlir::Attribute parseMXNetAttr(mlir::Builder &b, const AttrSpec &spec,
                               llvm::StringRef value, std::string &error);
/// The MXNet spelling of a typed attribute ("(3, 3)", "True", "0.001").
std::string printMXNetAttr(const AttrSpec &spec, mlir::Attribute attr);

} // namespace mxc::mx

#endif // MXC_DIALECT_MX_IR_MXOPTABLE_H
