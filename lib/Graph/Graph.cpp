//===- Graph.cpp - MXNet graph model, operator table, checks ----*- C++ -*-===//
//
// The little MXNet knowledge the Graph needs without MLIR: output counts,
// input names, visible outputs and auxiliary inputs of every operator, read
// from the operator table (OpSignatures.inc, generated with the mx dialect by
// scripts/gen_mx_ops.py), plus MXNet's list_arguments /
// list_auxiliary_states / list_outputs and the structural checks.
//
//===----------------------------------------------------------------------===//

#include "mxc/Graph/Graph.h"

#include "Printable.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <optional>

using namespace mxc::graph;
using llvm::StringRef;

namespace {

using Attrs = std::map<std::string, std::string>;

/// How a condition term tests an attribute (see scripts/gen_mx_ops.py,
/// Input.when): a bool true or false, an enum among '|'-separated values or
/// not.
enum class SigTest : uint8_t { True, False, In, NotIn };

/// One term of a condition; `dflt` is the table's default of the attribute
/// (nullptr when MXNet requires it).
struct SigTerm {
  const char *attr;
  const char *dflt;
  SigTest test;
  const char *values;
};

/// One input or output: it exists when every term of `when` holds and is
/// shown (outputs) when every term of `visible` holds. `never`: named but
/// never counted (Pooling's MKL-DNN workspace); `hidden`: never shown.
struct SigSlot {
  const char *name;
  llvm::ArrayRef<SigTerm> when;
  llvm::ArrayRef<SigTerm> visible;
  bool never;
  bool hidden;
};

/// MXNet's signature of an operator, generated from the operator table.
struct OpSignature {
  const char *name;
  llvm::ArrayRef<SigSlot> inputs; ///< empty: no named inputs (Concat)
  llvm::ArrayRef<SigSlot> outputs;
  llvm::ArrayRef<uint32_t> aux;
  bool namedInputs;        ///< FListInputNames gives the inputs above
  bool variadicOutputs;    ///< num_outputs outputs "output0", "output1", ...
  bool defaultOutputNames; ///< no FListOutputNames: "output" / "output<i>"
};

struct SigName {
  const char *name;
  unsigned index;
};

#include "OpSignatures.inc"

/// The signature of an operator by its MXNet name or alias, or nullptr.
const OpSignature *signatureOf(StringRef op) {
  static const llvm::StringMap<const OpSignature *> byName = [] {
    llvm::StringMap<const OpSignature *> m;
    for (const SigName &n : kSignatureNames)
      m[n.name] = &kSignatures[n.index];
    return m;
  }();
  return byName.lookup(op);
}

/// A boolean as dmlc's parser reads it ("True", "true", "1").
std::optional<bool> parseBool(StringRef v) {
  v = v.trim();
  if (v.equals_insensitive("true") || v == "1")
    return true;
  if (v.equals_insensitive("false") || v == "0")
    return false;
  return std::nullopt;
}

/// Whether every term of `cond` holds for `attrs`; an attribute the node
/// does not name takes the table's default.
bool holds(llvm::ArrayRef<SigTerm> cond, const Attrs &attrs) {
  for (const SigTerm &t : cond) {
    auto it = attrs.find(t.attr);
    std::optional<StringRef> value;
    if (it != attrs.end())
      value = StringRef(it->second);
    else if (t.dflt)
      value = StringRef(t.dflt);
    if (t.test == SigTest::True || t.test == SigTest::False) {
      std::optional<bool> b = value ? parseBool(*value) : std::nullopt;
      if (!b && t.dflt)
        b = parseBool(t.dflt);
      if (b.value_or(false) != (t.test == SigTest::True))
        return false;
      continue;
    }
    bool in = false;
    if (value) {
      StringRef v = value->trim().trim('\'').trim('"');
      llvm::SmallVector<StringRef, 4> values;
      StringRef(t.values).split(values, '|');
      in = llvm::is_contained(values, v);
    }
    if (in != (t.test == SigTest::In))
      return false;
  }
  return true;
}

StringRef strAttr(const Attrs &attrs, StringRef key, StringRef dflt) {
  auto it = attrs.find(key.str());
  return it == attrs.end() ? dflt : StringRef(it->second);
}

/// SliceChannel's num_outputs; 1 when missing or not a sane count.
uint32_t sliceOutputs(const Attrs &attrs) {
  unsigned n = 0;
  if (StringRef(strAttr(attrs, "num_outputs", "")).trim().getAsInteger(10, n) ||
      n == 0 || n > (1u << 16))
    return 1;
  return n;
}

/// The output names MXNet's FListOutputNames gives, hidden ones included;
/// empty where the operator has none ("output" / "output<i>" then).
std::vector<std::string> listOutputNames(const OpSignature &sig,
                                         const Attrs &attrs) {
  std::vector<std::string> names;
  if (sig.defaultOutputNames)
    return names;
  for (const SigSlot &s : sig.outputs)
    if (s.never || holds(s.when, attrs))
      names.push_back(s.name);
  return names;
}

/// Nodes reached from the heads in nnvm's DFSVisit order: post-order, inputs
/// first and then control dependencies, each node once. Out-of-range indices
/// are skipped so that this never fails on an unverified graph.
std::vector<uint32_t> dfsPostOrder(const Graph &g) {
  std::vector<uint32_t> order;
  const size_t n = g.nodes.size();
  std::vector<uint8_t> visited(n, 0);
  // (node, next input to look at); inputs then control deps.
  std::vector<std::pair<uint32_t, size_t>> stack;
  auto edgeCount = [&](uint32_t v) {
    return g.nodes[v].inputs.size() + g.nodes[v].controlDeps.size();
  };
  auto edge = [&](uint32_t v, size_t k) -> uint32_t {
    const Node &node = g.nodes[v];
    if (k < node.inputs.size())
      return node.inputs[k].node;
    return node.controlDeps[k - node.inputs.size()];
  };
  for (const NodeEntry &head : g.heads) {
    if (head.node >= n || visited[head.node])
      continue;
    visited[head.node] = 1;
    stack.push_back({head.node, 0});
    while (!stack.empty()) {
      auto &[v, k] = stack.back();
      if (k < edgeCount(v)) {
        uint32_t u = edge(v, k++);
        if (u < n && !visited[u]) {
          visited[u] = 1;
          stack.push_back({u, 0});
        }
        continue;
      }
      order.push_back(v);
      stack.pop_back();
    }
  }
  return order;
}

/// Variables reached from the heads (DFS order), split by whether an
/// operator mutates them (FMutateInputs), as nnvm's Symbol::ListInputs does.
void collectInputs(const Graph &g, std::vector<uint32_t> *readOnly,
                std::vector<uint32_t> *mutated) {
  std::vector<uint32_t> vars;
  std::vector<uint8_t> mutableSet(g.nodes.size(), 0);
  for (uint32_t v : g.postOrder()) {
    const Node &node = g.nodes[v];
    if (node.isVariable()) {
      vars.push_back(v);
      continue;
    }
    for (uint32_t i : auxInputsOf(node.op))
      if (i < node.inputs.size() && node.inputs[i].node < g.nodes.size())
        mutableSet[node.inputs[i].node] = 1;
  }
  for (uint32_t v : vars) {
    if (mutableSet[v]) {
      if (mutated)
        mutated->push_back(v);
    } else if (readOnly) {
      readOnly->push_back(v);
    }
  }
}

/// "node 5 ('fc1')".
std::string nodeLabel(const Graph &g, uint32_t i) {
  return llvm::formatv("node {0} ('{1}')", i, detail::printable(g.nodes[i].name))
      .str();
}

/// Whether `target` is reachable from `from` along inputs and control deps.
bool reaches(const Graph &g, uint32_t from, uint32_t target) {
  const size_t n = g.nodes.size();
  std::vector<uint8_t> seen(n, 0);
  std::vector<uint32_t> work{from};
  seen[from] = 1;
  while (!work.empty()) {
    uint32_t v = work.back();
    work.pop_back();
    if (v == target)
      return true;
    auto visit = [&](uint32_t u) {
      if (u < n && !seen[u]) {
        seen[u] = 1;
        work.push_back(u);
      }
    };
    for (const NodeEntry &e : g.nodes[v].inputs)
      visit(e.node);
    for (uint32_t c : g.nodes[v].controlDeps)
      visit(c);
  }
  return false;
}

/// Checks one edge `what` ("input 0", "control dependency 1") of node `i`
/// pointing at node `j`.
llvm::Error checkEdge(const Graph &g, uint32_t i, const std::string &what,
                      uint32_t j) {
  if (j >= g.nodes.size())
    return llvm::createStringError(
        llvm::formatv("{0}: {1} refers to node {2}, which does not exist",
                      nodeLabel(g, i), what, j)
            .str());
  if (j == i)
    return llvm::createStringError(
        llvm::formatv("{0}: {1} refers to the node itself (a cycle)",
                      nodeLabel(g, i), what)
            .str());
  if (j > i) {
    if (reaches(g, j, i))
      return llvm::createStringError(
          llvm::formatv("{0}: {1} refers to {2}, which depends on this node: "
                        "the graph has a cycle",
                        nodeLabel(g, i), what, nodeLabel(g, j))
              .str());
    return llvm::createStringError(
        llvm::formatv("{0}: {1} refers to {2}, which comes later (a forward "
                      "reference); nodes must be in topological order",
                      nodeLabel(g, i), what, nodeLabel(g, j))
            .str());
  }
  return llvm::Error::success();
}

std::string plural(uint32_t n, StringRef word) {
  return llvm::formatv("{0} {1}{2}", n, word, n == 1 ? "" : "s").str();
}

} // namespace

