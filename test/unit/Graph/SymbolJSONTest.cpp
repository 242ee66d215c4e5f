//===- SymbolJSONTest.cpp - MXNet symbol JSON reader and writer -----------===//
//
// The expected values (argument order, upgraded attributes, bytes written)
// come from MXNet 1.9.1 itself: test/Inputs/mxnet-files/*.mxnet-1.9.1.json
// are its `mx.sym.load(f).tojson()` (make_resaved.py there).
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

#include "mxc/Graph/Graph.h"

using namespace mxc::graph;
using namespace mxc::test;
using Strings = std::vector<std::string>;

namespace {

Graph load(llvm::StringRef rel) {
  return take(readSymbolFile(inputPath("mxnet-files/" + rel.str())));
}

Strings namesOf(const Graph &g, const std::vector<uint32_t> &ids) {
  Strings out;
  for (uint32_t i : ids)
    out.push_back(g.nodes[i].name);
  return out;
}

/// Index of the node called `name` (fails the test when there is none).
uint32_t find(const Graph &g, llvm::StringRef name) {
  for (uint32_t i = 0; i < g.nodes.size(); ++i)
    if (g.nodes[i].name == name)
      return i;
  ADD_FAILURE() << "no node " << name.str();
  return 0;
}

using AttrMap = std::map<std::string, std::string>;

void expectSameGraph(const Graph &a, const Graph &b) {
  ASSERT_EQ(a.nodes.size(), b.nodes.size());
  for (size_t i = 0; i < a.nodes.size(); ++i) {
    SCOPED_TRACE("node " + std::to_string(i));
    EXPECT_EQ(a.nodes[i].op, b.nodes[i].op);
    EXPECT_EQ(a.nodes[i].name, b.nodes[i].name);
    EXPECT_EQ(a.nodes[i].attrs, b.nodes[i].attrs);
    EXPECT_EQ(a.nodes[i].inputs, b.nodes[i].inputs);
    EXPECT_EQ(a.nodes[i].controlDeps, b.nodes[i].controlDeps);
    EXPECT_EQ(a.nodes[i].numOutputs, b.nodes[i].numOutputs);
  }
  EXPECT_EQ(a.argNodes, b.argNodes);
  EXPECT_EQ(a.heads, b.heads);
}

std::string readError(llvm::StringRef json) {
  return errorOf(readSymbolJSON(json));
}

} // namespace

//===----------------------------------------------------------------------===//
// Real MXNet files
//===----------------------------------------------------------------------===//

TEST(SymbolJSON, MlpFile) {
  Graph g = load("mlp-symbol.json");
  ASSERT_EQ(g.nodes.size(), 14u);
  EXPECT_EQ(g.mxnetVersion, std::optional<int64_t>(10400));
  EXPECT_EQ(g.nodes[3].op, "FullyConnected");
  EXPECT_EQ(g.nodes[3].attrs, (AttrMap{{"num_hidden", "128"}}));
  EXPECT_EQ(g.nodes[3].inputs[1], (NodeEntry{1, 0, 0}));
  EXPECT_EQ(g.argNodes, (std::vector<uint32_t>{0, 1, 2, 5, 6, 9, 10, 12}));
  ASSERT_EQ(g.heads.size(), 1u);
  EXPECT_EQ(g.heads[0], (NodeEntry{13, 0, 0}));
  EXPECT_EQ(namesOf(g, g.listArguments()),
            (Strings{"data", "fc1_weight", "fc1_bias", "fc2_weight", "fc2_bias",
                     "fc3_weight", "fc3_bias", "softmax_label"}));
  EXPECT_TRUE(g.listAuxiliaryStates().empty());
  EXPECT_EQ(g.listOutputs(), (Strings{"softmax_output"}));
}

