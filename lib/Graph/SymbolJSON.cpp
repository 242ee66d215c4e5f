//===- SymbolJSON.cpp - MXNet symbol JSON in and out ------------*- C++ -*-===//
//
// Reads every variant of symbol JSON that MXNet wrote (nnvm's saveload_json
// plus MXNet's legacy upgrade, src/nnvm/legacy_json_util.cc) and writes the
// layout of MXNet 1.9.1 byte for byte as dmlc's JSONWriter formats it.
//
//===----------------------------------------------------------------------===//

#include "mxc/Graph/Graph.h"

#include "Printable.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

#include <algorithm>
#include <set>

using namespace mxc::graph;
using llvm::StringRef;
namespace json = llvm::json;

namespace {

//===----------------------------------------------------------------------===//
// Reading
//===----------------------------------------------------------------------===//

/// Deepest nesting accepted. MXNet files nest 5 deep; the limit keeps
/// llvm::json's recursive parser and destructor off the end of the stack.
constexpr unsigned kMaxDepth = 64;

/// Rejects input nested deeper than kMaxDepth before llvm::json sees it.
llvm::Error checkDepth(StringRef text) {
  unsigned depth = 0, line = 1;
  bool inString = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '\n')
      ++line;
    if (inString) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        inString = false;
      continue;
    }
    if (c == '"') {
      inString = true;
    } else if (c == '[' || c == '{') {
      if (++depth > kMaxDepth)
        return llvm::createStringError(
            llvm::formatv("not valid symbol JSON: nested deeper than {0} "
                          "levels at line {1}, byte {2}",
                          kMaxDepth, line, i)
                .str());
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return llvm::Error::success();
}

llvm::Error fail(const llvm::Twine &msg) {
  return llvm::createStringError(msg.str());
}

/// JSON type names for messages.
StringRef kindName(const json::Value &v) {
  switch (v.kind()) {
  case json::Value::Null:
    return "null";
  case json::Value::Boolean:
    return "a boolean";
  case json::Value::Number:
    return "a number";
  case json::Value::String:
    return "a string";
  case json::Value::Array:
    return "an array";
  case json::Value::Object:
    return "an object";
  }
  return "?";
}

/// A JSON integer in [0, 2^32).
std::optional<uint32_t> asUInt32(const json::Value &v) {
  std::optional<int64_t> i = v.getAsInteger();
  if (!i || *i < 0 || *i > int64_t(UINT32_MAX))
    return std::nullopt;
  return uint32_t(*i);
}

/// Parses the one-file graph; `where` prefixes messages about a node.
class SymbolReader {
public:
  llvm::Expected<Graph> read(StringRef text);

private:
  /// A graph object: the file's top level, or a control-flow node's
  /// subgraph (`subgraph` true: no graph attributes of its own).
  llvm::Expected<Graph> readGraph(const json::Value &v, bool subgraph);
  llvm::Error readNode(const json::Value &v, uint32_t i, Node &node);
  llvm::Error readEntry(const json::Value &v, NodeEntry &e,
                        const std::string &where);
  llvm::Error readStringMap(const json::Value &v,
                            std::map<std::string, std::string> &out,
                            const std::string &where, StringRef key,
                            bool overwrite);
  llvm::Error readUIntArray(const json::Value &v, std::vector<uint32_t> &out,
                            const std::string &where);
  llvm::Error readGraphAttrs(const json::Value &v, Graph &g);
};

llvm::Error SymbolReader::readEntry(const json::Value &v, NodeEntry &e,
                                    const std::string &where) {
  const json::Array *a = v.getAsArray();
  if (!a || a->size() < 2 || a->size() > 3)
    return fail(where + " must be [node, index] or [node, index, version]");
  std::optional<uint32_t> parts[3] = {std::nullopt, std::nullopt, 0};
  for (size_t k = 0; k < a->size(); ++k) {
    parts[k] = asUInt32((*a)[k]);
    if (!parts[k])
      return fail(where + ": element " + llvm::Twine(k) +
                  " must be an integer in [0, 2^32), not " +
                  ((*a)[k].kind() == json::Value::Number ? "that number"
                                                         : kindName((*a)[k])));
  }
  e.node = *parts[0];
  e.index = *parts[1];
  e.version = *parts[2];
  return llvm::Error::success();
}

