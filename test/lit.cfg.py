# -*- Python -*-
# lit configuration for mxc: `.mlir` pass/dialect tests and CLI tests.
import os

import lit.formats
from lit.llvm import llvm_config

config.name = "MXC"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.excludes = ["Inputs", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py", "unit", "python"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.mxc_obj_root, "test")

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%inputs", os.path.join(config.test_source_root, "Inputs")))
config.substitutions.append(("%srcroot", config.mxc_src_root))
config.substitutions.append(("%python", config.python_executable))
# The CUDA driver double (runtime/test/cuda_host_driver.cc: "GPUs" over host
# memory that run no kernels), where the build has CUDA.
_double = os.path.join(config.mxc_obj_root, "lib", "libmxc-cuda-host-driver.so")
if os.path.exists(_double):
    config.available_features.add("cuda-host-driver")
    config.substitutions.append(("%cuda_host_driver", _double))
# %expect-error STATUS -- cmd: cmd must exit with STATUS and one stderr line.
config.substitutions.append(("%expect-error", config.python_executable + " " +
                             os.path.join(config.test_source_root, "Inputs", "expect-error.py")))

llvm_config.with_system_environment(["HOME", "INCLUDE", "LIB", "TMP", "TEMP"])
llvm_config.use_default_substitutions()

# Our tools first, then LLVM's (FileCheck, not, split-file).
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
llvm_config.with_environment("PATH", config.mxc_tools_dir, append_path=True)
llvm_config.add_tool_substitutions(["mxc-opt", "mxc"], [config.mxc_tools_dir])