//===----------------------------------------------------------------------===//
// Operator table
//===----------------------------------------------------------------------===//

bool mxc::graph::isControlFlowOp(StringRef op) {
  return op == "_foreach" || op == "_while_loop" || op == "_cond";
}

uint32_t mxc::graph::numOutputsOf(StringRef op, const Attrs &attrs) {
  if (isControlFlowOp(op)) {
    auto it = attrs.find("num_outputs");
    uint32_t n = 1;
    if (it == attrs.end() || StringRef(it->second).trim().getAsInteger(10, n))
      return 1;
    return n;
  }
  const OpSignature *sig = signatureOf(op);
  if (!sig)
    return 1;
  if (sig->variadicOutputs)
    return sliceOutputs(attrs);
  uint32_t n = 0;
  for (const SigSlot &s : sig->outputs)
    n += !s.never && holds(s.when, attrs);
  return n;
}

std::vector<uint32_t> mxc::graph::auxInputsOf(StringRef op) {
  const OpSignature *sig = signatureOf(op);
  if (!sig)
    return {};
  return std::vector<uint32_t>(sig->aux.begin(), sig->aux.end());
}

std::vector<std::string> mxc::graph::inputNamesOf(StringRef op,
                                                  const Attrs &attrs) {
  const OpSignature *sig = signatureOf(op);
  std::vector<std::string> names;
  if (!sig || !sig->namedInputs)
    return names;
  for (const SigSlot &s : sig->inputs)
    if (holds(s.when, attrs))
      names.push_back(s.name);
  return names;
}

