//===- main.cc - the command line of `mxc compile --emit exe` -------------===//
//
//   ./model --input data=x.npy [--input ...] [--output-dir out/]
//           [--repeat N] [--warmup K] [--weights FILE] [--device gpu(N)]
//
// Prints one line per output (`name: shape (1, 10) float32 sum S abs_sum A`,
// as `mxc run` does) and writes <out>/<name>.npy. Batches: when every data
// input's first dimension is k times the compiled one (the other dimensions
// equal), the model runs k times on consecutive slices and each output is the
// k results stacked along the first axis. With --repeat N > 1, --warmup K or
// k > 1, a line `latency: median X ms, p10 Y ms, p90 Z ms, min W ms over M
// runs after K warm-up` follows (one timed run = one forward pass).
// Exit status 0, 1 on bad input, 2 on bad usage; errors are one line on
// stderr, "<program>: error: ...".
//
//===----------------------------------------------------------------------===//
#include "mxc/mxc_model.h"
#include "npy.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <sys/stat.h>
#include <vector>

using namespace mxc::aot;

namespace {

const char *program = "model";

int error(int status, const std::string &message) {
  std::fprintf(stderr, "%s: error: %s\n", program, message.c_str());
  return status;
}

void usage(FILE *out, const mxc_model *model) {
  std::fprintf(out,
               "usage: %s --input NAME=FILE.npy ... [--output-dir DIR] "
               "[--repeat N] [--warmup K] [--weights FILE] [--device DEV]\n"
               "  --input NAME=FILE.npy  value of a data input (each one "
               "once); a first dimension k times the compiled one runs k "
               "batches\n"
               "  --output-dir DIR       write each output as DIR/NAME.npy\n"
               "  --repeat N             timed forward passes (prints "
               "latency when N > 1)\n"
               "  --warmup K             untimed forward passes first\n"
               "  --weights FILE         weights file (default: embedded, or "
               "the file written beside this program)\n"
               "  --device DEV           where to run: the device compiled for "
               "(default), or gpu(N) / gpu:N for a model compiled for the GPU\n",
               program);
  if (!model)
    return;
  std::fprintf(out, "model %s (%s)\n", mxc_model_name(model),
               mxc_model_target(model));
  for (int i = 0; i < mxc_model_num_inputs(model); ++i) {
    mxc_model_tensor_info t;
    mxc_model_input_info(model, i, &t);
    std::fprintf(out, "  input  %s: %s %s\n", t.name,
                 formatShape(t.shape, size_t(t.ndim)).c_str(),
                 dtypeName(t.dtype));
  }
  for (int i = 0; i < mxc_model_num_outputs(model); ++i) {
    mxc_model_tensor_info t;
    mxc_model_output_info(model, i, &t);
    std::fprintf(out, "  output %s: %s %s\n", t.name,
                 formatShape(t.shape, size_t(t.ndim)).c_str(),
                 dtypeName(t.dtype));
  }
}

double loadAsDouble(int dtype, const uint8_t *p, size_t i) {
  switch (dtype) {
  case 0: {
    float f;
    std::memcpy(&f, p + 4 * i, 4);
    return f;
  }
  case 1: {
    double d;
    std::memcpy(&d, p + 8 * i, 8);
    return d;
  }
  case 3:
    return p[i];
  case 4: {
    int32_t x;
    std::memcpy(&x, p + 4 * i, 4);
    return x;
  }
  case 5:
    return int8_t(p[i]);
  case 6: {
    int64_t x;
    std::memcpy(&x, p + 8 * i, 8);
    return double(x);
  }
  case 7:
    return p[i] != 0;
  default: // float16 / bfloat16: not summed
    return 0;
  }
}

std::string fileNameFor(const char *name) {
  std::string s = name;
  for (char &c : s)
    if (c == '/' || c == '\\')
      c = '_';
  if (s.empty() || s == "." || s == "..")
    s = "output" + s;
  return s;
}

bool parseCount(const char *text, unsigned &out) {
  char *end = nullptr;
  long v = std::strtol(text, &end, 10);
  if (!end || *end || v < 0 || v > 1000000000)
    return false;
  out = unsigned(v);
  return true;
}

} // namespace

