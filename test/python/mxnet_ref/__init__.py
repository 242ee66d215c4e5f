"""numpy reference implementations of MXNet operators (forward, inference mode).

Each family module registers functions with ``@register("OpName", "alias", ...)``:

    fn(inputs: list[np.ndarray], attrs: dict[str, str]) -> list[np.ndarray]

``inputs`` are in MXNet's input order (optional inputs absent when the node
does not have them); ``attrs`` are the node's MXNet attribute strings
("(3, 3)", "True"), defaults not filled in. The result lists every output the
node has, hidden ones included (BatchNorm: output, mean, var), so a graph
interpreter can index them as MXNet JSON does.

Written from MXNet's documented semantics, independently of mxc's lowering.
"""
import ast

REF = {}


def register(*names):
    def deco(fn):
        for n in names:
            REF[n] = fn
        return fn
    return deco


# Attribute parsing helpers shared by the family modules.
def attr_tuple(attrs, key, default=()):
    v = attrs.get(key)
    if v is None or v == "None":
        return tuple(default)
    v = v.strip()
    if v in ("()", "[]"):
        return ()
    val = ast.literal_eval(v.replace("L", ""))
    return tuple(val) if isinstance(val, (tuple, list)) else (int(val),)


def attr_int(attrs, key, default=None):
    v = attrs.get(key)
    return default if v is None or v == "None" else int(v)


def attr_float(attrs, key, default=None):
    v = attrs.get(key)
    return default if v is None or v == "None" else float(v)


def attr_bool(attrs, key, default=False):
    v = attrs.get(key)
    if v is None:
        return default
    return v.strip().lower() in ("true", "1")


def attr_str(attrs, key, default=None):
    v = attrs.get(key)
    return default if v is None else v.strip().strip("'\"")


def _load_families():
    # Family modules register on import; missing ones are simply absent.
    import importlib
    for mod in ("elementwise", "reduction", "data_movement", "nn"):
        try:
            importlib.import_module(f"{__name__}.{mod}")
        except ModuleNotFoundError as e:
            if e.name != f"{__name__}.{mod}":
                raise


_load_families()
