//===- Import.cpp - MXNet Graph -> mx dialect -----------------------------===//
//
// Builds `func.func @main` from a Graph: variables become function arguments
// (data inputs, parameters, auxiliary states), every other node one `mx` op
// created through the op table, with result types inferred by the op itself.
// Parameter shapes that the user did not give are inferred from the op that
// consumes them, as MXNet's backward shape inference does.
//
// MXNet's control-flow operators (`_foreach`, `_while_loop`, `_cond`) are
// unrolled here, once their inputs' shapes are known: `_foreach` imports its
// body once per slice of the data, `_while_loop` its condition and body
// `max_iterations` times with every step's results selected (`where`) by
// "the loop is still running", and `_cond` both branches with the result
// selected by the predicate. The compiled graph is then an ordinary one
// (gradients, fusion and memory planning see plain ops), at the price of
// running every step of a while loop up to max_iterations.
//
//===----------------------------------------------------------------------===//
#include "mxc/Compiler/Import.h"
#include "mxc/Dialect/MX/IR/MXDialect.h"
#include "mxc/Dialect/MX/IR/MXOpTable.h"
#include "mxc/Dialect/MX/IR/MXOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "mxc/Graph/Graph.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringExtras.h"

#include <set>

using namespace mlir;
using namespace mxc;
using mxc::graph::Graph;
using mxc::graph::Node;
using mxc::graph::NodeEntry;

namespace {

/// Formats a shape as MXNet prints it: (1, 3, 224, 224).
std::string shapeStr(ArrayRef<int64_t> shape) {
  std::string s = "(";
  llvm::interleave(
      shape, [&](int64_t d) { s += std::to_string(d); }, [&] { s += ", "; });
  if (shape.size() == 1)
    s += ",";
  return s + ")";
}

/// Parses MXNet's "(1, 3, 224, 224)" shape spelling (hidden `__shape__`
/// attributes); nullopt when it is not one, or holds an unknown (0) dim.
std::optional<std::vector<int64_t>> parseShapeAttr(StringRef text) {
  text = text.trim();
  if (!(text.consume_front("(") || text.consume_front("[")))
    return std::nullopt;
  if (!(text.consume_back(")") || text.consume_back("]")))
    return std::nullopt;
  std::vector<int64_t> shape;
  SmallVector<StringRef> parts;
  text.split(parts, ',', -1, /*KeepEmpty=*/false);
  for (StringRef p : parts) {
    int64_t d;
    if (p.trim().getAsInteger(10, d) || d <= 0)
      return std::nullopt;
    shape.push_back(d);
  }
  return shape;
}

/// The nodes the heads reach (through inputs and control dependencies):
/// only those are imported, as nnvm builds a graph from its heads.
std::vector<bool> reachedFromHeads(const Graph &g) {
  std::vector<bool> reached(g.nodes.size(), false);
  std::vector<uint32_t> stack;
  for (const NodeEntry &h : g.heads)
    stack.push_back(h.node);
  while (!stack.empty()) {
    uint32_t id = stack.back();
    stack.pop_back();
    if (reached[id])
      continue;
    reached[id] = true;
    for (const NodeEntry &in : g.nodes[id].inputs)
      stack.push_back(in.node);
    for (uint32_t c : g.nodes[id].controlDeps)
      stack.push_back(c);
  }
  return reached;
}

/// Everything the importer knows about one variable node.
struct Variable {
  uint32_t node = 0;
  StringRef kind;             // "data", "param", "aux"
  std::vector<int64_t> shape; // empty until known
  bool shapeKnown = false;
  Type elementType;
  BlockArgument arg; // set once created
};

/// The graph being imported: the file's, or a control-flow node's subgraph
/// for one step of the unrolled loop.
struct Scope {
  const Graph *graph;
  llvm::DenseMap<uint64_t, Value> values; // (node << 32 | output) -> value
  /// A subgraph variable bound to a top-level variable whose argument is not
  /// created yet (its shape comes from its first consumer, in the subgraph).
  std::map<uint32_t, uint32_t> deferred;
  /// Prepended to node names in locations ("_foreach0/3/").
  std::string prefix;
};

/// What one input of a control-flow node is bound to: a value, or a
/// top-level variable whose shape is not known yet.
struct Binding {
  Value value;
  std::optional<uint32_t> topVar;
};

class Importer {
public:
  Importer(MLIRContext &ctx, const Graph &g, const ImportOptions &opts)
      : ctx(ctx), g(g), opts(opts), builder(&ctx) {
    top.graph = &g;
  }

  OwningOpRef<ModuleOp> run();

private:
  const Graph &G() const { return *cur->graph; }
  Location nodeLoc(uint32_t node) {
    return NameLoc::get(
        StringAttr::get(&ctx, cur->prefix + G().nodes[node].name));
  }
  InFlightDiagnostic error(uint32_t node) { return emitError(nodeLoc(node)); }
  LogicalResult collectVariables();
  LogicalResult importNode(uint32_t id);
  LogicalResult importControlFlow(uint32_t id);
  /// Input `k` of node `id` of the current scope, as a value where it has
  /// one or can have one now.
  FailureOr<Binding> bindInput(uint32_t id, unsigned k);
  /// Imports `sub` with its inputs (listInputs() order) bound to `inputs`;
  /// its heads' values.
  FailureOr<SmallVector<Value>> importSubgraph(const Graph &sub,
                                               ArrayRef<Binding> inputs,
                                               std::string prefix);
  /// Creates the MXNet operator `op` with MXNet attribute strings.
  FailureOr<SmallVector<Value>>
  emitOp(Location loc, StringRef op, ValueRange operands,
         ArrayRef<std::pair<StringRef, std::string>> attrs = {});
  /// The value of input `i` of node `id`, creating the variable's argument
  /// (inferring its shape from the consumer) on first use.
  FailureOr<Value> inputValue(uint32_t id, unsigned i, const mx::OpSpec *spec,
                              ArrayRef<Value> earlier);
  std::optional<std::vector<int64_t>>
  inferVariableShape(uint32_t id, unsigned i, const mx::OpSpec *spec,
                     ArrayRef<Value> earlier);
  FailureOr<BlockArgument> createArgument(Variable &v);
  OwningOpRef<ModuleOp> finish();

