"""Data-movement operators through `mxc run`, against the numpy references.

Reshape (every special code, reverse, the deprecated target_shape), Flatten,
transpose, expand_dims, slice_axis, Concat (along each axis, negative dims,
several inputs) and one_hot. Exact results: these ops only move values.
"""
import numpy as np
import pytest

from mxc_testing import MxcError, assert_close, one_op_graph, run_graph
from mxnet_ref import REF


def check(op, attrs, inputs):
    names = ["in%d" % i for i in range(len(inputs))]
    graph = one_op_graph(op, attrs, names, name="node")
    expected = REF[op](list(inputs), graph["nodes"][-1].get("attrs", {}))
    got = list(run_graph(graph, dict(zip(names, inputs))).values())
    assert len(got) == 1
    assert_close(got[0], expected[0], rtol=0, atol=0, name=op)


def _rand(rng, shape, dtype=np.float32):
    return rng.uniform(-2, 2, size=shape).astype(dtype)


@pytest.mark.parametrize("attrs", [
    {"shape": (0, -1)},
    {"shape": (-1,)},
    {"shape": (4, -1)},
    {"shape": (4, 0, -1)},
    {"shape": (-3, 0)},
    {"shape": (0, -3)},
    {"shape": (-2,)},
    {"shape": (0, -2)},
    {"shape": (-4, 1, 2, -2)},
    {"shape": (0, -4, -1, 3, 0)},
    {"shape": (2, 3, 2, 2)},
    {"shape": (-1, 0), "reverse": True},
    {"shape": (0, 0, 2, 2)},
    {"target_shape": (0, 4)},
    {"target_shape": (3, 0), "keep_highest": True},
], ids=str)
def test_reshape(attrs):
    rng = np.random.default_rng(200)
    check("Reshape", attrs, [_rand(rng, (2, 3, 4))])


def test_reshape_int():
    check("Reshape", {"shape": (3, -1)}, [np.arange(12, dtype=np.int32).reshape(2, 6)])


@pytest.mark.parametrize("shape", [(4, 3), (2, 3, 4), (2, 1, 3, 5), (5,)])
def test_flatten(shape):
    rng = np.random.default_rng(201)
    check("Flatten", {}, [_rand(rng, shape)])


@pytest.mark.parametrize("shape,axes", [
    ((2, 3), ()),
    ((2, 3, 4), ()),
    ((2, 3, 4), (0, 2, 1)),
    ((2, 3, 4), (1, 0, 2)),
    ((2, 3, 4, 5), (0, 2, 3, 1)),
    ((2, 3, 4, 5), (3, 1, 0, 2)),
])
def test_transpose(shape, axes):
    rng = np.random.default_rng(202)
    check("transpose", {"axes": axes} if axes else {}, [_rand(rng, shape)])


@pytest.mark.parametrize("axis", [0, 1, 2, -1, -3])
def test_expand_dims(axis):
    rng = np.random.default_rng(203)
    check("expand_dims", {"axis": axis}, [_rand(rng, (2, 3))])


@pytest.mark.parametrize("shape,axis", [
    ((2, 1, 3, 1), None), ((2, 1, 3, 1), (1,)), ((2, 1, 3, 1), (-1, 1)),
    ((1, 1, 1), None), ((1, 4), (0,)), ((3, 4), None),
])
def test_squeeze(shape, axis):
    rng = np.random.default_rng(210)
    check("squeeze", {"axis": axis} if axis is not None else {}, [_rand(rng, shape)])


@pytest.mark.parametrize("shape,target", [
    ((1, 3), (4, 3)), ((1, 3), (2, 0)), ((2, 1, 1), (2, 3, 5)), ((3,), (3,)),
    ((1, 1, 4), (0, 6, 0)),
])
def test_broadcast_to(shape, target):
    rng = np.random.default_rng(211)
    check("broadcast_to", {"shape": target}, [_rand(rng, shape)])


@pytest.mark.parametrize("shape,index_shape,attrs", [
    ((3, 4), (3,), {"axis": 1}),
    ((3, 4), (3,), {"axis": -1, "mode": "wrap"}),
    ((3, 4), (4,), {"axis": 0, "keepdims": True}),
    ((3, 4), (3, 1), {"axis": 1}),
    ((2, 3, 4), (2, 4), {"axis": 1, "mode": "wrap", "keepdims": True}),
    ((5,), (1,), {"axis": 0}),
], ids=str)
def test_pick(shape, index_shape, attrs):
    rng = np.random.default_rng(215)
    n = shape[attrs["axis"]]
    # in range, out of range both ways, and fractional (truncated)
    index = rng.integers(-n - 2, 2 * n + 2, index_shape).astype(np.float32) + 0.5
    check("pick", attrs, [_rand(rng, shape), index])


