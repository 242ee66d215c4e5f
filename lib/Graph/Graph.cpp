//===- Graph.cpp - MXNet graph model, operator table, checks ----*- C++ -*-===//
//
// The little MXNet knowledge the Graph needs without MLIR: output counts,
// input names and auxiliary inputs of the operators where they are not "one
// output, no aux", plus MXNet's list_arguments / list_auxiliary_states /
// list_outputs and the structural checks.
//
//===----------------------------------------------------------------------===//

#include "mxc/Graph/Graph.h"

#include "Printable.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>

using namespace mxc::graph;
using llvm::StringRef;

namespace {

using Attrs = std::map<std::string, std::string>;

/// The operator families the table knows.
enum class OpKind {
  Unknown,
  BatchNorm, // BatchNorm, BatchNorm_v1, _contrib_SyncBatchNorm, CuDNNBatchNorm
  Dropout,
  LRN, // output and the hidden tmp_norm
  LeakyReLU,
  Pooling,
  FullyConnected,
  Convolution,
  Deconvolution,
  SoftmaxOutput, // and the *RegressionOutput / SVMOutput losses: data, label
  Embedding,
  SliceChannel, // num_outputs outputs "output0", "output1", ...
  Softmax, // "data", and "length" with use_length
  DataOnly, // one input called "data", one output called "output"
  LayerNorm, // LayerNorm, GroupNorm: output, mean, std (output_mean_var)
  InstanceNorm, // output and the hidden mean, var
  L2Normalization, // output and the hidden norm
  Moments, // mean and var, named output0, output1
  RNN, // data, parameters, state[, state_cell][, sequence_length]; output
       // and, with state_outputs, state_output[, statecell_output]
  CTCLoss, // data, label[, data_lengths][, label_lengths]
  Sequence, // SequenceMask / Last / Reverse: data[, sequence_length]
  TopK, // topk: output and, for ret_typ value / both, indices (hidden for
        // value)
  Sort, // sort: output and the hidden indices
  BilinearResize, // data, and like with mode 'like'
  BoxEncode, // _contrib_box_encode: six inputs; output0 (targets), output1 (masks)
  Histogram, // _histogram: data[, bins without bin_cnt]; counts and edges
  ROIPooling, // data, rois; output and the hidden maxidx
};

OpKind kindOf(StringRef op) {
  return llvm::StringSwitch<OpKind>(op)
      .Cases({"BatchNorm", "BatchNorm_v1", "_contrib_SyncBatchNorm",
              "CuDNNBatchNorm"},
             OpKind::BatchNorm)
      .Case("Dropout", OpKind::Dropout)
      .Case("LRN", OpKind::LRN)
      .Case("LeakyReLU", OpKind::LeakyReLU)
      .Case("Pooling", OpKind::Pooling)
      .Case("FullyConnected", OpKind::FullyConnected)
      .Case("Convolution", OpKind::Convolution)
      .Case("Deconvolution", OpKind::Deconvolution)
      .Cases({"SoftmaxOutput", "LinearRegressionOutput",
              "LogisticRegressionOutput", "MAERegressionOutput", "SVMOutput"},
             OpKind::SoftmaxOutput)
      .Case("Embedding", OpKind::Embedding)
      .Cases({"SliceChannel", "split"}, OpKind::SliceChannel)
      .Case("softmax", OpKind::Softmax)
      .Cases({"Activation", "Flatten", "log_softmax"}, OpKind::DataOnly)
      .Cases({"LayerNorm", "GroupNorm"}, OpKind::LayerNorm)
      .Case("InstanceNorm", OpKind::InstanceNorm)
      .Case("L2Normalization", OpKind::L2Normalization)
      .Case("moments", OpKind::Moments)
      .Cases({"RNN", "_npx_rnn"}, OpKind::RNN)
      .Cases({"CTCLoss", "ctc_loss", "_contrib_CTCLoss", "_contrib_ctc_loss"},
             OpKind::CTCLoss)
      .Cases({"SequenceMask", "SequenceLast", "SequenceReverse"},
             OpKind::Sequence)
      .Cases({"topk", "_npx_topk"}, OpKind::TopK)
      .Cases({"sort", "_npi_sort"}, OpKind::Sort)
      .Case("_contrib_BilinearResize2D", OpKind::BilinearResize)
      .Case("_contrib_box_encode", OpKind::BoxEncode)
      .Cases({"_histogram", "_npi_histogram"}, OpKind::Histogram)
      .Case("ROIPooling", OpKind::ROIPooling)
      .Default(OpKind::Unknown);
}

/// A boolean parameter as dmlc's parser reads it ("True", "true", "1").
bool boolAttr(const Attrs &attrs, StringRef key, bool dflt) {
  auto it = attrs.find(key.str());
  if (it == attrs.end())
    return dflt;
  StringRef v = StringRef(it->second).trim();
  if (v.equals_insensitive("true") || v == "1")
    return true;
  if (v.equals_insensitive("false") || v == "0")
    return false;
  return dflt;
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

/// topk's ret_typ as dmlc's enum parser reads it (default "indices").
StringRef topkRetTyp(const Attrs &attrs) {
  return strAttr(attrs, "ret_typ", "indices").trim().trim('\'').trim('"');
}

bool isRReLU(const Attrs &attrs) {
  return strAttr(attrs, "act_type", "leaky").trim().trim('\'').trim('"') ==
         "rrelu";
}

bool isLSTM(const Attrs &attrs) {
  return strAttr(attrs, "mode", "").trim().trim('\'').trim('"') == "lstm";
}

bool isPReLU(const Attrs &attrs) {
  return strAttr(attrs, "act_type", "leaky").trim().trim('\'').trim('"') ==
         "prelu";
}

/// All output names of an operator from its FListOutputNames, hidden ones
/// included; empty when MXNet's operator has no such list.
std::vector<std::string> listOutputNames(OpKind kind, const Attrs &attrs,
                                         uint32_t numOutputs) {
  switch (kind) {
  case OpKind::BatchNorm:
    return {"output", "mean", "var"};
  case OpKind::Dropout:
    return {"output", "mask"};
  case OpKind::LRN:
    return {"output", "tmp_norm"};
  case OpKind::LayerNorm:
    return {"output", "mean", "std"};
  case OpKind::InstanceNorm:
    return {"output", "mean", "var"};
  case OpKind::L2Normalization:
    return {"output", "norm"};
  case OpKind::ROIPooling:
    return {"output", "maxidx"};
  case OpKind::LeakyReLU:
    if (isRReLU(attrs))
      return {"output", "mask"};
    return {"output"};
  case OpKind::RNN: // ListRnnOutputNames
    if (!boolAttr(attrs, "state_outputs", false))
      return {"output"};
    if (isLSTM(attrs))
      return {"output", "state_output", "statecell_output"};
    return {"output", "state_output"};
  case OpKind::Pooling:
    // Two outputs only in MKL-DNN builds (the workspace of max pooling).
    if (numOutputs == 2)
      return {"output", "workspace"};
    return {"output"};
  case OpKind::FullyConnected:
  case OpKind::Convolution:
  case OpKind::Deconvolution:
  case OpKind::SoftmaxOutput:
    return {"output"};
  default:
    return {};
  }
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
void listInputs(const Graph &g, std::vector<uint32_t> *readOnly,
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

uint32_t mxc::graph::numOutputsOf(StringRef op, const Attrs &attrs) {
  switch (kindOf(op)) {
  case OpKind::BatchNorm:
  case OpKind::LayerNorm:
  case OpKind::InstanceNorm:
    return 3;
  case OpKind::Dropout:
  case OpKind::LRN:
  case OpKind::L2Normalization:
  case OpKind::Moments:
  case OpKind::BoxEncode:
  case OpKind::Histogram:
  case OpKind::ROIPooling:
    return 2;
  case OpKind::LeakyReLU:
    return isRReLU(attrs) ? 2 : 1;
  case OpKind::SliceChannel:
    return sliceOutputs(attrs);
  case OpKind::TopK: { // ordering_op.cc TopKNumOutputs
    StringRef ret = topkRetTyp(attrs);
    return ret == "value" || ret == "both" ? 2 : 1;
  }
  case OpKind::Sort:
    return 2;
  case OpKind::RNN: // rnn.cc set_num_outputs
    if (!boolAttr(attrs, "state_outputs", false))
      return 1;
    return isLSTM(attrs) ? 3 : 2;
  default:
    return 1;
  }
}

std::vector<uint32_t> mxc::graph::auxInputsOf(StringRef op) {
  if (kindOf(op) == OpKind::BatchNorm)
    return {3, 4};
  return {};
}

std::vector<std::string> mxc::graph::inputNamesOf(StringRef op,
                                                  const Attrs &attrs) {
  switch (kindOf(op)) {
  case OpKind::BatchNorm:
    return {"data", "gamma", "beta", "moving_mean", "moving_var"};
  case OpKind::LeakyReLU:
    if (isPReLU(attrs))
      return {"data", "gamma"};
    return {"data"};
  case OpKind::FullyConnected:
  case OpKind::Convolution:
    if (boolAttr(attrs, "no_bias", false))
      return {"data", "weight"};
    return {"data", "weight", "bias"};
  case OpKind::Deconvolution:
    if (boolAttr(attrs, "no_bias", true))
      return {"data", "weight"};
    return {"data", "weight", "bias"};
  case OpKind::SoftmaxOutput:
    return {"data", "label"};
  case OpKind::Embedding:
    return {"data", "weight"};
  case OpKind::Softmax:
    if (boolAttr(attrs, "use_length", false))
      return {"data", "length"};
    return {"data"};
  case OpKind::Sequence:
    if (boolAttr(attrs, "use_sequence_length", false))
      return {"data", "sequence_length"};
    return {"data"};
  case OpKind::BoxEncode:
    return {"samples", "matches", "anchors", "refs", "means", "stds"};
  case OpKind::ROIPooling:
    return {"data", "rois"};
  case OpKind::Histogram: // histogram.cc FListInputNames
    if (attrs.count("bin_cnt") && strAttr(attrs, "bin_cnt", "None").trim() != "None")
      return {"data"};
    return {"data", "bins"};
  case OpKind::BilinearResize: // BilinearSampleOpNumInputs
    if (strAttr(attrs, "mode", "size").trim().trim('\'').trim('"') == "like")
      return {"data", "like"};
    return {"data"};
  case OpKind::Dropout:
  case OpKind::LRN:
  case OpKind::Pooling:
  case OpKind::SliceChannel:
  case OpKind::DataOnly:
  case OpKind::TopK:
  case OpKind::Sort:
  case OpKind::L2Normalization:
  case OpKind::Moments:
    return {"data"};
  case OpKind::LayerNorm:
  case OpKind::InstanceNorm:
    return {"data", "gamma", "beta"};
  case OpKind::CTCLoss: { // CTCLossOpListInputNames
    std::vector<std::string> names{"data", "label"};
    if (boolAttr(attrs, "use_data_lengths", false))
      names.push_back("data_lengths");
    if (boolAttr(attrs, "use_label_lengths", false))
      names.push_back("label_lengths");
    return names;
  }
  case OpKind::RNN: { // ListRnnInputNames
    std::vector<std::string> names{"data", "parameters", "state"};
    if (isLSTM(attrs))
      names.push_back("state_cell");
    if (boolAttr(attrs, "use_sequence_length", false))
      names.push_back("sequence_length");
    return names;
  }
  case OpKind::Unknown:
    return {};
  }
  return {};
}

std::vector<std::string> mxc::graph::outputNamesOf(StringRef op,
                                                   const Attrs &attrs) {
  OpKind kind = kindOf(op);
  switch (kind) {
  case OpKind::BatchNorm:
    if (boolAttr(attrs, "output_mean_var", false))
      return {"output", "mean", "var"};
    return {"output"};
  case OpKind::LayerNorm:
    if (boolAttr(attrs, "output_mean_var", false))
      return {"output", "mean", "std"};
    return {"output"};
  case OpKind::Dropout:
  case OpKind::LRN:
  case OpKind::Pooling:
  case OpKind::InstanceNorm:
  case OpKind::L2Normalization:
  case OpKind::ROIPooling:
    return {"output"};
  case OpKind::Sort: // one of two outputs visible
    return {"output0"};
  case OpKind::TopK: // TopKNumVisibleOutputs: both results only for "both"
    if (topkRetTyp(attrs) == "value")
      return {"output0"};
    break;
  default:
    break;
  }
  uint32_t n = numOutputsOf(op, attrs);
  std::vector<std::string> names;
  for (uint32_t i = 0; i < n; ++i)
    names.push_back(outputNameOf(op, attrs, n, i));
  return names;
}

std::string mxc::graph::outputNameOf(StringRef op, const Attrs &attrs,
                                     uint32_t numOutputs, uint32_t index) {
  OpKind kind = kindOf(op);
  if (kind == OpKind::SliceChannel)
    return "output" + std::to_string(index);
  std::vector<std::string> names = listOutputNames(kind, attrs, numOutputs);
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
  listInputs(*this, &args, nullptr);
  return args;
}

std::vector<uint32_t> Graph::listAuxiliaryStates() const {
  std::vector<uint32_t> aux;
  listInputs(*this, nullptr, &aux);
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