llvm::Error SymbolReader::readStringMap(const json::Value &v,
                                        std::map<std::string, std::string> &out,
                                        const std::string &where,
                                        StringRef key, bool overwrite) {
  const json::Object *o = v.getAsObject();
  if (!o)
    return fail(where + ": '" + key + "' must be an object, not " +
                kindName(v));
  // Sorted, so that the first bad attribute reported does not depend on
  // llvm::json's hash order.
  std::map<std::string, const json::Value *> sorted;
  for (const auto &kv : *o)
    sorted[kv.first.str()] = &kv.second;
  for (const auto &[k, val] : sorted) {
    std::optional<StringRef> s = val->getAsString();
    if (!s)
      return fail(where + ": attribute '" + detail::printable(k) + "' in '" +
                  key +
                  "' must be a string, not " + kindName(*val));
    if (overwrite)
      out[k] = s->str();
    else
      out.emplace(k, s->str());
  }
  return llvm::Error::success();
}

llvm::Error SymbolReader::readUIntArray(const json::Value &v,
                                        std::vector<uint32_t> &out,
                                        const std::string &where) {
  const json::Array *a = v.getAsArray();
  if (!a)
    return fail(where + " must be an array, not " + kindName(v));
  for (size_t k = 0; k < a->size(); ++k) {
    std::optional<uint32_t> x = asUInt32((*a)[k]);
    if (!x)
      return fail(where + "[" + llvm::Twine(k) +
                  "] must be an integer in [0, 2^32)");
    out.push_back(*x);
  }
  return llvm::Error::success();
}

llvm::Error SymbolReader::readNode(const json::Value &v, uint32_t i,
                                   Node &node) {
  std::string where = "node " + std::to_string(i);
  const json::Object *o = v.getAsObject();
  if (!o)
    return fail(where + " must be an object, not " + kindName(v));
  // The name first, so that every later message can carry it.
  const json::Value *name = o->get("name");
  if (!name)
    return fail(where + ": missing key 'name'");
  std::optional<StringRef> nameStr = name->getAsString();
  if (!nameStr)
    return fail(where + ": 'name' must be a string, not " + kindName(*name));
  node.name = nameStr->str();
  where += " ('" + detail::printable(node.name) + "')";

  std::set<std::string> keys;
  for (const auto &kv : *o)
    keys.insert(kv.first.str());
  for (const std::string &k : keys) {
    if (k == "op" || k == "name" || k == "inputs" || k == "attrs" ||
        k == "attr" || k == "param" || k == "control_deps" ||
        k == "backward_source_id" || k == "subgraphs")
      continue;
    return fail(where + ": unknown key '" + detail::printable(k) + "'");
  }

  const json::Value *op = o->get("op");
  if (!op)
    return fail(where + ": missing key 'op'");
  std::optional<StringRef> opStr = op->getAsString();
  if (!opStr)
    return fail(where + ": 'op' must be a string, not " + kindName(*op));
  node.op = opStr->str();

  // nnvm reads "attrs" and the legacy "attr" into the same dictionary and
  // adds "param" (MXNet 0.8's operator parameters) without overwriting.
  for (StringRef key : {"attrs", "attr"})
    if (const json::Value *a = o->get(key))
      if (llvm::Error err = readStringMap(*a, node.attrs, where, key, true))
        return err;
  if (const json::Value *p = o->get("param"))
    if (llvm::Error err = readStringMap(*p, node.attrs, where, "param", false))
      return err;

  if (const json::Value *b = o->get("backward_source_id"))
    if (!b->getAsInteger())
      return fail(where + ": 'backward_source_id' must be an integer, not " +
                  kindName(*b));

  const json::Value *inputs = o->get("inputs");
  if (!inputs)
    return fail(where + ": missing key 'inputs'");
  const json::Array *in = inputs->getAsArray();
  if (!in)
    return fail(where + ": 'inputs' must be an array, not " +
                kindName(*inputs));
  node.inputs.resize(in->size());
  for (size_t k = 0; k < in->size(); ++k)
    if (llvm::Error err = readEntry((*in)[k], node.inputs[k],
                                    where + ": input " + std::to_string(k)))
      return err;

  if (const json::Value *c = o->get("control_deps"))
    if (llvm::Error err =
            readUIntArray(*c, node.controlDeps, where + ": 'control_deps'"))
      return err;

  if (const json::Value *sv = o->get("subgraphs")) {
    const json::Array *subs = sv->getAsArray();
    if (!subs)
      return fail(where + ": 'subgraphs' must be an array, not " +
                  kindName(*sv));
    if (!subs->empty() && !isControlFlowOp(node.op))
      return fail(where + ": operator '" + detail::printable(node.op) +
                  "' has subgraphs; only the control-flow operators "
                  "_foreach, _while_loop and _cond do");
    for (size_t k = 0; k < subs->size(); ++k) {
      llvm::Expected<Graph> sub = readGraph((*subs)[k], /*subgraph=*/true);
      if (!sub)
        return fail(where + ": subgraph " + llvm::Twine(k) + ": " +
                    llvm::toString(sub.takeError()));
      node.subgraphs.push_back(std::move(*sub));
    }
  }
  return llvm::Error::success();
}