def test_pick_index_shape_error_names_the_node():
    rng = np.random.default_rng(216)
    graph = one_op_graph("pick", {"axis": 1}, ["in0", "in1"], name="node")
    with pytest.raises(MxcError) as e:
        run_graph(graph, {"in0": _rand(rng, (3, 4)), "in1": _rand(rng, (2,))})
    text = str(e.value)
    assert "node" in text and "index of shape (2) does not match" in text.replace(",)", ")"), text


@pytest.mark.parametrize("shape,index_shape,attrs", [
    ((5, 3), (4,), {}),
    ((5, 3), (2, 4), {"axis": 0, "mode": "wrap"}),
    ((2, 6, 3), (4,), {"axis": 1}),
    ((2, 6, 3), (2, 2), {"axis": -1, "mode": "wrap"}),
    ((7,), (3, 2), {"axis": 0}),
    ((2, 3, 4, 5), (1,), {"axis": 2}),
], ids=str)
def test_take(shape, index_shape, attrs):
    rng = np.random.default_rng(217)
    n = shape[attrs.get("axis", 0)]
    # in range, out of range both ways, and fractional (truncated)
    index = (rng.integers(-n - 2, 2 * n + 2, index_shape) + 0.5).astype(np.float32)
    check("take", attrs, [_rand(rng, shape), index])


@pytest.mark.parametrize("itype", [np.float32, np.int32, np.int64])
def test_take_integer_data_and_indices(itype):
    rng = np.random.default_rng(218)
    a = rng.integers(-50, 50, (6, 4)).astype(np.int32)
    index = rng.integers(-3, 9, (3, 2)).astype(itype)
    check("take", {"axis": 0}, [a, index])


def test_take_raise_is_a_clear_error():
    rng = np.random.default_rng(219)
    graph = one_op_graph("take", {"mode": "raise"}, ["in0", "in1"], name="node")
    with pytest.raises(MxcError) as e:
        run_graph(graph, {"in0": _rand(rng, (3, 4)), "in1": np.zeros((2,), np.float32)})
    assert "mode='raise'" in str(e.value) and "take" in str(e.value), str(e.value)


@pytest.mark.parametrize("data_shape,dims,dtype", [
    ((4,), (10, 3), np.float32),
    ((2, 5), (7, 4), np.float32),
    ((3, 2, 2), (6, 5), np.float64),
], ids=str)
def test_embedding(data_shape, dims, dtype):
    rng = np.random.default_rng(220)
    data = (rng.integers(-2, dims[0] + 3, data_shape) + 0.25).astype(np.float32)
    weight = _rand(rng, dims).astype(dtype)
    check("Embedding", {"input_dim": dims[0], "output_dim": dims[1]}, [data, weight])


def test_embedding_weight_shape_error_names_the_node():
    rng = np.random.default_rng(221)
    graph = one_op_graph("Embedding", {"input_dim": 10, "output_dim": 3}, ["in0", "in1"],
                         name="node")
    with pytest.raises(MxcError) as e:
        run_graph(graph, {"in0": np.zeros((2,), np.float32), "in1": _rand(rng, (10, 4))})
    text = str(e.value)
    assert "node" in text and "input_dim and output_dim give (10, 3)" in text.replace(",)", ")"), text


@pytest.mark.parametrize("shape,axis", [((2, 3, 4), (1,)), ((2, 3, 4), (0, 2)),
                                        ((5,), (0,)), ((2, 3), (-1,)), ((3, 4), (1, 1)),
                                        ((2, 3, 4), ())], ids=str)
def test_reverse(shape, axis):
    rng = np.random.default_rng(222)
    check("reverse", {"axis": axis}, [_rand(rng, shape)])


def test_reverse_int():
    check("reverse", {"axis": (0,)}, [np.arange(12, dtype=np.int32).reshape(4, 3)])


@pytest.mark.parametrize("shape,attrs", [((1, 3), {"axis": (0,), "size": (4,)}),
                                         ((2, 1, 1), {"axis": (1, 2), "size": (3, 5)}),
                                         ((2, 1), {"axis": (-1,), "size": (6,)})], ids=str)