  MLIRContext &ctx;
  const Graph &g;
  const ImportOptions &opts;
  OpBuilder builder;
  std::unique_ptr<Block> body = std::make_unique<Block>();
  std::map<uint32_t, Variable> variables; // by node index
  std::vector<uint32_t> argumentOrder;    // final function argument order
  Scope top;
  Scope *cur = &top;
  std::map<std::string, const graph::NDArrayData *> params;
};

std::optional<std::vector<int64_t>>
Importer::inferVariableShape(uint32_t id, unsigned i, const mx::OpSpec *spec,
                             ArrayRef<Value> earlier) {
  const Node &n = G().nodes[id];
  auto attrInt = [&](StringRef name) -> std::optional<int64_t> {
    auto it = n.attrs.find(name.str());
    int64_t v;
    if (it == n.attrs.end() || StringRef(it->second).trim().getAsInteger(10, v))
      return std::nullopt;
    return v;
  };
  auto attrBool = [&](StringRef name, bool dflt) {
    auto it = n.attrs.find(name.str());
    if (it == n.attrs.end())
      return dflt;
    StringRef v = StringRef(it->second).trim();
    return v == "True" || v == "true" || v == "1";
  };
  if (earlier.empty() || !earlier[0])
    return std::nullopt;
  auto data = dyn_cast<RankedTensorType>(earlier[0].getType());
  if (!data)
    return std::nullopt;
  ArrayRef<int64_t> d = data.getShape();
  // The attribute's default as the table has it ("axis": BatchNorm 1,
  // LayerNorm -1).
  auto attrIntOrDefault = [&](StringRef name) -> std::optional<int64_t> {
    if (auto v = attrInt(name))
      return v;
    const mx::AttrSpec *a = spec->findAttr(name);
    int64_t v;
    if (!a || !a->defaultValue || StringRef(a->defaultValue).getAsInteger(10, v))
      return std::nullopt;
    return v;
  };
  auto kernelDims = [&]() -> std::optional<std::vector<int64_t>> {
    auto kernelIt = n.attrs.find("kernel");
    if (kernelIt == n.attrs.end())
      return std::nullopt;
    auto kernel = parseShapeAttr(kernelIt->second);
    if (!kernel) // a bare integer kernel: "3"
      if (auto k = attrInt("kernel"))
        kernel = std::vector<int64_t>(d.size() - 2, *k);
    return kernel;
  };
  auto extentAt = [&](int64_t axis) -> std::optional<std::vector<int64_t>> {
    if (axis < 0)
      axis += d.size();
    if (axis < 0 || axis >= (int64_t)d.size())
      return std::nullopt;
    return std::vector<int64_t>{d[axis]};
  };

  // The table names the rule of each input (scripts/gen_mx_ops.py
  // PARAM_SHAPES); each rule is MXNet's FInferShape for that argument.
  switch (spec->paramShapeOf(i)) {
  case mx::ParamShape::None:
    return std::nullopt;
  case mx::ParamShape::ConvWeight:   // ConvolutionShape
  case mx::ParamShape::DeconvWeight: { // DeconvolutionShape
    auto numFilter = attrInt("num_filter");
    auto kernel = d.size() >= 3 ? kernelDims() : std::nullopt;
    int64_t groups = attrInt("num_group").value_or(1);
    if (!numFilter || !kernel || groups <= 0)
      return std::nullopt;
    // Convolution (num_filter, C / groups, k...); Deconvolution
    // (C, num_filter / groups, k...)
    std::vector<int64_t> w =
        spec->paramShapeOf(i) == mx::ParamShape::ConvWeight
            ? std::vector<int64_t>{*numFilter, d[1] / groups}
            : std::vector<int64_t>{d[1], *numFilter / groups};
    w.insert(w.end(), kernel->begin(), kernel->end());
    return w;
  }
  case mx::ParamShape::NumFilter:
    if (auto numFilter = attrInt("num_filter"); numFilter && d.size() >= 3)
      return std::vector<int64_t>{*numFilter};
    return std::nullopt;
  case mx::ParamShape::FCWeight: { // FullyConnectedShape
    auto numHidden = attrInt("num_hidden");
    if (!numHidden || d.empty())
      return std::nullopt;
    int64_t in = 1;
    if (attrBool("flatten", true))
      for (int64_t x : d.drop_front())
        in *= x;
    else
      in = d.back();
    return std::vector<int64_t>{*numHidden, in};
  }
  case mx::ParamShape::NumHidden:
    if (auto numHidden = attrInt("num_hidden"); numHidden && !d.empty())
      return std::vector<int64_t>{*numHidden};
    return std::nullopt;
  case mx::ParamShape::AxisExtent:
    if (auto axis = attrIntOrDefault("axis"))
      return extentAt(*axis);
    return std::nullopt;
  case mx::ParamShape::Channel:
    if (d.size() < 2)
      return std::nullopt;
    return std::vector<int64_t>{d[1]};
  case mx::ParamShape::NumGroups:
    if (d.empty())
      return std::nullopt;
    return std::vector<int64_t>{attrIntOrDefault("num_groups").value_or(1)};
  case mx::ParamShape::SequenceBatch: { // (batch,)
    int64_t axis = attrInt("axis").value_or(0);
    if (d.size() < 2 || (axis != 0 && axis != 1))
      return std::nullopt;
    return std::vector<int64_t>{d[1 - axis]};
  }
  case mx::ParamShape::EmbeddingWeight: { // EmbeddingOpShape
    auto inputDim = attrInt("input_dim"), outputDim = attrInt("output_dim");
    if (!inputDim || !outputDim)
      return std::nullopt;
    return std::vector<int64_t>{*inputDim, *outputDim};
  }
  case mx::ParamShape::UpSamplingWeight: { // bilinear's weight
    auto it = n.attrs.find("sample_type");
    auto scale = attrInt("scale"), numFilter = attrInt("num_filter");
    if (i != 1 || d.size() != 4 || it == n.attrs.end() ||
        it->second != "bilinear" || !scale || !numFilter)
      return std::nullopt;
    int64_t k = 2 * *scale - *scale % 2;
    return std::vector<int64_t>{*numFilter, 1, k, k};
  }
  case mx::ParamShape::RNNParameters:
  case mx::ParamShape::RNNState: { // RNNShape
    auto h = attrInt("state_size"), layers = attrInt("num_layers");
    auto it = n.attrs.find("mode");
    // (out-of-range sizes are the shape rule's error, not a shape here)
    if (d.size() != 3 || !h || !layers || it == n.attrs.end() || *h < 1 ||
        *h > (1 << 20) || *layers < 1 || *layers > 4096 || d[2] < 1 ||
        d[2] > (int64_t(1) << 30))
      return std::nullopt;
    StringRef mode = StringRef(it->second).trim().trim('\'').trim('"');
    int64_t dirs = attrBool("bidirectional", false) ? 2 : 1;
    if (spec->paramShapeOf(i) == mx::ParamShape::RNNState)
      return std::vector<int64_t>{*layers * dirs, d[1], *h};
    if (!mx::rnnGates(mode))
      return std::nullopt;
    return std::vector<int64_t>{mx::rnnParamSize(*layers, d[2], *h, dirs, mode)};
  }
  case mx::ParamShape::SoftmaxLabel: // SoftmaxOutputShape
    if (d.size() < 2)
      return std::nullopt;
    if (attrBool("multi_output", false)) {
      int64_t rest = 1;
      for (int64_t x : d.drop_front(2))
        rest *= x;
      return std::vector<int64_t>{d[0], rest};
    }
    return std::vector<int64_t>(d.begin(), d.end() - 1);
  case mx::ParamShape::ClassLabel: // SVMOutput
    if (d.size() < 2)
      return std::nullopt;
    return std::vector<int64_t>(d.begin(), d.end() - 1);
  case mx::ParamShape::RegressionLabel: // RegressionOpShape
    if (d.size() == 2 && d[1] == 1)
      return std::vector<int64_t>{d[0]};
    return std::vector<int64_t>(d.begin(), d.end());
  case mx::ParamShape::SameAsData: // an unknown operand takes the other's
    return std::vector<int64_t>(d.begin(), d.end());
  }
  return std::nullopt;
}

LogicalResult Importer::collectVariables() {
  if (opts.params)
    for (const graph::NDArrayData &a : *opts.params)
      params[a.bareName().str()] = &a;

  std::vector<uint32_t> args = g.listArguments();
  std::vector<uint32_t> aux = g.listAuxiliaryStates();

  // Variables that feed an operator input named "label" are data inputs too
  // (MXNet's Module binds them as label_names).
  std::set<uint32_t> labels;
  for (const Node &n : g.nodes) {
    const mx::OpSpec *spec = n.isVariable() ? nullptr : mx::lookupMXNetOp(n.op);
    if (!spec)
      continue;
    for (auto [i, in] : llvm::enumerate(n.inputs))
      if (i < spec->inputNames.size() &&
          StringRef(spec->inputNames[i]) == "label" &&
          g.nodes[in.node].isVariable())
        labels.insert(in.node);
  }

  std::set<std::string> known;
  auto add = [&](uint32_t id, StringRef kind) -> LogicalResult {
    const Node &n = g.nodes[id];
    Variable v;
    v.node = id;
    v.kind = kind;
    known.insert(n.name);
    std::string dtype = "float32";
    if (auto it = opts.shapes.find(n.name); it != opts.shapes.end()) {
      v.shape = it->second;
      v.shapeKnown = true;
    } else if (auto p = params.find(n.name); p != params.end()) {
      const graph::NDArrayData &a = *p->second;
      // "aux:" arrays belong to auxiliary states, "arg:" ones to arguments.
      bool wantAux = kind == "aux";
      bool prefixed = StringRef(a.name).starts_with("arg:") || a.isAux();
      if (prefixed && a.isAux() != wantAux)
        return error(id) << "params array '" << a.name << "' is for "
                         << (a.isAux() ? "an auxiliary state" : "an argument")
                         << ", but '" << n.name << "' is "
                         << (wantAux ? "an auxiliary state" : "an argument");
      if (a.isNone() || a.shape.empty())
        return error(id) << "params array '" << a.name
                         << "' has no data (an empty or none array)";
      v.shape = a.shape;
      v.shapeKnown = true;
      dtype = graph::dtypeName(a.dtype).str();
    } else if (auto s = n.attrs.find("__shape__"); s != n.attrs.end()) {
      if (auto shape = parseShapeAttr(s->second)) {
        v.shape = *shape;
        v.shapeKnown = true;
      }
    }
    if (auto it = opts.dtypes.find(n.name); it != opts.dtypes.end())
      dtype = it->second;
    v.elementType = mx::getElementTypeForMXNetDType(&ctx, dtype);
    if (!v.elementType)
      return error(id) << "variable '" << n.name << "': unknown dtype '"
                       << dtype << "'";
    variables[id] = std::move(v);
    return success();
  };

  // Data inputs, then parameters, then auxiliary states.
  for (uint32_t id : args)
    if (opts.shapes.count(g.nodes[id].name) || labels.count(id)) {
      if (failed(add(id, "data")))
        return failure();
      argumentOrder.push_back(id);
    }
  for (uint32_t id : args)
    if (!variables.count(id)) {
      if (failed(add(id, "param")))
        return failure();
      argumentOrder.push_back(id);
    }
  for (uint32_t id : aux) {
    if (failed(add(id, "aux")))
      return failure();
    argumentOrder.push_back(id);
  }
  for (const auto &[name, shape] : opts.shapes)
    if (!known.count(name)) {
      std::string names;
      for (uint32_t id : argumentOrder)
        names += (names.empty() ? "" : ", ") + g.nodes[id].name;
      return emitError(UnknownLoc::get(&ctx))
             << "--shape names '" << name
             << "', which is not an input of the graph (inputs: " << names
             << ")";
    }
  return success();
}

FailureOr<BlockArgument> Importer::createArgument(Variable &v) {
  // v.node is a node of the top-level graph, whichever scope asks.
  Location loc = NameLoc::get(StringAttr::get(&ctx, g.nodes[v.node].name));
  for (int64_t d : v.shape)
    if (d <= 0)
      return emitError(loc) << "variable '" << g.nodes[v.node].name
                            << "' has shape " << shapeStr(v.shape)
                            << " with a non-positive dimension";
  v.arg = body->addArgument(RankedTensorType::get(v.shape, v.elementType), loc);
  return v.arg;
}

FailureOr<Value> Importer::inputValue(uint32_t id, unsigned i,
                                      const mx::OpSpec *spec,
                                      ArrayRef<Value> earlier) {
  const NodeEntry &e = G().nodes[id].inputs[i];
  if (auto it = cur->values.find(uint64_t(e.node) << 32 | e.index);
      it != cur->values.end())
    return it->second;
  uint32_t varNode = e.node;
  if (cur != &top) {
    // A subgraph's variable bound to a top-level variable not yet created.
    auto d = cur->deferred.find(e.node);
    if (d == cur->deferred.end())
      return error(id) << "input " << i << " refers to node " << e.node
                       << " output " << e.index << ", which has no value";
    varNode = d->second;
    if (auto it = top.values.find(uint64_t(varNode) << 32);
        it != top.values.end()) {
      cur->values[uint64_t(e.node) << 32] = it->second;
      return it->second;
    }
  }
  auto vit = variables.find(varNode);
  if (vit == variables.end())
    return error(id) << "input " << i << " refers to node " << e.node
                     << " output " << e.index << ", which has no value";
  Variable &v = vit->second;
  if (!v.shapeKnown) {
    auto shape = spec ? inferVariableShape(id, i, spec, earlier) : std::nullopt;
    if (!shape) {
      StringRef input =
          spec && i < spec->inputNames.size() ? spec->inputNames[i] : "";
      return error(id) << "cannot infer the shape of variable '"
                       << g.nodes[varNode].name << "' (input " << i
                       << (input.empty() ? "" : " '" + input.str() + "'")
                       << " of '" << G().nodes[id].name
                       << "'); give it with --shape " << g.nodes[varNode].name
                       << "=...";
    }
    v.shape = *shape;
    v.shapeKnown = true;
  }
  auto arg = createArgument(v);
  if (failed(arg))
    return failure();
  top.values[uint64_t(varNode) << 32] = *arg;
  cur->values[uint64_t(e.node) << 32] = *arg;
  return Value(*arg);
}

LogicalResult Importer::importNode(uint32_t id) {
  const Node &n = G().nodes[id];
  if (graph::isControlFlowOp(n.op))
    return importControlFlow(id);
  if (n.op == "Custom") {
    auto t = n.attrs.find("op_type");
    return error(id) << "Custom (a Python custom operator, op_type '"
                     << (t == n.attrs.end() ? std::string("?") : t->second)
                     << "') cannot run in compiled code; bind the graph from "
                        "Python (import mxc), which runs it operator by "
                        "operator";
  }
  const mx::OpSpec *spec = mx::lookupMXNetOp(n.op);
  if (!spec)
    return error(id) << "unknown operator '" << n.op << "'";
  if (StringRef(spec->mxnetName) == "RNN") {
    auto it = n.attrs.find("use_sequence_length");
    if (it != n.attrs.end() &&
        StringRef(it->second).trim().equals_insensitive("true"))
      return error(id) << n.op
                       << ": use_sequence_length=True (variable sequence "
                          "lengths) is not supported by mxc";
  }
  size_t maxInputs = spec->inputNames.size();
  if (n.inputs.size() < spec->numRequiredInputs ||
      (!spec->variadicInputs && n.inputs.size() > maxInputs))
    return error(id) << n.op << " has " << n.inputs.size()
                     << " inputs, expected "
                     << (spec->variadicInputs ? "at least " : "")
                     << spec->numRequiredInputs
                     << (spec->variadicInputs ||
                                 maxInputs == spec->numRequiredInputs
                             ? ""
                             : " to " + std::to_string(maxInputs));

  // Typed attributes for the operator's parameters; hidden ones (`__x__`)
  // are kept verbatim.
  SmallVector<NamedAttribute> attrs;
  SmallVector<NamedAttribute> hidden;
  for (const auto &[key, value] : n.attrs) {
    const mx::AttrSpec *as = nullptr;
    for (const mx::AttrSpec &a : spec->attrs)
      if (key == a.name)
        as = &a;
    if (!as) {
      if (StringRef(key).starts_with("__") && StringRef(key).ends_with("__")) {
        hidden.push_back(
            builder.getNamedAttr(key, builder.getStringAttr(value)));
        continue;
      }
      return error(id) << n.op << ": unknown attribute '" << key << "'";
    }
    std::string why;
    Attribute a = mx::parseMXNetAttr(builder, *as, value, why);
    if (!a)
      return error(id) << n.op << ": " << why;
    if (isa<UnitAttr>(a)) // "None" for an optional attribute: absent
      continue;
    attrs.push_back(builder.getNamedAttr(key, a));
  }
  if (!hidden.empty())
    attrs.push_back(
        builder.getNamedAttr("mx.hidden", builder.getDictionaryAttr(hidden)));
  if (n.op != spec->mxnetName)
    attrs.push_back(
        builder.getNamedAttr("mx.mxnet_op", builder.getStringAttr(n.op)));
  for (const mx::AttrSpec &a : spec->attrs)
    if (!a.defaultValue && !n.attrs.count(a.name))
      return error(id) << n.op << ": missing required attribute '" << a.name
                       << "'";
  // dmlc::optional parameters with a default other than None: the op holds
  // None as an absent attribute, so the default is written out.
  for (const mx::AttrSpec &a : spec->attrs)
    if (a.noneAllowed && a.defaultValue && !n.attrs.count(a.name)) {
      std::string why;
      Attribute d = mx::parseMXNetAttr(builder, a, a.defaultValue, why);
      if (d && !isa<UnitAttr>(d))
        attrs.push_back(builder.getNamedAttr(a.name, d));
    }

  SmallVector<Value> operands;
  for (unsigned i = 0; i < n.inputs.size(); ++i) {
    auto v = inputValue(id, i, spec, operands);
    if (failed(v))
      return failure();
    operands.push_back(*v);
  }

  builder.setInsertionPointToEnd(body.get());
  FailureOr<Operation *> op =
      mx::createMXOp(builder, nodeLoc(id), *spec, operands, attrs);
  if (failed(op))
    return failure();
  for (auto [i, r] : llvm::enumerate((*op)->getResults()))
    if (auto t = dyn_cast<RankedTensorType>(r.getType());
        t && llvm::is_contained(t.getShape(), 0))
      return error(id) << "output " << i << " has shape "
                       << shapeStr(t.getShape())
                       << " with a zero dimension: mxc compiles no zero-size "
                          "arrays (MXNet would give an empty array)";
  for (auto [i, r] : llvm::enumerate((*op)->getResults()))
    cur->values[uint64_t(id) << 32 | i] = r;
  return success();
}


//===----------------------------------------------------------------------===//
// Control flow: _foreach, _while_loop, _cond, unrolled
//===----------------------------------------------------------------------===//

FailureOr<SmallVector<Value>>
Importer::emitOp(Location loc, StringRef op, ValueRange operands,
                 ArrayRef<std::pair<StringRef, std::string>> attrs) {
  const mx::OpSpec *spec = mx::lookupMXNetOp(op);
  if (!spec)
    return emitError(loc) << "internal: no operator '" << op << "'";
  SmallVector<NamedAttribute> typed;
  for (const auto &[key, value] : attrs) {
    const mx::AttrSpec *as = spec->findAttr(key);
    std::string why;
    Attribute a = as ? mx::parseMXNetAttr(builder, *as, value, why) : nullptr;
    if (!a)
      return emitError(loc) << op << ": attribute '" << key << "': " << why;
    typed.push_back(builder.getNamedAttr(key, a));
  }
  builder.setInsertionPointToEnd(body.get());
  FailureOr<Operation *> created =
      mx::createMXOp(builder, loc, *spec, operands, typed);
  if (failed(created))
    return failure();
  return SmallVector<Value>((*created)->getResults());
}

FailureOr<Binding> Importer::bindInput(uint32_t id, unsigned k) {
  const NodeEntry &e = G().nodes[id].inputs[k];
  if (auto it = cur->values.find(uint64_t(e.node) << 32 | e.index);
      it != cur->values.end())
    return Binding{it->second, std::nullopt};
  if (!G().nodes[e.node].isVariable())
    return error(id) << "input " << k << " refers to node " << e.node
                     << " output " << e.index << ", which has no value";
  uint32_t varNode = e.node;
  if (cur != &top) {
    auto d = cur->deferred.find(e.node);
    if (d == cur->deferred.end())
      return error(id) << "input " << k << " refers to node " << e.node
                       << ", which has no value";
    varNode = d->second;
  }
  auto vit = variables.find(varNode);
  if (vit != variables.end() && !vit->second.shapeKnown && !vit->second.arg)
    return Binding{Value(), varNode}; // its consumer in the subgraph decides
  FailureOr<Value> v = inputValue(id, k, nullptr, {});
  if (failed(v))
    return failure();
  return Binding{*v, std::nullopt};
}

FailureOr<SmallVector<Value>>
Importer::importSubgraph(const Graph &sub, ArrayRef<Binding> inputs,
                         std::string prefix) {
  std::vector<uint32_t> vars = sub.listInputs();
  Scope s;
  s.graph = &sub;
  s.prefix = std::move(prefix);
  if (inputs.size() != vars.size())
    return emitError(UnknownLoc::get(&ctx)) << "internal: " << inputs.size()
                                  << " bindings for a subgraph of " << vars.size()
                                  << " inputs";
  for (auto [i, var] : llvm::enumerate(vars)) {
    if (inputs[i].value)
      s.values[uint64_t(var) << 32] = inputs[i].value;
    else if (inputs[i].topVar)
      s.deferred[var] = *inputs[i].topVar;
    else
      return emitError(UnknownLoc::get(&ctx)) << "internal: subgraph input " << i
                                    << " ('" << sub.nodes[var].name
                                    << "') has no binding";
  }
  Scope *outer = cur;
  cur = &s;
  llvm::scope_exit restore([&] { cur = outer; });

  std::vector<bool> reached = reachedFromHeads(sub);
  for (uint32_t id = 0; id < sub.nodes.size(); ++id)
    if (reached[id] && !sub.nodes[id].isVariable())
      if (failed(importNode(id)))
        return failure();

  SmallVector<Value> results;
  for (const NodeEntry &h : sub.heads) {
    auto it = s.values.find(uint64_t(h.node) << 32 | h.index);
    if (it != s.values.end()) {
      results.push_back(it->second);
      continue;
    }
    auto d = s.deferred.find(h.node);
    auto t = d == s.deferred.end() ? top.values.end()
                                   : top.values.find(uint64_t(d->second) << 32);
    if (t == top.values.end()) {
      std::string var = d == s.deferred.end() ? sub.nodes[h.node].name
                                              : g.nodes[d->second].name;
      return emitError(nodeLoc(h.node))
             << "cannot infer the shape of variable '" << var
             << "' (a subgraph returns it and nothing in the subgraph "
                "consumes it); give it with --shape "
             << var << "=...";
    }
    results.push_back(t->second);
  }
  return results;
}

namespace {
/// MXNet's Tuple<int> spelling of a *_locs attribute: "[0, 2]", "(1,)", "[]".
std::optional<std::vector<int64_t>> parseLocs(StringRef text) {
  text = text.trim();
  if (text.size() < 2 || !((text.front() == '[' && text.back() == ']') ||
                           (text.front() == '(' && text.back() == ')')))
    return std::nullopt;
  SmallVector<StringRef> parts;
  text.drop_front().drop_back().split(parts, ',');
  std::vector<int64_t> out;
  for (StringRef p : parts) {
    p = p.trim();
    if (p.empty())
      continue;
    int64_t v;
    if (p.getAsInteger(10, v))
      return std::nullopt;
    out.push_back(v);
  }
  return out;
}
} // namespace

LogicalResult Importer::importControlFlow(uint32_t id) {
  const Node &n = G().nodes[id];
  Location loc = nodeLoc(id);
  std::string name = cur->prefix + n.name;
  auto intAttr = [&](StringRef key) -> FailureOr<int64_t> {
    auto it = n.attrs.find(key.str());
    int64_t v;
    if (it == n.attrs.end() || StringRef(it->second).trim().getAsInteger(10, v))
      return emitError(loc) << n.op << ": attribute '" << key
                            << "' is missing or not an integer";
    return v;
  };
  auto locsAttr = [&](StringRef key, size_t bound,
                      size_t count) -> FailureOr<std::vector<int64_t>> {
    auto it = n.attrs.find(key.str());
    std::optional<std::vector<int64_t>> v;
    if (it != n.attrs.end())
      v = parseLocs(it->second);
    if (!v)
      return emitError(loc) << n.op << ": attribute '" << key
                            << "' is missing or not a list of integers";
    if (count != size_t(-1) && v->size() != count)
      return emitError(loc) << n.op << ": '" << key << "' has " << v->size()
                            << " entries, expected " << count;
    for (int64_t x : *v)
      if (x < 0 || size_t(x) >= bound)
        return emitError(loc) << n.op << ": '" << key << "' entry " << x
                              << " is out of range [0, " << bound << ")";
    return *v;
  };
  auto subgraphs = [&](size_t count) -> LogicalResult {
    if (n.subgraphs.size() != count)
      return emitError(loc) << n.op << " needs " << count << " subgraph"
                            << (count == 1 ? "" : "s") << ", the node has "
                            << n.subgraphs.size();
    return success();
  };
  SmallVector<Binding> ins;
  for (unsigned k = 0; k < n.inputs.size(); ++k) {
    FailureOr<Binding> b = bindInput(id, k);
    if (failed(b))
      return failure();
    ins.push_back(*b);
  }
  // The value of binding `b` of node input `k`.
  auto bound = [&](const Binding &b, unsigned k) -> FailureOr<Value> {
    if (b.value)
      return b.value;
    // a variable a subgraph has since created (its first consumer there
    // gave its shape)
    if (auto t = top.values.find(uint64_t(*b.topVar) << 32);
        t != top.values.end())
      return t->second;
    return emitError(loc) << "cannot infer the shape of variable '"
                          << g.nodes[*b.topVar].name << "' (input " << k
                          << " of '" << n.name << "'); give it with --shape "
                          << g.nodes[*b.topVar].name << "=...";
  };
  auto valueOf = [&](unsigned k) { return bound(ins[k], k); };
  auto at = [&](StringRef what) {
    return NameLoc::get(StringAttr::get(&ctx, name + "/" + what));
  };
  // The inputs of subgraph `sub` taken from `all` by `locs`.
  auto pick = [&](const std::vector<int64_t> &locs, ArrayRef<Binding> all) {
    SmallVector<Binding> out;
    for (int64_t l : locs)
      out.push_back(all[l]);
    return out;
  };
  // Stacks the steps' values on a new leading axis.
  auto stack = [&](ArrayRef<Value> steps) -> FailureOr<Value> {
    SmallVector<Value> expanded;
    for (Value v : steps) {
      auto e = emitOp(at("stack"), "expand_dims", v, {{"axis", "0"}});
      if (failed(e))
        return failure();
      expanded.push_back((*e)[0]);
    }
    if (expanded.size() == 1)
      return expanded[0];
    auto c = emitOp(at("stack"), "Concat", expanded,
                    {{"num_args", std::to_string(expanded.size())},
                     {"dim", "0"}});
    if (failed(c))
      return failure();
    return (*c)[0];
  };
  // 1 where `pred` is non-zero, else 0, in element type `elt` (MXNet's
  // truth of a condition).
  auto truth = [&](Value pred, Type elt) -> FailureOr<Value> {
    auto m = emitOp(at("mask"), "_not_equal_scalar", pred, {{"scalar", "0"}});
    if (failed(m))
      return failure();
    Value v = (*m)[0];
    if (cast<RankedTensorType>(v.getType()).getElementType() == elt)
      return v;
    auto c = emitOp(at("mask"), "Cast", v,
                    {{"dtype", mx::getMXNetDTypeName(elt).str()}});
    if (failed(c))
      return failure();
    return (*c)[0];
  };
  // truth(pred) (a one-element array) broadcast to `like`.
  auto mask = [&](Value pred, Value like) -> FailureOr<Value> {
    auto pt = cast<RankedTensorType>(pred.getType());
    auto lt = cast<RankedTensorType>(like.getType());
    if (pt.getNumElements() != 1)
      return emitError(loc) << n.op << ": the condition must be one value, "
                            << "it has shape " << shapeStr(pt.getShape());
    FailureOr<Value> t = truth(pred, lt.getElementType());
    if (failed(t))
      return failure();
    Value v = *t;
    std::string ones = "(";
    for (int64_t i = 0; i < lt.getRank(); ++i)
      ones += i ? ", 1" : "1";
    ones += lt.getRank() == 1 ? ",)" : ")";
    auto r = emitOp(at("mask"), "Reshape", v, {{"shape", ones}});
    if (failed(r))
      return failure();
    auto b = emitOp(at("mask"), "broadcast_like", {(*r)[0], like});
    if (failed(b))
      return failure();
    return (*b)[0];
  };
  auto select = [&](Value pred, Value a, Value b) -> FailureOr<Value> {
    if (a.getType() != b.getType())
      return emitError(loc) << n.op << ": the two values selected between "
                            << "differ in shape or type (" << a.getType()
                            << " and " << b.getType() << ")";
    auto m = mask(pred, a);
    if (failed(m))
      return failure();
    auto w = emitOp(at("select"), "where", {*m, a, b});
    if (failed(w))
      return failure();
    return (*w)[0];
  };

  // One step's subgraph, which must give the node's outputs.
  auto step = [&](const Graph &sub, ArrayRef<Binding> inputs,
                  const std::string &prefix) -> FailureOr<SmallVector<Value>> {
    auto r = importSubgraph(sub, inputs, prefix);
    if (failed(r))
      return failure();
    if (r->size() != n.numOutputs)
      return emitError(loc) << n.op << ": the body has " << r->size()
                            << " outputs, the node " << n.numOutputs;
    return r;
  };
  SmallVector<Value> results;
  // Each output's steps stacked, as the node's first outputs.
  auto stackAll = [&](ArrayRef<SmallVector<Value>> outs) -> LogicalResult {
    for (const SmallVector<Value> &steps : outs) {
      auto s = stack(steps);
      if (failed(s))
        return failure();
      results.push_back(*s);
    }
    return success();
  };
  if (n.op == "_foreach") {
    if (failed(subgraphs(1)))
      return failure();
    const Graph &body = n.subgraphs[0];
    size_t numIn = body.listInputs().size();
    if (numIn != n.inputs.size())
      return emitError(loc) << "_foreach: the body has " << numIn
                            << " inputs, the node " << n.inputs.size();
    auto dataLocs = locsAttr("in_data_locs", numIn, -1);
    auto stateLocs = locsAttr("in_state_locs", numIn, -1);
    auto remainLocs = locsAttr("remain_locs", numIn, -1);
    auto numOutData = intAttr("num_out_data");
    if (failed(dataLocs) || failed(stateLocs) || failed(remainLocs) ||
        failed(numOutData))
      return failure();
    {
      // each body input is fed by exactly one of the node's inputs
      std::vector<bool> fed(numIn, false);
      for (const auto *locs : {&*dataLocs, &*stateLocs, &*remainLocs})
        for (int64_t l : *locs) {
          if (fed[l])
            return emitError(loc) << "_foreach: body input " << l
                                  << " is named twice by in_data_locs / "
                                     "in_state_locs / remain_locs";
          fed[l] = true;
        }
    }
    size_t nd = dataLocs->size(), ns = stateLocs->size();
    if (nd == 0 || nd + ns + remainLocs->size() != n.inputs.size() ||
        *numOutData < 0 || size_t(*numOutData) + ns != n.numOutputs)
      return emitError(loc) << "_foreach: " << nd << " data, " << ns
                            << " states and " << remainLocs->size()
                            << " other inputs, " << *numOutData
                            << " outputs per step and " << n.numOutputs
                            << " outputs do not fit its " << n.inputs.size()
                            << " inputs";
    // Each data input cut into its steps (MXNet's NDArray::At: the leading
    // axis dropped, a 1-D array's steps stay (1,)).
    int64_t steps = -1;
    std::vector<SmallVector<Value>> slices(nd);
    for (size_t j = 0; j < nd; ++j) {
      FailureOr<Value> d = valueOf(j);
      if (failed(d))
        return failure();
      auto t = cast<RankedTensorType>(d->getType());
      if (t.getRank() == 0)
        return emitError(loc) << "_foreach: data input " << j
                              << " has no axis to iterate over";
      if (steps >= 0 && t.getDimSize(0) != steps)
        return emitError(loc) << "_foreach: data input " << j << " has "
                              << t.getDimSize(0) << " steps, input 0 has "
                              << steps;
      steps = t.getDimSize(0);
      auto split = emitOp(
          at("data" + std::to_string(j)), "SliceChannel", *d,
          {{"num_outputs", std::to_string(steps)},
           {"axis", "0"},
           {"squeeze_axis", t.getRank() > 1 ? "True" : "False"}});
      if (failed(split))
        return failure();
      slices[j] = *split;
    }
    SmallVector<Binding> states;
    for (size_t j = 0; j < ns; ++j)
      states.push_back(ins[nd + j]);
    std::vector<SmallVector<Value>> outs(*numOutData);
    for (int64_t i = 0; i < steps; ++i) {
      SmallVector<Binding> inner(numIn);
      for (size_t j = 0; j < nd; ++j)
        inner[(*dataLocs)[j]] = Binding{slices[j][i], std::nullopt};
      for (size_t j = 0; j < ns; ++j)
        inner[(*stateLocs)[j]] = states[j];
      for (size_t j = 0; j < remainLocs->size(); ++j)
        inner[(*remainLocs)[j]] = ins[nd + ns + j];
      auto r = step(body, inner, name + "/" + std::to_string(i) + "/");
      if (failed(r))
        return failure();
      for (int64_t k = 0; k < *numOutData; ++k)
        outs[k].push_back((*r)[k]);
      for (size_t j = 0; j < ns; ++j)
        states[j] = Binding{(*r)[*numOutData + j], std::nullopt};
    }
    if (failed(stackAll(outs)))
      return failure();
    for (size_t j = 0; j < ns; ++j)
      results.push_back(states[j].value);
  } else if (n.op == "_while_loop") {
    if (failed(subgraphs(2)))
      return failure();
    const Graph &condG = n.subgraphs[0], &funcG = n.subgraphs[1];
    size_t numCond = condG.listInputs().size();
    size_t numFunc = funcG.listInputs().size();
    auto maxIt = intAttr("max_iterations");
    auto numOutData = intAttr("num_out_data");
    auto condLocs = locsAttr("cond_input_locs", n.inputs.size(), numCond);
    auto funcLocs = locsAttr("func_input_locs", n.inputs.size(), numFunc);
    if (failed(maxIt) || failed(numOutData) || failed(condLocs) ||
        failed(funcLocs))
      return failure();
    if (*numOutData < 0 || size_t(*numOutData) > n.numOutputs)
      return emitError(loc) << "_while_loop: num_out_data " << *numOutData
                            << " with " << n.numOutputs << " outputs";
    size_t nv = n.numOutputs - *numOutData;
    auto varLocs = locsAttr("func_var_locs", numFunc, nv);
    if (failed(varLocs))
      return failure();
    for (size_t j = 0; j < varLocs->size(); ++j)
      for (size_t k = 0; k < j; ++k)
        if ((*varLocs)[j] == (*varLocs)[k])
          return emitError(loc) << "_while_loop: loop variables " << k
                                << " and " << j
                                << " are the same body input in func_var_locs";
    if (*maxIt <= 0)
      return emitError(loc) << "_while_loop: max_iterations must be positive, "
                            << "it is " << *maxIt
                            << " (mxc compiles no zero-size outputs)";
    // The node's inputs as the loop updates them; loop variable j is node
    // input func_input_locs[func_var_locs[j]].
    SmallVector<Binding> live(ins.begin(), ins.end());
    SmallVector<size_t> varInput;
    for (int64_t l : *varLocs)
      varInput.push_back((*funcLocs)[l]);
    auto condition = [&](int64_t step) -> FailureOr<Value> {
      auto c = importSubgraph(condG, pick(*condLocs, live),
                              name + "/cond" + std::to_string(step) + "/");
      if (failed(c))
        return failure();
      if (c->size() != 1)
        return emitError(loc) << "_while_loop: the condition has "
                              << c->size() << " outputs, expected 1";
      auto ct = cast<RankedTensorType>((*c)[0].getType());
      if (ct.getNumElements() != 1)
        return emitError(loc) << "_while_loop: the condition must be one "
                              << "value, it has shape "
                              << shapeStr(ct.getShape()) << " (step "
                              << step << ")";
      return (*c)[0];
    };
    // running: whether every condition so far held (a one-element array).
    FailureOr<Value> running = condition(0);
    if (failed(running))
      return failure();
    std::vector<SmallVector<Value>> outs(*numOutData);
    for (int64_t i = 0; i < *maxIt; ++i) {
      auto r = step(funcG, pick(*funcLocs, live),
                    name + "/" + std::to_string(i) + "/");
      if (failed(r))
        return failure();
      for (int64_t k = 0; k < *numOutData; ++k) {
        Value v = (*r)[k];
        auto z = emitOp(at("zeros"), "zeros_like", v);
        if (failed(z))
          return failure();
        auto s = select(*running, v, (*z)[0]);
        if (failed(s))
          return failure();
        outs[k].push_back(*s);
      }
      for (size_t j = 0; j < nv; ++j) {
        FailureOr<Value> old = bound(live[varInput[j]], varInput[j]);
        if (failed(old))
          return failure();
        auto s = select(*running, (*r)[*numOutData + j], *old);
        if (failed(s))
          return failure();
        live[varInput[j]] = Binding{*s, std::nullopt};
      }
      if (i + 1 == *maxIt)
        break;
      FailureOr<Value> c = condition(i + 1);
      if (failed(c))
        return failure();
      // running && c, as running's type and shape
      FailureOr<Value> holds = truth(
          *c, cast<RankedTensorType>(running->getType()).getElementType());
      if (failed(holds))
        return failure();
      Value h = *holds;
      if (h.getType() != running->getType()) {
        auto rs = emitOp(at("mask"), "reshape_like", {h, *running});
        if (failed(rs))
          return failure();
        h = (*rs)[0];
      }
      auto both = emitOp(at("mask"), "elemwise_mul", {*running, h});
      if (failed(both))
        return failure();
      running = (*both)[0];
    }
    if (failed(stackAll(outs)))
      return failure();
    for (size_t j = 0; j < nv; ++j) {
      FailureOr<Value> v = bound(live[varInput[j]], varInput[j]);
      if (failed(v))
        return failure();
      results.push_back(*v);
    }
  } else { // _cond
    if (failed(subgraphs(3)))
      return failure();
    const Graph &condG = n.subgraphs[0], &thenG = n.subgraphs[1],
                &elseG = n.subgraphs[2];
    auto condLocs =
        locsAttr("cond_input_locs", n.inputs.size(), condG.listInputs().size());
    auto thenLocs =
        locsAttr("then_input_locs", n.inputs.size(), thenG.listInputs().size());
    auto elseLocs =
        locsAttr("else_input_locs", n.inputs.size(), elseG.listInputs().size());
    if (failed(condLocs) || failed(thenLocs) || failed(elseLocs))
      return failure();
    auto c = importSubgraph(condG, pick(*condLocs, ins), name + "/cond/");
    if (failed(c))
      return failure();
    if (c->size() != 1)
      return emitError(loc) << "_cond: the condition has " << c->size()
                            << " outputs, expected 1";
    auto t = importSubgraph(thenG, pick(*thenLocs, ins), name + "/then/");
    if (failed(t))
      return failure();
    auto e = importSubgraph(elseG, pick(*elseLocs, ins), name + "/else/");
    if (failed(e))
      return failure();
    if (t->size() != n.numOutputs || e->size() != n.numOutputs)
      return emitError(loc) << "_cond: the branches have " << t->size()
                            << " and " << e->size() << " outputs, the node "
                            << n.numOutputs;
    for (size_t k = 0; k < n.numOutputs; ++k) {
      auto s = select((*c)[0], (*t)[k], (*e)[k]);
      if (failed(s))
        return failure();
      results.push_back(*s);
    }
  }
  if (results.size() != n.numOutputs)
    return emitError(loc) << n.op << ": " << results.size()
                          << " results for " << n.numOutputs << " outputs";
  for (auto [i, r] : llvm::enumerate(results))
    cur->values[uint64_t(id) << 32 | i] = r;
  return success();
}

OwningOpRef<ModuleOp> Importer::finish() {
  // Heads: each must have a value; a variable head becomes an argument.
  SmallVector<Value> results;
  for (const NodeEntry &h : g.heads) {
    auto it = top.values.find(uint64_t(h.node) << 32 | h.index);
    if (it == top.values.end()) {
      auto v = variables.find(h.node);
      if (v == variables.end() || !v->second.shapeKnown) {
        emitError(nodeLoc(h.node)) << "head '" << g.nodes[h.node].name
                                   << "' output " << h.index << " has no value";
        return nullptr;
      }
      auto arg = createArgument(v->second);
      if (failed(arg))
        return nullptr;
      it = top.values.insert({uint64_t(h.node) << 32, *arg}).first;
    }
    results.push_back(it->second);
  }

  // The function, with its arguments in MXNet's order.
  auto module = ModuleOp::create(UnknownLoc::get(&ctx));
  builder.setInsertionPointToEnd(module.getBody());
  SmallVector<Type> argTypes, resultTypes;
  SmallVector<uint32_t> used;
  for (uint32_t id : argumentOrder)
    if (variables[id].arg) {
      used.push_back(id);
      argTypes.push_back(variables[id].arg.getType());
    }
  for (Value r : results)
    resultTypes.push_back(r.getType());
  auto func =
      func::FuncOp::create(builder, UnknownLoc::get(&ctx), opts.funcName,
                           builder.getFunctionType(argTypes, resultTypes));
  Block *entry = func.addEntryBlock();
  for (auto [i, id] : llvm::enumerate(used)) {
    Variable &v = variables[id];
    const Node &n = g.nodes[id];
    v.arg.replaceAllUsesWith(entry->getArgument(i));
    for (Value &r : results)
      if (r == v.arg)
        r = entry->getArgument(i);
    func.setArgAttr(i, "mx.name", builder.getStringAttr(n.name));
    func.setArgAttr(i, "mx.kind", builder.getStringAttr(v.kind));
    if (!n.attrs.empty()) {
      SmallVector<NamedAttribute> a;
      for (const auto &[k, val] : n.attrs)
        a.push_back(builder.getNamedAttr(k, builder.getStringAttr(val)));
      func.setArgAttr(i, "mx.attrs", builder.getDictionaryAttr(a));
    }
  }
  std::vector<std::string> outNames = g.listOutputs();
  for (size_t i = 0; i < results.size() && i < outNames.size(); ++i)
    func.setResultAttr(i, "mx.name", builder.getStringAttr(outNames[i]));
  entry->getOperations().splice(entry->end(), body->getOperations());
  builder.setInsertionPointToEnd(entry);
  func::ReturnOp::create(builder, UnknownLoc::get(&ctx), results);
  return module;
}

OwningOpRef<ModuleOp> Importer::run() {
  ctx.getOrLoadDialect<mx::MXDialect>();
  ctx.getOrLoadDialect<func::FuncDialect>();
  if (failed(collectVariables()))
    return nullptr;
  std::vector<bool> reached = reachedFromHeads(g);
  for (uint32_t id = 0; id < g.nodes.size(); ++id)
    if (reached[id] && !g.nodes[id].isVariable())
      if (failed(importNode(id)))
        return nullptr;
  return finish();
}

} // namespace

OwningOpRef<ModuleOp> mxc::importGraph(MLIRContext &ctx, const Graph &g,
                                       const ImportOptions &opts) {
  if (llvm::Error err = g.verify()) {
    emitError(UnknownLoc::get(&ctx)) << llvm::toString(std::move(err));
    return nullptr;
  }
  return Importer(ctx, g, opts).run();
}