std::vector<std::string> mxc::graph::outputNamesOf(StringRef op,
                                                   const Attrs &attrs) {
  const OpSignature *sig = signatureOf(op);
  uint32_t n = numOutputsOf(op, attrs);
  std::vector<std::string> names;
  if (!sig || sig->variadicOutputs) {
    for (uint32_t i = 0; i < n; ++i)
      names.push_back(outputNameOf(op, attrs, n, i));
    return names;
  }
  uint32_t index = 0; // the output's index among the node's outputs
  for (const SigSlot &s : sig->outputs) {
    if (s.never || !holds(s.when, attrs))
      continue;
    if (!s.hidden && holds(s.visible, attrs))
      names.push_back(outputNameOf(op, attrs, n, index));
    ++index;
  }
  return names;
}

std::string mxc::graph::outputNameOf(StringRef op, const Attrs &attrs,
                                     uint32_t numOutputs, uint32_t index) {
  const OpSignature *sig = signatureOf(op);
  if (sig && sig->variadicOutputs)
    return sig->outputs[0].name + std::to_string(index);
  std::vector<std::string> names;
  if (sig)
    names = listOutputNames(*sig, attrs);
  if (index < names.size())
    return names[index];
  if (names.empty() && numOutputs == 1)
    return "output";
  return "output" + std::to_string(index);
}

