//===- Graph.h - MXNet's graph data model -----------------------*- C++ -*-===//
//
// The Graph is MXNet's (nnvm's) data model: nodes with an op name, a node
// name, string attributes and inputs `(node, output, version)`, plus the list
// of variable ("arg") nodes and the heads. It is what every front end builds
// and it round-trips MXNet symbol JSON.
//
//===----------------------------------------------------------------------===//
#ifndef MXC_GRAPH_GRAPH_H
#define MXC_GRAPH_GRAPH_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace mxc::graph {

/// One input or head: output `index` of node `node` (an index into
/// Graph::nodes). `version` is nnvm's variable version (0 in practice).
struct NodeEntry {
  uint32_t node = 0;
  uint32_t index = 0;
  uint32_t version = 0;
  bool operator==(const NodeEntry &o) const {
    return node == o.node && index == o.index && version == o.version;
  }
};

struct Graph;

struct Node {
  /// MXNet operator name as written in the file ("Convolution", "_Plus");
  /// "null" for variables.
  std::string op;
  std::string name;
  /// All attributes as MXNet strings: operator parameters ("kernel" ->
  /// "(3, 3)") and hidden attributes in their upgraded `__key__` spelling
  /// ("__lr_mult__" -> "0.2"). Sorted, as MXNet writes them.
  std::map<std::string, std::string> attrs;
  std::vector<NodeEntry> inputs;
  /// Indices of nodes that must run before this one.
  std::vector<uint32_t> controlDeps;
  /// Number of outputs, visible and hidden. Taken from `node_row_ptr` when the
  /// file has it, otherwise from the operator table (1 when unknown).
  uint32_t numOutputs = 1;
  /// The graphs of a control-flow operator (MXNet's `subgraphs`): `_foreach`
  /// its body, `_while_loop` its condition and body, `_cond` its condition
  /// and both branches. Each is a whole graph whose variables, in
  /// `listInputs()` order, the operator's `*_locs` attributes map to the
  /// node's inputs.
  std::vector<Graph> subgraphs;

  bool isVariable() const { return op == "null"; }
};

struct Graph {
  std::vector<Node> nodes;
  /// Indices of the variable nodes, in node order.
  std::vector<uint32_t> argNodes;
  std::vector<NodeEntry> heads;
  /// `attrs.mxnet_version` of the file; files without it are legacy (< 0.9)
  /// and were upgraded on read.
  std::optional<int64_t> mxnetVersion;
  /// attrs.is_np_shape: saved under mx.np_shape() (MXNet 1.6+), where a 0
  /// extent in a shape means zero-size instead of unknown.
  bool isNpShape = false;

  /// Variable names in MXNet's `list_arguments()` order (variables reached
  /// from the heads in depth-first post-order, excluding auxiliary states).
  std::vector<uint32_t> listArguments() const;
  /// Variables used as auxiliary (mutated) inputs, e.g. BatchNorm's
  /// moving_mean / moving_var, in `list_auxiliary_states()` order.
  std::vector<uint32_t> listAuxiliaryStates() const;
  /// Output names as `list_outputs()` gives them ("fc1_output", "softmax_output").
  std::vector<std::string> listOutputs() const;
  /// Nodes reached from the heads in nnvm's DFSVisit order (post-order,
  /// inputs then control dependencies, each node once): the order MXNet
  /// numbers nodes in when it saves a graph.
  std::vector<uint32_t> postOrder() const;
  /// Every variable reached from the heads, arguments and auxiliary states
  /// alike, in depth-first post-order: MXNet's `list_inputs()`, the order in
  /// which a subgraph's inputs are numbered.
  std::vector<uint32_t> listInputs() const;

  /// Structural checks: input and head indices in range, output indices below
  /// each node's output count, no cycle (nodes are topologically ordered),
  /// arg_nodes are variables. The error names the offending node.
  llvm::Error verify() const;
};

/// Whether `op` is one of MXNet's control-flow operators (`_foreach`,
/// `_while_loop`, `_cond`), whose nodes carry subgraphs.
bool isControlFlowOp(llvm::StringRef op);

/// Output count of an MXNet operator given its attributes (all outputs,
/// hidden included: BatchNorm 3, Dropout 2; a control-flow operator its
/// `num_outputs`). 1 for unknown operators.
uint32_t numOutputsOf(llvm::StringRef op,
                      const std::map<std::string, std::string> &attrs);
/// Indices of an operator's inputs that are auxiliary states (BatchNorm: 3, 4).
std::vector<uint32_t> auxInputsOf(llvm::StringRef op);
/// MXNet's input names of an operator (`FListInputNames`: FullyConnected
/// "data", "weight", "bias" unless no_bias). Empty for operators the table
/// does not know.
std::vector<std::string> inputNamesOf(llvm::StringRef op,
                                      const std::map<std::string, std::string> &attrs);
/// Name of output `index` of a node as `list_outputs()` spells its suffix:
/// the operator's `FListOutputNames` entry ("output", "mean", "workspace"),
/// else "output" for a single-output node and "output<index>" otherwise.
/// `numOutputs` is the node's output count (hidden outputs included).
std::string outputNameOf(llvm::StringRef op,
                         const std::map<std::string, std::string> &attrs,
                         uint32_t numOutputs, uint32_t index);
/// Visible output names of an operator ("output"; SoftmaxOutput "output";
/// BatchNorm with output_mean_var: "output", "mean", "var").
std::vector<std::string> outputNamesOf(llvm::StringRef op,
                                       const std::map<std::string, std::string> &attrs);

/// The version MXNet 1.9.1 stamps on the files it writes (MXNET_VERSION).
constexpr int64_t kMXNetVersion = 10901;

/// Reads MXNet symbol JSON in every variant MXNet wrote (see docs/formats.md).
/// Errors name the node (by index and name) or the JSON path at fault.
/// Files older than 1.9.1 get MXNet's upgrade on load (legacy_json_util.cc):
/// hidden keys ("lr_mult", "fc1_weight_lr_mult") become `__key__` attributes,
/// files before 0.9 get the auxiliary-state variables they lacked (inserted
/// right before their consumer, so node indices after it shift), and so on.
llvm::Expected<Graph> readSymbolJSON(llvm::StringRef text);
llvm::Expected<Graph> readSymbolFile(llvm::StringRef path);

/// Writes JSON in the layout MXNet 1.9.1 writes (nodes, arg_nodes,
/// node_row_ptr, heads, attrs.mxnet_version = 10901), byte for byte as dmlc's
/// JSONWriter formats it. Nodes are written in Graph order; arg_nodes is
/// recomputed (every variable, in node order) and node_row_ptr comes from
/// Node::numOutputs.
std::string writeSymbolJSON(const Graph &g);

} // namespace mxc::graph

#endif // MXC_GRAPH_GRAPH_H
