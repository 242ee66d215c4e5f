"""The operator table, read from the compiler (the mx dialect's MXNet table,
scripts/gen_mx_ops.py), and the MXNet spelling of attribute values."""
import keyword

import numpy as np

from . import _mxc
from .base import MXNetError, dtype_name


class OpSpec:
    """One MXNet operator as the mx dialect knows it."""

    def __init__(self, d):
        self.name = d["name"]
        self.inputs = list(d["inputs"])
        self.num_required_inputs = d["num_required_inputs"]
        self.variadic = d["variadic"]
        self.num_outputs = d["num_outputs"]
        self.num_visible_outputs = d["num_visible_outputs"] or d["num_outputs"]
        self.variadic_outputs = d["variadic_outputs"]
        self.aux_inputs = set(d["aux_inputs"])
        self.attrs = {a["name"]: a for a in d["attrs"]}
        self.aliases = list(d["aliases"])
        self.flist_input_names = d["flist_input_names"]
        self.flist_output_names = d["flist_output_names"]
        self.shape_family = d.get("shape_family")  # "same", "elemwise" or None
        self._input_names = {}

    def input_names(self, attrs):
        """Input names for these attributes (FullyConnected without bias when
        no_bias); variadic ops: None."""
        if self.variadic:
            return None
        key = tuple(sorted(attrs.items()))
        names = self._input_names.get(key)
        if names is None:
            names = list(_mxc.input_names(self.name, attrs)) or list(self.inputs)
            self._input_names[key] = names
        return list(names)

    def format_attrs(self, kwargs):
        """MXNet strings of the attributes in `kwargs` (None is "None", as
        MXNet's generated functions write it). Unknown names and missing
        required attributes raise MXNetError; an operator without attributes
        ignores any it is given, as MXNet's operators without a parameter
        struct do (gluon.loss passes axis= to broadcast_maximum)."""
        out = {}
        for k, v in kwargs.items():
            spec = self.attrs.get(k)
            if spec is None and not self.attrs:
                continue
            if spec is None:
                raise MXNetError("%s: no attribute '%s' (attributes: %s)" % (
                    self.name, k, ", ".join(sorted(self.attrs)) or "none"))
            out[k] = format_value(spec, v)
        for name, spec in self.attrs.items():
            if spec["default"] is None and name not in out and not (
                    self.variadic and name == "num_args"):
                raise MXNetError("%s: required attribute '%s' is missing" % (self.name, name))
        return out

    def visible_outputs(self, attrs):
        """Outputs MXNet shows (FNumVisibleOutputs / list_outputs) for these
        attributes, as the compiler's graph layer counts them."""
        return len(_mxc.output_names(self.name, attrs))

    def monitor_input_names(self, attrs, n):
        """The names MXNet's monitor callbacks give the `n` inputs of a node
        ('<node>_<name>'): the input names where MXNet registers
        FListInputNames (Concat's arg0, arg1, ...), else input0, input1, ..."""
        names = None
        if self.flist_input_names:
            names = self.input_names(attrs) if not self.variadic else \
                list(_mxc.input_names(self.name, attrs)) or ["arg%d" % j for j in range(n)]
        return [names[j] if names and j < len(names) else "input%d" % j for j in range(n)]

    def monitor_output_names(self, attrs):
        """The names a CachedOp's op hook gives the visible outputs: MXNet's
        output names where it registers FListOutputNames, else 0, 1, ..."""
        names = list(_mxc.output_names(self.name, attrs))
        return names if self.flist_output_names else [str(i) for i in range(len(names))]

    def all_outputs(self, attrs):
        """Outputs of a node, hidden ones included (node_row_ptr)."""
        return _mxc.num_outputs(self.name, attrs)


def variadic_inputs(spec, inputs, named, attrs):
    """A variadic operator's inputs: the positional ones (None is an input
    not given), then keyword inputs in the order of the operator's input
    names for these attributes where the graph layer knows them (CTCLoss's
    data, label, data_lengths, label_lengths)."""
    inputs = [a for a in inputs if a is not None]
    if not named:
        return inputs
    names = list(_mxc.input_names(spec.name, spec.format_attrs(attrs)))
    unknown = [k for k in named if k not in names]
    if not names or unknown:
        raise MXNetError("%s: inputs are positional%s" % (
            spec.name, "" if not names else " or named %s; got %s" % (
                ", ".join(names), ", ".join(unknown))))
    for n in names[len(inputs):]:
        if n in named:
            inputs.append(named.pop(n))
    if named:
        raise MXNetError("%s: input(s) %s given twice or out of order (inputs: %s)"
                         % (spec.name, ", ".join(named), ", ".join(names)))
    return inputs


