//===- GraphTest.cpp - Graph model, operator table, verify ----------------===//

#include "TestUtil.h"

#include "mxc/Graph/Graph.h"

using namespace mxc::graph;
using namespace mxc::test;
using Strings = std::vector<std::string>;
using AttrMap = std::map<std::string, std::string>;

namespace {

/// A small graph builder: variables and operators appended in order.
struct Builder {
  Graph g;
  uint32_t var(const std::string &name) {
    Node n;
    n.op = "null";
    n.name = name;
    g.nodes.push_back(n);
    g.argNodes.push_back(uint32_t(g.nodes.size() - 1));
    return uint32_t(g.nodes.size() - 1);
  }
  uint32_t op(const std::string &op, const std::string &name,
              std::vector<uint32_t> inputs, AttrMap attrs = {}) {
    Node n;
    n.op = op;
    n.name = name;
    n.attrs = std::move(attrs);
    for (uint32_t i : inputs)
      n.inputs.push_back({i, 0, 0});
    n.numOutputs = numOutputsOf(op, n.attrs);
    g.nodes.push_back(n);
    return uint32_t(g.nodes.size() - 1);
  }
};

Strings namesOf(const Graph &g, const std::vector<uint32_t> &ids) {
  Strings out;
  for (uint32_t i : ids)
    out.push_back(g.nodes[i].name);
  return out;
}

} // namespace

TEST(OpTable, OutputCounts) {
  EXPECT_EQ(numOutputsOf("BatchNorm", {}), 3u);
  EXPECT_EQ(numOutputsOf("_contrib_SyncBatchNorm", {}), 3u);
  EXPECT_EQ(numOutputsOf("Dropout", {}), 2u);
  EXPECT_EQ(numOutputsOf("LeakyReLU", {}), 1u);
  EXPECT_EQ(numOutputsOf("LeakyReLU", {{"act_type", "rrelu"}}), 2u);
  EXPECT_EQ(numOutputsOf("LeakyReLU", {{"act_type", "prelu"}}), 1u);
  EXPECT_EQ(numOutputsOf("SliceChannel", {{"num_outputs", "4"}}), 4u);
  EXPECT_EQ(numOutputsOf("SliceChannel", {{"num_outputs", "x"}}), 1u);
  EXPECT_EQ(numOutputsOf("Pooling", {}), 1u);
  EXPECT_EQ(numOutputsOf("Convolution", {}), 1u);
  EXPECT_EQ(numOutputsOf("SomethingNew", {}), 1u);
}

TEST(OpTable, AuxAndInputNames) {
  EXPECT_EQ(auxInputsOf("BatchNorm"), (std::vector<uint32_t>{3, 4}));
  EXPECT_TRUE(auxInputsOf("Convolution").empty());
  EXPECT_EQ(inputNamesOf("FullyConnected", {}),
            (Strings{"data", "weight", "bias"}));
  EXPECT_EQ(inputNamesOf("FullyConnected", {{"no_bias", "True"}}),
            (Strings{"data", "weight"}));
  EXPECT_EQ(inputNamesOf("Convolution", {{"no_bias", "1"}}),
            (Strings{"data", "weight"}));
  // Deconvolution's no_bias defaults to true.
  EXPECT_EQ(inputNamesOf("Deconvolution", {}), (Strings{"data", "weight"}));
  EXPECT_EQ(inputNamesOf("Deconvolution", {{"no_bias", "false"}}),
            (Strings{"data", "weight", "bias"}));
  EXPECT_EQ(inputNamesOf("BatchNorm", {}),
            (Strings{"data", "gamma", "beta", "moving_mean", "moving_var"}));
  EXPECT_EQ(inputNamesOf("LeakyReLU", {{"act_type", "prelu"}}),
            (Strings{"data", "gamma"}));
  EXPECT_EQ(inputNamesOf("SoftmaxOutput", {}), (Strings{"data", "label"}));
  EXPECT_TRUE(inputNamesOf("SomethingNew", {}).empty());
  // Conditions from the operator table (scripts/gen_mx_ops.py `when`).
  EXPECT_EQ(inputNamesOf("RNN", {{"mode", "'lstm'"}}),
            (Strings{"data", "parameters", "state", "state_cell"}));
  EXPECT_EQ(inputNamesOf("RNN", {{"mode", "gru"}, {"use_sequence_length", "True"}}),
            (Strings{"data", "parameters", "state", "sequence_length"}));
  EXPECT_EQ(inputNamesOf("ctc_loss", {{"use_label_lengths", "1"}}),
            (Strings{"data", "label", "label_lengths"}));
  EXPECT_EQ(inputNamesOf("_histogram", {{"bin_cnt", "4"}}), (Strings{"data"}));
  EXPECT_EQ(inputNamesOf("_histogram", {}), (Strings{"data", "bins"}));
  EXPECT_EQ(inputNamesOf("softmax", {{"use_length", "True"}}),
            (Strings{"data", "length"}));
  EXPECT_EQ(inputNamesOf("elemwise_add", {}), (Strings{"lhs", "rhs"}));
  // Variadic operators have no fixed names.
  EXPECT_TRUE(inputNamesOf("Concat", {{"num_args", "2"}}).empty());
  EXPECT_EQ(auxInputsOf("CuDNNBatchNorm"), (std::vector<uint32_t>{3, 4}));
  // An unparseable bool takes the table's default.
  EXPECT_EQ(inputNamesOf("FullyConnected", {{"no_bias", "maybe"}}),
            (Strings{"data", "weight", "bias"}));
}