TEST(SymbolJSON, VggLikeHasHiddenPoolingOutputs) {
  Graph g = load("vgg_like_model1.json");
  ASSERT_EQ(g.nodes.size(), 73u);
  EXPECT_EQ(g.mxnetVersion, std::optional<int64_t>(10200));
  unsigned hidden = 0;
  for (const Node &n : g.nodes) {
    if (n.op == "Pooling" && n.attrs.count("global_pool") == 0) {
      // MKL-DNN max pooling's workspace: node_row_ptr jumps by 2.
      ++hidden;
      EXPECT_EQ(n.numOutputs, 2u) << n.name;
    } else {
      EXPECT_EQ(n.numOutputs, 1u) << n.name;
    }
  }
  EXPECT_EQ(hidden, 5u);
  // Weight variables carry copies of their operator's attributes.
  EXPECT_EQ(g.nodes[1].name, "conv1_1_weight");
  EXPECT_EQ(g.nodes[1].attrs.at("kernel"), "(3, 3)");
  Strings args = namesOf(g, g.listArguments());
  Strings expected{"data"};
  for (const char *conv : {"conv1_1", "conv1_2", "conv2_1", "conv2_2",
                           "conv3_1", "conv3_2", "conv3_3", "conv4_1",
                           "conv4_2", "conv4_3", "conv5_1", "conv5_2",
                           "conv5_3", "fc6", "fc7", "fc8"}) {
    expected.push_back(std::string(conv) + "_weight");
    expected.push_back(std::string(conv) + "_bias");
  }
  expected.push_back("softmax_label");
  EXPECT_EQ(args, expected);
  EXPECT_TRUE(g.listAuxiliaryStates().empty());
  EXPECT_EQ(g.listOutputs(), (Strings{"softmax_output"}));
}

TEST(SymbolJSON, Save000800IsUpgradedLikeMXNet) {
  Graph g = load("save_000800.json");
  EXPECT_FALSE(g.mxnetVersion.has_value());
  // 17 nodes in the file + BatchNorm's moving_mean / moving_var, which 0.8
  // did not store; they go right before batchnorm0.
  ASSERT_EQ(g.nodes.size(), 19u);
  EXPECT_EQ(g.nodes[14].name, "batchnorm0_moving_mean");
  EXPECT_EQ(g.nodes[15].name, "batchnorm0_moving_var");
  EXPECT_EQ(g.nodes[16].name, "batchnorm0");
  ASSERT_EQ(g.nodes[16].inputs.size(), 5u);
  EXPECT_EQ(g.nodes[16].inputs[3], (NodeEntry{14, 0, 0}));
  EXPECT_EQ(g.nodes[16].numOutputs, 3u);
  EXPECT_EQ(g.nodes[18].inputs[0], (NodeEntry{16, 0, 0}));
  EXPECT_EQ(g.heads[0], (NodeEntry{18, 0, 0}));
  EXPECT_EQ(g.argNodes,
            (std::vector<uint32_t>{0, 1, 2, 5, 6, 9, 10, 12, 13, 14, 15, 17}));

  // Hidden keys: exact ones become __key__, "weight_lr_mult" on fc1 moves to
  // its weight variable, the variables keep their own "weight_lr_mult".
  EXPECT_EQ(g.nodes[find(g, "data")].attrs,
            (AttrMap{{"__ctx_group__", "stage1"}, {"__lr_mult__", "0.2"}}));
  EXPECT_EQ(g.nodes[find(g, "fc1_weight")].attrs,
            (AttrMap{{"__ctx_group__", "stage1"},
                     {"__lr_mult__", "1.2"},
                     {"__wd_mult__", "0.3"},
                     {"weight_lr_mult", "1.2"}}));
  EXPECT_EQ(g.nodes[find(g, "fc1_bias")].attrs,
            (AttrMap{{"__ctx_group__", "stage1"},
                     {"__wd_mult__", "0.3"},
                     {"weight_lr_mult", "1.2"}}));
  EXPECT_EQ(g.nodes[find(g, "fc1")].attrs,
            (AttrMap{{"__ctx_group__", "stage1"},
                     {"__wd_mult__", "0.3"},
                     {"no_bias", "False"},
                     {"num_hidden", "128"}}));
  EXPECT_EQ(g.nodes[find(g, "fc2")].attrs.at("__lr_mult__"), "0.01");
  // The added variables copy the operator's attributes and get the
  // initializer BatchNorm sets on compose.
  EXPECT_EQ(g.nodes[14].attrs,
            (AttrMap{{"__ctx_group__", "stage2"},
                     {"__init__", "[\"zero\", {}]"},
                     {"eps", "0.001"},
                     {"fix_gamma", "True"},
                     {"momentum", "0.9"},
                     {"use_global_stats", "False"}}));
  EXPECT_EQ(g.nodes[15].attrs.at("__init__"), "[\"one\", {}]");

  EXPECT_EQ(namesOf(g, g.listArguments()),
            (Strings{"data", "fc1_weight", "fc1_bias", "fc2_weight",
                     "fc2_bias", "fc3_weight", "fc3_bias", "batchnorm0_gamma",
                     "batchnorm0_beta", "softmax_label"}));
  EXPECT_EQ(namesOf(g, g.listAuxiliaryStates()),
            (Strings{"batchnorm0_moving_mean", "batchnorm0_moving_var"}));
  EXPECT_EQ(g.listOutputs(), (Strings{"softmax_output"}));
}

