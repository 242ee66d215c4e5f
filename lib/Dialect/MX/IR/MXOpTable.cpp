//===- MXOpTable.cpp - MXNet operator table of the mx dialect -------------===//
//
// Lookup of MXNet operators (by name or alias) and `mx` ops, conversion of
// MXNet attribute strings to typed attributes and back, and createMXOp, the
// generic op construction with inferred result types used by the importer.
// The table itself is generated (MXOpTable.inc, scripts/gen_mx_ops.py).
//
//===----------------------------------------------------------------------===//
#include "mxc/Dialect/MX/IR/MXOpTable.h"

#include "mxc/Dialect/MX/IR/MXDialect.h"
#include "mxc/Dialect/MX/IR/MXOps.h"

#include "MXInference.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Operation.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Interfaces/InferTypeOpInterface.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

using namespace mlir;

namespace mxc::mx {

#include "MXOpTable.inc"

//===----------------------------------------------------------------------===//
// Lookup
//===----------------------------------------------------------------------===//

const AttrSpec *OpSpec::findAttr(llvm::StringRef name) const {
  for (const AttrSpec &a : attrs)
    if (name == a.name)
      return &a;
  return nullptr;
}

bool OpSpec::isAuxInput(unsigned index) const {
  return llvm::is_contained(auxInputs, index);
}

llvm::ArrayRef<OpSpec> allOpSpecs() { return kOpSpecs; }

namespace {
/// Name -> spec maps, built once.
struct Index {
  llvm::StringMap<const OpSpec *> byMXNetName;
  llvm::StringMap<const OpSpec *> byMLIRName;
  Index() {
    for (const OpSpec &spec : kOpSpecs) {
      byMXNetName[spec.mxnetName] = &spec;
      byMLIRName[spec.opName] = &spec;
      for (const char *alias : spec.aliases)
        byMXNetName[alias] = &spec;
    }
  }
};
} // namespace

static const Index &getIndex() {
  static const Index index;
  return index;
}

const OpSpec *lookupMXNetOp(llvm::StringRef name) {
  return getIndex().byMXNetName.lookup(name);
}

const OpSpec *lookupMLIROp(llvm::StringRef opName) {
  return getIndex().byMLIRName.lookup(opName);
}

//===----------------------------------------------------------------------===//
// Data types
//===----------------------------------------------------------------------===//

static const char *const kAllDTypes[] = {"float32",  "float64", "float16",
                                         "bfloat16", "uint8",   "int8",
                                         "int32",    "int64",   "bool"};

Type getElementTypeForMXNetDType(MLIRContext *ctx, llvm::StringRef dtype) {
  return detail::elementTypeForDType(ctx, dtype);
}

llvm::StringRef getMXNetDTypeName(Type type) {
  for (const char *name : kAllDTypes)
    if (detail::elementTypeForDType(type.getContext(), name) == type)
      return name;
  return "";
}

//===----------------------------------------------------------------------===//
// MXNet attribute strings
//===----------------------------------------------------------------------===//

/// The allowed values of an Enum or DType spec.
static SmallVector<llvm::StringRef> allowedValues(const AttrSpec &spec) {
  SmallVector<llvm::StringRef> values;
  if (spec.enumValues)
    llvm::StringRef(spec.enumValues).split(values, '|');
  else if (spec.kind == AttrKind::DType)
    values.assign(std::begin(kAllDTypes), std::end(kAllDTypes));
  return values;
}

/// Parses an integer with MXNet's tolerance for a Python 2 'L' suffix.
static bool parseInt(llvm::StringRef s, int64_t &out) {
  s = s.trim();
  if (s.ends_with("L") || s.ends_with("l"))
    s = s.drop_back();
  return !s.empty() && !s.getAsInteger(10, out);
}

/// MXNet's Tuple reader: "(3, 3)", "[3,3]", "(3,)", "()", a bare "3".
static bool parseTuple(llvm::StringRef s, SmallVectorImpl<int64_t> &out) {
  s = s.trim();
  if (s.empty())
    return false;
  if (s.front() == '(' || s.front() == '[') {
    char close = s.front() == '(' ? ')' : ']';
    if (s.back() != close)
      return false;
    s = s.drop_front().drop_back().trim();
    if (s.empty())
      return true;
    SmallVector<llvm::StringRef> parts;
    s.split(parts, ',');
    // One trailing comma is allowed: "(3,)".
    if (parts.size() > 1 && parts.back().trim().empty())
      parts.pop_back();
    for (llvm::StringRef p : parts) {
      int64_t v;
      if (!parseInt(p, v))
        return false;
      out.push_back(v);
    }
    return true;
  }
  int64_t v;
  if (!parseInt(s, v))
    return false;
  out.push_back(v);
  return true;
}

Attribute parseMXNetAttr(Builder &b, const AttrSpec &spec,
                         llvm::StringRef value, std::string &error) {
  error.clear();
  llvm::StringRef v = value.trim();
  auto fail = [&](llvm::Twine reason) -> Attribute {
    error = (llvm::Twine("attribute '") + spec.name + "': " + reason).str();
    return {};
  };
  if (v == "None") {
    if (spec.noneAllowed ||
        (spec.defaultValue && llvm::StringRef(spec.defaultValue) == "None"))
      return UnitAttr::get(b.getContext()); // absent
    if (spec.kind != AttrKind::String)
      return fail("None is not allowed");
  }
  switch (spec.kind) {
  case AttrKind::Int: {
    int64_t i;
    if (!parseInt(v, i))
      return fail("expected an integer, got '" + value + "'");
    return b.getI64IntegerAttr(i);
  }
  case AttrKind::Float: {
    // strtod, like MXNet's parser, but the whole string must be consumed.
    std::string text = v.str();
    char *end = nullptr;
    double d = text.empty() ? 0 : std::strtod(text.c_str(), &end);
    if (text.empty() || end != text.c_str() + text.size())
      return fail("expected a number, got '" + value + "'");
    return b.getF64FloatAttr(d);
  }
  case AttrKind::Bool: {
    std::string lower = v.lower();
    if (lower == "true" || lower == "1")
      return b.getBoolAttr(true);
    if (lower == "false" || lower == "0")
      return b.getBoolAttr(false);
    return fail("expected True or False, got '" + value + "'");
  }
  case AttrKind::Shape: {
    SmallVector<int64_t> dims;
    if (!parseTuple(v, dims))
      return fail("expected a shape like (3, 3), got '" + value + "'");
    return b.getDenseI64ArrayAttr(dims);
  }
  case AttrKind::Enum:
  case AttrKind::DType: {
    SmallVector<llvm::StringRef> values = allowedValues(spec);
    if (!llvm::is_contained(values, v))
      return fail("expected one of " + llvm::join(values, ", ") + ", got '" +
                  value + "'");
    return b.getStringAttr(v);
  }
  case AttrKind::String:
    return b.getStringAttr(value);
  }
  return fail("unknown attribute kind");
}

/// Python's repr of a double: the shortest string that reads back to the
/// same value, fixed notation for 1e-4 <= |x| < 1e16, else "1e-05" style.
static std::string formatPythonFloat(double x) {
  if (std::isnan(x))
    return "nan";
  if (std::isinf(x))
    return x < 0 ? "-inf" : "inf";
  if (x == 0)
    return std::signbit(x) ? "-0.0" : "0.0";
  char buf[40];
  for (int prec = 1; prec <= 17; ++prec) {
    std::snprintf(buf, sizeof(buf), "%.*e", prec - 1, x);
    if (std::strtod(buf, nullptr) == x)
      break;
  }
  // buf is "[-]d[.ddd]e[+-]XX".
  llvm::StringRef s(buf);
  std::string sign;
  if (s.consume_front("-"))
    sign = "-";
  auto [mantissa, expText] = s.split('e');
  int exp = 0;
  expText.consume_front("+"); // getAsInteger takes no '+'
  expText.getAsInteger(10, exp);
  std::string digits;
  for (char c : mantissa)
    if (c != '.')
      digits.push_back(c);
  while (digits.size() > 1 && digits.back() == '0')
    digits.pop_back();
  int n = digits.size();
  int decpt = exp + 1; // digits are d.ddd * 10^exp
  std::string out = sign;
  if (decpt > -4 && decpt <= 16) {
    if (decpt <= 0)
      out += "0." + std::string(-decpt, '0') + digits;
    else if (decpt >= n)
      out += digits + std::string(decpt - n, '0') + ".0";
    else
      out += digits.substr(0, decpt) + "." + digits.substr(decpt);
    return out;
  }
  out += digits.substr(0, 1);
  if (n > 1)
    out += "." + digits.substr(1);
  int e = decpt - 1;
  char ebuf[8];
  std::snprintf(ebuf, sizeof(ebuf), "e%c%02d", e < 0 ? '-' : '+', std::abs(e));
  return out + ebuf;
}

std::string printMXNetAttr(const AttrSpec &spec, Attribute attr) {
  if (!attr || isa<UnitAttr>(attr))
    return "None";
  if (auto b = dyn_cast<BoolAttr>(attr))
    return b.getValue() ? "True" : "False";
  if (auto i = dyn_cast<IntegerAttr>(attr)) {
    if (spec.kind == AttrKind::Bool)
      return i.getValue().isZero() ? "False" : "True";
    return std::to_string(i.getValue().getSExtValue());
  }
  if (auto f = dyn_cast<FloatAttr>(attr))
    return formatPythonFloat(f.getValueAsDouble());
  if (auto arr = dyn_cast<DenseI64ArrayAttr>(attr)) {
    std::string s = "(";
    llvm::raw_string_ostream os(s);
    llvm::interleave(arr.asArrayRef(), os, ", ");
    if (arr.size() == 1)
      os << ",";
    os << ")";
    return s;
  }
  if (auto str = dyn_cast<StringAttr>(attr))
    return str.getValue().str();
  std::string s;
  llvm::raw_string_ostream os(s);
  attr.print(os);
  return s;
}

//===----------------------------------------------------------------------===//
// createMXOp
//===----------------------------------------------------------------------===//

/// Checks that `attr` is the typed attribute of `spec`'s kind and value set.
static LogicalResult
checkAttrKind(const AttrSpec &spec, Attribute attr,
              llvm::function_ref<InFlightDiagnostic()> err) {
  switch (spec.kind) {
  case AttrKind::Int: {
    auto i = dyn_cast<IntegerAttr>(attr);
    if (!i || !i.getType().isSignlessInteger(64))
      return err() << "attribute '" << spec.name
                   << "' must be a 64-bit integer, got " << attr;
    return success();
  }
  case AttrKind::Float: {
    auto f = dyn_cast<FloatAttr>(attr);
    if (!f || !f.getType().isF64())
      return err() << "attribute '" << spec.name
                   << "' must be a 64-bit float, got " << attr;
    return success();
  }
  case AttrKind::Bool:
    if (!isa<BoolAttr>(attr))
      return err() << "attribute '" << spec.name << "' must be a bool, got "
                   << attr;
    return success();
  case AttrKind::Shape:
    if (!isa<DenseI64ArrayAttr>(attr))
      return err() << "attribute '" << spec.name
                   << "' must be an array<i64>, got " << attr;
    return success();
  case AttrKind::Enum:
  case AttrKind::DType: {
    auto s = dyn_cast<StringAttr>(attr);
    SmallVector<llvm::StringRef> values = allowedValues(spec);
    if (!s || !llvm::is_contained(values, s.getValue()))
      return err() << "attribute '" << spec.name << "' must be one of "
                   << llvm::join(values, ", ") << ", got " << attr;
    return success();
  }
  case AttrKind::String:
    if (!isa<StringAttr>(attr))
      return err() << "attribute '" << spec.name << "' must be a string, got "
                   << attr;
    return success();
  }
  return failure();
}

FailureOr<Operation *> createMXOp(OpBuilder &b, Location loc,
                                  const OpSpec &spec, ValueRange operands,
                                  llvm::ArrayRef<NamedAttribute> attrs) {
  MLIRContext *ctx = b.getContext();
  ctx->getOrLoadDialect<MXDialect>();
  auto err = [&]() { return emitError(loc) << "'" << spec.opName << "' op "; };
  std::optional<RegisteredOperationName> name =
      RegisteredOperationName::lookup(spec.opName, ctx);
  if (!name)
    return err() << "is not a registered operation";

  // Operands: the required ones, then the optional ones in order (or any
  // number >= 1 for a variadic op).
  size_t maxInputs = spec.variadicInputs ? ~size_t(0) : spec.inputNames.size();
  size_t minInputs = spec.variadicInputs ? 1 : spec.numRequiredInputs;
  if (operands.size() < minInputs || operands.size() > maxInputs) {
    auto diag = err() << "expects ";
    if (spec.variadicInputs)
      diag << "at least 1 input";
    else if (minInputs == maxInputs)
      diag << minInputs << " inputs";
    else
      diag << minInputs << " to " << maxInputs << " inputs";
    return diag << ", got " << operands.size();
  }

  // Attributes: known names, typed per the spec, required ones present;
  // UnitAttr (None) means absent; dotted names are discardable.
  SmallVector<NamedAttribute> kept;
  for (const NamedAttribute &attr : attrs) {
    if (attr.getName().getValue().contains('.')) {
      kept.push_back(attr);
      continue;
    }
    const AttrSpec *as = spec.findAttr(attr.getName());
    if (!as)
      return err() << "has no attribute '" << attr.getName().getValue() << "'";
    if (isa<UnitAttr>(attr.getValue()))
      continue;
    if (failed(checkAttrKind(*as, attr.getValue(), err)))
      return failure();
    kept.push_back(attr);
  }
  for (const AttrSpec &as : spec.attrs)
    if (!as.defaultValue && !llvm::any_of(kept, [&](const NamedAttribute &a) {
          return a.getName() == as.name;
        }))
      return err() << "requires attribute '" << as.name << "'";
  NamedAttrList attrList(kept);
  if (failed(name->verifyInherentAttrs(attrList, err)))
    return failure();

  // Infer the result types on a detached op that holds the properties, then
  // build the real one.
  OperationState state(loc, *name);
  state.addOperands(operands);
  state.addAttributes(kept);
  SmallVector<Type> resultTypes;
  {
    Operation *probe = Operation::create(state);
    auto *iface = name->getInterface<InferTypeOpInterface>();
    LogicalResult inferred =
        iface ? iface->inferReturnTypes(ctx, loc, probe->getOperands(),
                                        probe->getRawDictionaryAttrs(),
                                        probe->getPropertiesStorage(),
                                        probe->getRegions(), resultTypes)
              : failure();
    probe->destroy();
    if (!iface)
      return err() << "does not infer its result types";
    if (failed(inferred))
      return failure();
  }
  state.addTypes(resultTypes);
  Operation *op = b.create(state);
  if (failed(mlir::verify(op, /*verifyRecursively=*/false))) {
    op->erase();
    return failure();
  }
  return op;
}

} // namespace mxc::mx