def test_broadcast_axis(shape, attrs):
    rng = np.random.default_rng(223)
    check("broadcast_axis", attrs, [_rand(rng, shape)])


@pytest.mark.parametrize("lhs,rhs,attrs", [((1, 3), (4, 3), {}),
                                           ((2, 1, 1), (2, 5, 4), {}),
                                           ((1, 2, 1, 3), (5, 6, 7, 8),
                                            {"lhs_axes": (0, 2), "rhs_axes": (-1, 1)})], ids=str)
def test_broadcast_like(lhs, rhs, attrs):
    rng = np.random.default_rng(227)
    check("broadcast_like", attrs, [_rand(rng, lhs), _rand(rng, rhs)])


def test_broadcast_axis_not_one_names_the_node():
    graph = one_op_graph("broadcast_axis", {"axis": (1,), "size": (3,)}, ["in0"], name="node")
    with pytest.raises(MxcError) as e:
        run_graph(graph, {"in0": np.zeros((2, 2), np.float32)})
    assert "node" in str(e.value) and "Broadcasting axis must have size 1" in str(e.value)


@pytest.mark.parametrize("op", ["shape_array", "size_array"])
@pytest.mark.parametrize("shape", [(7,), (2, 3, 4)])
def test_shape_and_size_array(op, shape):
    check(op, {}, [np.zeros(shape, np.float32)])


@pytest.mark.parametrize("shape,like,attrs", [((4, 5), (2, 3), {}),
                                             ((4, 5, 6), (9, 2), {"axes": (1,)}),
                                             ((4, 5, 6), (3, 5, 2), {"axes": (0, -1)}),
                                             ((3, 4), (3, 4), {})], ids=str)
def test_slice_like(shape, like, attrs):
    rng = np.random.default_rng(224)
    check("slice_like", attrs, [_rand(rng, shape), _rand(rng, like)])


def test_slice_like_too_small_names_the_node():
    graph = one_op_graph("slice_like", {}, ["in0", "in1"], name="node")
    with pytest.raises(MxcError) as e:
        run_graph(graph, {"in0": np.zeros((2, 3), np.float32), "in1": np.zeros((2, 4), np.float32)})
    assert "node" in str(e.value) and "exceeds limit of input with size 3" in str(e.value)


@pytest.mark.parametrize("op,shape,b", [("depth_to_space", (2, 8, 2, 3), 2),
                                        ("depth_to_space", (1, 18, 2, 2), 3),
                                        ("space_to_depth", (2, 2, 4, 6), 2),
                                        ("space_to_depth", (1, 3, 3, 6), 3)], ids=str)
def test_depth_space(op, shape, b):
    rng = np.random.default_rng(225)
    check(op, {"block_size": b}, [_rand(rng, shape)])


def test_depth_to_space_bad_depth_names_the_node():
    graph = one_op_graph("depth_to_space", {"block_size": 2}, ["in0"], name="node")
    with pytest.raises(MxcError) as e:
        run_graph(graph, {"in0": np.zeros((1, 6, 2, 2), np.float32)})
    assert "node" in str(e.value) and "multiple of 'block^2'" in str(e.value)


@pytest.mark.parametrize("mode", ["constant", "edge", "reflect"])
@pytest.mark.parametrize("shape,width", [((2, 3, 3, 5), (0, 0, 0, 0, 1, 2, 3, 4)),
                                         ((2, 3, 3, 5, 4), (0, 0, 0, 0, 1, 2, 3, 4, 3, 1)),
                                         ((1, 2, 4, 4), (0, 0, 0, 0, 0, 0, 2, 0))], ids=str)
def test_pad(mode, shape, width):
    rng = np.random.default_rng(226)
    check("Pad", {"mode": mode, "pad_width": width, "constant_value": 1.5},
          [_rand(rng, shape)])


@pytest.mark.parametrize("attrs,msg", [
    ({"mode": "constant", "pad_width": (0, 1, 0, 0, 1, 1, 1, 1)}, "first two axes to be zero"),
    ({"mode": "reflect", "pad_width": (0, 0, 0, 0, 3, 0, 1, 1)}, "smaller than the input size"),
    ({"mode": "edge", "pad_width": (0, 0, 1, 1)}, "padding spec mismatch")], ids=str)
