//===- OpTableConsistencyTest.cpp - Graph table vs mx op table ------------===//
//
// lib/Graph reads MXNet's signatures (input names, output counts, auxiliary
// inputs, with their attribute conditions) from OpSignatures.inc; the mx
// dialect's table is MXOpTable.inc. Both are generated from
// scripts/gen_mx_ops.py, the graph's from each op's graph_inputs /
// graph_outputs where MXNet's signature differs from the mx op's: with every
// condition on, the two must still agree.
//===----------------------------------------------------------------------===//
#include "mxc/Dialect/MX/IR/MXOpTable.h"
#include "mxc/Graph/Graph.h"

#include <gtest/gtest.h>

using namespace mxc;

namespace {
/// Attributes that make every optional input and output of `spec` present.
std::map<std::string, std::string> fullAttrs(const mx::OpSpec &spec) {
  std::map<std::string, std::string> attrs;
  if (spec.findAttr("act_type") && llvm::StringRef(spec.mxnetName) == "LeakyReLU")
    attrs["act_type"] = "rrelu";
  if (llvm::StringRef(spec.mxnetName) == "topk") // values and indices
    attrs["ret_typ"] = "both";
  if (spec.findAttr("get_prob")) // _sample_multinomial's log-probabilities
    attrs["get_prob"] = "True";
  if (llvm::StringRef(spec.mxnetName) == "RNN") { // state_cell, the states
    attrs["mode"] = "lstm";
    attrs["state_outputs"] = "True";
  }
  return attrs;
}
} // namespace

TEST(OpTableConsistency, OutputCounts) {
  for (const mx::OpSpec &spec : mx::allOpSpecs())
    EXPECT_EQ(graph::numOutputsOf(spec.mxnetName, fullAttrs(spec)),
              spec.numOutputs)
        << spec.mxnetName;
}

TEST(OpTableConsistency, AuxInputs) {
  for (const mx::OpSpec &spec : mx::allOpSpecs()) {
    std::vector<unsigned> want(spec.auxInputs.begin(), spec.auxInputs.end());
    std::vector<uint32_t> got = graph::auxInputsOf(spec.mxnetName);
    EXPECT_EQ(std::vector<unsigned>(got.begin(), got.end()), want)
        << spec.mxnetName;
  }
}

TEST(OpTableConsistency, InputNamesWhereGraphKnowsThem) {
  unsigned compared = 0;
  for (const mx::OpSpec &spec : mx::allOpSpecs()) {
    std::map<std::string, std::string> attrs;
    if (llvm::StringRef(spec.mxnetName) == "LeakyReLU")
      attrs["act_type"] = "prelu";
    if (spec.findAttr("use_length"))
      attrs["use_length"] = "True";
    if (llvm::StringRef(spec.mxnetName).starts_with("Sequence"))
      attrs["use_sequence_length"] = "True"; // (RNN's is not in mxc's table)
    if (llvm::StringRef(spec.mxnetName) == "Deconvolution")
      attrs["no_bias"] = "False"; // MXNet's default is True: no bias input
    if (llvm::StringRef(spec.mxnetName) == "RNN")
      attrs["mode"] = "lstm"; // state_cell
    if (llvm::StringRef(spec.mxnetName) == "_contrib_BilinearResize2D")
      attrs["mode"] = "like"; // like
    std::vector<std::string> got = graph::inputNamesOf(spec.mxnetName, attrs);
    if (got.empty() || spec.variadicInputs)
      continue;
    ++compared;
    std::vector<std::string> want(spec.inputNames.begin(), spec.inputNames.end());
    EXPECT_EQ(got, want) << spec.mxnetName;
  }
  EXPECT_GE(compared, 9u); // the layers with parameters at least
}

TEST(OpTableConsistency, VisibleOutputNames) {
  for (const mx::OpSpec &spec : mx::allOpSpecs()) {
    if (spec.outputNames.empty() || !spec.numVisibleOutputs)
      continue;
    std::map<std::string, std::string> attrs = fullAttrs(spec);
    if (spec.variadicOutputs) { // <name>0, <name>1, ... for num_outputs
      attrs["num_outputs"] = "3";
      std::vector<std::string> want;
      for (int i = 0; i < 3; ++i)
        want.push_back(spec.outputNames[0] + std::to_string(i));
      EXPECT_EQ(graph::outputNamesOf(spec.mxnetName, attrs), want)
          << spec.mxnetName;
      continue;
    }
    std::vector<std::string> got = graph::outputNamesOf(spec.mxnetName, attrs);
    std::vector<std::string> want(spec.outputNames.begin(),
                                  spec.outputNames.begin() +
                                      std::min<size_t>(spec.numVisibleOutputs,
                                                       spec.outputNames.size()));
    EXPECT_EQ(got, want) << spec.mxnetName;
  }
}