llvm::Error SymbolReader::readGraphAttrs(const json::Value &v, Graph &g) {
  const json::Object *o = v.getAsObject();
  if (!o)
    return fail("'attrs' must be an object, not " + kindName(v));
  std::map<std::string, const json::Value *> sorted;
  for (const auto &kv : *o)
    sorted[kv.first.str()] = &kv.second;
  for (const auto &[k, val] : sorted) {
    // dmlc's `any`: ["type name", value].
    const json::Array *a = val->getAsArray();
    if (!a || a->size() != 2 || !(*a)[0].getAsString())
      return fail("attrs." + detail::printable(k) +
                  " must be [\"type\", value]");
    if (k == "is_np_shape") {
      std::optional<int64_t> on = (*a)[1].getAsInteger();
      if (*(*a)[0].getAsString() != "int" || !on)
        return fail("attrs.is_np_shape must be [\"int\", 0 or 1]");
      g.isNpShape = *on != 0;
      continue;
    }
    if (k != "mxnet_version")
      continue; // MXNet writes no other graph attribute; nothing to keep.
    std::optional<int64_t> version = (*a)[1].getAsInteger();
    if (*(*a)[0].getAsString() != "int" || !version)
      return fail("attrs.mxnet_version must be [\"int\", N]");
    g.mxnetVersion = *version;
  }
  return llvm::Error::success();
}

llvm::Expected<Graph> SymbolReader::read(StringRef text) {
  if (llvm::Error err = checkDepth(text))
    return std::move(err);
  llvm::Expected<json::Value> parsed = json::parse(text);
  if (!parsed)
    return fail("not valid JSON: " + llvm::toString(parsed.takeError()));
  return readGraph(*parsed, /*subgraph=*/false);
}

