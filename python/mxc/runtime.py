"""mx.runtime: MXNet 1.9.1's build-feature query (Features, feature_list).

The feature names are MXNet's (libinfo.h, in its order); what each says is
true of mxc:

- CUDA, CUDNN: whether the runtime was built with its CUDA backend (as
  MXNet's build flags: whether a GPU is there is mx.context.num_gpus();
  cuDNN is loaded at run time). NCCL, CUDA_RTC, TENSORRT: off.
- CPU_SSE ... CPU_AVX2, F16C: the host CPU's (mxc compiles its kernels for
  the machine it runs on), read from /proc/cpuinfo where there is one.
- PROFILER (mx.profiler), CXX14 (the runtime is C++17), SIGNAL_HANDLER
  (off), DEBUG (off), INT64_TENSOR_SIZE (off: MXNet's large-tensor build
  flag), DIST_KVSTORE (off: no ps-lite), the BLAS flavours, LAPACK, MKLDNN
  (MXNet's MKLDNN operators and layouts), OPENCV, CAFFE, JEMALLOC, OPENMP,
  TVM_OP: off, mxc has none of those libraries in MXNet's sense.

    features = mx.runtime.Features()
    features.is_enabled('PROFILER')  # True
"""
import collections

from . import _mxc

__all__ = ["Feature", "Features", "feature_list"]

FEATURE_NAMES = (
    "CUDA", "CUDNN", "NCCL", "CUDA_RTC", "TENSORRT",
    "CPU_SSE", "CPU_SSE2", "CPU_SSE3", "CPU_SSE4_1", "CPU_SSE4_2", "CPU_SSE4A",
    "CPU_AVX", "CPU_AVX2",
    "OPENMP", "SSE", "F16C", "JEMALLOC",
    "BLAS_OPEN", "BLAS_ATLAS", "BLAS_MKL", "BLAS_APPLE", "LAPACK", "MKLDNN",
    "OPENCV", "CAFFE", "PROFILER", "DIST_KVSTORE", "CXX14", "INT64_TENSOR_SIZE",
    "SIGNAL_HANDLER", "DEBUG", "TVM_OP",
)

# /proc/cpuinfo flag of each CPU feature
_CPU_FLAGS = {"CPU_SSE": "sse", "CPU_SSE2": "sse2", "CPU_SSE3": "pni",
              "CPU_SSE4_1": "sse4_1", "CPU_SSE4_2": "sse4_2", "CPU_SSE4A": "sse4a",
              "CPU_AVX": "avx", "CPU_AVX2": "avx2", "F16C": "f16c"}

_ENABLED = {"PROFILER", "CXX14"}


def _cpu_flags():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("flags"):
                    return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


class Feature:
    """A build feature: `name` and `enabled`."""

    __slots__ = ["_name", "_enabled"]

    def __init__(self, name, enabled):
        self._name = name
        self._enabled = bool(enabled)

    @property
    def name(self):
        return self._name

    @property
    def enabled(self):
        return self._enabled

    def __repr__(self):
        return ("\u2714 %s" if self._enabled else "\u2716 %s") % self._name


def feature_list():
    """The features as a list of Feature, in MXNet's order."""
    flags = _cpu_flags()
    out = []
    for name in FEATURE_NAMES:
        if name in _CPU_FLAGS:
            enabled = _CPU_FLAGS[name] in flags
        elif name in ("CUDA", "CUDNN"):
            enabled = _mxc.cuda_built()
        else:
            enabled = name in _ENABLED
        out.append(Feature(name, enabled))
    return out


class Features(collections.OrderedDict):
    """name -> Feature, one instance (as MXNet's singleton)."""

    instance = None

    def __new__(cls):
        if cls.instance is None:
            cls.instance = super().__new__(cls)
            collections.OrderedDict.__init__(cls.instance,
                                             [(f.name, f) for f in feature_list()])
        return cls.instance

    def __init__(self):  # filled once, in __new__
        pass

    def __repr__(self):
        return str(list(self.values()))

    def is_enabled(self, feature_name):
        """Whether the feature is on; RuntimeError for a name MXNet does not know."""
        name = feature_name.upper()
        if name not in self:
            raise RuntimeError("Feature '%s' is unknown, known features are: %s"
                               % (name, list(self.keys())))
        return self[name].enabled
