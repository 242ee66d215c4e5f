//===- InputValues.cpp - the values mxc run gives a graph's inputs --------===//
//
// Values of the inputs of `mxc run`, in order of precedence:
//   1. --input name=file.npy (dtype and shape must match the graph's);
//   2. the --params array of that name ("arg:"/"aux:" prefixes removed);
//   3. seeded random numbers (for a parameter or auxiliary state only without
//      --params, or with --allow-missing: a --params file that lacks one is an
//      error naming it, as MXNet's Module.set_params). Each input has its own stream: splitmix64
//      seeded with seed * 0x9e3779b97f4a7c15 + fnv1a64(name), so a value
//      does not depend on the other inputs. Float inputs are uniform in:
//        data inputs            [-1, 1)
//        parameters, rank >= 2  [-a, a), a = sqrt(3 / fan_in), fan_in =
//                               product of all dimensions but the first
//                               (variance 1/fan_in: activations keep their
//                               scale through deep networks)
//        parameters, rank <= 1  [-1, 1)
//        auxiliary states       [0.5, 1.5) (BatchNorm's moving variance
//                               must be positive)
//      Integer inputs are uniform in {0, ..., 9}; bool inputs 0 or 1.
//
//===----------------------------------------------------------------------===//
#include "InputValues.h"
#include "DriverSupport.h"

#include "mxc/Compiler/Npy.h"

#include "llvm/ADT/APFloat.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>

using namespace mlir;
using namespace mxc;
using namespace mxc::driver;

namespace {

struct SplitMix64 {
  uint64_t state;
  uint64_t next() {
    uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  /// Uniform in [0, 1) with 53 random bits.
  double uniform() { return double(next() >> 11) * 0x1.0p-53; }
};

uint64_t fnv1a64(StringRef s) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (char c : s) {
    h ^= uint8_t(c);
    h *= 0x100000001b3ull;
  }
  return h;
}

/// Rounds `value` to the 16-bit float format `sem` (IEEE half or bfloat16).
uint16_t toHalfBits(double value, const llvm::fltSemantics &sem) {
  llvm::APFloat f(value);
  bool lost;
  f.convert(sem, llvm::APFloat::rmNearestTiesToEven, &lost);
  return uint16_t(f.bitcastToAPInt().getZExtValue());
}

double fromHalfBits(uint16_t bits, const llvm::fltSemantics &sem) {
  llvm::APFloat f(sem, llvm::APInt(16, bits));
  bool lost;
  f.convert(llvm::APFloat::IEEEdouble(), llvm::APFloat::rmNearestTiesToEven,
            &lost);
  return f.convertToDouble();
}

} // namespace

void driver::storeElement(graph::DType dtype, uint8_t *data, int64_t i,
                          double v) {
  switch (dtype) {
  case graph::DType::Float32: {
    float f = float(v);
    std::memcpy(data + 4 * i, &f, 4);
    return;
  }
  case graph::DType::Float64:
    std::memcpy(data + 8 * i, &v, 8);
    return;
  case graph::DType::Float16: {
    uint16_t h = toHalfBits(v, llvm::APFloat::IEEEhalf());
    std::memcpy(data + 2 * i, &h, 2);
    return;
  }
  case graph::DType::BFloat16: {
    uint16_t h = toHalfBits(v, llvm::APFloat::BFloat());
    std::memcpy(data + 2 * i, &h, 2);
    return;
  }
  case graph::DType::Int32: {
    int32_t x = int32_t(v);
    std::memcpy(data + 4 * i, &x, 4);
    return;
  }
  case graph::DType::Int64: {
    int64_t x = int64_t(v);
    std::memcpy(data + 8 * i, &x, 8);
    return;
  }
  case graph::DType::UInt8:
    data[i] = uint8_t(v);
    return;
  case graph::DType::Int8:
    data[i] = uint8_t(int8_t(v));
    return;
  case graph::DType::Bool:
    data[i] = v != 0;
    return;
  }
}

double driver::loadElement(graph::DType dtype, const uint8_t *data, int64_t i) {
  switch (dtype) {
  case graph::DType::Float32: {
    float f;
    std::memcpy(&f, data + 4 * i, 4);
    return f;
  }
  case graph::DType::Float64: {
    double d;
    std::memcpy(&d, data + 8 * i, 8);
    return d;
  }
  case graph::DType::Float16:
  case graph::DType::BFloat16: {
    uint16_t h;
    std::memcpy(&h, data + 2 * i, 2);
    return fromHalfBits(h, dtype == graph::DType::Float16
                               ? llvm::APFloat::IEEEhalf()
                               : llvm::APFloat::BFloat());
  }
  case graph::DType::Int32: {
    int32_t x;
    std::memcpy(&x, data + 4 * i, 4);
    return x;
  }
  case graph::DType::Int64: {
    int64_t x;
    std::memcpy(&x, data + 8 * i, 8);
    return double(x);
  }
  case graph::DType::UInt8:
    return data[i];
  case graph::DType::Int8:
    return int8_t(data[i]);
  case graph::DType::Bool:
    return data[i] != 0;
  }
  return 0;
}