def test_pad_errors_name_the_node(attrs, msg):
    graph = one_op_graph("Pad", attrs, ["in0"], name="node")
    with pytest.raises(MxcError) as e:
        run_graph(graph, {"in0": np.zeros((1, 2, 3, 3), np.float32)})
    assert "node" in str(e.value) and msg in str(e.value), str(e.value)


@pytest.mark.parametrize("lhs,rhs,attrs", [
    ((6,), (3, 2), {}),
    ((30, 7), (15, 2, 4), {"lhs_begin": 0, "lhs_end": 1, "rhs_begin": 0, "rhs_end": 2}),
    ((3, 5), (1, 15, 4), {"lhs_begin": 0, "lhs_end": 2, "rhs_begin": 1, "rhs_end": 2}),
    ((30, 12), (4, 2, 2, 3), {"lhs_begin": -1, "rhs_begin": 1}),
], ids=str)
def test_reshape_like(lhs, rhs, attrs):
    # MXNet's documented examples (elemwise_unary_op_basic.cc).
    rng = np.random.default_rng(213)
    check("reshape_like", attrs, [_rand(rng, lhs), _rand(rng, rhs)])


@pytest.mark.parametrize("attrs,message", [
    ({}, "because they have different size"),
    ({"lhs_begin": 1, "lhs_end": 1}, "Invalid begin, end, get lhs_begin=1, lhs_end=1"),
    ({"rhs_end": 3}, "Invalid end for rhs_end=3 as dimension number is 2"),
])
def test_reshape_like_errors_name_the_node(attrs, message):
    rng = np.random.default_rng(214)
    graph = one_op_graph("reshape_like", attrs, ["in0", "in1"], name="node")
    with pytest.raises(MxcError) as e:
        run_graph(graph, {"in0": _rand(rng, (5,)), "in1": _rand(rng, (2, 3))})
    text = str(e.value)
    assert "node" in text and message in text, text


@pytest.mark.parametrize("op,attrs,shape,message", [
    ("squeeze", {"axis": (0,)}, (2, 1), "size=2 not equal to one"),
    ("squeeze", {"axis": (2,)}, (2, 1), "out of bounds"),
    ("squeeze", {"axis": (1, -1)}, (2, 1), "duplicate value in axis"),
    ("broadcast_to", {"shape": (2, 3)}, (2, 2), "cannot be broadcasted"),
    ("broadcast_to", {"shape": (2, 3, 4)}, (2, 3), "cannot be broadcasted"),
])
def test_shape_errors_name_the_node(op, attrs, shape, message):
    rng = np.random.default_rng(212)
    graph = one_op_graph(op, attrs, ["in0"], name="node")
    with pytest.raises(MxcError) as e:
        run_graph(graph, {"in0": _rand(rng, shape)})
    text = str(e.value)
    assert "node" in text and message in text, text


@pytest.mark.parametrize("attrs", [
    {"axis": 0, "begin": 1, "end": 3},
    {"axis": 1, "begin": 0, "end": 1},
    {"axis": 2, "begin": 2, "end": None},
    {"axis": -1, "begin": -3, "end": -1},
    {"axis": 1, "begin": -2},
    {"axis": 0, "begin": 0, "end": 4},
], ids=str)
def test_slice_axis(attrs):
    rng = np.random.default_rng(204)
    check("slice_axis", attrs, [_rand(rng, (4, 3, 5))])


@pytest.mark.parametrize("dim", [0, 1, 2, 3, -1, -4])
def test_concat_each_axis(dim):
    rng = np.random.default_rng(205)
    base = [2, 3, 4, 5]
    shapes = []
    for extent in (1, 3, 2):
        s = list(base)
        s[dim] = extent
        shapes.append(tuple(s))
    inputs = [_rand(rng, s) for s in shapes]
    check("Concat", {"dim": dim, "num_args": len(inputs)}, inputs)


@pytest.mark.parametrize("num_args", [1, 2, 5])
def test_concat_default_dim(num_args):
    rng = np.random.default_rng(206)
    check("Concat", {"num_args": num_args}, [_rand(rng, (2, k + 1)) for k in range(num_args)])


def test_concat_int():
    check("Concat", {"dim": 0, "num_args": 2},
          [np.arange(6, dtype=np.int32).reshape(2, 3), np.arange(3, dtype=np.int32).reshape(1, 3)])


