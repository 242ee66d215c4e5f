//===- Export.cpp - mx dialect -> MXNet Graph -----------------------------===//
//
// Writes a function of `mx` ops back as an MXNet Graph. Nodes come out in
// nnvm's depth-first post-order from the results (inputs in order), which is
// the order MXNet itself writes, so an imported MXNet file exports to the
// same node list.
//
//===----------------------------------------------------------------------===//
#include "mxc/Compiler/Import.h"
#include "mxc/Dialect/MX/IR/MXOpTable.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace mxc;
using mxc::graph::Graph;
using mxc::graph::Node;
using mxc::graph::NodeEntry;

namespace {

/// The MXNet node name an op carries in its location, if any.
std::optional<std::string> nodeName(Location loc) {
  if (auto name = dyn_cast<NameLoc>(loc))
    return name.getName().str();
  if (auto fused = dyn_cast<FusedLoc>(loc))
    for (Location l : fused.getLocations())
      if (auto n = nodeName(l))
        return n;
  return std::nullopt;
}

class Exporter {
public:
  explicit Exporter(func::FuncOp func) : func(func) {}

  FailureOr<Graph> run() {
    auto ret = dyn_cast<func::ReturnOp>(func.getBody().front().getTerminator());
    if (!ret || !func.getBody().hasOneBlock())
      return func.emitError(
          "expected a single-block function ending in func.return");
    for (Value v : ret.getOperands()) {
      auto e = visit(v);
      if (failed(e))
        return failure();
      g.heads.push_back(*e);
    }
    g.mxnetVersion = 10901;
    return std::move(g);
  }

private:
  FailureOr<NodeEntry> visit(Value root) {
    // Iterative DFS: (op, next operand) frames; arguments are leaves.
    if (auto it = entries.find(root); it != entries.end())
      return it->second;
    if (auto arg = dyn_cast<BlockArgument>(root))
      return emitVariable(arg);
    SmallVector<std::pair<Operation *, unsigned>> stack;
    stack.push_back({root.getDefiningOp(), 0});
    while (!stack.empty()) {
      auto &[op, next] = stack.back();
      if (next < op->getNumOperands()) {
        Value v = op->getOperand(next++);
        if (entries.count(v))
          continue;
        if (auto arg = dyn_cast<BlockArgument>(v)) {
          if (failed(emitVariable(arg)))
            return failure();
          continue;
        }
        Operation *def = v.getDefiningOp();
        if (visiting.contains(def))
          return def->emitError("cycle through this op");
        visiting.insert(def);
        stack.push_back({def, 0});
        continue;
      }
      if (failed(emitOp(op)))
        return failure();
      stack.pop_back();
    }
    return entries.lookup(root);
  }

  FailureOr<NodeEntry> emitVariable(BlockArgument arg) {
    if (arg.getOwner() != &func.getBody().front())
      return emitError(arg.getLoc(),
                       "value is not an argument of the function");
    unsigned i = arg.getArgNumber();
    Node n;
    n.op = "null";
    if (auto name = func.getArgAttrOfType<StringAttr>(i, "mx.name"))
      n.name = name.str();
    else
      n.name = "arg" + std::to_string(i);
    if (auto attrs = func.getArgAttrOfType<DictionaryAttr>(i, "mx.attrs"))
      for (NamedAttribute a : attrs)
        if (auto s = dyn_cast<StringAttr>(a.getValue()))
          n.attrs[a.getName().str()] = s.str();
    uint32_t id = g.nodes.size();
    g.nodes.push_back(std::move(n));
    g.argNodes.push_back(id);
    NodeEntry e{id, 0, 0};
    entries[arg] = e;
    return e;
  }

  LogicalResult emitOp(Operation *op) {
    const mx::OpSpec *spec = mx::lookupMLIROp(op->getName().getStringRef());
    if (!spec)
      return op->emitError("cannot export '")
             << op->getName() << "': not an mx operator";
    Node n;
    if (auto alias = op->getAttrOfType<StringAttr>("mx.mxnet_op"))
      n.op = alias.str();
    else
      n.op = spec->mxnetName;
    if (auto name = nodeName(op->getLoc())) {
      n.name = *name;
    } else {
      // MXNet's NameManager spelling: lower-case op name + per-op counter.
      std::string base = StringRef(spec->mxnetName).lower();
      n.name = base + std::to_string(counters[base]++);
    }
    // Parameters that differ from MXNet's default, as the IR prints them
    // (required ones always; `exportAlways` ones as "None" when absent).
    Builder b(op->getContext());
    for (const mx::AttrSpec &a : spec->attrs) {
      Attribute attr = op->getAttr(a.name);
      if (!attr) {
        if (a.exportAlways)
          n.attrs[a.name] = "None";
        continue;
      }
      if (a.defaultValue) {
        std::string ignored;
        if (attr == mx::parseMXNetAttr(b, a, a.defaultValue, ignored))
          continue;
      }
      n.attrs[a.name] = mx::printMXNetAttr(a, attr);
    }
    if (auto hidden = op->getAttrOfType<DictionaryAttr>("mx.hidden"))
      for (NamedAttribute a : hidden)
        if (auto s = dyn_cast<StringAttr>(a.getValue()))
          n.attrs[a.getName().str()] = s.str();
    for (Value v : op->getOperands())
      n.inputs.push_back(entries.lookup(v));
    n.numOutputs = graph::numOutputsOf(n.op, n.attrs);
    uint32_t id = g.nodes.size();
    g.nodes.push_back(std::move(n));
    for (OpResult r : op->getResults())
      entries[r] = NodeEntry{id, r.getResultNumber(), 0};
    return success();
  }

