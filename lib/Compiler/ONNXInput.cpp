//===- ONNXInput.cpp - .onnx models for the mxc commands ------------------===//
//
// The CLI reads an ONNX model through mx.onnx's importer, the one ONNX reader
// mxc has (python/mxc/onnx, on the `onnx` package): `python -m
// mxc.onnx.convert model.onnx PREFIX` writes the MXNet files (symbol JSON,
// .params with the initializers, the data inputs' shapes and dtypes) into a
// temporary directory, and the command goes on with those, as IREE's
// `iree-import-onnx` feeds `iree-compile`. The Python is $MXC_PYTHON, else
// the one this build was configured with (the project venv), else python3 on
// PATH; the build's python_packages/ goes first on its PYTHONPATH.
//
//===----------------------------------------------------------------------===//
#include "DriverSupport.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"

#include <cstdlib>

extern char **environ;

using namespace mxc;
using namespace mxc::driver;

ONNXConversion::~ONNXConversion() {
  if (dir.empty())
    return;
  for (const char *suffix :
       {"-symbol.json", "-0000.params", "-inputs.json", ".stderr"})
    llvm::sys::fs::remove(dir + "/model" + suffix);
  llvm::sys::fs::remove(dir);
}

static std::string pythonProgram() {
  if (const char *p = std::getenv("MXC_PYTHON"); p && *p)
    return p;
#ifdef MXC_PYTHON_EXECUTABLE
  if (llvm::sys::fs::can_execute(MXC_PYTHON_EXECUTABLE))
    return MXC_PYTHON_EXECUTABLE;
#endif
  if (auto p = llvm::sys::findProgramByName("python3"))
    return *p;
  return "python3";
}

/// The last non-empty line of `text` (a Python traceback ends with the
/// exception; the converter itself writes one line).
static std::string lastLine(llvm::StringRef text) {
  llvm::SmallVector<llvm::StringRef> lines;
  text.split(lines, '\n');
  for (auto it = lines.rbegin(); it != lines.rend(); ++it)
    if (!it->trim().empty())
      return it->trim().str();
  return "";
}

llvm::Expected<std::unique_ptr<ONNXConversion>>
driver::convertONNXModel(llvm::StringRef path) {
  auto fail = [&](const llvm::Twine &msg) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   path + ": " + msg);
  };
  if (!llvm::sys::fs::exists(path))
    return fail("no such file");
  auto c = std::make_unique<ONNXConversion>();
  llvm::SmallString<128> dir;
  if (auto ec = llvm::sys::fs::createUniqueDirectory("mxc-onnx", dir))
    return fail("cannot create a temporary directory: " + ec.message());
  c->dir = dir.str().str();
  const std::string prefix = c->dir + "/model", errFile = prefix + ".stderr";

  std::string python = pythonProgram();
  // The environment, with the build's package first on PYTHONPATH.
  std::vector<std::string> env;
  std::string pythonPath;
  for (char **e = environ; *e; ++e) {
    llvm::StringRef kv(*e);
    if (kv.starts_with("PYTHONPATH="))
      pythonPath = kv.drop_front(11).str();
    else
      env.push_back(kv.str());
  }
#ifdef MXC_PYTHON_PACKAGES
  if (llvm::sys::fs::is_directory(MXC_PYTHON_PACKAGES))
    pythonPath = pythonPath.empty()
                     ? std::string(MXC_PYTHON_PACKAGES)
                     : std::string(MXC_PYTHON_PACKAGES) + ":" + pythonPath;