llvm::Expected<Graph> SymbolReader::readGraph(const json::Value &v,
                                              bool subgraph) {
  const json::Object *top = v.getAsObject();
  if (!top)
    return fail("symbol JSON must be an object, not " + kindName(v));

  std::set<std::string> keys;
  for (const auto &kv : *top)
    keys.insert(kv.first.str());
  for (const std::string &k : keys)
    if (k != "nodes" && k != "arg_nodes" && k != "heads" &&
        k != "node_row_ptr" && k != "attrs")
      return fail("symbol JSON: unknown top-level key '" +
                  detail::printable(k) + "'");
  for (StringRef k : {"nodes", "arg_nodes", "heads"})
    if (!top->get(k))
      return fail("symbol JSON: missing key '" + k + "'");

  Graph g;
  const json::Array *nodes = top->get("nodes")->getAsArray();
  if (!nodes)
    return fail("'nodes' must be an array, not " +
                kindName(*top->get("nodes")));
  if (nodes->size() > UINT32_MAX)
    return fail("'nodes' has too many entries");
  g.nodes.resize(nodes->size());
  for (size_t i = 0; i < nodes->size(); ++i)
    if (llvm::Error err = readNode((*nodes)[i], uint32_t(i), g.nodes[i]))
      return std::move(err);

  if (llvm::Error err =
          readUIntArray(*top->get("arg_nodes"), g.argNodes, "'arg_nodes'"))
    return std::move(err);

  const json::Array *heads = top->get("heads")->getAsArray();
  if (!heads)
    return fail("'heads' must be an array, not " +
                kindName(*top->get("heads")));
  g.heads.resize(heads->size());
  for (size_t h = 0; h < heads->size(); ++h)
    if (llvm::Error err =
            readEntry((*heads)[h], g.heads[h], "head " + std::to_string(h)))
      return std::move(err);

  if (const json::Value *a = top->get("attrs"); a && !subgraph)
    if (llvm::Error err = readGraphAttrs(*a, g))
      return std::move(err);

  // Output counts: node_row_ptr when present (it records hidden outputs such
  // as MKL-DNN pooling's workspace), else the operator table.
  if (const json::Value *r = top->get("node_row_ptr")) {
    std::vector<uint32_t> rowPtr;
    if (llvm::Error err = readUIntArray(*r, rowPtr, "'node_row_ptr'"))
      return std::move(err);
    if (rowPtr.size() != g.nodes.size() + 1)
      return fail(llvm::formatv("'node_row_ptr' has {0} entries; expected {1} "
                                "(one per node, plus one)",
                                rowPtr.size(), g.nodes.size() + 1)
                      .str());
    if (rowPtr[0] != 0)
      return fail("'node_row_ptr' must start at 0");
    for (size_t i = 0; i < g.nodes.size(); ++i) {
      if (rowPtr[i + 1] < rowPtr[i])
        return fail(llvm::formatv("'node_row_ptr' decreases at entry {0} "
                                  "(node {1} ('{2}'))",
                                  i + 1, i, detail::printable(g.nodes[i].name))
                        .str());
      g.nodes[i].numOutputs = rowPtr[i + 1] - rowPtr[i];
    }
  } else {
    for (Node &node : g.nodes)
      node.numOutputs =
          node.isVariable() ? 1 : numOutputsOf(node.op, node.attrs);
  }

  if (llvm::Error err = g.verify())
    return std::move(err);
  return std::move(g);
}

//===----------------------------------------------------------------------===//
// MXNet's upgrade of older files (legacy_json_util.cc)
//===----------------------------------------------------------------------===//

/// MXNet's hidden keys (kHiddenKeys in c_api_symbolic.cc).
const char *const kHiddenKeys[] = {"ctx_group", "lr_mult", "wd_mult",
                                   "force_mirroring", "mirror_stage"};

/// UpgradeJSON_FixParsing: attributes named like a hidden key become
/// `__key__`. A key equal to one ("lr_mult") moves to `__lr_mult__` on the
/// node; an operator's key "<input>_<hidden>" ("weight_lr_mult") moves to
/// `__lr_mult__` on the variable feeding that input, when there is one. Keys
/// that match nothing stay as they are.
void upgradeHiddenKeys(Graph &g) {
  for (uint32_t v : g.postOrder()) {
    Node &node = g.nodes[v];
    std::vector<std::pair<std::string, std::string>> hidden;
    for (auto it = node.attrs.begin(); it != node.attrs.end();) {
      StringRef k = it->first;
      bool isHidden = false;
      for (StringRef hk : kHiddenKeys) {
        size_t pos = k.rfind(hk);
        if (pos == 0 ||
            (pos != StringRef::npos && pos == k.size() - hk.size())) {
          isHidden = true;
          break;
        }
      }
      if (isHidden) {
        hidden.emplace_back(it->first, it->second);
        it = node.attrs.erase(it);
      } else {
        ++it;
      }
    }
    for (const auto &[k, value] : hidden) {
      StringRef key = k;
      bool moved = false;
      for (StringRef hk : kHiddenKeys) {
        size_t pos = key.rfind(hk);
        if (pos == 0 && hk.size() == key.size()) {
          node.attrs["__" + hk.str() + "__"] = value;
          moved = true;
          break;
        }
        if (pos != StringRef::npos && pos > 1 &&
            pos == key.size() - hk.size()) {
          if (node.isVariable())
            break;
          std::vector<std::string> argNames =
              inputNamesOf(node.op, node.attrs);
          std::string arg = key.substr(0, pos - 1).str();
          auto found = std::find(argNames.begin(), argNames.end(), arg);
          if (found != argNames.end()) {
            size_t idx = found - argNames.begin();
            if (idx < node.inputs.size()) {
              Node &src = g.nodes[node.inputs[idx].node];
              if (src.isVariable()) {
                src.attrs["__" + hk.str() + "__"] = value;
                moved = true;
              }
            }
          }
          break;
        }
      }
      if (!moved)
        node.attrs[k] = value;
    }
  }
}