TEST(SymbolJSON, LegacyHiddenKeyRules) {
  Graph g = load("legacy_hidden.json");
  // "lr_mult" on x became __lr_mult__ = 2, then fc's "data_lr_mult" moved
  // onto x (fc is visited after x) and overwrote it. Keys that only start
  // with a hidden key, or end with one on a variable, stay.
  EXPECT_EQ(g.nodes[find(g, "x")].attrs,
            (AttrMap{{"__ctx_group__", "g"},
                     {"__lr_mult__", "7"},
                     {"foo_wd_mult", "3"},
                     {"mirror_stage_x", "1"}}));
  EXPECT_EQ(g.nodes[find(g, "w")].attrs, (AttrMap{{"__lr_mult__", "5"}}));
  EXPECT_EQ(g.nodes[find(g, "b")].attrs, (AttrMap{{"__wd_mult__", "0"}}));
  EXPECT_EQ(g.nodes[find(g, "fc")].attrs,
            (AttrMap{{"__force_mirroring__", "True"}, {"num_hidden", "4"}}));
  EXPECT_EQ(g.nodes[find(g, "g")].attrs,
            (AttrMap{{"__init__", "[\"Constant\", {\"value\": 0.25}]"}}));
  EXPECT_TRUE(g.nodes[find(g, "am")].attrs.empty()); // axis=-1 dropped
  EXPECT_EQ(namesOf(g, g.listArguments()),
            (Strings{"x", "w", "b", "g", "bn_gamma", "bn_beta"}));
  EXPECT_EQ(namesOf(g, g.listAuxiliaryStates()),
            (Strings{"bn_moving_mean", "bn_moving_var"}));
  EXPECT_EQ(g.listOutputs(), (Strings{"am_output", "bn_output"}));
}

TEST(SymbolJSON, HiddenKeysThatStayOnOperators) {
  // Cases MXNet would keep on the operator (and then reject when parsing its
  // parameters); mxc keeps them as they are.
  Graph g = take(readSymbolJSON(R"({
    "nodes": [
      {"op": "null", "name": "x", "inputs": []},
      {"op": "Activation", "name": "a", "inputs": [[0, 0]],
       "attr": {"_lr_mult": "1", "lr_mult_x": "2", "gamma_lr_mult": "3"}},
      {"op": "Activation", "name": "b", "inputs": [[1, 0]],
       "attr": {"data_lr_mult": "4"}},
      {"op": "MyOp", "name": "c", "inputs": [[2, 0]],
       "attr": {"data_wd_mult": "5"}}
    ],
    "arg_nodes": [0], "heads": [[3, 0]]})"));
  EXPECT_EQ(g.nodes[1].attrs, (AttrMap{{"_lr_mult", "1"},
                                      {"gamma_lr_mult", "3"},
                                      {"lr_mult_x", "2"}}));
  // b's input is not a variable; c's operator is unknown.
  EXPECT_EQ(g.nodes[2].attrs, (AttrMap{{"data_lr_mult", "4"}}));
  EXPECT_EQ(g.nodes[3].attrs, (AttrMap{{"data_wd_mult", "5"}}));
  EXPECT_TRUE(g.nodes[0].attrs.empty());
}

TEST(SymbolJSON, CurrentFilesAreNotUpgraded) {
  Graph g = take(readSymbolJSON(R"({
    "nodes": [{"op": "null", "name": "x", "attrs": {"lr_mult": "2"},
               "inputs": []}],
    "arg_nodes": [0], "heads": [[0, 0, 0]],
    "attrs": {"mxnet_version": ["int", 10901]}})"));
  EXPECT_EQ(g.nodes[0].attrs, (AttrMap{{"lr_mult", "2"}}));
  // Any older version gets the hidden-key upgrade (MXNet's FixParsing).
  Graph old = take(readSymbolJSON(R"({
    "nodes": [{"op": "null", "name": "x", "attrs": {"lr_mult": "2"},
               "inputs": []}],
    "arg_nodes": [0], "heads": [[0, 0, 0]],
    "attrs": {"mxnet_version": ["int", 10600]}})"));
  EXPECT_EQ(old.nodes[0].attrs, (AttrMap{{"__lr_mult__", "2"}}));
}

