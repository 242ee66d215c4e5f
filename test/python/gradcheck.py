"""Gradient checks of mxc's training step (mx-autodiff) against central finite
differences of its forward pass, in float64.

    from gradcheck import check_gradients
    from mxc_testing import one_op_graph

    g = one_op_graph("FullyConnected", {"num_hidden": 4}, ["data", "weight", "bias"])
    rng = np.random.default_rng(0)
    check_gradients(g,
                    inputs={"data": rng.standard_normal((2, 3))},
                    params={"weight": rng.standard_normal((4, 3)),
                            "bias": rng.standard_normal(4)})

What it does (two `mxc run` processes for small graphs):

1. Forward: ``mxc run --train --grad-req null --sweep ...`` evaluates the
   training-mode forward pass (BatchNorm with batch statistics, Dropout with
   the mask of ``--seed``) at x +- h*v for every probe v, in one process
   (``--sweep`` runs the graph once per stacked input value; arguments are
   grouped so that a process stacks at most ``sweep_bytes``, so big models
   take a few processes). Probes:
   ``directions`` random unit directions per checked argument, plus, for
   arguments with at most ``coord_limit`` elements, ``coords`` sampled
   single coordinates.
2. Backward: ``mxc run --train --wrt <names> --head-grad out=w.npy`` with a
   random head gradient w per output gives the analytic gradients.
3. With L(x) = sum over outputs of <w, y(x)>, each probe compares
   <grad, v> against (L(x+hv) - L(x-hv)) / 2h:
       |fd - analytic| <= rtol * |grad| * |v| + atol
   (|grad| the Frobenius norm of that argument's gradient; |v| = 1), i.e. the
   error is relative to the gradient's norm. A failure raises AssertionError
   naming the argument and the probe.

Arguments
  symbol        symbol JSON (dict or str), e.g. mxc_testing.one_op_graph(...)
  inputs        {name: array} passed with --input/--shape/--dtype (data)
  params        {name: array} written to a .params file (parameters and
                auxiliary states; their dtype and shape come from the file)
  wrt           names to differentiate and check (default: every float
                array of inputs and params except `exclude`)
  exclude       names never differentiated (labels, aux states, indices)
  head_grads    {output name: array}; default: seeded standard normal
  loss          None, or a function {output name: array} -> float whose
                gradient the training step computes with its default (ones)
                head gradients: models ending in SoftmaxOutput (MXNet's
                built-in gradient is that of the cross-entropy
                -sum(log p[label]) with grad_scale 1, normalization null),
                see cross_entropy(); then L = loss(outputs) instead of <w, y>
  directions, coords, coord_limit, h, rtol, atol, seed: as above; an
                argument with more than coord_limit elements gets no
                coordinate probes
  extra_args    more `mxc run` flags for both runs (e.g. ["--no-graph-fusion"])
Returns a dict: {"outputs": forward heads at x, "grads": {name: gradient},
"aux": {aux name: updated state}, "probes": [(name, kind, fd, analytic)]}.
Inputs should be float64 and stay away from kinks (relu at 0, ties of
max/min) by more than h, or finite differences are meaningless there.

Use run_training_step(...) alone to get gradients and updated aux states
(e.g. to compare SoftmaxOutput's or BatchNorm's built-in rules with numpy).
"""
import json
import os
import subprocess
import tempfile

import numpy as np

from mxc_testing import MxcError, mxc_binary, write_params


def _parse_outputs(stdout, outdir):
    """{shown name: array} from `mxc run` output lines and --output-dir."""
    outputs = {}
    for line in stdout.splitlines():
        name, sep, _ = line.rpartition(": shape ")
        if not sep:
            continue
        fname = name.replace("/", "_").replace("\\", "_")
        outputs[name] = np.load(os.path.join(outdir, fname + ".npy"))
    return outputs