/// UpgradeJSON_000800_000900: before 0.9 the auxiliary states were not
/// stored; add a variable "<node>_<input name>" for each missing input, with
/// a copy of the operator's attributes. The variables go right before their
/// operator, where nnvm's DFS order puts them.
void upgradeAddMissingInputs(Graph &g) {
  std::vector<std::vector<std::string>> added(g.nodes.size());
  bool any = false;
  for (uint32_t v : g.postOrder()) {
    const Node &node = g.nodes[v];
    if (node.isVariable())
      continue;
    std::vector<std::string> names = inputNamesOf(node.op, node.attrs);
    for (size_t i = node.inputs.size(); i < names.size(); ++i) {
      added[v].push_back(node.name.empty() ? names[i]
                                           : node.name + "_" + names[i]);
      any = true;
    }
  }
  if (!any)
    return;

  std::vector<uint32_t> newIndex(g.nodes.size());
  std::vector<Node> nodes;
  std::vector<uint8_t> isNew;
  for (uint32_t v = 0; v < g.nodes.size(); ++v) {
    std::vector<uint32_t> vars;
    for (const std::string &name : added[v]) {
      Node var;
      var.op = "null";
      var.name = name;
      var.attrs = g.nodes[v].attrs;
      vars.push_back(uint32_t(nodes.size()));
      nodes.push_back(std::move(var));
      isNew.push_back(1);
    }
    newIndex[v] = uint32_t(nodes.size());
    nodes.push_back(std::move(g.nodes[v]));
    isNew.push_back(0);
    for (uint32_t var : vars)
      nodes.back().inputs.push_back(NodeEntry{var, 0, 0});
  }
  // Remap old indices: the inputs read from the file refer to old indices,
  // the ones appended above (the last added[v].size()) already to new ones.
  for (uint32_t v = 0; v < g.nodes.size(); ++v) {
    Node &node = nodes[newIndex[v]];
    size_t fileInputs = node.inputs.size() - added[v].size();
    for (size_t k = 0; k < fileInputs; ++k)
      node.inputs[k].node = newIndex[node.inputs[k].node];
    for (uint32_t &c : node.controlDeps)
      c = newIndex[c];
  }
  for (NodeEntry &h : g.heads)
    h.node = newIndex[h.node];
  std::vector<uint32_t> argNodes;
  for (uint32_t a : g.argNodes)
    argNodes.push_back(newIndex[a]);
  for (size_t i = 0; i < nodes.size(); ++i)
    if (isNew[i])
      argNodes.push_back(uint32_t(i));
  std::sort(argNodes.begin(), argNodes.end());
  g.nodes = std::move(nodes);
  g.argNodes = std::move(argNodes);
}

