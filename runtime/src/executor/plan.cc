// plan.cc - the text form of execution plans ("mxc-plan 1"): parsing with
// complete validation (line-numbered errors, never a crash), printing, and
// the kernel table. The format is specified in docs/runtime.md.
#include "mxc/runtime/plan.h"

#include <map>
#include <set>

namespace mxc::runtime {

KernelTable::KernelTable(const mxc_kernel_entry *rows, size_t count) {
  for (size_t k = 0; k < count; ++k)
    add(rows[k].symbol, rows[k].fn);
}

void KernelTable::add(const std::string &symbol, KernelFn fn) {
  table_[symbol] = fn;
}

KernelFn KernelTable::find(const std::string &symbol) const {
  auto it = table_.find(symbol);
  return it == table_.end() ? nullptr : it->second;
}

std::string PlanError::str() const {
  if (line <= 0)
    return message;
  return "line " + std::to_string(line) + ": " + message;
}

namespace {

// Limits that keep every size computation far from overflow.
constexpr uint64_t kMaxArenaBytes = uint64_t(1) << 48;
constexpr uint64_t kMaxIndex = uint64_t(1) << 20;
constexpr size_t kMaxRank = 32;

// Thrown inside the parser only; parse() turns it into a PlanError.
struct ParseFailure {
  PlanError error;
};

[[noreturn]] void fail(int line, std::string message) {
  throw ParseFailure{PlanError{line, std::move(message)}};
}

// A token quoted for a message: printable, and cut if long.
std::string quote(std::string_view s) {
  std::string out = "'";
  out.append(s.substr(0, 64));
  if (s.size() > 64)
    out += "...";
  return out + "'";
}

// Splits a line (comment already removed) at spaces and tabs.
std::vector<std::string_view> tokenize(std::string_view line) {
  std::vector<std::string_view> tokens;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && (line[i] == ' ' || line[i] == '\t'))
      ++i;
    size_t start = i;
    while (i < line.size() && line[i] != ' ' && line[i] != '\t')
      ++i;
    if (i > start)
      tokens.push_back(line.substr(start, i - start));
  }
  return tokens;
}

// A decimal integer without sign; nullopt if malformed or above `max`.
std::optional<uint64_t> parseUInt(std::string_view s, uint64_t max) {
  if (s.empty() || s.size() > 19)
    return std::nullopt;
  uint64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9')
      return std::nullopt;
    v = v * 10 + static_cast<uint64_t>(c - '0');
  }
  if (v > max)
    return std::nullopt;
  return v;
}

// "(2,3)", "(5,)", "(5)", "()"; nullopt otherwise.
std::optional<Shape> parseShape(std::string_view s) {
  if (s.size() < 2 || s.front() != '(' || s.back() != ')')
    return std::nullopt;
  s = s.substr(1, s.size() - 2);
  Shape shape;
  if (s.empty())
    return shape;
  if (s.back() == ',')
    s.remove_suffix(1);
  while (true) {
    size_t comma = s.find(',');
    auto dim = parseUInt(s.substr(0, comma), uint64_t(1) << 62);
    if (!dim || shape.size() == kMaxRank)
      return std::nullopt;
    shape.push_back(static_cast<int64_t>(*dim));
    if (comma == std::string_view::npos)
      return shape;
    s.remove_prefix(comma + 1);
  }
}

const char *kindName(BufferKind k) {
  switch (k) {
  case BufferKind::Argument:
    return "argument";
  case BufferKind::Output:
    return "output";
  case BufferKind::Arena:
    return "arena";
  }
  return "?";
}

// Parses one plan; each method handles one line kind.
class Parser {
public:
  explicit Parser(Plan &plan) : plan_(plan) {}

  void run(std::string_view text) {
    int line = 0;
    size_t pos = 0;
    bool sawHeader = false;
    while (pos <= text.size()) {
      size_t nl = text.find('\n', pos);
      std::string_view raw = text.substr(
          pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos);
      pos = nl == std::string_view::npos ? text.size() + 1 : nl + 1;
      ++line;
      if (!raw.empty() && raw.back() == '\r')
        raw.remove_suffix(1);
      for (char c : raw)
        if ((static_cast<unsigned char>(c) < 0x20 && c != '\t') ||
            static_cast<unsigned char>(c) >= 0x7f)
          fail(line, "unexpected byte " + hex(static_cast<unsigned char>(c)));
      if (line == 1) {
        header(tokenize(raw));
        sawHeader = true;
        continue;
      }
      size_t hash = raw.find('#');
      if (hash != std::string_view::npos)
        raw = raw.substr(0, hash);
      std::vector<std::string_view> t = tokenize(raw);
      if (t.empty())
        continue;
      if (t[0] == "arena")
        arena(line, t);
      else if (t[0] == "buffer")
        buffer(line, t);
      else if (t[0] == "step")
        step(line, t);
      else
        fail(line, "unknown line kind " + quote(t[0]) +
                       " (expected arena, buffer or step)");
    }
    if (!sawHeader)
      fail(1, "expected the header 'mxc-plan <version>'");
    finish(line);
  }

private:
  static std::string hex(unsigned char c) {
    const char *digits = "0123456789abcdef";
    return std::string("0x") + digits[c >> 4] + digits[c & 15];
  }

