"""Reductions and softmax through `mxc run`, against the numpy references.

sum / mean / max / min (axis, keepdims, exclude; no axis = all), argmax
(axis or flattened, keepdims), softmax / log_softmax (axis, temperature,
dtype, use_length) and SoftmaxOutput (default, multi_output,
preserve_shape). f32 with random inputs and rtol 1e-4; some int32 / f64.
"""
import numpy as np
import pytest

from mxc_testing import MxcError, assert_close, one_op_graph, run_graph
from mxnet_ref import REF

RTOL = 1e-4


def check(op, attrs, inputs, rtol=RTOL, atol=1e-6):
    names = ["in%d" % i for i in range(len(inputs))]
    graph = one_op_graph(op, attrs, names, name="node")
    expected = REF[op](list(inputs), graph["nodes"][-1].get("attrs", {}))
    got = list(run_graph(graph, dict(zip(names, inputs))).values())
    assert len(got) == 1
    assert_close(got[0], expected[0], rtol=rtol, atol=atol, name=op)


def _rand(rng, shape, dtype=np.float32, low=-2.0, high=2.0):
    return rng.uniform(low, high, size=shape).astype(dtype)


REDUCE_ATTRS = [
    {},
    {"axis": ()},
    {"axis": (0,)},
    {"axis": (1,)},
    {"axis": (-1,)},
    {"axis": (0, 2)},
    {"axis": (1,), "keepdims": True},
    {"axis": (0, 2), "keepdims": True},
    {"keepdims": True},
    {"axis": (1,), "exclude": True},
    {"axis": (0, -1), "exclude": True, "keepdims": True},
]


@pytest.mark.parametrize("attrs", REDUCE_ATTRS, ids=str)
@pytest.mark.parametrize("op", ["sum", "mean", "max", "min", "prod", "nansum", "nanprod"])
def test_reduce_f32(op, attrs):
    rng = np.random.default_rng(100)
    x = _rand(rng, (3, 4, 5), low=0.5, high=1.5) if "prod" in op else _rand(rng, (3, 4, 5))
    check(op, attrs, [x])


@pytest.mark.parametrize("attrs", [{}, {"axis": (1,)}, {"axis": (0, 2), "keepdims": True}], ids=str)
@pytest.mark.parametrize("op", ["nansum", "nanprod"])
def test_nan_reductions_skip_nan(op, attrs):
    rng = np.random.default_rng(104)
    x = _rand(rng, (3, 4, 5), low=0.5, high=1.5)
    x[rng.uniform(size=x.shape) < 0.3] = np.nan
    x[0, :, 0] = np.nan          # a row of NaN only: the identity
    check(op, attrs, [x])


@pytest.mark.parametrize("op", ["prod", "nansum", "nanprod"])
def test_prod_int(op):
    rng = np.random.default_rng(105)
    check(op, {"axis": (1,)}, [rng.integers(-3, 4, size=(4, 5)).astype(np.int32)])


@pytest.mark.parametrize("op", ["sum", "mean", "max", "min"])
def test_reduce_large(op):
    rng = np.random.default_rng(101)
    check(op, {"axis": (1,)}, [_rand(rng, (16, 1000))])


@pytest.mark.parametrize("attrs", [{}, {"axis": (1,)}, {"axis": (0,), "keepdims": True}], ids=str)
@pytest.mark.parametrize("op", ["sum", "mean", "max", "min"])
def test_reduce_int(op, attrs):
    rng = np.random.default_rng(102)
    check(op, attrs, [rng.integers(-50, 50, size=(4, 6)).astype(np.int32)])


@pytest.mark.parametrize("op", ["sum", "mean"])
def test_reduce_f64(op):
    rng = np.random.default_rng(103)
    check(op, {"axis": (0,)}, [_rand(rng, (5, 3), np.float64)])


@pytest.mark.parametrize("attrs", [
    {}, {"keepdims": True}, {"axis": 0}, {"axis": 1}, {"axis": -1},
    {"axis": 2, "keepdims": True},
], ids=str)
def test_argmax(attrs):
    rng = np.random.default_rng(110)
    check("argmax", attrs, [_rand(rng, (3, 4, 5))])