@pytest.mark.parametrize("attrs,indices", [
    ({"depth": 5}, np.array([0, 4, 2, 1], dtype=np.float32)),
    ({"depth": 4}, np.array([[0, 3], [5, -1]], dtype=np.float32)),   # out of range: all off
    ({"depth": 4}, np.array([1.7, 2.2, -0.5], dtype=np.float32)),    # truncated
    ({"depth": 3, "on_value": 5.0, "off_value": -1.0, "dtype": "int32"},
     np.array([[2, 0], [1, 1]], dtype=np.int32)),
    ({"depth": 6, "dtype": "float64"}, np.array([5, 0, 3], dtype=np.int64)),
    ({"depth": 3, "on_value": 2.0, "dtype": "uint8"}, np.array([0, 2], dtype=np.float32)),
], ids=["f32", "out_of_range", "truncated", "int32", "f64", "uint8"])
def test_one_hot(attrs, indices):
    check("one_hot", attrs, [indices])


SLICE_CASES = [
    {"begin": (1, 0), "end": (3, 2)},
    {"begin": (None, 1), "end": (None, None), "step": (2, 1)},
    {"begin": (-1, None, 4), "end": (None, None, 0), "step": (-1, -2, -3)},   # negative steps
    {"begin": (0,), "end": (-1,)},                                           # later axes whole
    {"begin": (-10, 1, 1), "end": (10, 2, 100), "step": (3, None, 2)},        # clipped to the axis
    {"begin": (3, None), "end": (None, None), "step": (-2, None)},
]


@pytest.mark.parametrize("attrs", SLICE_CASES, ids=str)
def test_slice(attrs):
    """MXNet's slice: begin / end / step tuples with None, negative steps."""
    rng = np.random.default_rng(31)
    check("slice", attrs, [_rand(rng, (4, 3, 5))])


@pytest.mark.parametrize("attrs", SLICE_CASES, ids=str)
def test_slice_assign(attrs):
    rng = np.random.default_rng(32)
    x = _rand(rng, (4, 3, 5))
    from mxnet_ref.data_movement import _slice_key
    part = x[_slice_key(x.shape, {k: str(v) for k, v in attrs.items()})]
    check("_slice_assign", attrs, [x, _rand(rng, part.shape)])
    check("_slice_assign_scalar", dict(attrs, scalar=-7.5), [x])


def test_slice_errors():
    x = np.zeros((4, 3), np.float32)
    for attrs, message in [({"begin": (0, 0, 0), "end": (1, 1, 1)}, "exceeds data dimensions"),
                           ({"begin": (0,), "end": (1, 2)}, "same length"),
                           ({"begin": (0,), "end": (2,), "step": (0,)}, "step[0] cannot be 0"),
                           ({"begin": "(0, x)", "end": "(1, 2)"}, "begin '(0, x)' is not a tuple"),
                           # an empty result (MXNet gives an empty array)
                           ({"begin": (2,), "end": (1,)}, "(0, 3) with a zero dimension")]:
        with pytest.raises(MxcError) as e:
            run_graph(one_op_graph("slice", attrs, ["in0"], name="node"), {"in0": x})
        assert message in str(e.value) and "node" in str(e.value), str(e.value)


@pytest.mark.parametrize("attrs", [{"dim1": 0, "dim2": 2}, {"dim1": -1, "dim2": 1},
                                   {"dim1": 1, "dim2": 1}, {}], ids=str)
def test_swap_axis(attrs):
    rng = np.random.default_rng(33)
    check("SwapAxis", attrs, [_rand(rng, (2, 3, 4))])


def test_batch_take():
    """batch_take (a composite: pick along axis 1): indices clipped."""
    rng = np.random.default_rng(52)
    a = _rand(rng, (5, 4))
    check("batch_take", {}, [a, np.array([0, 3, 7, -2, 1], dtype=np.int32)])
    check("batch_take", {}, [a, np.array([1, 2, 0, 3, 3], dtype=np.float32)])


@pytest.mark.parametrize("attrs", [{"repeats": 2, "axis": 1}, {"repeats": 3}, {"repeats": 2, "axis": -1},
                                   {"repeats": 1, "axis": 0}], ids=str)
def test_repeat(attrs):
    rng = np.random.default_rng(53)
    check("repeat", attrs, [_rand(rng, (2, 3, 2))])


@pytest.mark.parametrize("reps", [(2, 1, 3), (2,), (2, 1, 1, 2), ()], ids=str)
def test_tile(reps):
    rng = np.random.default_rng(54)
    check("tile", {"reps": reps}, [_rand(rng, (2, 3, 2))])

