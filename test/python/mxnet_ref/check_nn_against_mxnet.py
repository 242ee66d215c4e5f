"""Checks the nn.py references against real MXNet 1.9.1 (mx.nd, inference).

    .venv-mxnet/bin/python test/python/mxnet_ref/check_nn_against_mxnet.py

Needs the mxnet==1.9.1 wheel (toolchain.md), so it is a developer check, not
part of pytest. Prints one line per case and "BAD <n>" at the end (0 = all
agree within rtol 1e-4). pooling_convention 'same' is not checked: MXNet
1.9.1's own shape check indexes pad[1] of a 1-D pad and aborts.
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import mxnet as mx
from mxnet_ref import REF
rng = np.random.default_rng(0)
f = lambda *s, lo=-1, hi=1: rng.uniform(lo, hi, s).astype(np.float32)
bad = 0
def attrs_str(a):
    out = {}
    for k, v in a.items():
        if isinstance(v, bool): out[k] = "True" if v else "False"
        elif isinstance(v, tuple): out[k] = "(" + ", ".join(map(str, v)) + ("," if len(v) == 1 else "") + ")"
        else: out[k] = str(v)
    return out
def chk(op, attrs, inputs, nout=1):
    global bad
    s = attrs_str(attrs)
    ref = REF[op]([x.copy() for x in inputs], s)
    fn = getattr(mx.nd, op, None) or getattr(mx.nd._internal, op, None) \
        or getattr(mx.nd, op.lstrip("_"), None) or (
            getattr(mx.nd.image, op[len("_image_"):]) if op.startswith("_image_")
            else getattr(mx.nd.contrib, op[len("_contrib_"):]))
    got = fn(*[mx.nd.array(x, dtype=x.dtype) for x in inputs], **s)
    got = got if isinstance(got, (list, tuple)) else [got]
    for i in range(nout):
        g = got[i].asnumpy(); e = ref[i]
        ok = g.shape == e.shape and np.allclose(g, e, rtol=1e-4, atol=1e-5)
        if not ok:
            bad += 1
            print("MISMATCH", op, attrs, i, g.shape, e.shape, np.abs(g - e).max() if g.shape == e.shape else "")
    print("ok" if ok else "BAD", op, attrs)
chk("FullyConnected", {"num_hidden": 5}, [f(3, 2, 4), f(5, 8), f(5)])
chk("FullyConnected", {"num_hidden": 5, "flatten": False, "no_bias": True}, [f(3, 2, 4), f(5, 4)])
for ta in (False, True):
    for tb in (False, True):
        a = f(4, 2, 3) if ta else f(2, 3, 4); b = f(5, 4) if tb else f(4, 5)
        chk("dot", {"transpose_a": ta, "transpose_b": tb}, [a, b])
        chk("batch_dot", {"transpose_a": ta, "transpose_b": tb}, [f(3, 4, 2) if ta else f(3, 2, 4), f(3, 5, 4) if tb else f(3, 4, 5)])
chk("dot", {}, [f(7), f(7)])
for shape, nf, a in [((2, 3, 9, 9), 5, {"kernel": (3, 3), "pad": (1, 1)}),
                     ((1, 2, 9, 8), 4, {"kernel": (3, 2), "stride": (2, 1), "dilate": (2, 2), "pad": (1, 2), "no_bias": True}),
                     ((2, 6, 8, 8), 6, {"kernel": (3, 3), "num_group": 3, "stride": (2, 2)}),
                     ((2, 3, 11), 4, {"kernel": (3,), "pad": (2,), "dilate": (2,), "stride": (2,)}),
                     ((2, 4, 4, 6, 6), 4, {"kernel": (2, 3, 3), "pad": (1, 1, 1), "stride": (1, 2, 2), "num_group": 2})]:
    a = dict(a, num_filter=nf); g = a.get("num_group", 1)
    ins = [f(*shape), f(nf, shape[1] // g, *a["kernel"])] + ([] if a.get("no_bias") else [f(nf)])
    chk("Convolution", a, ins)
for pt in ("max", "avg", "sum"):
    for conv in ("valid", "full"):
        for k, s, p in [((3, 3), (2, 2), (1, 1)), ((2, 2), (2, 2), (0, 0)), ((3, 2), (2, 3), (1, 0))]:
            chk("Pooling", {"kernel": k, "pool_type": pt, "stride": s, "pad": p, "pooling_convention": conv}, [f(2, 3, 9, 8)])
    chk("Pooling", {"kernel": (2, 2), "pool_type": pt, "global_pool": True}, [f(2, 3, 5, 6)])
    chk("Pooling", {"kernel": (2,), "pool_type": pt, "global_pool": True}, [f(2, 3, 7)])
    chk("Pooling", {"kernel": (3, 3), "pool_type": pt, "stride": (2, 2), "pad": (1, 1), "count_include_pad": False, "pooling_convention": "full"}, [f(1, 2, 8, 8)])
chk("Pooling", {"kernel": (2, 2, 2), "pool_type": "avg", "stride": (2, 2, 2), "pooling_convention": "full"}, [f(1, 2, 5, 5, 5)])
for p in (1, 2, 3):
    chk("Pooling", {"kernel": (2, 2), "pool_type": "lp", "p_value": p, "stride": (2, 2)}, [f(1, 2, 6, 6, lo=0.1)])
for ugs in (False, True):
    for fg in (False, True):
        for shape, axis in [((2, 4, 3, 3), 1), ((2, 3, 5), -1)]:
            c = shape[axis]
            chk("BatchNorm", {"use_global_stats": ugs, "fix_gamma": fg, "axis": axis, "eps": 1e-5, "output_mean_var": True},
                [f(*shape), f(c), f(c), f(c), f(c, lo=0.5, hi=2)], nout=3)
chk("LRN", {"nsize": 5}, [f(2, 8, 3, 3, lo=-2, hi=2)])
chk("LRN", {"nsize": 3, "alpha": 0.01, "beta": 0.5, "knorm": 1.0}, [f(2, 8, 3, 3, lo=-2, hi=2)])
for kw in [{"kernel": (3, 3)}, {"kernel": (3, 3), "stride": (2, 2)},
           {"kernel": (3, 2), "stride": (2, 1), "dilate": (2, 2), "pad": (1, 2)},
           {"kernel": (1, 1)}]:
    # 2-D only: MXNet 1.9.1's kernels view the data as 4-D (1-D / 3-D abort)
    sp = (7, 6)
    chk("im2col", kw, [f(2, 3, *sp)])
    col = REF["im2col"]([f(2, 3, *sp)], attrs_str(kw))[0]
    chk("col2im", dict(kw, output_size=sp), [f(*col.shape)])
for h in (1, 3):
    chk("_contrib_interleaved_matmul_selfatt_qk", {"heads": h}, [f(5, 2, 3 * 4 * h)])
    chk("_contrib_interleaved_matmul_selfatt_valatt", {"heads": h}, [f(5, 2, 3 * 4 * h), f(2 * h, 5, 5)])
    chk("_contrib_interleaved_matmul_encdec_qk", {"heads": h}, [f(4, 2, 4 * h), f(6, 2, 8 * h)])
    chk("_contrib_interleaved_matmul_encdec_valatt", {"heads": h}, [f(6, 2, 8 * h), f(2 * h, 4, 6)])
chk("GridGenerator", {"transform_type": "affine", "target_shape": (4, 5)}, [f(2, 6)])
chk("GridGenerator", {"transform_type": "warp"}, [f(2, 2, 4, 5, lo=-2, hi=2)])
for ot in ("int8", "uint8"):
    chk("_contrib_quantize", {"out_type": ot}, [f(3, 4, lo=-0.5, hi=1.0), np.array([-0.5], np.float32),
                                                np.array([1.0], np.float32)], nout=3)
chk("_contrib_dequantize", {}, [np.array([[-127, -3, 0, 5, 127]], np.int8),
                                np.array([-0.5], np.float32), np.array([1.0], np.float32)])
chk("_contrib_dequantize", {}, [np.array([[0, 3, 128, 255]], np.uint8),
                                np.array([-0.5], np.float32), np.array([1.0], np.float32)])
# modulo: signs of both operands, zero divisors, integers
num = np.array([[-7.5, -3, 0, 2.5, 7, 5.25]], np.float32)
den = np.array([[2, -2, 3, 0, -2.5, 1.5]], np.float32)
chk("_mod", {}, [num, den])
chk("broadcast_mod", {}, [num.reshape(6, 1), den])
chk("_mod", {}, [num.astype(np.int32), np.array([[2, -2, 3, 0, -3, 4]], np.int32)])
for sc in (2.5, -1.5, 0.0):
    chk("_mod_scalar", {"scalar": sc}, [num])
    chk("_rmod_scalar", {"scalar": sc}, [den])
# khatri_rao, the straight-through estimators' forward
chk("khatri_rao", {}, [f(3, 2), f(4, 2), f(2, 2)])
chk("khatri_rao", {}, [f(2, 5)])
chk("_contrib_round_ste", {}, [np.array([[-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 0.4, -0.6]], np.float32)])
chk("_contrib_sign_ste", {}, [np.array([[-2.5, 0.0, 3.0, -0.0]], np.float32)])
# logical and / or / xor: zeros, negatives, NaN, integers
lg = np.array([[0, 1.5, -2, np.nan, 0, 3]], np.float32)
for _op in ("and", "or", "xor"):
    chk("broadcast_logical_" + _op, {}, [lg.reshape(6, 1), lg])
    chk("broadcast_logical_" + _op, {}, [np.array([[0, 2, -1]], np.int32),
                                          np.array([[0], [5]], np.int32)])
    for sc in (0.0, 2.0, -0.5):
        chk("_logical_%s_scalar" % _op, {"scalar": sc}, [lg])
# grids reaching past the image on every side
chk("BilinearSampler", {}, [f(2, 3, 5, 6), f(2, 2, 4, 7, lo=-1.3, hi=1.3)])
_rois = np.array([[0, 1.1, 1.1, 6.2, 6.2], [2, 6.1, 2.1, 8.2, 11.2], [1, 3.1, 1.1, 5.2, 10.2],
                  [1, -4.0, -3.0, 30.0, 25.0], [0, 2.0, 3.0, 2.3, 3.1], [-1, 1.0, 1.0, 4.0, 4.0]],
                 np.float32)
for a in [{"sample_ratio": -1}, {"sample_ratio": 2}, {"sample_ratio": 0, "aligned": True},
          {"sample_ratio": 3, "position_sensitive": True}]:
    a = dict(a, pooled_size=(2, 3), spatial_scale=0.75)
    ch = 12 if a.get("position_sensitive") else 3
    # (not the negative batch index: MXNet 1.9.1's kernel then zeroes element
    # r of the whole output, top_data[n], rather than region r's block)
    chk("_contrib_ROIAlign", a, [f(3, ch, 12, 12), _rois[:5]])
# rotated regions: centers inside and outside, extents from < 1 to past the
# map, angles of every quadrant
_rrois = np.array([[0, 5.0, 6.0, 4.0, 3.0, 0.0], [1, 7.5, 4.2, 9.0, 5.5, 30.0],
                   [2, 2.0, 9.0, 14.0, 20.0, 135.0], [1, 11.0, 1.0, 0.5, 2.5, -60.0],
                   [0, -3.0, 4.0, 6.0, 6.0, 250.0]], np.float32)
for a in [{"sampling_ratio": -1}, {"sampling_ratio": 2}]:
    chk("_contrib_RROIAlign", dict(a, pooled_size=(2, 3), spatial_scale=0.75),
        [f(3, 4, 10, 12), _rrois])
# RPN proposals: 6 anchors on a 5 x 6 map, images smaller than the map
# (masked positions), boxes under rpn_min_size, NMS, kept rows repeated
_pinfo = np.array([[70, 90, 1.0], [60, 100, 0.6]], np.float32)
for a in [{"rpn_pre_nms_top_n": 50, "rpn_post_nms_top_n": 20, "threshold": 0.5},
          {"rpn_pre_nms_top_n": -1, "rpn_post_nms_top_n": 150, "threshold": 0.9, "rpn_min_size": 40},
          {"rpn_pre_nms_top_n": 30, "rpn_post_nms_top_n": 40, "threshold": 0.3, "iou_loss": True}]:
    a = dict(a, feature_stride=16, scales=(2.0, 4.0), ratios=(0.5, 1.0, 2.0), output_score=True)
    cp, bp = f(2, 12, 5, 6, lo=0, hi=1), f(2, 24, 5, 6, lo=-0.4, hi=0.4)
    chk("_contrib_MultiProposal", a, [cp, bp, _pinfo], nout=2)
    chk("_contrib_Proposal", a, [cp[1:], bp[1:], _pinfo[1:]], nout=2)
# image operators
_img = rng.integers(0, 256, (5, 7, 3)).astype(np.uint8)
chk("_image_to_tensor", {}, [_img])
chk("_image_to_tensor", {}, [rng.integers(0, 256, (2, 5, 7, 1)).astype(np.float64)])
chk("_image_normalize", {"mean": (0.1, 0.5, 2.0), "std": (3.0, 0.7, 1.3)}, [f(3, 4, 5)])
chk("_image_normalize", {"mean": 0.4, "std": 1.7}, [f(2, 1, 4, 5)])
chk("_image_normalize", {"mean": (0.1, 0.5, 2.0), "std": 0.9}, [f(2, 3, 4, 5).astype(np.float64)])
# (even extents: MXNet 1.9.1's FlipImpl swaps pairs and never writes the
# middle row / column of an odd extent, which keeps whatever the output
# buffer held; mxc copies it)
for _op in ("_image_flip_left_right", "_image_flip_top_bottom"):
    chk(_op, {}, [_img[:4, :6]])
    chk(_op, {}, [f(4, 6, 1)])
chk("_image_crop", {"x": 1, "y": 2, "width": 4, "height": 3}, [_img])
chk("_image_crop", {"x": 0, "y": 1, "width": 7, "height": 2}, [f(2, 5, 7, 3)])
for _a in ((0.1, -0.3, 0.5), (2.0, -4.0, 1.0)):
    chk("_image_adjust_lighting", {"alpha": _a}, [_img])
    chk("_image_adjust_lighting", {"alpha": _a}, [f(4, 6, 3, lo=0, hi=255)])
for a in [{"output_dim": 2, "pooled_size": 3}, {"output_dim": 3, "pooled_size": 3, "group_size": 2}]:
    g = a.get("group_size", a["pooled_size"])
    chk("_contrib_PSROIPooling", dict(a, spatial_scale=0.5), [f(3, a["output_dim"] * g * g, 10, 9),
                                                              _rois[:5]])
chk("SpatialTransformer", {"target_shape": (4, 5), "transform_type": "affine",
                           "sampler_type": "bilinear"},
    [f(2, 3, 6, 7), np.array([[0.9, 0.2, 0.1, -0.3, 1.1, 0.05], [1.2, 0, -0.4, 0.1, 0.8, 0.3]],
                             np.float32)])
for log in (False, True):
    a = {"is_log": log}
    chk("_random_pdf_uniform", a, [f(2, 3, 4, lo=0.1, hi=0.9), f(2, 3, lo=-1, hi=0), f(2, 3, lo=1, hi=2)])
    chk("_random_pdf_normal", a, [f(2, 3, 4), f(2, 3), f(2, 3, lo=0.5, hi=2)])
    chk("_random_pdf_gamma", a, [f(2, 5, lo=0.1, hi=3), f(2, lo=0.5, hi=3), f(2, lo=0.5, hi=2)])
    chk("_random_pdf_exponential", a, [f(3, 4, lo=0.1, hi=3), f(3, lo=0.5, hi=2)])
    cnt = rng.integers(0, 8, (2, 6)).astype(np.float32)
    chk("_random_pdf_poisson", a, [cnt, f(2, lo=0.5, hi=4)])
    chk("_random_pdf_negative_binomial", a, [cnt, f(2, lo=1, hi=5), f(2, lo=0.2, hi=0.8)])
    chk("_random_pdf_generalized_negative_binomial", a, [cnt, f(2, lo=1, hi=5), f(2, lo=0.2, hi=2)])
    v = f(2, 2, 5, 3, lo=0.1, hi=1); v = v / v.sum(axis=-1, keepdims=True)
    chk("_random_pdf_dirichlet", a, [v, f(2, 2, 3, lo=0.5, hi=2)])
    chk("_random_pdf_dirichlet", a, [v[0, 0, 0], f(3, lo=0.5, hi=2)])
for mod in (False, True):
    op = "_contrib_ModulatedDeformableConvolution" if mod else "_contrib_DeformableConvolution"
    for a, (n, c, hh, ww), dg in [({"kernel": (3, 3), "pad": (1, 1), "num_filter": 4}, (2, 4, 5, 6), 2),
                                  ({"kernel": (2, 3), "stride": (2, 1), "dilate": (2, 1),
                                    "num_filter": 4, "num_group": 2, "no_bias": True}, (1, 4, 7, 6), 1)]:
        a = dict(a, num_deformable_group=dg)
        kh, kw = a["kernel"]
        s_, d_, p_ = a.get("stride", (1, 1)), a.get("dilate", (1, 1)), a.get("pad", (0, 0))
        ho = (hh + 2 * p_[0] - d_[0] * (kh - 1) - 1) // s_[0] + 1
        wo = (ww + 2 * p_[1] - d_[1] * (kw - 1) - 1) // s_[1] + 1
        ins = [f(n, c, hh, ww), f(n, 2 * kh * kw * dg, ho, wo, lo=-2.5, hi=2.5)]
        if mod:
            ins.append(f(n, kh * kw * dg, ho, wo, lo=0, hi=1))
        ins.append(f(a["num_filter"], c // a.get("num_group", 1), kh, kw))
        if not a.get("no_bias"):
            ins.append(f(a["num_filter"]))
        chk(op, a, ins)
print("BAD", bad)
sys.exit(1 if bad else 0)