TEST(OpTable, OutputNames) {
  EXPECT_EQ(outputNamesOf("BatchNorm", {}), (Strings{"output"}));
  EXPECT_EQ(outputNamesOf("BatchNorm", {{"output_mean_var", "True"}}),
            (Strings{"output", "mean", "var"}));
  EXPECT_EQ(outputNamesOf("Dropout", {}), (Strings{"output"}));
  EXPECT_EQ(outputNamesOf("SoftmaxOutput", {}), (Strings{"output"}));
  // MXNet's LeakyReLU has no FNumVisibleOutputs: rrelu shows both outputs.
  EXPECT_EQ(outputNamesOf("LeakyReLU", {{"act_type", "rrelu"}}),
            (Strings{"output", "mask"}));
  EXPECT_EQ(outputNamesOf("SliceChannel", {{"num_outputs", "2"}}),
            (Strings{"output0", "output1"}));
  EXPECT_EQ(outputNamesOf("relu", {}), (Strings{"output"}));
  EXPECT_EQ(outputNameOf("Pooling", {}, 2, 1), "workspace");
  EXPECT_EQ(outputNameOf("BatchNorm", {}, 3, 2), "var");
  EXPECT_EQ(outputNameOf("MyOp", {}, 1, 0), "output");
  EXPECT_EQ(outputNameOf("MyOp", {}, 3, 2), "output2");
  EXPECT_EQ(outputNamesOf("topk", {}), (Strings{"output"}));
  EXPECT_EQ(outputNamesOf("topk", {{"ret_typ", "value"}}), (Strings{"output0"}));
  EXPECT_EQ(outputNamesOf("topk", {{"ret_typ", "both"}}),
            (Strings{"output0", "output1"}));
  EXPECT_EQ(numOutputsOf("topk", {{"ret_typ", "value"}}), 2u);
  EXPECT_EQ(outputNamesOf("RNN", {{"mode", "lstm"}, {"state_outputs", "True"}}),
            (Strings{"output", "state_output", "statecell_output"}));
  EXPECT_EQ(outputNamesOf("RNN", {{"mode", "gru"}, {"state_outputs", "True"}}),
            (Strings{"output", "state_output"}));
  EXPECT_EQ(numOutputsOf("RNN", {{"mode", "lstm"}}), 1u);
  EXPECT_EQ(outputNamesOf("GroupNorm", {{"output_mean_var", "1"}}),
            (Strings{"output", "mean", "std"}));
  EXPECT_EQ(outputNamesOf("InstanceNorm", {}), (Strings{"output"}));
  EXPECT_EQ(outputNamesOf("sort", {}), (Strings{"output0"}));
  EXPECT_EQ(outputNamesOf("moments", {}), (Strings{"output0", "output1"}));
}