  void header(const std::vector<std::string_view> &t) {
    if (t.size() != 2 || t[0] != "mxc-plan")
      fail(1, "expected the header 'mxc-plan <version>'");
    auto v = parseUInt(t[1], 1000000);
    if (!v)
      fail(1, "bad plan version " + quote(t[1]));
    if (*v != Plan::kVersion)
      fail(1, "unsupported plan version " + std::to_string(*v) +
                  " (this runtime reads version " +
                  std::to_string(Plan::kVersion) + ")");
    plan_.version = static_cast<int>(*v);
  }

  void arena(int line, const std::vector<std::string_view> &t) {
    if (t.size() != 2)
      fail(line, "expected 'arena <bytes>'");
    if (arenaLine_)
      fail(line, "duplicate arena line (the first is line " +
                     std::to_string(arenaLine_) + ")");
    if (!plan_.buffers.empty() || !plan_.steps.empty())
      fail(line, "the arena line must come before buffers and steps");
    auto bytes = parseUInt(t[1], kMaxArenaBytes);
    if (!bytes)
      fail(line, "bad arena size " + quote(t[1]) + " (at most 2^48 bytes)");
    plan_.arenaBytes = *bytes;
    arenaLine_ = line;
  }

  void buffer(int line, const std::vector<std::string_view> &t) {
    if (t.size() < 3)
      fail(line, "expected 'buffer <name> <kind> ...'");
    PlanBuffer b;
    b.line = line;
    b.name = std::string(t[1]);
    if (b.name == "reads" || b.name == "writes")
      fail(line, quote(b.name) + " cannot name a buffer");
    size_t next;
    if (t[2] == "argument" || t[2] == "output") {
      b.kind = t[2] == "argument" ? BufferKind::Argument : BufferKind::Output;
      if (t.size() != 6)
        fail(line, "expected 'buffer <name> " + std::string(t[2]) +
                       " <index> <dtype> <shape>'");
      auto index = parseUInt(t[3], kMaxIndex - 1);
      if (!index)
        fail(line, "bad " + std::string(t[2]) + " index " + quote(t[3]));
      b.index = static_cast<uint32_t>(*index);
      next = 4;
    } else if (t[2] == "arena") {
      b.kind = BufferKind::Arena;
      if (t.size() != 7)
        fail(line, "expected 'buffer <name> arena <offset> <bytes> <dtype> "
                   "<shape>'");
      auto offset = parseUInt(t[3], kMaxArenaBytes);
      if (!offset)
        fail(line, "bad arena offset " + quote(t[3]));
      auto size = parseUInt(t[4], kMaxArenaBytes);
      if (!size)
        fail(line, "bad buffer size " + quote(t[4]));
      b.offset = *offset;
      b.size = *size;
      next = 5;
    } else {
      fail(line, "unknown buffer kind " + quote(t[2]) +
                     " (expected argument, output or arena)");
    }
    auto dtype = dtypeFromName(std::string(t[next]));
    if (!dtype)
      fail(line, "unknown dtype " + quote(t[next]));
    b.dtype = *dtype;
    auto shape = parseShape(t[next + 1]);
    if (!shape)
      fail(line, "bad shape " + quote(t[next + 1]) +
                     " (expected e.g. (2,3), (5,) or ())");
    b.shape = std::move(*shape);
    auto bytes = shapeNumBytes(b.shape, b.dtype);
    if (!bytes || static_cast<uint64_t>(*bytes) > kMaxArenaBytes)
      fail(line, "buffer " + quote(b.name) + ": " + shapeStr(b.shape) + " " +
                     dtypeName(b.dtype) + " is too large");

    auto first = bufferIndex_.find(b.name);
    if (first != bufferIndex_.end())
      fail(line, "duplicate buffer name " + quote(b.name) +
                     " (the first is line " +
                     std::to_string(plan_.buffers[first->second].line) + ")");
    if (b.kind == BufferKind::Arena) {
      if (b.size != static_cast<uint64_t>(*bytes))
        fail(line, "buffer " + quote(b.name) + " has " +
                       std::to_string(b.size) + " bytes but " +
                       shapeStr(b.shape) + " " + dtypeName(b.dtype) +
                       " needs " + std::to_string(*bytes));
      if (b.offset + b.size > plan_.arenaBytes)
        fail(line, "buffer " + quote(b.name) + " [" + std::to_string(b.offset) +
                       ", " + std::to_string(b.offset + b.size) +
                       ") ends past the arena (" +
                       std::to_string(plan_.arenaBytes) + " bytes)");
      if (b.offset % dtypeSize(b.dtype) != 0)
        fail(line, "buffer " + quote(b.name) + " offset " +
                       std::to_string(b.offset) +
                       " is not a multiple of its element size " +
                       std::to_string(dtypeSize(b.dtype)));
    } else {
      b.size = static_cast<uint64_t>(*bytes);
      auto &seen = b.kind == BufferKind::Argument ? argLines_ : outLines_;
      auto dup = seen.find(b.index);
      if (dup != seen.end())
        fail(line, std::string(kindName(b.kind)) + " " +
                       std::to_string(b.index) +
                       " is declared twice (the first is line " +
                       std::to_string(dup->second.first) + ")");
      seen[b.index] = {line, static_cast<uint32_t>(plan_.buffers.size())};
    }
    bufferIndex_[b.name] = static_cast<uint32_t>(plan_.buffers.size());
    plan_.buffers.push_back(std::move(b));
    written_.push_back(plan_.buffers.back().kind == BufferKind::Argument);
  }