  func::FuncOp func;
  Graph g;
  llvm::DenseMap<Value, NodeEntry> entries;
  llvm::DenseSet<Operation *> visiting;
  std::map<std::string, unsigned> counters;
};

/// Attributes of node `n` normalised for comparison: every parameter of the
/// operator parsed and printed back (defaults filled in), others verbatim.
std::map<std::string, std::string> normalizedAttrs(Builder &b, const Node &n,
                                                   std::string &why) {
  const mx::OpSpec *spec = n.isVariable() ? nullptr : mx::lookupMXNetOp(n.op);
  if (!spec)
    return n.attrs;
  std::map<std::string, std::string> out;
  for (const auto &[k, v] : n.attrs)
    out[k] = v;
  for (const mx::AttrSpec &a : spec->attrs) {
    auto it = n.attrs.find(a.name);
    const char *text =
        it != n.attrs.end() ? it->second.c_str() : a.defaultValue;
    if (!text) {
      out.erase(a.name);
      continue;
    }
    std::string err;
    Attribute attr = mx::parseMXNetAttr(b, a, text, err);
    if (!attr) {
      why = "node '" + n.name + "': attribute '" + a.name + "': " + err;
      return {};
    }
    if (isa<UnitAttr>(attr))
      out.erase(a.name);
    else
      out[a.name] = mx::printMXNetAttr(a, attr);
  }
  return out;
}

std::string entryStr(const Graph &g, const NodeEntry &e) {
  std::string name = e.node < g.nodes.size() ? g.nodes[e.node].name : "?";
  return "(" + name + ", " + std::to_string(e.index) + ")";
}

} // namespace

FailureOr<Graph> mxc::exportGraph(ModuleOp module, StringRef funcName) {
  auto func = module.lookupSymbol<func::FuncOp>(funcName);
  if (!func)
    return module.emitError("no function named '") << funcName << "'";
  return Exporter(func).run();
}

std::string mxc::diffGraphs(MLIRContext &ctx, const Graph &a, const Graph &b) {
  Builder builder(&ctx);
  std::string out;
  auto note = [&](const std::string &s) {
    if (std::count(out.begin(), out.end(), '\n') < 20)
      out += s + "\n";
  };
  if (a.nodes.size() != b.nodes.size())
    note("node count: " + std::to_string(a.nodes.size()) + " vs " +
         std::to_string(b.nodes.size()));
  auto canonicalOp = [](const Node &n) -> std::string {
    if (n.isVariable())
      return n.op;
    const mx::OpSpec *s = mx::lookupMXNetOp(n.op);
    return s ? s->mxnetName : n.op;
  };
  for (size_t i = 0; i < std::min(a.nodes.size(), b.nodes.size()); ++i) {
    const Node &x = a.nodes[i], &y = b.nodes[i];
    std::string where = "node " + std::to_string(i) + " ('" + x.name + "')";
    if (x.name != y.name)
      note(where + ": name '" + x.name + "' vs '" + y.name + "'");
    if (canonicalOp(x) != canonicalOp(y))
      note(where + ": op " + x.op + " vs " + y.op);
    if (x.inputs.size() != y.inputs.size()) {
      note(where + ": " + std::to_string(x.inputs.size()) + " inputs vs " +
           std::to_string(y.inputs.size()));
    } else {
      for (size_t k = 0; k < x.inputs.size(); ++k)
        if (x.inputs[k].node != y.inputs[k].node ||
            x.inputs[k].index != y.inputs[k].index)
          note(where + ": input " + std::to_string(k) + " " +
               entryStr(a, x.inputs[k]) + " vs " + entryStr(b, y.inputs[k]));
    }
    if (x.subgraphs.size() != y.subgraphs.size())
      note(where + ": " + std::to_string(x.subgraphs.size()) +
           " subgraphs vs " + std::to_string(y.subgraphs.size()));
    else
      for (size_t k = 0; k < x.subgraphs.size(); ++k) {
        std::string sub = diffGraphs(ctx, x.subgraphs[k], y.subgraphs[k]);
        llvm::SmallVector<llvm::StringRef> lines;
        llvm::StringRef(sub).split(lines, '\n', -1, /*KeepEmpty=*/false);
        for (llvm::StringRef l : lines)
          note(where + ": subgraph " + std::to_string(k) + ": " + l.str());
      }
    std::string why;
    auto ax = normalizedAttrs(builder, x, why);
    auto ay = normalizedAttrs(builder, y, why);
    if (!why.empty()) {
      note(why);
      continue;
    }
    for (const auto &[k, v] : ax) {
      auto it = ay.find(k);
      if (it == ay.end())
        note(where + ": attribute " + k + "='" + v + "' only in the first");
      else if (it->second != v)
        note(where + ": attribute " + k + " '" + v + "' vs '" + it->second +
             "'");
    }
    for (const auto &[k, v] : ay)
      if (!ax.count(k))
        note(where + ": attribute " + k + "='" + v + "' only in the second");
  }
  if (a.heads.size() != b.heads.size())
    note("head count: " + std::to_string(a.heads.size()) + " vs " +
         std::to_string(b.heads.size()));
  else
    for (size_t k = 0; k < a.heads.size(); ++k)
      if (a.heads[k].node != b.heads[k].node ||
          a.heads[k].index != b.heads[k].index)
        note("head " + std::to_string(k) + ": " + entryStr(a, a.heads[k]) +
             " vs " + entryStr(b, b.heads[k]));
  if (a.argNodes != b.argNodes)
    note("arg_nodes differ");
  return out;
}