namespace {

bool isFloat(graph::DType t) {
  return t == graph::DType::Float32 || t == graph::DType::Float64 ||
         t == graph::DType::Float16 || t == graph::DType::BFloat16;
}

/// The documented random fill (see the file comment); returns its range as
/// text for -v.
std::string fillRandom(const TensorSpec &spec, uint64_t seed, uint8_t *data) {
  SplitMix64 rng{seed * 0x9e3779b97f4a7c15ull + fnv1a64(spec.name)};
  int64_t n = spec.numElements();
  if (!isFloat(spec.dtype)) {
    bool isBool = spec.dtype == graph::DType::Bool;
    for (int64_t i = 0; i < n; ++i)
      storeElement(spec.dtype, data, i, double(rng.next() % (isBool ? 2 : 10)));
    return isBool ? "{0, 1}" : "{0..9}";
  }
  double lo = -1, hi = 1;
  if (spec.kind == "aux") {
    lo = 0.5;
    hi = 1.5;
  } else if (spec.kind == "param" && spec.shape.size() >= 2) {
    int64_t fanIn = 1;
    for (size_t i = 1; i < spec.shape.size(); ++i)
      fanIn *= spec.shape[i];
    hi = std::sqrt(3.0 / double(fanIn));
    lo = -hi;
  }
  for (int64_t i = 0; i < n; ++i)
    storeElement(spec.dtype, data, i, lo + (hi - lo) * rng.uniform());
  std::string range;
  llvm::raw_string_ostream os(range);
  os << "[" << llvm::format("%.6g", lo) << ", " << llvm::format("%.6g", hi)
     << ")";
  return range;
}

} // namespace

std::string driver::describe(const TensorSpec &spec) {
  return formatShape(spec.shape) + " " + graph::dtypeName(spec.dtype).str();
}

int driver::makeInputValues(
    const EntrySignature &sig,
    const std::map<std::string, std::string> &inputFiles,
    ArrayRef<graph::NDArrayData> params, uint64_t seed, bool verbose,
    std::vector<std::unique_ptr<Buffer>> &buffers, StringRef paramsFile,
    bool allowMissing) {
  // A --params file must hold every parameter and auxiliary state the graph
  // reads (unless --allow-missing): one line naming what it lacks.
  if (!paramsFile.empty() && !allowMissing) {
    llvm::StringSet<> have;
    for (const graph::NDArrayData &p : params)
      have.insert(p.bareName());
    std::string missing;
    int count = 0;
    for (const TensorSpec &spec : sig.inputs)
      if ((spec.kind == "param" || spec.kind == "aux") && !have.count(spec.name) &&
          !inputFiles.count(spec.name)) {
        if (count < 5)
          missing += std::string(count ? ", " : "") + "'" + spec.name + "' (" +
                     (spec.kind == "aux" ? "auxiliary state " : "parameter ") +
                     describe(spec) + ")";
        ++count;
      }
    if (count) {
      errorLine() << paramsFile << " has no value for " << count
                  << (count == 1 ? " array" : " arrays") << " the graph needs: "
                  << missing << (count > 5 ? ", ..." : "")
                  << "; --allow-missing fills them with seeded random numbers\n";
      return kBadInput;
    }
  }
  llvm::StringMap<const graph::NDArrayData *> paramsByName;
  for (const graph::NDArrayData &p : params)
    paramsByName[p.bareName()] = &p;
  for (const TensorSpec &spec : sig.inputs) {
    auto buf = std::make_unique<Buffer>(spec.byteSize());
    auto fileIt = inputFiles.find(spec.name);
    auto paramIt = paramsByName.find(spec.name);
    if (fileIt != inputFiles.end()) {
      auto array = readNpyFile(fileIt->second);
      if (!array) {
        errorLine() << "input '" << spec.name
                    << "': " << llvm::toString(array.takeError()) << "\n";
        return kBadInput;
      }
      if (array->dtype != spec.dtype || array->shape != spec.shape) {
        errorLine() << "input '" << spec.name << "': " << fileIt->second
                    << " holds " << formatShape(array->shape) << " "
                    << graph::dtypeName(array->dtype) << ", the graph needs "
                    << describe(spec) << "\n";
        return kBadInput;
      }
      std::memcpy(buf->data, array->bytes.data(), spec.byteSize());
      if (verbose)
        llvm::errs() << "mxc: input '" << spec.name << "' " << describe(spec)
                     << " from " << fileIt->second << "\n";
    } else if (paramIt != paramsByName.end()) {
      const graph::NDArrayData &p = *paramIt->second;
      if (p.dtype != spec.dtype || p.shape != spec.shape ||
          p.bytes.size() != spec.byteSize()) {
        errorLine() << "input '" << spec.name << "': the .params array '"
                    << p.name << "' is " << formatShape(p.shape) << " "
                    << graph::dtypeName(p.dtype) << ", the graph needs "
                    << describe(spec) << "\n";
        return kBadInput;
      }
      std::memcpy(buf->data, p.bytes.data(), spec.byteSize());
    } else if (spec.kind == "head_grad" || spec.kind == "grad_in" ||
               spec.kind == "rng_seed") {
      // Training-step inputs: head gradients default to ones (MXNet's
      // backward() of a loss), previous gradients (grad_req add) to zeros,
      // the Dropout seed to --seed.
      int64_t n = spec.numElements();
      if (spec.kind == "head_grad")
        for (int64_t j = 0; j < n; ++j)
          storeElement(spec.dtype, buf->data, j, 1.0);
      else if (spec.kind == "rng_seed" && spec.dtype == graph::DType::Int64)
        for (int64_t j = 0; j < n; ++j)
          std::memcpy(buf->data + 8 * j, &seed, 8);
      if (verbose)
        llvm::errs() << "mxc: " << spec.kind << " '" << spec.name << "' "
                     << describe(spec) << ": "
                     << (spec.kind == "head_grad" ? "ones"
                         : spec.kind == "grad_in" ? "zeros"
                                                  : "the --seed")
                     << "\n";
    } else {
      std::string range = fillRandom(spec, seed, buf->data);
      if (verbose)
        llvm::errs() << "mxc: " << spec.kind << " '" << spec.name << "' "
                     << describe(spec) << ": random " << range << " (seed "
                     << seed << ")\n";
    }
    buffers.push_back(std::move(buf));
  }
  return kOk;
}
