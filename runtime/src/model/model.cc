//===- model.cc - the C API of an ahead-of-time compiled model ------------===//
//
// mxc_model.h over the descriptor the compiled object defines
// (mxc/runtime/compiled_module.h): the model's plan and kernel table run on
// the runtime's executor and engine, like every compiled graph. Plain C++17;
// no exception crosses the C boundary.
//
//===----------------------------------------------------------------------===//
#include "mxc/mxc_model.h"
#include "mxc/runtime/compiled_module.h"
#include "mxc/runtime/plan.h"
#include "../large_alloc.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <memory>
#include <new>
#include <optional>
#include <string>
#include <unistd.h>
#include <vector>

extern "C" const mxc_model_desc mxc_model_descriptor;

namespace {

thread_local std::string lastError;

int fail(std::string message) {
  lastError = std::move(message);
  return -1;
}

struct AlignedFree {
  void operator()(void *p) const { std::free(p); }
};
using AlignedBuffer = std::unique_ptr<uint8_t, AlignedFree>;

AlignedBuffer allocate(size_t size) {
  size_t rounded = size < 64 ? 64 : (size + 63) / 64 * 64;
  auto *p = static_cast<uint8_t *>(mxc::runtime::detail::alignedAllocate(rounded));
  if (p)
    std::memset(p, 0, rounded);
  return AlignedBuffer(p);
}

/// The directory of the library (or executable) holding this code, with a
/// trailing '/'; "" if unknown.
std::string ownDirectory() {
  std::string path;
  Dl_info info;
  if (dladdr(reinterpret_cast<void *>(&mxc_model_create), &info) &&
      info.dli_fname && std::strchr(info.dli_fname, '/'))
    path = info.dli_fname;
  if (path.empty()) {
    char buf[4096];
    ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
    if (n > 0)
      path.assign(buf, size_t(n));
  }
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? "" : path.substr(0, slash + 1);
}

} // namespace

namespace rt = mxc::runtime;

struct mxc_model {
  const mxc_model_desc *desc = nullptr;
  AlignedBuffer weights;      // external weights (64-byte header stripped)
  const uint8_t *blob = nullptr;
  std::vector<AlignedBuffer> scratchOutputs;
  std::vector<int> dataArgs; // indices of the data inputs in desc->args
  std::unique_ptr<rt::Executor> executor;
  std::vector<rt::NDArray> arguments; // parameters bound over the blob
  // A plan on a GPU (mxc compile --target cuda): the parameters copied to
  // the device once, and device arrays for the data inputs and the outputs,
  // which run() fills from / copies to the caller's host buffers.
  bool onDevice = false;
  std::vector<rt::NDArray> deviceOutputs;
};