def test_argmax_ties_and_1d():
    # The first maximum wins; a 1-D input gives shape (1,).
    check("argmax", {"axis": 0}, [np.array([1, 3, 3, 2], dtype=np.float32)])
    check("argmax", {"axis": 1}, [np.array([[2, 2, 1], [0, 5, 5]], dtype=np.float32)])


def test_argmax_int():
    rng = np.random.default_rng(111)
    check("argmax", {"axis": 1}, [rng.integers(-5, 5, size=(4, 7)).astype(np.int32)])


SOFTMAX_ATTRS = [
    {},
    {"axis": 0},
    {"axis": 1},
    {"axis": -1, "temperature": 2.0},
    {"axis": 1, "temperature": 0.5},
    {"dtype": "float64"},
]


@pytest.mark.parametrize("attrs", SOFTMAX_ATTRS, ids=str)
@pytest.mark.parametrize("op", ["softmax", "log_softmax"])
def test_softmax(op, attrs):
    rng = np.random.default_rng(120)
    check(op, attrs, [_rand(rng, (3, 4, 5), low=-5, high=5)])


@pytest.mark.parametrize("op", ["softmax", "log_softmax"])
def test_softmax_large_values(op):
    """Stable: inputs far beyond exp's range give finite results."""
    rng = np.random.default_rng(121)
    check(op, {}, [_rand(rng, (4, 10), low=500, high=1000)])


@pytest.mark.parametrize("op", ["softmax", "log_softmax"])
def test_softmax_wide(op):
    rng = np.random.default_rng(122)
    check(op, {}, [_rand(rng, (8, 1000), low=-10, high=10)])


def test_softmax_f64():
    rng = np.random.default_rng(123)
    check("softmax", {"axis": 0}, [_rand(rng, (6, 3), np.float64)])


@pytest.mark.parametrize("axis,length", [
    (-1, np.array([[1, 5, 3], [0, 2, 5]], dtype=np.int32)),
    (1, np.array([[1, 4, 2, 3, 0], [3, 3, 1, 2, 2]], dtype=np.int32)),
])
def test_softmax_use_length(axis, length):
    rng = np.random.default_rng(124)
    check("softmax", {"axis": axis, "use_length": True}, [_rand(rng, (2, 3, 5)), length])


@pytest.mark.parametrize("attrs,data_shape,label_shape", [
    ({}, (2, 10), (2,)),
    ({"multi_output": True}, (2, 4, 5), (2, 5)),
    ({"multi_output": True}, (3, 4), (3,)),
    ({"preserve_shape": True}, (2, 3, 5), (2, 3)),
], ids=["2d", "multi_output", "multi_output_2d", "preserve_shape"])
def test_softmax_output(attrs, data_shape, label_shape):
    rng = np.random.default_rng(130)
    check("SoftmaxOutput", attrs, [_rand(rng, data_shape, low=-4, high=4),
                                   np.zeros(label_shape, dtype=np.float32)])


def test_softmax_output_flattens_trailing_axes():
    """Without multi_output / preserve_shape the data is seen as
    (n, size / n): one softmax over all trailing axes together."""
    rng = np.random.default_rng(131)
    check("SoftmaxOutput", {}, [_rand(rng, (2, 3, 4), low=-4, high=4),
                                np.zeros((2, 3), dtype=np.float32)])


@pytest.mark.parametrize("attrs", [{"axes": (1,)}, {"axes": (0, 2), "keepdims": True}, {},
                                   {"axes": (-1,), "keepdims": False}], ids=str)
def test_moments(attrs):
    """moments (a composite): mean and population variance over axes."""
    rng = np.random.default_rng(50)
    x = rng.uniform(-2, 2, (3, 4, 5)).astype(np.float32)
    names = ["in0"]
    graph = one_op_graph("moments", attrs, names, name="node", num_outputs=2)
    expected = REF["moments"]([x], graph["nodes"][-1].get("attrs", {}))
    got = list(run_graph(graph, {"in0": x}).values())
    for g, e in zip(got, expected):
        assert_close(g, e, rtol=1e-5, atol=1e-6, name="moments")