  void step(int line, const std::vector<std::string_view> &t) {
    if (t.size() < 6 || t[4] != "reads")
      fail(line, "expected 'step <name> <kernel> <device> reads <buffers> "
                 "writes <buffers>'");
    PlanStep s;
    s.line = line;
    s.name = std::string(t[1]);
    s.kernel = std::string(t[2]);
    auto device = Device::parse(std::string(t[3]));
    if (!device)
      fail(line, "bad device " + quote(t[3]) + " (expected e.g. cpu(0))");
    s.device = *device;
    auto first = stepLines_.find(s.name);
    if (first != stepLines_.end())
      fail(line, "duplicate step name " + quote(s.name) +
                     " (the first is line " + std::to_string(first->second) +
                     ")");
    if (!plan_.steps.empty() && plan_.steps.front().device != s.device)
      fail(line, "step " + quote(s.name) + " runs on " + s.device.str() +
                     " but the steps before on " +
                     plan_.steps.front().device.str() +
                     " (a version 1 plan runs on one device)");
    size_t i = 5;
    for (; i < t.size() && t[i] != "writes"; ++i)
      s.reads.push_back(lookup(line, s.name, "reads", t[i], s.reads));
    if (i == t.size())
      fail(line, "step " + quote(s.name) + " has no 'writes' list");
    for (++i; i < t.size(); ++i)
      s.writes.push_back(lookup(line, s.name, "writes", t[i], s.writes));
    if (s.writes.empty())
      fail(line, "step " + quote(s.name) + " writes no buffer");
    for (uint32_t r : s.reads)
      if (!written_[r])
        fail(line, "step " + quote(s.name) + " reads " +
                       kindName(plan_.buffers[r].kind) + " buffer " +
                       quote(plan_.buffers[r].name) +
                       " before any step writes it");
    for (uint32_t w : s.writes)
      written_[w] = true;
    stepLines_[s.name] = line;
    plan_.steps.push_back(std::move(s));
  }

  // The buffer `name` used by step `step` in its `list`; fails if it is
  // undeclared or already in `seen`.
  uint32_t lookup(int line, const std::string &step, const char *list,
                  std::string_view name, const std::vector<uint32_t> &seen) {
    auto it = bufferIndex_.find(std::string(name));
    if (it == bufferIndex_.end())
      fail(line, "step " + quote(step) + " " + list + " buffer " +
                     quote(name) + ", which is not declared");
    for (uint32_t s : seen)
      if (s == it->second)
        fail(line, "step " + quote(step) + " " + list + " " + quote(name) +
                       " twice");
    return it->second;
  }

  void finish(int lastLine) {
    // Arguments and outputs are numbered 0..n-1.
    for (auto *seen : {&argLines_, &outLines_}) {
      const char *kind = seen == &argLines_ ? "argument" : "output";
      uint32_t expect = 0;
      for (auto &[index, where] : *seen) {
        if (index != expect)
          fail(seen->rbegin()->second.first,
               std::string(kind) + " " + std::to_string(seen->rbegin()->first) +
                   " is declared but " + kind + " " + std::to_string(expect) +
                   " is not");
        ++expect;
      }
    }
    for (auto &[index, where] : outLines_)
      if (!written_[where.second])
        fail(where.first, "output " + std::to_string(index) + " " +
                              quote(plan_.buffers[where.second].name) +
                              " is never written");
    (void)lastLine;
  }