def _run(tmp, tag, symbol, inputs, params, args, timeout=900):
    sym = os.path.join(tmp, "model-symbol.json")
    if not os.path.exists(sym):
        with open(sym, "w") as f:
            f.write(symbol if isinstance(symbol, str) else json.dumps(symbol))
    outdir = os.path.join(tmp, "out-" + tag)
    cmd = [mxc_binary(), "run", sym, "--output-dir", outdir]
    for name, value in inputs.items():
        value = np.ascontiguousarray(value)
        path = os.path.join(tmp, "in-%s-%s.npy" % (tag, name))
        np.save(path, value)
        if value.ndim:
            cmd += ["--shape", "%s=%s" % (name, ",".join(str(d) for d in value.shape))]
        if value.dtype != np.float32:
            cmd += ["--dtype", "%s=%s" % (name, value.dtype.name)]
        cmd += ["--input", "%s=%s" % (name, path)]
    if params:
        path = os.path.join(tmp, "model-%s.params" % tag)
        write_params(path, params)
        cmd += ["--params", path]
    cmd += list(args)
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    if p.returncode != 0:
        raise MxcError("mxc run failed (exit %d): %s\ncommand: %s"
                       % (p.returncode, p.stderr.strip(), " ".join(cmd)))
    return _parse_outputs(p.stdout, outdir)


def _split(outputs):
    heads = {k: v for k, v in outputs.items()
             if not k.endswith(".grad") and not k.endswith(".aux")}
    grads = {k[:-5]: v for k, v in outputs.items() if k.endswith(".grad")}
    aux = {k[:-4]: v for k, v in outputs.items() if k.endswith(".aux")}
    return heads, grads, aux


def run_training_step(symbol, inputs, params=None, wrt=None, grad_req=None,
                      head_grads=None, extra_args=(), tmp=None):
    """One `mxc run --train`: returns (heads, grads, aux) dicts. `wrt` and
    `grad_req` are lists of names / req entries; `head_grads` {output: array}
    (missing ones are ones, as in MXNet's backward())."""
    with tempfile.TemporaryDirectory(prefix="mxc-grad-") as own:
        tmp = tmp or own
        args = ["--train"]
        if wrt:
            args += ["--wrt", ",".join(wrt)]
        if grad_req:
            args += ["--grad-req", ",".join(grad_req)]
        for name, w in (head_grads or {}).items():
            path = os.path.join(tmp, "head-%s.npy" % name.replace("/", "_"))
            np.save(path, np.ascontiguousarray(w))
            args += ["--head-grad", "%s=%s" % (name, path)]
        out = _run(tmp, "train", symbol, inputs, params or {}, args + list(extra_args))
        return _split(out)


def cross_entropy(label, output=None):
    """The loss whose gradient SoftmaxOutput returns (grad_scale 1,
    normalization null, no ignore): -sum(log p[i, label[i]]) over the rows of
    the (N, C) output `output` (default: the only one)."""
    idx = np.asarray(label).astype(int).reshape(-1)

    def loss(outs):
        p = outs[output] if output else next(iter(outs.values()))
        p = p.reshape(len(idx), -1)
        return -float(np.sum(np.log(p[np.arange(len(idx)), idx])))
    return loss


