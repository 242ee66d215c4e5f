//===- Import.cpp - MXNet Graph -> mx dialect -----------------------------===//
//
// Builds `func.func @main` from a Graph: variables become function arguments
// (data inputs, parameters, auxiliary states), every other node one `mx` op
// created through the op table, with result types inferred by the op itself.
// Parameter shapes that the user did not give are inferred from the op that
// consumes them, as MXNet's backward shape inference does.
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
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
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

/// Everything the importer knows about one variable node.
struct Variable {
  uint32_t node = 0;
  StringRef kind;             // "data", "param", "aux"
  std::vector<int64_t> shape; // empty until known
  bool shapeKnown = false;
  Type elementType;
  BlockArgument arg; // set once created
};

class Importer {
public:
  Importer(MLIRContext &ctx, const Graph &g, const ImportOptions &opts)
      : ctx(ctx), g(g), opts(opts), builder(&ctx) {}

  OwningOpRef<ModuleOp> run();

private:
  Location nodeLoc(uint32_t node) {
    return NameLoc::get(StringAttr::get(&ctx, g.nodes[node].name));
  }
  InFlightDiagnostic error(uint32_t node) { return emitError(nodeLoc(node)); }
  LogicalResult collectVariables();
  LogicalResult importNode(uint32_t id);
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
  llvm::DenseMap<uint64_t, Value> values; // (node << 32 | output) -> value
  std::map<std::string, const graph::NDArrayData *> params;
};

std::optional<std::vector<int64_t>>
Importer::inferVariableShape(uint32_t id, unsigned i, const mx::OpSpec *spec,
                             ArrayRef<Value> earlier) {
  const Node &n = g.nodes[id];
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
  for (int64_t d : v.shape)
    if (d <= 0)
      return error(v.node) << "variable '" << g.nodes[v.node].name
                           << "' has shape " << shapeStr(v.shape)
                           << " with a non-positive dimension";
  v.arg = body->addArgument(RankedTensorType::get(v.shape, v.elementType),
                            nodeLoc(v.node));
  return v.arg;
}

FailureOr<Value> Importer::inputValue(uint32_t id, unsigned i,
                                      const mx::OpSpec *spec,
                                      ArrayRef<Value> earlier) {
  const NodeEntry &e = g.nodes[id].inputs[i];
  if (auto it = values.find(uint64_t(e.node) << 32 | e.index);
      it != values.end())
    return it->second;
  auto vit = variables.find(e.node);
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
                       << g.nodes[e.node].name << "' (input " << i
                       << (input.empty() ? "" : " '" + input.str() + "'")
                       << " of '" << g.nodes[id].name
                       << "'); give it with --shape " << g.nodes[e.node].name
                       << "=...";
    }
    v.shape = *shape;
    v.shapeKnown = true;
  }
  auto arg = createArgument(v);
  if (failed(arg))
    return failure();
  values[uint64_t(e.node) << 32] = *arg;
  return Value(*arg);
}

LogicalResult Importer::importNode(uint32_t id) {
  const Node &n = g.nodes[id];
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
    values[uint64_t(id) << 32 | i] = r;
  return success();
}

OwningOpRef<ModuleOp> Importer::finish() {
  // Heads: each must have a value; a variable head becomes an argument.
  SmallVector<Value> results;
  for (const NodeEntry &h : g.heads) {
    auto it = values.find(uint64_t(h.node) << 32 | h.index);
    if (it == values.end()) {
      auto v = variables.find(h.node);
      if (v == variables.end() || !v->second.shapeKnown) {
        emitError(nodeLoc(h.node)) << "head '" << g.nodes[h.node].name
                                   << "' output " << h.index << " has no value";
        return nullptr;
      }
      auto arg = createArgument(v->second);
      if (failed(arg))
        return nullptr;
      it = values.insert({uint64_t(h.node) << 32, *arg}).first;
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
  // Only what the heads reach is imported (nnvm builds the graph from them).
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