namespace {

/// Reads and checks an external weights file into model->weights.
int loadWeightsFile(mxc_model &model, const std::string &path) {
  const mxc_model_desc &d = *model.desc;
  FILE *f = std::fopen(path.c_str(), "rb");
  if (!f)
    return fail("weights file '" + path + "': " + std::strerror(errno));
  unsigned char header[64];
  bool ok = std::fread(header, 1, 64, f) == 64;
  uint64_t size = 0, hash = 0;
  if (ok) {
    std::memcpy(&size, header + 8, 8);
    std::memcpy(&hash, header + 16, 8);
  }
  if (!ok || std::memcmp(header, "MXCWGT01", 8) != 0) {
    std::fclose(f);
    return fail("weights file '" + path + "': not an mxc weights file");
  }
  if (size != uint64_t(d.weights_size) || hash != uint64_t(d.weights_hash)) {
    std::fclose(f);
    return fail("weights file '" + path +
                "': written for another model (size " + std::to_string(size) +
                ", this model needs " + std::to_string(d.weights_size) +
                " bytes with checksum " +
                std::to_string(uint64_t(d.weights_hash)) + ")");
  }
  model.weights = allocate(size_t(size));
  if (!model.weights) {
    std::fclose(f);
    return fail("out of memory reading the weights");
  }
  size_t got = std::fread(model.weights.get(), 1, size_t(size), f);
  std::fclose(f);
  if (got != size)
    return fail("weights file '" + path + "': truncated (" +
                std::to_string(got) + " of " + std::to_string(size) +
                " bytes)");
  if (mxc_weights_hash(model.weights.get(), size_t(size)) != hash)
    return fail("weights file '" + path + "': checksum mismatch (corrupt)");
  model.blob = model.weights.get();
  return 0;
}

const mxc_model_tensor_desc *tensorAt(const mxc_model *model, int index,
                                      bool input) {
  if (!model) {
    fail("model is NULL");
    return nullptr;
  }
  int n = input ? int(model->dataArgs.size())
                : int(model->desc->num_outputs);
  if (index < 0 || index >= n) {
    fail(std::string(input ? "input" : "output") + " index " +
         std::to_string(index) + " out of range (the model has " +
         std::to_string(n) + ")");
    return nullptr;
  }
  return input ? &model->desc->args[model->dataArgs[size_t(index)]]
               : &model->desc->outputs[index];
}

int fillInfo(const mxc_model_tensor_desc *t, mxc_model_tensor_info *info) {
  if (!t)
    return -1;
  if (!info)
    return fail("info is NULL");
  info->name = t->name;
  info->dtype = int(t->dtype);
  info->ndim = int(t->ndim);
  info->shape = t->shape;
  info->nbytes = size_t(t->nbytes);
  return 0;
}

} // namespace