TEST(SymbolJSON, MultiOutputOperators) {
  Graph g = load("multi_output.mxnet-1.9.1.json");
  EXPECT_EQ(namesOf(g, g.listArguments()),
            (Strings{"data", "bn_gamma", "bn_beta"}));
  EXPECT_EQ(namesOf(g, g.listAuxiliaryStates()),
            (Strings{"bn_moving_mean", "bn_moving_var"}));
  EXPECT_EQ(g.listOutputs(),
            (Strings{"bn_output", "bn_mean", "bn_var", "drop_output",
                     "rr_output", "rr_mask", "pool_output", "split_output1",
                     "data", "bn_output"}));
  EXPECT_EQ(g.nodes[find(g, "bn")].numOutputs, 3u);
  EXPECT_EQ(g.nodes[find(g, "drop")].numOutputs, 2u);
  EXPECT_EQ(g.nodes[find(g, "split")].numOutputs, 3u);
  // Mutated inputs carry version 1.
  EXPECT_EQ(g.nodes[find(g, "bn")].inputs[3].version, 1u);
}

TEST(SymbolJSON, WritesWhatMXNetWrites) {
  // Reading a file and writing it gives MXNet 1.9.1's own re-save, byte for
  // byte (legacy upgrade, layout, node_row_ptr, mxnet_version).
  for (const char *name : {"save_000800", "vgg_like_model1", "mlp-symbol",
                           "legacy_hidden"}) {
    SCOPED_TRACE(name);
    Graph g = load(std::string(name) + ".json");
    EXPECT_EQ(writeSymbolJSON(g),
              readInput("mxnet-files/" + std::string(name) +
                        ".mxnet-1.9.1.json"));
  }
  for (const char *name :
       {"save_000800", "vgg_like_model1", "mlp-symbol", "legacy_hidden",
        "multi_output", "control_flow"}) {
    SCOPED_TRACE(name);
    std::string text =
        readInput("mxnet-files/" + std::string(name) + ".mxnet-1.9.1.json");
    EXPECT_EQ(writeSymbolJSON(take(readSymbolJSON(text))), text);
  }
}

TEST(SymbolJSON, WriteReadRoundTrip) {
  for (const char *name :
       {"save_000800.json", "vgg_like_model1.json", "mlp-symbol.json",
        "legacy_hidden.json", "multi_output.mxnet-1.9.1.json"}) {
    SCOPED_TRACE(name);
    Graph g = load(name);
    Graph back = take(readSymbolJSON(writeSymbolJSON(g)));
    expectSameGraph(g, back);
    EXPECT_EQ(back.mxnetVersion, std::optional<int64_t>(kMXNetVersion));
  }
}