int main(int argc, char **argv) {
  if (argc > 0 && argv[0]) {
    const char *slash = std::strrchr(argv[0], '/');
    program = slash ? slash + 1 : argv[0];
  }
  std::vector<std::pair<std::string, std::string>> inputFiles;
  std::string outputDir, weights, device;
  unsigned repeat = 1, warmup = 0;
  bool help = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&](const char *flag, std::string &out) {
      std::string f = flag;
      if (a == f) {
        if (i + 1 >= argc)
          return -1;
        out = argv[++i];
        return 1;
      }
      if (a.compare(0, f.size() + 1, f + "=") == 0) {
        out = a.substr(f.size() + 1);
        return 1;
      }
      return 0;
    };
    std::string v;
    int r;
    if (a == "--help" || a == "-h") {
      help = true;
    } else if ((r = value("--input", v)) != 0) {
      size_t eq = v.find('=');
      if (r < 0 || eq == std::string::npos || eq == 0 || eq + 1 == v.size())
        return error(2, "--input expects NAME=FILE.npy");
      inputFiles.emplace_back(v.substr(0, eq), v.substr(eq + 1));
    } else if ((r = value("--output-dir", v)) != 0) {
      if (r < 0)
        return error(2, "--output-dir expects a directory");
      outputDir = v;
    } else if ((r = value("--weights", v)) != 0) {
      if (r < 0)
        return error(2, "--weights expects a file");
      weights = v;
    } else if ((r = value("--device", v)) != 0) {
      if (r < 0 || v.empty())
        return error(2, "--device expects a device (gpu(N))");
      device = v;
    } else if ((r = value("--repeat", v)) != 0) {
      if (r < 0 || !parseCount(v.c_str(), repeat) || repeat == 0)
        return error(2, "--repeat expects a positive integer");
    } else if ((r = value("--warmup", v)) != 0) {
      if (r < 0 || !parseCount(v.c_str(), warmup))
        return error(2, "--warmup expects a non-negative integer");
    } else {
      return error(2, "unknown argument '" + a + "' (see --help)");
    }
  }

  mxc_model *model = mxc_model_create_on(weights.empty() ? nullptr : weights.c_str(),
                                         device.empty() ? nullptr : device.c_str());
  if (!model)
    return error(1, mxc_model_last_error());
  if (help) {
    usage(stdout, model);
    mxc_model_destroy(model);
    return 0;
  }
  struct Input {
    mxc_model_tensor_info info;
    NpyArray array;
  };
  int numInputs = mxc_model_num_inputs(model);
  std::vector<Input> inputs(static_cast<size_t>(numInputs));
  int64_t batches = -1;
  for (int i = 0; i < numInputs; ++i) {
    Input &in = inputs[size_t(i)];
    mxc_model_input_info(model, i, &in.info);
    const std::string name = in.info.name;
    auto it = std::find_if(inputFiles.begin(), inputFiles.end(),
                           [&](auto &p) { return p.first == name; });
    if (it == inputFiles.end())
      return error(2, "input '" + name + "' not given (--input " + name +
                          "=FILE.npy)");
    if (std::count_if(inputFiles.begin(), inputFiles.end(),
                      [&](auto &p) { return p.first == name; }) > 1)
      return error(2, "input '" + name + "' is given twice");
    std::string err;
    if (!readNpy(it->second, in.array, err))
      return error(1, "input '" + name + "': " + err);
    const NpyArray &a = in.array;
    std::string want = formatShape(in.info.shape, size_t(in.info.ndim)) +
                       " " + dtypeName(in.info.dtype);
    std::string got = formatShape(a.shape.data(), a.shape.size()) + " " +
                      dtypeName(a.dtype);
    bool fits = a.dtype == in.info.dtype && int(a.shape.size()) == in.info.ndim &&
                in.info.ndim > 0 && in.info.shape[0] > 0 &&
                a.shape[0] % in.info.shape[0] == 0 && a.shape[0] > 0;
    for (int d = 1; fits && d < in.info.ndim; ++d)
      fits = a.shape[size_t(d)] == in.info.shape[d];
    if (!fits && !(a.dtype == in.info.dtype && a.shape.empty() &&
                   in.info.ndim == 0))
      return error(1, "input '" + name + "': " + it->second + " holds " + got +
                          ", the model needs " + want +
                          " (or k batches of it)");
    int64_t k = in.info.ndim == 0 ? 1 : a.shape[0] / in.info.shape[0];
    if (batches >= 0 && k != batches)
      return error(1, "input '" + name + "' has " + std::to_string(k) +
                          " batches, another input " +
                          std::to_string(batches));
    batches = k;
  }
  for (auto &p : inputFiles)
    if (std::none_of(inputs.begin(), inputs.end(), [&](const Input &in) {
          return p.first == in.info.name;
        })) {
      std::string names;
      for (const Input &in : inputs)
        names += (names.empty() ? "" : ", ") + std::string(in.info.name);
      return error(2, "the model has no input named '" + p.first +
                          "' (inputs: " + names + ")");
    }
  if (batches < 0)
    batches = 1;

  int numOutputs = mxc_model_num_outputs(model);
  std::vector<mxc_model_tensor_info> outInfo(static_cast<size_t>(numOutputs));
  std::vector<std::vector<uint8_t>> outData(static_cast<size_t>(numOutputs));
  for (int o = 0; o < numOutputs; ++o) {
    mxc_model_output_info(model, o, &outInfo[size_t(o)]);
    outData[size_t(o)].resize(outInfo[size_t(o)].nbytes * size_t(batches));
  }

  using Clock = std::chrono::steady_clock;
  std::vector<double> times;
  std::vector<mxc_model_input> in(static_cast<size_t>(numInputs));
  std::vector<mxc_model_output> out(static_cast<size_t>(numOutputs));
  auto runBatch = [&](int64_t b) {
    for (int i = 0; i < numInputs; ++i) {
      const Input &x = inputs[size_t(i)];
      in[size_t(i)] = {x.info.name,
                       x.array.bytes.data() + size_t(b) * x.info.nbytes,
                       x.info.nbytes};
    }
    for (int o = 0; o < numOutputs; ++o)
      out[size_t(o)] = {outInfo[size_t(o)].name,
                        outData[size_t(o)].data() +
                            size_t(b) * outInfo[size_t(o)].nbytes,
                        outInfo[size_t(o)].nbytes};
    return mxc_model_run(model, in.data(), in.size(), out.data(), out.size());
  };
  for (unsigned w = 0; w < warmup; ++w)
    if (runBatch(0))
      return error(1, mxc_model_last_error());
  for (unsigned r = 0; r < repeat; ++r) {
    for (int64_t b = 0; b < batches; ++b) {
      auto start = Clock::now();
      if (runBatch(b))
        return error(1, mxc_model_last_error());
      times.push_back(
          std::chrono::duration<double, std::milli>(Clock::now() - start)
              .count());
    }
  }

  if (!outputDir.empty()) {
    std::string path;
    for (size_t i = 0; i <= outputDir.size(); ++i) {
      if (i == outputDir.size() || outputDir[i] == '/') {
        path = outputDir.substr(0, i);
        if (!path.empty())
          mkdir(path.c_str(), 0777);
      }
    }
    struct stat st;
    if (stat(outputDir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
      return error(1, outputDir + ": cannot create the directory");
  }
  for (int o = 0; o < numOutputs; ++o) {
    const mxc_model_tensor_info &t = outInfo[size_t(o)];
    const std::vector<uint8_t> &data = outData[size_t(o)];
    std::vector<int64_t> shape(t.shape, t.shape + t.ndim);
    if (!shape.empty())
      shape[0] *= batches;
    size_t n = data.size() / std::max<size_t>(1, dtypeSize(t.dtype));
    double sum = 0, sumAbs = 0;
    for (size_t i = 0; i < n; ++i) {
      double v = loadAsDouble(t.dtype, data.data(), i);
      sum += v;
      sumAbs += std::fabs(v);
    }
    std::printf("%s: shape %s %s sum %.6g abs_sum %.6g\n", t.name,
                formatShape(shape.data(), shape.size()).c_str(),
                dtypeName(t.dtype), sum, sumAbs);
    if (outputDir.empty())
      continue;
    std::string err;
    if (!writeNpy(outputDir + "/" + fileNameFor(t.name) + ".npy", t.dtype,
                  shape.data(), shape.size(), data.data(), data.size(), err))
      return error(1, "output '" + std::string(t.name) + "': " + err);
  }
  if (repeat > 1 || warmup > 0 || batches > 1) {
    std::vector<double> s = times;
    std::sort(s.begin(), s.end());
    auto percentile = [&](double p) {
      double pos = p * double(s.size() - 1);
      size_t lo = size_t(pos), hi = std::min(lo + 1, s.size() - 1);
      return s[lo] + (pos - double(lo)) * (s[hi] - s[lo]);
    };
    std::printf("latency: median %.3f ms, p10 %.3f ms, p90 %.3f ms, min %.3f "
                "ms over %zu runs after %u warm-up\n",
                percentile(0.5), percentile(0.1), percentile(0.9), s.front(),
                s.size(), warmup);
  }
  mxc_model_destroy(model);
  return 0;
}