  Plan &plan_;
  int arenaLine_ = 0;
  std::map<std::string, uint32_t> bufferIndex_;
  std::map<std::string, int> stepLines_;
  // index -> (line, buffer) for arguments and outputs.
  std::map<uint32_t, std::pair<int, uint32_t>> argLines_, outLines_;
  std::vector<bool> written_; // per buffer: written by a step so far
};

} // namespace

std::optional<Plan> Plan::parse(std::string_view text, PlanError *error,
                                const KernelTable *kernels) {
  Plan plan;
  try {
    Parser(plan).run(text);
  } catch (const ParseFailure &f) {
    if (error)
      *error = f.error;
    return std::nullopt;
  } catch (const std::exception &e) { // std::bad_alloc on absurd inputs
    if (error)
      *error = PlanError{0, std::string("cannot load plan: ") + e.what()};
    return std::nullopt;
  }
  if (kernels) {
    if (auto err = plan.checkKernels(*kernels)) {
      if (error)
        *error = *err;
      return std::nullopt;
    }
  }
  return plan;
}

std::optional<PlanError> Plan::checkKernels(const KernelTable &kernels) const {
  for (const PlanStep &s : steps)
    if (!kernels.find(s.kernel))
      return PlanError{s.line, "step " + quote(s.name) + ": kernel " +
                                   quote(s.kernel) +
                                   " is not in the kernel table"};
  return std::nullopt;
}

std::string Plan::print() const {
  std::string out = "mxc-plan " + std::to_string(version) + "\n";
  out += "arena " + std::to_string(arenaBytes) + "\n";
  for (const PlanBuffer &b : buffers) {
    out += "buffer " + b.name + " " + kindName(b.kind) + " ";
    if (b.kind == BufferKind::Arena)
      out += std::to_string(b.offset) + " " + std::to_string(b.size);
    else
      out += std::to_string(b.index);
    out += std::string(" ") + dtypeName(b.dtype) + " " + shapeStr(b.shape) +
           "\n";
  }
  for (const PlanStep &s : steps) {
    out += "step " + s.name + " " + s.kernel + " " + s.device.str() + " reads";
    for (uint32_t r : s.reads)
      out += " " + buffers[r].name;
    out += " writes";
    for (uint32_t w : s.writes)
      out += " " + buffers[w].name;
    out += "\n";
  }
  return out;
}

size_t Plan::numArguments() const {
  size_t n = 0;
  for (const PlanBuffer &b : buffers)
    n += b.kind == BufferKind::Argument;
  return n;
}

size_t Plan::numOutputs() const {
  size_t n = 0;
  for (const PlanBuffer &b : buffers)
    n += b.kind == BufferKind::Output;
  return n;
}

uint32_t Plan::argumentBuffer(size_t i) const {
  for (size_t b = 0; b < buffers.size(); ++b)
    if (buffers[b].kind == BufferKind::Argument && buffers[b].index == i)
      return static_cast<uint32_t>(b);
  throw Error("the plan has no argument " + std::to_string(i));
}

uint32_t Plan::outputBuffer(size_t i) const {
  for (size_t b = 0; b < buffers.size(); ++b)
    if (buffers[b].kind == BufferKind::Output && buffers[b].index == i)
      return static_cast<uint32_t>(b);
  throw Error("the plan has no output " + std::to_string(i));
}

Device Plan::device() const {
  return steps.empty() ? Device::cpu() : steps.front().device;
}

Plan Plan::onDevice(Device to) const {
  Plan p = *this;
  for (PlanStep &s : p.steps) {
    if (s.device.kind != to.kind)
      throw Error("step '" + s.name + "' runs on " + s.device.str() +
                  ": its kernel was compiled for that kind of device, it cannot run on " +
                  to.str());
    s.device = to;
  }
  return p;
}

bool operator==(const PlanBuffer &a, const PlanBuffer &b) {
  return a.name == b.name && a.kind == b.kind && a.index == b.index &&
         a.offset == b.offset && a.size == b.size && a.dtype == b.dtype &&
         a.shape == b.shape;
}

bool operator==(const PlanStep &a, const PlanStep &b) {
  return a.name == b.name && a.kernel == b.kernel && a.device == b.device &&
         a.reads == b.reads && a.writes == b.writes;
}

bool operator==(const Plan &a, const Plan &b) {
  return a.version == b.version && a.arenaBytes == b.arenaBytes &&
         a.buffers == b.buffers && a.steps == b.steps;
}

} // namespace mxc::runtime