TEST(SymbolJSON, WriterLayout) {
  // Control deps, a node without attributes, more than 10 inputs (dmlc puts
  // each on its own line), strings that need escaping.
  Graph g;
  for (int i = 0; i < 11; ++i) {
    Node v;
    v.op = "null";
    v.name = "v" + std::to_string(i);
    g.nodes.push_back(v);
  }
  Node c;
  c.op = "Concat";
  c.name = "cat\"\n";
  c.attrs = {{"num_args", "11"}};
  for (uint32_t i = 0; i < 11; ++i)
    c.inputs.push_back({i, 0, 0});
  c.controlDeps = {0};
  g.nodes.push_back(c);
  g.heads = {{11, 0, 0}};
  for (uint32_t i = 0; i < 11; ++i)
    g.argNodes.push_back(i);
  std::string text = writeSymbolJSON(g);
  EXPECT_NE(text.find("\"name\": \"cat\\\"\\n\""), std::string::npos) << text;
  EXPECT_NE(text.find("\"attrs\": {\"num_args\": \"11\"}"), std::string::npos);
  EXPECT_NE(text.find("\"inputs\": [\n        [0, 0, 0], \n        [1, 0, 0]"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("\"control_deps\": [0]"), std::string::npos);
  EXPECT_NE(text.find("\"arg_nodes\": [\n    0, \n    1, "), std::string::npos);
  EXPECT_NE(text.find("{\n      \"op\": \"null\", \n      \"name\": \"v0\", "
                      "\n      \"inputs\": []\n    }"),
            std::string::npos);
  EXPECT_TRUE(llvm::StringRef(text).ends_with(
      "]], \n  \"attrs\": {\"mxnet_version\": [\"int\", 10901]}\n}"))
      << text;
  Graph back = take(readSymbolJSON(text));
  expectSameGraph(g, back);
}

//===----------------------------------------------------------------------===//
// Variants
//===----------------------------------------------------------------------===//

TEST(SymbolJSON, MergesAttrAndParamWithoutNodeRowPtr) {
  Graph g = take(readSymbolJSON(R"({
    "nodes": [
      {"op": "null", "name": "x", "inputs": [], "backward_source_id": -1},
      {"op": "Dropout", "name": "d", "inputs": [[0, 0]],
       "param": {"p": "0.5", "mode": "always"},
       "attr": {"mode": "training", "__extra__": "1"}},
      {"op": "null", "name": "g", "inputs": []},
      {"op": "null", "name": "b", "inputs": []},
      {"op": "null", "name": "m", "inputs": []},
      {"op": "null", "name": "v", "inputs": []},
      {"op": "BatchNorm", "name": "bn",
       "inputs": [[1, 0, 0], [2, 0], [3, 0], [4, 0, 1], [5, 0, 1]],
       "attrs": {"eps": "0.1"}, "control_deps": [1]}
    ],
    "arg_nodes": [0, 2, 3, 4, 5], "heads": [[1, 0], [6, 2, 0]],
    "attrs": {"mxnet_version": ["int", 10901]}})"));
  ASSERT_EQ(g.nodes.size(), 7u);
  // "param" never overrides "attr"/"attrs".
  EXPECT_EQ(g.nodes[1].attrs,
            (AttrMap{{"__extra__", "1"}, {"mode", "training"}, {"p", "0.5"}}));
  // No node_row_ptr: the operator table gives the output counts.
  EXPECT_EQ(g.nodes[1].numOutputs, 2u);
  EXPECT_EQ(g.nodes[6].numOutputs, 3u);
  EXPECT_EQ(g.nodes[6].inputs[3], (NodeEntry{4, 0, 1}));
  EXPECT_EQ(g.nodes[6].controlDeps, (std::vector<uint32_t>{1}));
  EXPECT_EQ(g.heads[0], (NodeEntry{1, 0, 0}));
  EXPECT_EQ(g.heads[1], (NodeEntry{6, 2, 0}));
  EXPECT_EQ(g.listOutputs(), (Strings{"d_output", "bn_var"}));
  EXPECT_EQ(namesOf(g, g.listArguments()), (Strings{"x", "g", "b"}));
  EXPECT_EQ(namesOf(g, g.listAuxiliaryStates()), (Strings{"m", "v"}));
  // Written back, control_deps appear and 2-element entries get a version.
  std::string text = writeSymbolJSON(g);
  EXPECT_NE(text.find("\"control_deps\": [1]"), std::string::npos);
  EXPECT_NE(text.find("[[1, 0, 0], [6, 2, 0]]"), std::string::npos);
  expectSameGraph(g, take(readSymbolJSON(text)));
}

TEST(SymbolJSON, NodeRowPtrWins) {
  // node_row_ptr says the Pooling node has two outputs; the table says one.
  Graph g = take(readSymbolJSON(R"({
    "nodes": [{"op": "null", "name": "x", "inputs": []},
              {"op": "Pooling", "name": "p", "inputs": [[0, 0, 0]]}],
    "arg_nodes": [0], "node_row_ptr": [0, 1, 3], "heads": [[1, 1, 0]]})"));
  EXPECT_EQ(g.nodes[1].numOutputs, 2u);
  EXPECT_EQ(g.listOutputs(), (Strings{"p_workspace"}));
}

TEST(SymbolJSON, ReadsFileFromDisk) {
  std::string msg = errorOf(readSymbolFile(inputPath("no/such/file.json")));
  EXPECT_NE(msg.find("cannot read"), std::string::npos) << msg;
  EXPECT_NE(msg.find("no/such/file.json"), std::string::npos) << msg;
}

//===----------------------------------------------------------------------===//
// Bad input: one line naming the node
//===----------------------------------------------------------------------===//

namespace {
/// A two-node graph with `second` as node 1, heads `heads`.
std::string twoNodes(const std::string &second,
                     const std::string &rest = R"("arg_nodes": [0], "heads": [[1, 0, 0]])") {
  return R"({"nodes": [{"op": "null", "name": "x", "inputs": []}, )" +
         second + "], " + rest + "}";
}
} // namespace

TEST(SymbolJSONErrors, NotJSON) {
  std::string msg = readError("{\"nodes\": [1, 2,, ]}");
  EXPECT_EQ(msg.rfind("not valid JSON: [1:", 0), 0u) << msg;
  EXPECT_NE(msg.find("byte="), std::string::npos) << msg;
  EXPECT_EQ(readError("").rfind("not valid JSON", 0), 0u);
  EXPECT_EQ(readError("\"\xff\"").rfind("not valid JSON", 0), 0u);
  EXPECT_EQ(readError("[1, 2]"), "symbol JSON must be an object, not an array");
  EXPECT_EQ(readError(std::string(1000, '[')).rfind(
                "not valid symbol JSON: nested deeper than 64 levels", 0),
            0u);
}

TEST(SymbolJSONErrors, MissingAndUnknownKeys) {
  EXPECT_EQ(readError(R"({"nodes": [], "heads": []})"),
            "symbol JSON: missing key 'arg_nodes'");
  EXPECT_EQ(readError(R"({"nodes": [], "arg_nodes": [], "heads": [], "x": 1})"),
            "symbol JSON: unknown top-level key 'x'");
  EXPECT_EQ(readError(twoNodes(R"({"op": "relu", "inputs": [[0, 0]]})")),
            "node 1: missing key 'name'");
  EXPECT_EQ(readError(twoNodes(R"({"name": "r", "inputs": [[0, 0]]})")),
            "node 1 ('r'): missing key 'op'");
  EXPECT_EQ(readError(twoNodes(R"({"op": "relu", "name": "r"})")),
            "node 1 ('r'): missing key 'inputs'");
  EXPECT_EQ(readError(twoNodes(
                R"({"op": "relu", "name": "r", "inputs": [], "colour": 1})")),
            "node 1 ('r'): unknown key 'colour'");
  EXPECT_EQ(readError(twoNodes(
                R"({"op": "relu", "name": "r", "inputs": [[0, 0]], "subgraphs": [)" +
                std::string(R"({"nodes": [], "arg_nodes": [], "heads": []}]})"))),
            "node 1 ('r'): operator 'relu' has subgraphs; only the control-flow "
            "operators _foreach, _while_loop and _cond do");
  EXPECT_EQ(readError(twoNodes(
                R"({"op": "_foreach", "name": "f", "inputs": [], "subgraphs": {}})")),
            "node 1 ('f'): 'subgraphs' must be an array, not an object");
  EXPECT_EQ(
      readError(twoNodes(R"({"op": "_foreach", "name": "f", "inputs": [], )"
                         R"("subgraphs": [{"nodes": [], "arg_nodes": [], )"
                         R"("heads": [[3, 0, 0]]}]})")),
      "node 1 ('f'): subgraph 0: head 0 refers to node 3, which does not exist");
}

TEST(SymbolJSON, ControlFlowSubgraphs) {
  // MXNet 1.9.1's foreach (nested), while_loop and cond: each node keeps its
  // subgraphs, whose inputs are their variables in list_inputs() order.
  std::string text = readInput("mxnet-files/control_flow.mxnet-1.9.1.json");
  Graph g = take(readSymbolJSON(text));
  std::vector<std::string> ops;
  for (const Node &n : g.nodes)
    if (!n.subgraphs.empty())
      ops.push_back(n.op + ":" + std::to_string(n.subgraphs.size()));
  EXPECT_EQ(ops, (std::vector<std::string>{"_foreach:1", "_while_loop:2", "_cond:3"}));
  const Node &fe = g.nodes[g.heads[0].node];
  ASSERT_EQ(fe.op, "_foreach");
  EXPECT_EQ(fe.numOutputs, 3u);
  const Graph &body = fe.subgraphs[0];
  std::vector<std::string> inputs;
  for (uint32_t v : body.listInputs())
    inputs.push_back(body.nodes[v].name);
  EXPECT_EQ(inputs, (std::vector<std::string>{"data-0", "s0-0", "w", "fc_output"}));
  int nested = 0;
  for (const Node &n : body.nodes)
    nested += n.op == "_foreach" && n.subgraphs.size() == 1;
  EXPECT_EQ(nested, 1);
  std::vector<std::string> args;
  for (uint32_t v : g.listArguments())
    args.push_back(g.nodes[v].name);
  EXPECT_EQ(args, (std::vector<std::string>{"data", "s0", "w", "fc_weight", "fc_bias", "i"}));
  EXPECT_EQ(writeSymbolJSON(g), text);
}

TEST(SymbolJSONErrors, WrongTypes) {
  EXPECT_EQ(readError(R"({"nodes": {}, "arg_nodes": [], "heads": []})"),
            "'nodes' must be an array, not an object");
  EXPECT_EQ(readError(twoNodes("3")), "node 1 must be an object, not a number");
  EXPECT_EQ(readError(twoNodes(R"({"op": 1, "name": "r", "inputs": []})")),
            "node 1 ('r'): 'op' must be a string, not a number");
  EXPECT_EQ(readError(twoNodes(R"({"op": "relu", "name": null, "inputs": []})")),
            "node 1: 'name' must be a string, not null");
  EXPECT_EQ(readError(twoNodes(R"({"op": "relu", "name": "r", "inputs": {}})")),
            "node 1 ('r'): 'inputs' must be an array, not an object");
  EXPECT_EQ(readError(twoNodes(
                R"({"op": "relu", "name": "r", "inputs": [], "attrs": []})")),
            "node 1 ('r'): 'attrs' must be an object, not an array");
  EXPECT_EQ(readError(twoNodes(
                R"({"op": "relu", "name": "r", "inputs": [], "param": {"k": 3}})")),
            "node 1 ('r'): attribute 'k' in 'param' must be a string, not a "
            "number");
  EXPECT_EQ(readError(twoNodes(
                R"({"op": "relu", "name": "r", "inputs": [[0]]})")),
            "node 1 ('r'): input 0 must be [node, index] or [node, index, "
            "version]");
  EXPECT_EQ(readError(twoNodes(
                R"({"op": "relu", "name": "r", "inputs": [[0, -1]]})")),
            "node 1 ('r'): input 0: element 1 must be an integer in [0, 2^32), "
            "not that number");
  EXPECT_EQ(readError(twoNodes(
                R"({"op": "relu", "name": "r", "inputs": [[0, "0"]]})")),
            "node 1 ('r'): input 0: element 1 must be an integer in [0, 2^32), "
            "not a string");
  EXPECT_EQ(readError(twoNodes(
                R"({"op": "relu", "name": "r", "inputs": [[0, 0.5]]})")),
            "node 1 ('r'): input 0: element 1 must be an integer in [0, 2^32), "
            "not that number");
  EXPECT_EQ(readError(twoNodes(R"({"op": "relu", "name": "r", "inputs": [],
                                   "backward_source_id": "a"})")),
            "node 1 ('r'): 'backward_source_id' must be an integer, not a "
            "string");
  EXPECT_EQ(readError(twoNodes(R"({"op": "relu", "name": "r", "inputs": [],
                                   "control_deps": [-1]})")),
            "node 1 ('r'): 'control_deps'[0] must be an integer in [0, 2^32)");
  EXPECT_EQ(readError(twoNodes(R"({"op": "relu", "name": "r", "inputs": [[0, 0]]})",
                               R"("arg_nodes": 0, "heads": [[1, 0]])")),
            "'arg_nodes' must be an array, not a number");
  EXPECT_EQ(readError(twoNodes(R"({"op": "relu", "name": "r", "inputs": [[0, 0]]})",
                               R"("arg_nodes": [0], "heads": [1])")),
            "head 0 must be [node, index] or [node, index, version]");
  EXPECT_EQ(readError(twoNodes(R"({"op": "relu", "name": "r", "inputs": [[0, 0]]})",
                               R"("arg_nodes": [0], "heads": [[1, 0]],
                                  "attrs": {"mxnet_version": ["str", "1.9"]})")),
            "attrs.mxnet_version must be [\"int\", N]");
  EXPECT_EQ(readError(twoNodes(R"({"op": "relu", "name": "r", "inputs": [[0, 0]]})",
                               R"("arg_nodes": [0], "heads": [[1, 0]],
                                  "attrs": {"mxnet_version": 10901})")),
            "attrs.mxnet_version must be [\"type\", value]");
}

TEST(SymbolJSONErrors, DanglingAndOutOfRange) {
  EXPECT_EQ(readError(twoNodes(R"({"op": "relu", "name": "r", "inputs": [[9, 0]]})")),
            "node 1 ('r'): input 0 refers to node 9, which does not exist");
  EXPECT_EQ(readError(twoNodes(
                R"({"op": "relu", "name": "r", "inputs": [[0, 1, 0]]})")),
            "node 1 ('r'): input 0 refers to output 1 of node 0 ('x'), which "
            "has 1 output");
  EXPECT_EQ(readError(twoNodes(
                R"({"op": "relu", "name": "r", "inputs": [[0, 0]], "control_deps": [7]})")),
            "node 1 ('r'): control dependency 0 refers to node 7, which does "
            "not exist");
  EXPECT_EQ(readError(twoNodes(R"({"op": "relu", "name": "r", "inputs": [[0, 0]]})",
                               R"("arg_nodes": [0], "heads": [[2, 0]])")),
            "head 0 refers to node 2, which does not exist");
  EXPECT_EQ(readError(twoNodes(R"({"op": "Dropout", "name": "d", "inputs": [[0, 0]]})",
                               R"("arg_nodes": [0], "heads": [[1, 2]])")),
            "head 0 refers to output 2 of node 1 ('d'), which has 2 outputs");
  EXPECT_EQ(readError(twoNodes(R"({"op": "relu", "name": "r", "inputs": [[0, 0]]})",
                               R"("arg_nodes": [0, 1], "heads": [[1, 0]])")),
            "arg_nodes[1]: node 1 ('r') is not a variable (op 'relu')");
  EXPECT_EQ(readError(twoNodes(R"({"op": "relu", "name": "r", "inputs": [[0, 0]]})",
                               R"("arg_nodes": [5], "heads": [[1, 0]])")),
            "arg_nodes[0] refers to node 5, which does not exist");
  EXPECT_EQ(readError(twoNodes(R"({"op": "null", "name": "v", "inputs": [[0, 0]]})",
                               R"("arg_nodes": [0, 1], "heads": [[1, 0]])")),
            "node 1 ('v'): a variable cannot have inputs (it has 1)");
}

TEST(SymbolJSONErrors, CyclesAndForwardReferences) {
  std::string cycle = R"({"nodes": [
      {"op": "null", "name": "x", "inputs": []},
      {"op": "elemwise_add", "name": "a", "inputs": [[0, 0], [2, 0]]},
      {"op": "relu", "name": "b", "inputs": [[1, 0]]}],
    "arg_nodes": [0], "heads": [[2, 0]]})";
  EXPECT_EQ(readError(cycle),
            "node 1 ('a'): input 1 refers to node 2 ('b'), which depends on "
            "this node: the graph has a cycle");
  EXPECT_EQ(readError(twoNodes(R"({"op": "relu", "name": "r", "inputs": [[1, 0]]})")),
            "node 1 ('r'): input 0 refers to the node itself (a cycle)");
  std::string forward = R"({"nodes": [
      {"op": "relu", "name": "r", "inputs": [[1, 0]]},
      {"op": "null", "name": "x", "inputs": []}],
    "arg_nodes": [1], "heads": [[0, 0]]})";
  EXPECT_EQ(readError(forward),
            "node 0 ('r'): input 0 refers to node 1 ('x'), which comes later "
            "(a forward reference); nodes must be in topological order");
  EXPECT_EQ(readError(twoNodes(R"({"op": "relu", "name": "r", "inputs": [[0, 0]],
                                   "control_deps": [1]})")),
            "node 1 ('r'): control dependency 0 refers to the node itself (a "
            "cycle)");
}