/// UpgradeJSON_000903_000904: FSetInputVarAttrOnCompose gave the variables
/// feeding some operators an initializer (BatchNorm's moving statistics,
/// PReLU's gamma) unless they had one.
void upgradeInputVarInit(Graph &g) {
  for (uint32_t v : g.postOrder()) {
    const Node &node = g.nodes[v];
    StringRef op = node.op;
    bool batchNorm = op == "BatchNorm" || op == "BatchNorm_v1" ||
                     op == "_contrib_SyncBatchNorm" || op == "CuDNNBatchNorm";
    for (size_t i = 0; i < node.inputs.size(); ++i) {
      Node &src = g.nodes[node.inputs[i].node];
      if (!src.isVariable() || src.attrs.count("__init__"))
        continue;
      if (batchNorm && i == 3)
        src.attrs["__init__"] = "[\"zero\", {}]";
      else if (batchNorm && i == 4)
        src.attrs["__init__"] = "[\"one\", {}]";
      else if (op == "LeakyReLU" && i == 1)
        src.attrs["__init__"] = "[\"Constant\", {\"value\": 0.25}]";
    }
  }
}

/// UpgradeJSON_000904_000905: argmax/argmin's axis=-1 became "no axis".
void upgradeArgAxis(Graph &g) {
  for (uint32_t v : g.postOrder()) {
    Node &node = g.nodes[v];
    if (node.op != "argmax" && node.op != "argmin")
      continue;
    auto it = node.attrs.find("axis");
    if (it != node.attrs.end() && it->second == "-1")
      node.attrs.erase(it);
  }
}

/// LoadLegacyJSONPass: every upgrader newer than the file runs, in order.
void upgrade(Graph &g) {
  int64_t version = g.mxnetVersion.value_or(800); // MXNET_MAKE_VERSION(0,8,0)
  if (version < kMXNetVersion)
    upgradeHiddenKeys(g);
  if (version < 900)
    upgradeAddMissingInputs(g);
  if (version < 904)
    upgradeInputVarInit(g);
  if (version < 905)
    upgradeArgAxis(g);
}

//===----------------------------------------------------------------------===//
// Writing: dmlc::JSONWriter's layout
//===----------------------------------------------------------------------===//

/// The subset of dmlc::JSONWriter that nnvm's SaveJSON uses, with its
/// separators: ", " between items, a newline and two spaces per open scope
/// before each item of a multi-line scope and before its closing bracket.
class DmlcWriter {
public:
  explicit DmlcWriter(std::string &out) : out(out) {}

  void beginObject(bool multiLine) { begin('{', multiLine); }
  void endObject() { end('}'); }
  void beginArray(bool multiLine) { begin('[', multiLine); }
  void endArray() { end(']'); }

  /// Writes `"key": ` in the current object; the value follows.
  void key(StringRef k) {
    if (scopes.back().count > 0)
      out += ", ";
    separator();
    string(k); // dmlc writes keys unescaped; escape them to stay JSON
    out += ": ";
    ++scopes.back().count;
  }
  /// Starts the next item of the current array.
  void item() {
    if (scopes.back().count != 0)
      out += ", ";
    ++scopes.back().count;
    separator();
  }

  void string(StringRef s) {
    out += '"';
    for (char c : s) {
      switch (c) {
      case '\r':
        out += "\\r";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\t':
        out += "\\t";
        break;
      case '"':
        out += "\\\"";
        break;
      default:
        // dmlc writes other control characters raw, which is not JSON;
        // escape them (MXNet's own reader does not know \u, but such names
        // do not occur in practice).
        if (static_cast<unsigned char>(c) < 0x20)
          out += llvm::formatv("\\u{0:x-4}", unsigned(c)).str();
        else
          out += c;
      }
    }
    out += '"';
  }
  void number(uint64_t n) { out += std::to_string(n); }