def test_argmax_channel():
    rng = np.random.default_rng(51)
    for shape in [(3, 4), (2, 5, 3)]:
        check("argmax_channel", {}, [rng.uniform(-2, 2, shape).astype(np.float32)])



# --- topk, sort, argsort ------------------------------------------------------

def check_all(op, attrs, inputs, n_out):
    """Like check, for ops with several visible outputs (topk 'both')."""
    names = ["in%d" % i for i in range(len(inputs))]
    graph = one_op_graph(op, attrs, names, name="node", num_outputs=n_out)
    expected = REF[op](list(inputs), graph["nodes"][-1].get("attrs", {}))
    got = list(run_graph(graph, dict(zip(names, inputs))).values())
    assert len(got) == len(expected) == n_out
    for g, e in zip(got, expected):
        assert g.dtype == e.dtype, (op, attrs, g.dtype, e.dtype)
        assert_close(g, e, rtol=0, atol=0, name=op)


TOPK_ATTRS = [
    {},                                                   # indices, k=1, axis -1
    {"k": 3, "ret_typ": "value"},
    {"k": 2, "ret_typ": "value", "is_ascend": True, "axis": 1},
    {"k": 0, "ret_typ": "value", "axis": 0},              # k < 1: the whole axis
    {"k": 4, "ret_typ": "indices", "axis": None},         # flattened
    {"k": 3, "ret_typ": "mask", "axis": 1},
    {"k": 5, "ret_typ": "mask", "axis": None, "is_ascend": True},
    {"k": 2, "ret_typ": "indices", "dtype": "int32"},
    {"k": 2, "ret_typ": "indices", "dtype": "int64", "axis": 0},
]


@pytest.mark.parametrize("attrs", TOPK_ATTRS, ids=str)
def test_topk(attrs):
    rng = np.random.default_rng(120)
    x = rng.permutation(60).reshape(3, 4, 5).astype(np.float32)
    check_all("topk", attrs, [x], 1)


def test_topk_both_and_ties():
    # Equal values in index order (MXNet's stable order), both directions.
    x = np.array([[3, 1, 3, 3, 0], [2, 2, 2, 2, 2]], np.float32)
    for asc in (False, True):
        check_all("topk", {"k": 3, "ret_typ": "both", "is_ascend": asc}, [x], 2)
    check_all("argsort", {"is_ascend": False}, [x], 1)
    check_all("argsort", {}, [x], 1)
    # NaN after every number in both orders (MXNet's order with NaN depends
    # on its sort algorithm; mxc's is this one).
    x = np.array([[np.nan, 1, 5, np.nan, -1]], np.float32)
    check_all("argsort", {}, [x], 1)
    check_all("argsort", {"is_ascend": False}, [x], 1)


@pytest.mark.parametrize("attrs", [{}, {"axis": 0}, {"axis": None}, {"is_ascend": False},
                                   {"axis": 1, "is_ascend": False}], ids=str)
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
def test_sort_argsort(attrs, dtype):
    rng = np.random.default_rng(121)
    x = rng.permutation(24).reshape(2, 3, 4).astype(dtype)
    check_all("sort", attrs, [x], 1)
    check_all("argsort", attrs, [x], 1)
    check_all("argsort", dict(attrs, dtype="int32"), [x], 1)


def test_topk_long_row():
    # A long axis (the partial sort's case; MXNet's test_order uses 300096).
    rng = np.random.default_rng(122)
    x = np.stack([rng.permutation(20000) for _ in range(3)]).astype(np.float32)
    check_all("topk", {"k": 5, "axis": 1}, [x], 1)
    check_all("topk", {"k": 5, "axis": 1, "ret_typ": "value", "is_ascend": True}, [x], 1)


def test_topk_errors():
    x = np.zeros((3, 4), np.float32)
    for attrs, msg in [({"k": 5}, "k must be smaller than 4, get k = 5"),
                       ({"axis": 2}, "Invalid axis! axis should be between 0 and 2")]:
        graph = one_op_graph("topk", attrs, ["in0"], name="node")
        with pytest.raises(MxcError) as e:
            run_graph(graph, {"in0": x})
        assert msg in str(e.value) and "node" in str(e.value), str(e.value)