def drop_absent_inputs(spec, kwargs):
    """Removes keyword inputs given as None (MXNet's generated functions
    skip them: SequenceReverse(data=x, sequence_length=None))."""
    for k in [k for k, v in kwargs.items() if v is None]:
        if k in spec.inputs and k not in spec.attrs:
            del kwargs[k]


def take_positional_attrs(spec, inputs, is_input, attrs):
    """As MXNet's generated functions: the inputs first, then the attributes
    positionally in the operator's order (clip(x, 0, 1)). Moves the
    arguments after the last leading input (`is_input`) into `attrs` under
    the operator's attribute names; returns the inputs."""
    n_in = 0
    max_in = len(spec.inputs)
    # (None in an input's place is an input not given, as in MXNet's
    # generated signatures: Convolution(x, w, None, no_bias=True))
    while n_in < len(inputs) and (is_input(inputs[n_in]) or
                                  (inputs[n_in] is None and n_in < max_in)):
        n_in += 1
    while n_in and inputs[n_in - 1] is None:
        n_in -= 1
        del inputs[n_in]
    if any(a is None for a in inputs[:n_in]):
        from .base import MXNetError
        raise MXNetError("%s: an input given as None before a given one" % spec.name)
    if n_in == len(inputs):
        return inputs
    from .base import MXNetError
    positional, inputs = inputs[n_in:], inputs[:n_in]
    attr_names = list(spec.attrs)
    if len(positional) > len(attr_names):
        raise MXNetError("%s: %d positional attributes for %d (%s)" % (
            spec.name, len(positional), len(attr_names), ", ".join(attr_names)))
    for k, v in zip(attr_names, positional):
        if k in attrs:
            raise MXNetError("%s: attribute %s given twice" % (spec.name, k))
        attrs[k] = v
    return inputs


def format_value(spec, v):
    """MXNet's string for an attribute value (str() as MXNet's generated
    functions write it; dtypes by name)."""
    if spec["kind"] == "dtype" and not isinstance(v, str):
        return dtype_name(v)
    if isinstance(v, (np.integer, np.floating, np.bool_)):
        v = v.item()
    elif spec["kind"] in ("shape", "string") and isinstance(v, (tuple, list, np.ndarray)):
        # (string: slice's begin / end / step, tuples of optional ints)
        # numpy ints and arrays as MXNet's (numpy < 2) str() wrote them: (2, 3)
        v = tuple(x.item() if isinstance(x, (np.integer, np.floating, np.bool_)) else x
                  for x in np.asarray(v, dtype=object).reshape(-1)) \
            if isinstance(v, np.ndarray) else \
            type(v)(x.item() if isinstance(x, (np.integer, np.floating, np.bool_)) else x
                    for x in v)
    return str(v)


def _load():
    ops, names = {}, {}
    for d in _mxc.op_specs():
        spec = OpSpec(d)
        ops[spec.name] = spec
        names[spec.name] = spec
        for a in spec.aliases:
            names.setdefault(a, spec)
    return ops, names


#: canonical name -> OpSpec; and every name MXNet registers (aliases) -> OpSpec
OPS, OP_NAMES = _load()


def public_names():
    """(python name, OpSpec) for the functions mx.sym / mx.nd expose: the
    canonical names and the aliases MXNet's Python API shows (not the _npx_ /
    _np_ / _sparse_ spellings of other front ends)."""
    out = []
    for name, spec in OP_NAMES.items():
        if name.startswith(("_npx_", "_np_", "_npi_", "_sparse_", "_contrib_")):
            continue
        if not name.isidentifier() or keyword.iskeyword(name):
            continue
        out.append((name, spec))
    return out


class ContribNamespace:
    """mx.nd.contrib / mx.sym.contrib (and, with prefix "_linalg_",
    mx.nd.linalg / mx.sym.linalg): the table's operators named `prefix` +
    short name (`arange_like` for `_contrib_arange_like`), each made by
    `make(name, spec)` on first use; any other name is an AttributeError
    naming it."""

    def __init__(self, where, make, prefix="_contrib_"):
        self._where, self._make, self._prefix = where, make, prefix

    def __getattr__(self, name):
        prefix = self.__dict__.get("_prefix", "_contrib_")
        spec = None if name.startswith("__") else OP_NAMES.get(prefix + name)
        if spec is None:
            raise AttributeError("%s.%s is not in mxc" % (self.__dict__.get("_where"), name))
        fn = self._make(prefix + name, spec)
        setattr(self, name, fn)
        return fn