  /// An array of unsigned numbers (dmlc: multi-line beyond 10 items).
  template <typename T> void uintArray(const std::vector<T> &v) {
    beginArray(v.size() > 10);
    for (T x : v) {
      item();
      number(x);
    }
    endArray();
  }
  /// An array of [node, index, version] entries.
  void entryArray(const std::vector<NodeEntry> &v) {
    beginArray(v.size() > 10);
    for (const NodeEntry &e : v) {
      item();
      beginArray(false);
      item();
      number(e.node);
      item();
      number(e.index);
      item();
      number(e.version);
      endArray();
    }
    endArray();
  }
  void stringMap(const std::map<std::string, std::string> &m) {
    beginObject(m.size() > 1);
    for (const auto &[k, v] : m) {
      key(k);
      string(v);
    }
    endObject();
  }

private:
  struct Scope {
    bool multiLine;
    size_t count;
  };
  void begin(char c, bool multiLine) {
    out += c;
    scopes.push_back({multiLine, 0});
  }
  void end(char c) {
    Scope s = scopes.back();
    scopes.pop_back();
    if (s.multiLine && s.count != 0)
      separator();
    out += c;
  }
  void separator() {
    if (scopes.empty() || scopes.back().multiLine) {
      out += '\n';
      out.append(scopes.size() * 2, ' ');
    }
  }

  std::string &out;
  std::vector<Scope> scopes;
};

} // namespace

llvm::Expected<Graph> mxc::graph::readSymbolJSON(StringRef text) {
  SymbolReader reader;
  llvm::Expected<Graph> g = reader.read(text);
  if (!g)
    return g.takeError();
  upgrade(*g);
  return g;
}

llvm::Expected<Graph> mxc::graph::readSymbolFile(StringRef path) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buf =
      llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                  /*RequiresNullTerminator=*/false);
  if (!buf)
    return llvm::createStringError(buf.getError(), "cannot read '" + path +
                                                       "': " +
                                                       buf.getError().message());
  llvm::Expected<Graph> g = readSymbolJSON((*buf)->getBuffer());
  if (!g)
    return llvm::createStringError(path + ": " + llvm::toString(g.takeError()));
  return g;
}

namespace {
/// One graph object; `subgraph`: a control-flow node's graph, which nnvm
/// writes without the graph attributes.
void writeGraph(DmlcWriter &w, const Graph &g, bool subgraph) {
  w.beginObject(true);
  w.key("nodes");
  w.beginArray(true);
  std::vector<uint32_t> argNodes;
  // 64-bit sums: a wrapped node_row_ptr would read back as another graph.
  std::vector<uint64_t> rowPtr{0};
  for (uint32_t i = 0; i < g.nodes.size(); ++i) {
    const Node &node = g.nodes[i];
    if (node.isVariable())
      argNodes.push_back(i);
    rowPtr.push_back(rowPtr.back() + node.numOutputs);
    w.item();
    w.beginObject(true);
    w.key("op");
    w.string(node.op);
    w.key("name");
    w.string(node.name);
    if (!node.attrs.empty()) {
      w.key("attrs");
      w.stringMap(node.attrs);
    }
    w.key("inputs");
    w.entryArray(node.inputs);
    if (!node.controlDeps.empty()) {
      w.key("control_deps");
      w.uintArray(node.controlDeps);
    }
    if (!node.subgraphs.empty()) {
      w.key("subgraphs");
      w.beginArray(true);
      for (const Graph &sub : node.subgraphs) {
        w.item();
        writeGraph(w, sub, /*subgraph=*/true);
      }
      w.endArray();
    }
    w.endObject();
  }
  w.endArray();
  w.key("arg_nodes");
  w.uintArray(argNodes);
  w.key("node_row_ptr");
  w.uintArray(rowPtr);
  w.key("heads");
  w.entryArray(g.heads);
  if (subgraph) {
    w.endObject();
    return;
  }
  w.key("attrs");
  w.beginObject(false);
  if (g.isNpShape) {
    // dmlc writes the attribute map sorted: is_np_shape first.
    w.key("is_np_shape");
    w.beginArray(false);
    w.item();
    w.string("int");
    w.item();
    w.number(1);
    w.endArray();
  }
  w.key("mxnet_version");
  w.beginArray(false);
  w.item();
  w.string("int");
  w.item();
  w.number(kMXNetVersion);
  w.endArray();
  w.endObject();
  w.endObject();
}
} // namespace

std::string mxc::graph::writeSymbolJSON(const Graph &g) {
  std::string out;
  DmlcWriter w(out);
  writeGraph(w, g, /*subgraph=*/false);
  return out;
}