def check_gradients(symbol, inputs, params=None, wrt=None, exclude=(),
                    head_grads=None, directions=2, coords=3, coord_limit=64,
                    h=1e-5, rtol=1e-6, atol=1e-9, seed=0, extra_args=(),
                    loss=None, sweep_bytes=64 << 20):
    params = dict(params or {})
    inputs = dict(inputs)
    values = dict(inputs)
    values.update(params)
    if wrt is None:
        wrt = [n for n, v in values.items()
               if n not in exclude and np.issubdtype(np.asarray(v).dtype, np.floating)]
    rng = np.random.default_rng(seed)

    # Probes: (name, kind, direction array).
    probes = []
    for name in wrt:
        x = np.asarray(values[name])
        for d in range(directions):
            v = rng.standard_normal(x.shape)
            v /= max(np.linalg.norm(v), 1e-300)
            probes.append((name, "direction %d" % d, v))
        if x.size <= coord_limit:
            for c in rng.choice(x.size, size=min(coords, x.size), replace=False):
                v = np.zeros(x.size)
                v[c] = 1.0
                probes.append((name, "coordinate %s" % (np.unravel_index(c, x.shape),),
                               v.reshape(x.shape)))

    # Group the arguments so that one forward process sweeps at most about
    # sweep_bytes of stacked values (every swept input is stacked K times).
    groups = []
    size = 0
    count = 0
    for name in wrt:
        nbytes = np.asarray(values[name]).nbytes
        n = sum(1 for p in probes if p[0] == name)
        if groups and (size + nbytes) * (1 + 2 * (count + n)) <= sweep_bytes:
            groups[-1].append(name)
            size += nbytes
            count += n
        else:
            groups.append([name])
            size, count = nbytes, n

    with tempfile.TemporaryDirectory(prefix="mxc-gradcheck-") as tmp:
        # 1. Forward at x (sweep entry 0) and x +- h v, one process per group.
        where = {}  # probe index -> (group heads, entry of x + hv)
        base = None
        group_heads = []
        for gi, group in enumerate(groups):
            mine = [i for i, p in enumerate(probes) if p[0] in group]
            sweep_args = []
            for name in group:
                x = np.asarray(values[name])
                stack = [x]
                for i in mine:
                    if probes[i][0] == name:
                        v = probes[i][2]
                        stack += [x + h * v, x - h * v]
                    else:
                        stack += [x, x]
                path = os.path.join(tmp, "sweep-%s.npy" % name.replace("/", "_"))
                np.save(path, np.stack(stack).astype(x.dtype))
                del stack
                sweep_args += ["--sweep", "%s=%s" % (name, path)]
            fwd = _run(tmp, "fwd%d" % gi, symbol, inputs, params,
                       ["--train", "--grad-req", "null"] + sweep_args + list(extra_args))
            for name in group:
                os.remove(os.path.join(tmp, "sweep-%s.npy" % name.replace("/", "_")))
            heads, _, _ = _split(fwd)
            if not heads:
                raise AssertionError("the graph has no outputs")
            if base is None:
                base = {k: v[0] for k, v in heads.items()}
            group_heads.append(heads)
            for j, i in enumerate(mine):
                where[i] = (gi, 1 + 2 * j)

        # 2. Backward with random head gradients.
        if loss is not None:
            head_grads = {}
        elif head_grads is None:
            head_grads = {k: rng.standard_normal(v.shape).astype(v.dtype)
                          for k, v in base.items()}
        b_heads, grads, aux = run_training_step(
            symbol, inputs, params, wrt=wrt, head_grads=head_grads,
            extra_args=extra_args, tmp=tmp)
        for k, v in base.items():
            np.testing.assert_allclose(b_heads[k], v, rtol=1e-12, atol=1e-12,
                                       err_msg="forward output %s differs between "
                                               "the training step and the forward sweep" % k)

    # 3. Compare.
    def value(gi, k):
        heads = group_heads[gi]
        if loss is not None:
            return loss({o: heads[o][k] for o in heads})
        return sum(float(np.sum(head_grads[o] * heads[o][k])) for o in heads)

    results = []
    failures = []
    for i, (name, kind, v) in enumerate(probes):
        if name not in grads:
            raise AssertionError("no gradient output for '%s' (got %s)" % (name, sorted(grads)))
        g = grads[name]
        gi, k = where[i]
        fd = (value(gi, k) - value(gi, k + 1)) / (2 * h)
        an = float(np.sum(g * v))
        results.append((name, kind, fd, an))
        tol = rtol * np.linalg.norm(g) * np.linalg.norm(v) + atol
        if not abs(fd - an) <= tol:
            failures.append("%s, %s: finite difference %.10g, analytic %.10g "
                            "(|diff| %.3g > tol %.3g; |grad| %.3g)"
                            % (name, kind, fd, an, abs(fd - an), tol, np.linalg.norm(g)))
    if failures:
        raise AssertionError("gradient check failed:\n  " + "\n  ".join(failures))
    return {"outputs": base, "grads": grads, "aux": aux, "probes": results}