extern "C" {

int mxc_model_api_version(void) { return MXC_MODEL_API_VERSION; }

const char *mxc_model_last_error(void) { return lastError.c_str(); }

mxc_model *mxc_model_create(const char *weights_path) {
  return mxc_model_create_on(weights_path, nullptr);
}

mxc_model *mxc_model_create_on(const char *weights_path, const char *device_name) {
  const mxc_model_desc &d = mxc_model_descriptor;
  std::optional<rt::Device> named;
  if (device_name && *device_name) {
    named = rt::Device::fromOption(device_name);
    if (!named || (named->kind == rt::Device::Kind::CPU && named->id != 0) ||
        (named->kind != rt::Device::Kind::CPU && named->kind != rt::Device::Kind::GPU)) {
      fail(std::string("unknown device '") + device_name + "' (cpu, gpu, gpu(N) or gpu:N)");
      return nullptr;
    }
  }
  if (d.magic != MXC_MODEL_DESC_MAGIC || d.version != MXC_MODEL_DESC_VERSION) {
    fail("the compiled model's descriptor has version " +
         std::to_string(d.version) + ", this runtime reads " +
         std::to_string(MXC_MODEL_DESC_VERSION) +
         " (recompile with the matching mxc)");
    return nullptr;
  }
  std::unique_ptr<mxc_model> model(new (std::nothrow) mxc_model);
  if (!model) {
    fail("out of memory");
    return nullptr;
  }
  model->desc = &d;
  if (weights_path && *weights_path) {
    if (loadWeightsFile(*model, weights_path))
      return nullptr;
  } else if (d.weights) {
    model->blob = d.weights;
  } else if (d.weights_file) {
    if (loadWeightsFile(*model, ownDirectory() + d.weights_file))
      return nullptr;
  } else if (d.weights_size > 0) {
    fail("the model has no embedded weights: give a weights file");
    return nullptr;
  }

  // The plan and its kernels, on the executor (the process's engine).
  try {
    rt::KernelTable kernels(d.kernels, size_t(d.num_kernels));
    rt::PlanError perr;
    std::optional<rt::Plan> plan = rt::Plan::parse(d.plan, &perr, &kernels);
    if (!plan) {
      fail("the compiled model's plan does not load: " + perr.str());
      return nullptr;
    }
    if (plan->numArguments() != size_t(d.num_args) ||
        plan->numOutputs() != size_t(d.num_outputs)) {
      fail("the compiled model's plan does not match its descriptor");
      return nullptr;
    }
    // Another GPU than gpu(0): the same kernels, loaded there.
    if (named && *named != plan->device()) {
      if (named->kind != plan->device().kind) {
        fail("the model was compiled for " +
             std::string(plan->device().kind == rt::Device::Kind::GPU ? "the GPU" : "the CPU") +
             ": it cannot run on " + named->str());
        return nullptr;
      }
      *plan = plan->onDevice(*named);
    }
    model->arguments.resize(size_t(d.num_args));
    for (int64_t i = 0; i < d.num_args; ++i) {
      const mxc_model_tensor_desc &t = d.args[i];
      if (t.kind == MXC_KIND_DATA) {
        model->dataArgs.push_back(int(i));
        continue;
      }
      if (t.weight_offset < 0 || t.weight_offset + t.nbytes > d.weights_size) {
        fail(std::string("parameter '") + t.name +
             "' lies outside the weights");
        return nullptr;
      }
      const rt::PlanBuffer &b = plan->buffers[plan->argumentBuffer(size_t(i))];
      // Read-only: parameters are plan arguments, which no step writes.
      model->arguments[size_t(i)] = rt::NDArray::fromExternal(
          const_cast<uint8_t *>(model->blob + t.weight_offset), b.shape,
          b.dtype);
    }
    for (int64_t i = 0; i < d.num_outputs; ++i) {
      model->scratchOutputs.push_back(allocate(size_t(d.outputs[i].nbytes)));
      if (!model->scratchOutputs.back()) {
        fail("out of memory");
        return nullptr;
      }
    }
    rt::Device device = plan->device();
    if (device.kind != rt::Device::Kind::CPU) {
      model->onDevice = true;
      for (int64_t i = 0; i < d.num_args; ++i) {
        const rt::PlanBuffer &b = plan->buffers[plan->argumentBuffer(size_t(i))];
        rt::NDArray &a = model->arguments[size_t(i)];
        a = a.isNone() ? rt::NDArray(b.shape, b.dtype, device) : a.copyTo(device);
      }
      for (int64_t o = 0; o < d.num_outputs; ++o) {
        const rt::PlanBuffer &b = plan->buffers[plan->outputBuffer(size_t(o))];
        model->deviceOutputs.emplace_back(b.shape, b.dtype, device);
      }
    }
    model->executor =
        std::make_unique<rt::Executor>(std::move(*plan), std::move(kernels));
  } catch (const std::exception &e) {
    fail(std::string("cannot load the model: ") + e.what());
    return nullptr;
  }
  return model.release();
}

// kernels.h's, weak: a model without the fused convolution (a CUDA model)
// must not pull the kernels' object, and OpenBLAS and oneDNN with it, out
// of libmxc_model_rt.a.
extern "C" void mxc_kernel_release_constant_weights(void) __attribute__((weak));

void mxc_model_destroy(mxc_model *model) {
  delete model;
  // Its weights' memory may hold another model's next (conv_dnnl.cc keeps
  // re-laid copies of constant weights by address).
  if (mxc_kernel_release_constant_weights)
    mxc_kernel_release_constant_weights();
}

const char *mxc_model_name(const mxc_model *model) {
  return model ? model->desc->name : nullptr;
}

const char *mxc_model_target(const mxc_model *model) {
  return model ? model->desc->target : nullptr;
}

int mxc_model_num_inputs(const mxc_model *model) {
  if (!model)
    return fail("model is NULL");
  return int(model->dataArgs.size());
}

int mxc_model_num_outputs(const mxc_model *model) {
  if (!model)
    return fail("model is NULL");
  return int(model->desc->num_outputs);
}

int mxc_model_input_info(const mxc_model *model, int index,
                         mxc_model_tensor_info *info) {
  return fillInfo(tensorAt(model, index, true), info);
}

int mxc_model_output_info(const mxc_model *model, int index,
                          mxc_model_tensor_info *info) {
  return fillInfo(tensorAt(model, index, false), info);
}

int mxc_model_run(mxc_model *model, const mxc_model_input *inputs,
                  size_t num_inputs, const mxc_model_output *outputs,
                  size_t num_outputs) {
  if (!model)
    return fail("model is NULL");
  const mxc_model_desc &d = *model->desc;
  if ((num_inputs && !inputs) || (num_outputs && !outputs))
    return fail("inputs or outputs is NULL");
  // Inputs: each data input exactly once.
  std::vector<const void *> given(size_t(d.num_args), nullptr);
  for (size_t i = 0; i < num_inputs; ++i) {
    const char *name = inputs[i].name ? inputs[i].name : "";
    int64_t found = -1;
    for (int a : model->dataArgs)
      if (std::strcmp(d.args[a].name, name) == 0)
        found = a;
    if (found < 0)
      return fail(std::string("no input named '") + name + "'");
    const mxc_model_tensor_desc &t = d.args[found];
    if (given[size_t(found)])
      return fail(std::string("input '") + name + "' is given twice");
    if (!inputs[i].data)
      return fail(std::string("input '") + name + "': data is NULL");
    if (inputs[i].nbytes != size_t(t.nbytes))
      return fail(std::string("input '") + name + "': " +
                  std::to_string(inputs[i].nbytes) + " bytes given, " +
                  std::to_string(t.nbytes) + " needed");
    given[size_t(found)] = inputs[i].data;
  }
  for (int a : model->dataArgs)
    if (!given[size_t(a)])
      return fail(std::string("input '") + d.args[a].name + "' not given");
  // Outputs: the caller's buffer or the scratch one.
  std::vector<void *> outPtrs(size_t(d.num_outputs));
  for (int64_t o = 0; o < d.num_outputs; ++o)
    outPtrs[size_t(o)] = model->scratchOutputs[size_t(o)].get();
  std::vector<bool> seen(size_t(d.num_outputs), false);
  for (size_t i = 0; i < num_outputs; ++i) {
    const char *name = outputs[i].name ? outputs[i].name : "";
    int64_t found = -1;
    for (int64_t o = 0; o < d.num_outputs; ++o)
      if (std::strcmp(d.outputs[o].name, name) == 0)
        found = o;
    if (found < 0)
      return fail(std::string("no output named '") + name + "'");
    if (seen[size_t(found)])
      return fail(std::string("output '") + name + "' is given twice");
    seen[size_t(found)] = true;
    if (!outputs[i].data)
      return fail(std::string("output '") + name + "': data is NULL");
    if (outputs[i].nbytes != size_t(d.outputs[found].nbytes))
      return fail(std::string("output '") + name + "': " +
                  std::to_string(outputs[i].nbytes) + " bytes given, " +
                  std::to_string(d.outputs[found].nbytes) + " needed");
    outPtrs[size_t(found)] = outputs[i].data;
  }
  // The caller's buffers, bound without copies; returns when every step of
  // the plan has run on the engine.
  try {
    rt::Executor &exec = *model->executor;
    std::vector<rt::NDArray> args = model->arguments, outs;
    if (model->onDevice) {
      // Inputs to the device, the plan, the outputs back (each copy an
      // engine operation on the device's copy lanes; copyToHost waits).
      for (int a : model->dataArgs)
        args[size_t(a)].copyFromHost(given[size_t(a)], args[size_t(a)].numBytes());
      exec.bind(args, model->deviceOutputs);
      exec.run();
      for (int64_t o = 0; o < d.num_outputs; ++o) {
        const rt::NDArray &out = model->deviceOutputs[size_t(o)];
        out.copyToHost(outPtrs[size_t(o)], out.numBytes());
      }
      return 0;
    }
    for (int a : model->dataArgs) {
      const rt::PlanBuffer &b = exec.argumentSpec(size_t(a));
      args[size_t(a)] = rt::NDArray::fromExternal(
          const_cast<void *>(given[size_t(a)]), b.shape, b.dtype);
    }
    for (int64_t o = 0; o < d.num_outputs; ++o) {
      const rt::PlanBuffer &b = exec.outputSpec(size_t(o));
      outs.push_back(
          rt::NDArray::fromExternal(outPtrs[size_t(o)], b.shape, b.dtype));
    }
    exec.bind(args, outs);
    exec.run();
  } catch (const std::exception &e) {
    return fail(e.what());
  }
  return 0;
}

} // extern "C"