TEST(SymbolJSONErrors, NodeRowPtr) {
  std::string rest = R"("arg_nodes": [0], "heads": [[1, 0]], "node_row_ptr": )";
  std::string relu = R"({"op": "relu", "name": "r", "inputs": [[0, 0]]})";
  EXPECT_EQ(readError(twoNodes(relu, rest + "[0, 1]")),
            "'node_row_ptr' has 2 entries; expected 3 (one per node, plus one)");
  EXPECT_EQ(readError(twoNodes(relu, rest + "[1, 2, 3]")),
            "'node_row_ptr' must start at 0");
  EXPECT_EQ(readError(twoNodes(relu, rest + "[0, 2, 1]")),
            "'node_row_ptr' decreases at entry 2 (node 1 ('r'))");
  // A variable given zero outputs cannot be an input.
  EXPECT_EQ(readError(twoNodes(relu, rest + "[0, 0, 1]")),
            "node 1 ('r'): input 0 refers to output 0 of node 0 ('x'), which "
            "has 0 outputs");
}

TEST(SymbolJSONErrors, MessagesStayOneLine) {
  EXPECT_EQ(readError(twoNodes(
                R"({"op": "relu", "name": "a\nb\u0001", "inputs": [[9, 0]]})")),
            "node 1 ('a\\nb\\x01'): input 0 refers to node 9, which does not "
            "exist");
  EXPECT_EQ(readError(twoNodes(
                R"({"op": "relu", "name": "r", "inputs": [], "k\ney": 1})")),
            "node 1 ('r'): unknown key 'k\\ney'");
}

TEST(SymbolJSON, OddStringsRoundTrip) {
  // Keys and values with quotes, backslashes and control characters are
  // escaped so that the output stays JSON.
  Graph g;
  Node v;
  v.op = "null";
  v.name = "x\x01";
  v.attrs = {{"we\"ird\\key", "tab\there"}, {"k\x02", "\x7f"}};
  g.nodes.push_back(v);
  g.argNodes = {0};
  g.heads = {{0, 0, 0}};
  Graph back = take(readSymbolJSON(writeSymbolJSON(g)));
  ASSERT_EQ(back.nodes.size(), 1u);
  EXPECT_EQ(back.nodes[0].name, "x\x01");
  EXPECT_EQ(back.nodes[0].attrs, g.nodes[0].attrs);
}
