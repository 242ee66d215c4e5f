"""mx.model: checkpoints in MXNet's format and BatchEndParam.

save_checkpoint(prefix, epoch, symbol, arg_params, aux_params) writes
`prefix-symbol.json` (the symbol's JSON, MXNet 1.9.1's layout) and
`prefix-%04d.params` (MXNet's .params records named `arg:<name>` and
`aux:<name>`), exactly the files MXNet's Module.save_checkpoint writes, so
that MXNet, `mxc run`/`mxc compile` and load_checkpoint read them.
"""
from collections import namedtuple

from . import ndarray as nd
from . import symbol as sym
from .base import MXNetError

BatchEndParam = namedtuple("BatchEndParams", ["epoch", "nbatch", "eval_metric", "locals"])


def save_checkpoint(prefix, epoch, symbol, arg_params, aux_params, remove_amp_cast=True):
    """Writes prefix-symbol.json (when symbol is not None) and
    prefix-%04d.params."""
    if symbol is not None:
        symbol.save("%s-symbol.json" % prefix, remove_amp_cast=remove_amp_cast)
    save_dict = {("arg:%s" % k): v for k, v in arg_params.items()}
    save_dict.update({("aux:%s" % k): v for k, v in aux_params.items()})
    param_name = "%s-%04d.params" % (prefix, epoch)
    nd.save(param_name, save_dict)


def load_params(prefix, epoch):
    """(arg_params, aux_params) from prefix-%04d.params."""
    fname = "%s-%04d.params" % (prefix, epoch)
    save_dict = nd.load(fname)
    if not isinstance(save_dict, dict):
        raise MXNetError("%s: the arrays have no names (not a checkpoint)" % fname)
    arg_params, aux_params = {}, {}
    for k, v in save_dict.items():
        tp, _, name = k.partition(":")
        if tp == "arg":
            arg_params[name] = v
        elif tp == "aux":
            aux_params[name] = v
        else:
            raise MXNetError("%s: array '%s' is neither arg: nor aux:" % (fname, k))
    return arg_params, aux_params


def load_checkpoint(prefix, epoch):
    """(symbol, arg_params, aux_params) from prefix-symbol.json and
    prefix-%04d.params."""
    symbol = sym.load("%s-symbol.json" % prefix)
    arg_params, aux_params = load_params(prefix, epoch)
    return symbol, arg_params, aux_params
