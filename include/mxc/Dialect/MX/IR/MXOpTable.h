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
#include "mlir/Support/LLVM.h"
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
  /// For DType, nullptr means every MXNet dtype, otherwise the allowed subset
  /// (softmax's dtype: "float16|float32|float64").
  const char *enumValues;
  /// MXNet declares the field without a default although "None" is a legal
  /// value (slice_axis `end`): an exporter must write "None" when the
  /// attribute is absent, or MXNet rejects the node.
  bool exportAlways = false;
  /// MXNet's dmlc::optional<T> with a default other than None (topk's
  /// `axis`: -1, or None for the flattened input): the op holds it as an
  /// optional attribute, absent meaning None, and the importer fills in
  /// `defaultValue` when a node does not name the attribute.
  bool noneAllowed = false;
};

/// How the importer finds the shape of a parameter input (weight, bias,
/// gamma, label, ...) that the graph leaves unknown, from the data input's
/// shape and the attributes: MXNet's FInferShape filling in its arguments.
/// The table names the rule of each input (scripts/gen_mx_ops.py
/// PARAM_SHAPES); lib/Compiler/Import.cpp implements each rule once.
enum class ParamShape : uint8_t {
  None,
  ConvWeight,       ///< (num_filter, C / num_group, kernel...)
  DeconvWeight,     ///< (C, num_filter / num_group, kernel...)
  NumFilter,        ///< (num_filter)
  FCWeight,         ///< (num_hidden, prod(data[1:]) or data[-1] without flatten)
  NumHidden,        ///< (num_hidden)
  AxisExtent,       ///< (data[axis]), axis defaulting as the op's attribute does
  Channel,          ///< (data[1])
  NumGroups,        ///< (num_groups)
  SequenceBatch,    ///< (data[1 - axis])
  EmbeddingWeight,  ///< (input_dim, output_dim)
  UpSamplingWeight, ///< bilinear: (num_filter, 1, k, k), k = 2 * scale - scale % 2
  RNNParameters,    ///< the fused RNN's flat parameter vector
  RNNState,         ///< (num_layers * directions, N, state_size)
  SoftmaxLabel,     ///< data without the class axis; (N, rest) with multi_output
  ClassLabel,       ///< data without the last axis
  RegressionLabel,  ///< data's shape; (N) for (N, 1)
  SameAsData,       ///< data's shape
};

struct OpSpec {
  const char *mxnetName;     ///< canonical MXNet operator name ("Convolution")
  const char *opName;        ///< full MLIR name ("mx.Convolution")
  llvm::ArrayRef<const char *> inputNames; ///< MXNet's list_arguments names
  unsigned numRequiredInputs;///< leading inputs that must be present
  bool variadicInputs;       ///< Concat: any number of data inputs
  unsigned numOutputs;       ///< all outputs, hidden included (BatchNorm: 3);
                             ///< LeakyReLU: the maximum (2 for rrelu, else 1)
  llvm::ArrayRef<unsigned> auxInputs; ///< inputs that are auxiliary states
  llvm::ArrayRef<AttrSpec> attrs;
  /// MXNet's list_outputs names ("output", "mean", "var").
  llvm::ArrayRef<const char *> outputNames = {};
  /// Outputs MXNet shows (FNumVisibleOutputs): Dropout, LRN, BatchNorm and
  /// LeakyReLU 1; the rest are hidden but still addressable by index in JSON.
  /// (BatchNorm shows all 3 when output_mean_var is true.)
  unsigned numVisibleOutputs = 0;
  /// Other names MXNet registers for this operator (add_alias).
  llvm::ArrayRef<const char *> aliases = {};
  /// The result count is set by an attribute (SliceChannel's num_outputs):
  /// `numOutputs` is then the count without it, and lib/Graph's numOutputsOf
  /// gives the count of a node.
  bool variadicOutputs = false;
  /// MXNet registers FListInputNames: its monitor callbacks name input i
  /// by inputNames[i]; otherwise "input<i>".
  bool hasFListInputNames = true;
  /// MXNet registers FListOutputNames: a CachedOp's op hook names output i
  /// by outputNames[i]; otherwise "<i>".
  bool hasFListOutputNames = false;
  /// The family of the shape rule, where the op has a family rule: "same"
  /// (the result has the data input's shape), "elemwise" (every input and
  /// the result have one shape); nullptr for the others. The front end's
  /// partial shape inference propagates known extents back through these.
  const char *shapeFamily = nullptr;
  /// The ParamShape rule of each input, by MXNet's input position; empty
  /// when no input has one.
  llvm::ArrayRef<ParamShape> paramShapes = {};
  /// The rule of a variadic op's inputs after the first (UpSampling's
  /// bilinear weight).
  ParamShape variadicParamShape = ParamShape::None;

  /// The rule for the parameter input at MXNet position `index`.
  ParamShape paramShapeOf(unsigned index) const {
    if (index < paramShapes.size())
      return paramShapes[index];
    return variadicInputs && index > 0 ? variadicParamShape : ParamShape::None;
  }

  /// The AttrSpec called `name`, or nullptr.
  const AttrSpec *findAttr(llvm::StringRef name) const;
  /// Whether input `index` is an auxiliary state (BatchNorm moving_mean/var).
  bool isAuxInput(unsigned index) const;
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
/// "None" for an attribute whose default is "None" (an optional attribute)
/// returns a UnitAttr: the attribute is absent (leave it off the op).
mlir::Attribute parseMXNetAttr(mlir::Builder &b, const AttrSpec &spec,
                               llvm::StringRef value, std::string &error);
/// The MXNet spelling of a typed attribute ("(3, 3)", "True", "0.001");
/// floats print like Python's repr, so they parse back to the same double.
/// A null or UnitAttr `attr` prints "None".
std::string printMXNetAttr(const AttrSpec &spec, mlir::Attribute attr);

/// The MLIR element type of an MXNet dtype name ("float32" -> f32, "uint8"
/// -> ui8, "bool" -> i1), or null for an unknown name.
mlir::Type getElementTypeForMXNetDType(mlir::MLIRContext *ctx,
                                       llvm::StringRef dtype);
/// The MXNet dtype name of an element type, or "" if MXNet has none.
llvm::StringRef getMXNetDTypeName(mlir::Type elementType);

/// Creates the op of `spec` at `b`'s insertion point with result types
/// inferred by the op's InferTypeOpInterface (MXNet's shape/type rules).
/// `attrs` are the typed attributes (from parseMXNetAttr), named as in the
/// AttrSpecs; absent ones take their defaults, a UnitAttr means absent
/// (None), and names with a '.' ("mx.hidden") are kept as discardable
/// attributes. Checks the operand count, the
/// attribute names, kinds and values, runs the inference and then the op
/// verifier; on any failure emits one error at `loc` (the MXNet node's
/// location, so it names the node) and returns failure, leaving no op
/// behind. The `mx` dialect must be loaded in `b`'s context.
mlir::FailureOr<mlir::Operation *>
createMXOp(mlir::OpBuilder &b, mlir::Location loc, const OpSpec &spec,
           mlir::ValueRange operands, llvm::ArrayRef<mlir::NamedAttribute> attrs);

} // namespace mxc::mx

#endif // MXC_DIALECT_MX_IR_MXOPTABLE_H