TEST(Graph, ListsFollowDFSPostOrder) {
  // MXNet orders arguments by DFS from the heads, not by node index.
  Builder b;
  uint32_t w = b.var("w");        // 0
  uint32_t x = b.var("x");        // 1
  uint32_t gamma = b.var("gamma"); // 2
  uint32_t beta = b.var("beta");  // 3
  uint32_t mean = b.var("mean");  // 4
  uint32_t var = b.var("var");    // 5
  uint32_t fc = b.op("FullyConnected", "fc", {x, w}, {{"no_bias", "True"}});
  uint32_t bn = b.op("BatchNorm", "bn", {fc, gamma, beta, mean, var});
  uint32_t unused = b.var("unused");
  (void)unused;
  b.g.heads = {{bn, 0, 0}, {x, 0, 0}};
  ASSERT_FALSE(llvm::errorToBool(b.g.verify()));
  EXPECT_EQ(namesOf(b.g, b.g.postOrder()),
            (Strings{"x", "w", "fc", "gamma", "beta", "mean", "var", "bn"}));
  EXPECT_EQ(namesOf(b.g, b.g.listArguments()),
            (Strings{"x", "w", "gamma", "beta"}));
  EXPECT_EQ(namesOf(b.g, b.g.listAuxiliaryStates()), (Strings{"mean", "var"}));
  EXPECT_EQ(b.g.listOutputs(), (Strings{"bn_output", "x"}));
}

TEST(Graph, PostOrderVisitsControlDepsAfterInputs) {
  Builder b;
  uint32_t x = b.var("x");
  uint32_t y = b.var("y");
  uint32_t r = b.op("relu", "r", {x});
  b.g.nodes[r].controlDeps = {y};
  b.g.heads = {{r, 0, 0}};
  EXPECT_EQ(namesOf(b.g, b.g.postOrder()), (Strings{"x", "y", "r"}));
  EXPECT_EQ(namesOf(b.g, b.g.listArguments()), (Strings{"x", "y"}));
}

TEST(Graph, UnnamedNodeOutput) {
  Builder b;
  uint32_t x = b.var("x");
  uint32_t r = b.op("relu", "", {x});
  b.g.heads = {{r, 0, 0}};
  EXPECT_EQ(b.g.listOutputs(), (Strings{"output"}));
}

TEST(Graph, BatchNormWithMissingAuxInputsDoesNotCrash) {
  Builder b;
  uint32_t x = b.var("x");
  uint32_t bn = b.op("BatchNorm", "bn", {x});
  b.g.heads = {{bn, 0, 0}};
  EXPECT_EQ(namesOf(b.g, b.g.listArguments()), (Strings{"x"}));
  EXPECT_TRUE(b.g.listAuxiliaryStates().empty());
}

TEST(Graph, VerifyNamesTheNode) {
  Builder b;
  uint32_t x = b.var("x");
  uint32_t fc = b.op("FullyConnected", "fc1", {x});
  b.g.heads = {{fc, 0, 0}};
  EXPECT_FALSE(llvm::errorToBool(b.g.verify()));

  Graph g = b.g;
  g.nodes[fc].inputs[0].node = 9;
  EXPECT_EQ(llvm::toString(g.verify()),
            "node 1 ('fc1'): input 0 refers to node 9, which does not exist");
  g = b.g;
  g.heads[0].index = 1;
  EXPECT_EQ(llvm::toString(g.verify()),
            "head 0 refers to output 1 of node 1 ('fc1'), which has 1 output");
  g = b.g;
  g.argNodes = {fc};
  EXPECT_EQ(llvm::toString(g.verify()),
            "arg_nodes[0]: node 1 ('fc1') is not a variable (op "
            "'FullyConnected')");
}

TEST(Graph, VerifyAndListsSurviveDeepChains) {
  // Iterative traversals: a long chain must not overflow the stack.
  Builder b;
  uint32_t prev = b.var("x");
  for (int i = 0; i < 200000; ++i)
    prev = b.op("relu", "r" + std::to_string(i), {prev});
  b.g.heads = {{prev, 0, 0}};
  EXPECT_FALSE(llvm::errorToBool(b.g.verify()));
  EXPECT_EQ(b.g.listArguments().size(), 1u);
  EXPECT_EQ(b.g.postOrder().size(), b.g.nodes.size());
}
