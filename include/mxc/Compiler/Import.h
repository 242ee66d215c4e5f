//===- Import.h - MXNet Graph <-> mx dialect --------------------*- C++ -*-===//
//
// The importer turns a Graph plus input shapes into a module with
// `func.func @main` of `mx` ops; the exporter turns such a function back into
// a Graph (and so into MXNet JSON).
//
// The function's arguments are the data inputs, then the other arguments
// (parameters), then the auxiliary states, each group in MXNet's
// list_arguments / list_auxiliary_states order. Argument attributes:
//   mx.name  = "fc1_weight"          the variable's name
//   mx.kind  = "data"|"param"|"aux"
//   mx.attrs = {__lr_mult__ = "0.2"} the variable node's attributes, if any
// Each op's location is NameLoc("<node name>"); an op imported from an alias
// ("_Plus") keeps it in `mx.mxnet_op`, and the node's hidden attributes
// ("__ctx_group__") are kept in `mx.hidden`.
//
//===----------------------------------------------------------------------===//
#ifndef MXC_COMPILER_IMPORT_H
#define MXC_COMPILER_IMPORT_H

#include "mxc/Graph/Graph.h"
#include "mxc/Graph/Params.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Support/LLVM.h"

#include <map>
#include <string>
#include <vector>

namespace mxc {

struct ImportOptions {
  /// Shapes of inputs by variable name (`--shape data=1,3,224,224`).
  std::map<std::string, std::vector<int64_t>> shapes;
  /// Element types by variable name, MXNet spelling (`--dtype data=float16`);
  /// float32 when absent.
  std::map<std::string, std::string> dtypes;
  /// Arrays of a `.params` file: they fix the shapes and dtypes of the
  /// variables they name (bare, "arg:" or "aux:" names; the prefix must match
  /// the variable's kind). A shape that does not fit the consuming op fails
  /// that op's verification, naming the node. Arrays naming no variable are
  /// ignored, as MXNet's Module does with allow_extra_params.
  const std::vector<graph::NDArrayData> *params = nullptr;
  std::string funcName = "main";
};

/// Imports `g`. Errors are emitted through the context's diagnostic engine at
/// the location of the node at fault, and the result is null.
mlir::OwningOpRef<mlir::ModuleOp> importGraph(mlir::MLIRContext &ctx,
                                              const graph::Graph &g,
                                              const ImportOptions &opts);

/// Exports function `funcName` of `module` back to a Graph. Errors (an op that
/// is not an `mx` op, a value that is not an argument or op result) are
/// emitted on the op at fault.
mlir::FailureOr<graph::Graph> exportGraph(mlir::ModuleOp module,
                                          llvm::StringRef funcName = "main");

/// Compares two graphs the way MXNet would load them: same ops (aliases
/// resolved), names, edges, heads and attributes (parsed, with MXNet's
/// defaults filled in). Returns an empty string when equal, otherwise a
/// description of the first differences.
std::string diffGraphs(mlir::MLIRContext &ctx, const graph::Graph &a,
                       const graph::Graph &b);

} // namespace mxc

#endif // MXC_COMPILER_IMPORT_H