//===----------------------------------------------------------------------===//
// Graph
//===----------------------------------------------------------------------===//

std::vector<uint32_t> Graph::postOrder() const { return dfsPostOrder(*this); }

std::vector<uint32_t> Graph::listArguments() const {
  std::vector<uint32_t> args;
  collectInputs(*this, &args, nullptr);
  return args;
}

std::vector<uint32_t> Graph::listInputs() const {
  std::vector<uint32_t> vars;
  for (uint32_t v : postOrder())
    if (nodes[v].isVariable())
      vars.push_back(v);
  return vars;
}

std::vector<uint32_t> Graph::listAuxiliaryStates() const {
  std::vector<uint32_t> aux;
  collectInputs(*this, nullptr, &aux);
  return aux;
}

std::vector<std::string> Graph::listOutputs() const {
  std::vector<std::string> names;
  for (const NodeEntry &head : heads) {
    if (head.node >= nodes.size()) {
      names.push_back("");
      continue;
    }
    const Node &node = nodes[head.node];
    if (node.isVariable()) {
      names.push_back(node.name);
      continue;
    }
    std::string out =
        outputNameOf(node.op, node.attrs, node.numOutputs, head.index);
    names.push_back(node.name.empty() ? out : node.name + "_" + out);
  }
  return names;
}

llvm::Error Graph::verify() const {
  for (uint32_t i = 0; i < nodes.size(); ++i) {
    const Node &node = nodes[i];
    if (node.isVariable() && !node.inputs.empty())
      return llvm::createStringError(
          llvm::formatv("{0}: a variable cannot have inputs (it has {1})",
                        nodeLabel(*this, i), node.inputs.size())
              .str());
    for (size_t k = 0; k < node.inputs.size(); ++k) {
      const NodeEntry &e = node.inputs[k];
      std::string what = "input " + std::to_string(k);
      if (llvm::Error err = checkEdge(*this, i, what, e.node))
        return err;
      const Node &src = nodes[e.node];
      if (e.index >= src.numOutputs)
        return llvm::createStringError(
            llvm::formatv("{0}: {1} refers to output {2} of {3}, which has {4}",
                          nodeLabel(*this, i), what, e.index,
                          nodeLabel(*this, e.node),
                          plural(src.numOutputs, "output"))
                .str());
    }
    for (size_t k = 0; k < node.controlDeps.size(); ++k)
      if (llvm::Error err =
              checkEdge(*this, i, "control dependency " + std::to_string(k),
                        node.controlDeps[k]))
        return err;
    for (size_t k = 0; k < node.subgraphs.size(); ++k)
      if (llvm::Error err = node.subgraphs[k].verify())
        return llvm::createStringError(
            llvm::formatv("{0}: subgraph {1}: {2}", nodeLabel(*this, i), k,
                          llvm::toString(std::move(err)))
                .str());
  }
  for (size_t h = 0; h < heads.size(); ++h) {
    const NodeEntry &e = heads[h];
    if (e.node >= nodes.size())
      return llvm::createStringError(
          llvm::formatv("head {0} refers to node {1}, which does not exist", h,
                        e.node)
              .str());
    if (e.index >= nodes[e.node].numOutputs)
      return llvm::createStringError(
          llvm::formatv("head {0} refers to output {1} of {2}, which has {3}",
                        h, e.index, nodeLabel(*this, e.node),
                        plural(nodes[e.node].numOutputs, "output"))
              .str());
  }
  for (size_t a = 0; a < argNodes.size(); ++a) {
    uint32_t v = argNodes[a];
    if (v >= nodes.size())
      return llvm::createStringError(
          llvm::formatv("arg_nodes[{0}] refers to node {1}, which does not "
                        "exist",
                        a, v)
              .str());
    if (!nodes[v].isVariable())
      return llvm::createStringError(
          llvm::formatv("arg_nodes[{0}]: {1} is not a variable (op '{2}')", a,
                        nodeLabel(*this, v),
                        detail::printable(nodes[v].op))
              .str());
  }
  return llvm::Error::success();
}