#endif
  if (!pythonPath.empty())
    env.push_back("PYTHONPATH=" + pythonPath);
  if (!std::getenv("MXC_QUIET"))
    env.push_back("MXC_QUIET=1");
  std::vector<llvm::StringRef> envRefs(env.begin(), env.end());
  llvm::StringRef args[] = {python, "-m", "mxc.onnx.convert", path, prefix};
  std::optional<llvm::StringRef> redirects[] = {llvm::StringRef(""),
                                                llvm::StringRef(""),
                                                llvm::StringRef(errFile)};
  std::string execError;
  int rc = llvm::sys::ExecuteAndWait(python, args, envRefs, redirects,
                                     /*SecondsToWait=*/0, /*MemoryLimit=*/0,
                                     &execError);
  if (rc < 0)
    return fail("cannot run the ONNX reader (" + python +
                " -m mxc.onnx.convert; set MXC_PYTHON): " + execError);
  std::string err;
  if (auto buf = llvm::MemoryBuffer::getFile(errFile))
    err = lastLine((*buf)->getBuffer());
  if (rc != 0) {
    if (err.empty())
      err = "exit status " + std::to_string(rc);
    // The converter's own line is import_model's error; anything else is
    // Python failing to start it (no mxc or onnx package there).
    if (rc == 1 && llvm::StringRef(err).starts_with("import_model:"))
      return fail(llvm::StringRef(err).drop_front(13).trim());
    return fail("the ONNX reader (" + python +
                " -m mxc.onnx.convert; set MXC_PYTHON to a Python with mxc "
                "and onnx) failed: " + err);
  }

  c->symbolFile = prefix + "-symbol.json";
  c->paramsFile = prefix + "-0000.params";
  auto buf = llvm::MemoryBuffer::getFile(prefix + "-inputs.json");
  if (!buf)
    return fail("the ONNX reader wrote no input list");
  auto json = llvm::json::parse((*buf)->getBuffer());
  if (!json)
    return fail("the ONNX reader's input list: " +
                llvm::toString(json.takeError()));
  const llvm::json::Array *inputs =
      json->getAsObject() ? json->getAsObject()->getArray("inputs") : nullptr;
  if (!inputs)
    return fail("the ONNX reader's input list has no 'inputs'");
  for (const llvm::json::Value &v : *inputs) {
    const llvm::json::Object *o = v.getAsObject();
    auto name = o ? o->getString("name") : std::nullopt;
    auto dtype = o ? o->getString("dtype") : std::nullopt;
    if (!name || !dtype)
      return fail("the ONNX reader's input list is malformed");
    ONNXConversion::Input in;
    in.name = name->str();
    in.dtype = dtype->str();
    if (const llvm::json::Array *shape = o->getArray("shape")) {
      for (const llvm::json::Value &d : *shape) {
        if (auto x = d.getAsInteger())
          in.shape.push_back(*x);
        else
          in.dynamic = true;
      }
    } else {
      in.dynamic = true;
    }
    c->inputs.push_back(std::move(in));
  }
  return c;
}

std::optional<int> driver::prepareONNXInput(
    std::string &model, std::string &paramsFile, std::vector<std::string> &shapes,
    std::vector<std::string> &dtypes, std::unique_ptr<ONNXConversion> &keep) {
  if (!llvm::StringRef(model).ends_with(".onnx"))
    return std::nullopt;
  if (!paramsFile.empty()) {
    errorLine() << "--params with an ONNX model: its weights are the model's "
                   "initializers\n";
    return kBadUsage;
  }
  auto c = convertONNXModel(model);
  if (!c) {
    errorLine() << llvm::toString(c.takeError()) << "\n";
    return kBadInput;
  }
  auto given = [](const std::vector<std::string> &list, llvm::StringRef name) {
    for (const std::string &s : list)
      if (llvm::StringRef(s).split('=').first.trim() == name)
        return true;
    return false;
  };
  for (const ONNXConversion::Input &in : (*c)->inputs) {
    if (!given(shapes, in.name)) {
      if (in.dynamic) {
        errorLine() << model << ": input '" << in.name
                    << "' has a dynamic dimension: give its shape with --shape "
                    << in.name << "=d0,d1,...\n";
        return kBadUsage;
      }
      if (in.shape.empty()) {
        errorLine() << model << ": input '" << in.name
                    << "' is a scalar (0-d), which --shape cannot give\n";
        return kBadUsage;
      }
      std::string dims;
      for (int64_t d : in.shape)
        dims += (dims.empty() ? "" : ",") + std::to_string(d);
      shapes.push_back(in.name + "=" + dims);
    }
    if (in.dtype != "float32" && !given(dtypes, in.name))
      dtypes.push_back(in.name + "=" + in.dtype);
  }
  model = (*c)->symbolFile;
  paramsFile = (*c)->paramsFile;
  keep = std::move(*c);
  return std::nullopt;
}
