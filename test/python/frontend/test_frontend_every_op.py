"""Every operator of the mx dialect through mx.nd, against the numpy
references of test/python/mxnet_ref (written from MXNet's semantics,
independently of mxc). The list of operators comes from the compiler, so a
new operator without an example here fails test_every_op_has_an_example."""
import numpy as np
import pytest

import mxc as mx
from mxnet_ref import REF

R = np.random.default_rng(6)


def f(*shape, low=-2.0, high=2.0):
    return R.uniform(low, high, size=shape).astype(np.float32)


def pos(*shape):
    return f(*shape, low=0.5, high=2.0)


def nz(*shape):
    x = f(*shape)
    return np.where(np.abs(x) < 0.3, 0.7, x).astype(np.float32)


B = (2, 3, 4)
U = (3, 4)

# op -> (inputs, attributes as Python values)
EXAMPLES = {
    "Convolution": ([f(2, 3, 6, 6), f(4, 3, 3, 3), f(4)], dict(kernel=(3, 3), num_filter=4, pad=(1, 1))),
    "LayerNorm": ([f(2, 5), f(5), f(5)], dict(eps=1e-3)),
    "InstanceNorm": ([f(2, 3, 4), f(3), f(3)], {}),
    "GroupNorm": ([f(2, 4, 3), f(2), f(2)], dict(num_groups=2)),
    "L2Normalization": ([f(2, 3, 4)], dict(mode="channel")),
    "moments": ([f(2, 3, 4)], dict(axes=(1, 2), keepdims=True)),
    "batch_take": ([f(3, 4), np.array([0, 3, 1], dtype=np.int32)], {}),
    "argmax_channel": ([f(2, 3, 4)], {}),
    "repeat": ([f(2, 3)], dict(repeats=2, axis=0)),
    "tile": ([f(2, 3)], dict(reps=(2, 2))),
    "SwapAxis": ([f(2, 3, 4)], dict(dim1=0, dim2=2)),
    "slice": ([f(4, 3, 5)], dict(begin=(1, None), end=(None, 0), step=(2, -1))),
    "_slice_assign": ([f(4, 3), f(2, 3)], dict(begin=(0,), end=(None,), step=(2,))),
    "_slice_assign_scalar": ([f(4, 3)], dict(scalar=2.0, begin=(None, -1), end=(None, None))),
    "Deconvolution": ([f(2, 3, 4, 4), f(3, 2, 3, 3), f(2)],
                      dict(kernel=(3, 3), num_filter=2, stride=(2, 2), pad=(1, 1), adj=(1, 1),
                           no_bias=False)),
    "Activation": ([f(*U)], dict(act_type="softrelu")),
    "Pooling": ([f(2, 3, 6, 6)], dict(kernel=(2, 2), stride=(2, 2), pool_type="avg")),
    "FullyConnected": ([f(4, 5), f(3, 5), f(3)], dict(num_hidden=3)),
    "Flatten": ([f(*B)], {}),
    "SoftmaxOutput": ([f(4, 5), np.array([0, 3, 1, 4], np.float32)], {}),
    "LinearRegressionOutput": ([f(4, 3), f(4, 3)], {}),
    "MAERegressionOutput": ([f(4, 1), f(4)], dict(grad_scale=2.0)),
    "LogisticRegressionOutput": ([f(2, 3), f(2, 3)], {}),
    "Cast": ([f(*U)], dict(dtype="float64")),
    "amp_cast": ([f(*U)], dict(dtype="float16")),
    "amp_multicast": ([f(*U), f(2).astype(np.float16)], dict(num_outputs=2)),
    "_contrib_fft": ([f(2, 3)], {}),
    "_contrib_ifft": ([f(2, 6)], {}),
    "_contrib_count_sketch": ([f(2, 5), np.array([[2, 0, 2, 1, 0]], np.float32),
                               np.array([[1, -1, -1, 1, 1]], np.float32)], dict(out_dim=3)),
    "LRN": ([f(2, 6, 3, 3)], dict(nsize=3)),
    "Dropout": ([f(*U)], dict(p=0.5)),
    "BatchNorm": ([f(*B), pos(3), f(3), f(3), pos(3)], dict(fix_gamma=False)),
    "Concat": ([f(2, 3), f(2, 2)], dict(dim=1)),
    "elemwise_add": ([f(*U), f(*U)], {}),
    "elemwise_sub": ([f(*U), f(*U)], {}),
    "elemwise_mul": ([f(*U), f(*U)], {}),
    "elemwise_div": ([f(*U), nz(*U)], {}),
    "_copy": ([f(*U)], {}),
    "BlockGrad": ([f(*U)], {}),
    "broadcast_add": ([f(*B), f(3, 1)], {}),
    "broadcast_sub": ([f(*B), f(1, 4)], {}),
    "broadcast_mul": ([f(*B), f(1, 3, 1)], {}),
    "broadcast_div": ([f(*B), nz(4)], {}),
    "broadcast_maximum": ([f(*B), f(3, 1)], {}),
    "broadcast_minimum": ([f(*B), f(3, 1)], {}),
    "broadcast_power": ([pos(*B), f(3, 1)], {}),
    "broadcast_equal": ([np.round(f(*B)), np.round(f(3, 1))], {}),
    # zeros among the values (false), NaN (true)
    "broadcast_logical_and": ([np.round(f(*B)), np.array([[0.0], [1.5], [np.nan]], np.float32)], {}),
    "broadcast_logical_or": ([np.round(f(*B)), np.array([[0.0], [-2.0], [np.nan]], np.float32)], {}),
    "broadcast_logical_xor": ([np.round(f(*B)), np.array([[0.0], [3.0], [np.nan]], np.float32)], {}),
    "_logical_and_scalar": ([np.round(f(*U))], dict(scalar=2.0)),
    "_logical_or_scalar": ([np.round(f(*U))], dict(scalar=0.0)),
    "_logical_xor_scalar": ([np.round(f(*U))], dict(scalar=-1.0)),
    "broadcast_not_equal": ([np.round(f(*B)), np.round(f(3, 1))], {}),
    "broadcast_greater": ([f(*B), f(3, 1)], {}),
    "broadcast_greater_equal": ([np.round(f(*B)), np.round(f(3, 1))], {}),
    "broadcast_lesser": ([f(*B), f(3, 1)], {}),
    "broadcast_lesser_equal": ([np.round(f(*B)), np.round(f(3, 1))], {}),
    "_plus_scalar": ([f(*U)], dict(scalar=1.5)),
    "_minus_scalar": ([f(*U)], dict(scalar=1.5)),
    "_rminus_scalar": ([f(*U)], dict(scalar=1.5)),
    "_mul_scalar": ([f(*U)], dict(scalar=-2.5)),
    "_div_scalar": ([f(*U)], dict(scalar=4)),
    "_rdiv_scalar": ([nz(*U)], dict(scalar=2)),
    "_power_scalar": ([pos(*U)], dict(scalar=1.5)),
    "_rpower_scalar": ([f(*U)], dict(scalar=2)),
    "_maximum_scalar": ([f(*U)], dict(scalar=0.25)),
    "_minimum_scalar": ([f(*U)], dict(scalar=0.25)),
    "_equal_scalar": ([np.round(f(*U))], dict(scalar=1)),
    "_not_equal_scalar": ([np.round(f(*U))], dict(scalar=1)),
    "_greater_scalar": ([f(*U)], dict(scalar=0.5)),
    "_greater_equal_scalar": ([np.round(f(*U))], dict(scalar=1)),
    "_lesser_scalar": ([f(*U)], dict(scalar=0.5)),
    "_lesser_equal_scalar": ([np.round(f(*U))], dict(scalar=1)),
    "negative": ([f(*U)], {}),
    "abs": ([f(*U)], {}),
    "square": ([f(*U)], {}),
    "sqrt": ([pos(*U)], {}),
    "exp": ([f(*U)], {}),
    "log": ([pos(*U)], {}),
    "relu": ([f(*U)], {}),
    "sigmoid": ([f(*U)], {}),
    "tanh": ([f(*U)], {}),
    "sign": ([f(*U)], {}),
    "round": ([f(*U)], {}),
    "rint": ([f(*U)], {}),
    "floor": ([f(*U)], {}),
    "ceil": ([f(*U)], {}),
    "trunc": ([f(*U)], {}),
    "fix": ([f(*U)], {}),
    "reciprocal": ([nz(*U)], {}),
    "rsqrt": ([pos(*U)], {}),
    "log1p": ([pos(*U)], {}),
    "expm1": ([f(*U)], {}),
    "log2": ([pos(*U)], {}),
    "log10": ([pos(*U)], {}),
    "sin": ([f(*U)], {}),
    "cos": ([f(*U)], {}),
    "tan": ([f(*U, low=-1.2, high=1.2)], {}),
    "arcsin": ([f(*U, low=-0.9, high=0.9)], {}),
    "arccos": ([f(*U, low=-0.9, high=0.9)], {}),
    "arctan": ([f(*U)], {}),
    "sinh": ([f(*U)], {}),
    "cosh": ([f(*U)], {}),
    "arcsinh": ([f(*U)], {}),
    "arccosh": ([f(*U, low=1.1, high=4.0)], {}),
    "arctanh": ([f(*U, low=-0.9, high=0.9)], {}),
    "degrees": ([f(*U)], {}),
    "radians": ([f(*U)], {}),
    "cbrt": ([f(*U)], {}),
    "softsign": ([f(*U)], {}),
    "rcbrt": ([pos(*U)], {}),
    "hard_sigmoid": ([f(*U, low=-4, high=4)], dict(alpha=0.3, beta=0.4)),
    "smooth_l1": ([f(*U)], dict(scalar=1.5)),
    "_hypot": ([f(*U), f(*U)], {}),
    "_mod": ([f(*U), nz(*U)], {}),
    "broadcast_mod": ([f(*B), nz(3, 1)], {}),
    "_mod_scalar": ([f(*U)], dict(scalar=0.75)),
    "_rmod_scalar": ([nz(*U)], dict(scalar=1.5)),
    "broadcast_hypot": ([f(*B), f(3, 1)], {}),
    "_hypot_scalar": ([f(*U)], dict(scalar=0.75)),
    "squeeze": ([f(2, 1, 3)], {}),
    "broadcast_to": ([f(1, 4)], dict(shape=(3, 4))),
    "broadcast_axis": ([f(1, 4)], dict(axis=0, size=3)),
    "broadcast_like": ([f(1, 4), f(3, 4)], {}),
    "reverse": ([f(*B)], dict(axis=(0, 2))),
    "shape_array": ([f(*B)], {}),
    "prod": ([pos(*B)], dict(axis=1)),
    "nansum": ([np.where(f(*B) > 1.5, np.nan, f(*B)).astype(np.float32)], dict(axis=(0, 2))),
    "nanprod": ([np.where(f(*B) > 1.5, np.nan, pos(*B)).astype(np.float32)], {}),
    "slice_like": ([f(*B), f(1, 2, 4)], {}),
    "Pad": ([f(1, 2, 3, 3)], dict(mode="reflect", pad_width=(0, 0, 0, 0, 1, 2, 2, 1))),
    "depth_to_space": ([f(1, 8, 2, 2)], dict(block_size=2)),
    "space_to_depth": ([f(1, 2, 4, 4)], dict(block_size=2)),
    "size_array": ([f(*B)], {}),
    "sum": ([f(*B)], dict(axis=1)),
    "mean": ([f(*B)], dict(axis=(0, 2), keepdims=True)),
    "max": ([f(*B)], dict(axis=2)),
    "min": ([f(*B)], {}),
    "argmax": ([f(*U)], dict(axis=1)),
    "topk": ([f(*B)], dict(axis=1, k=2, ret_typ="both")),
    "sort": ([f(*B)], dict(axis=None, is_ascend=False)),
    "argsort": ([f(*B)], dict(axis=0, dtype="int32")),
    "_contrib_quadratic": ([f(*B)], dict(a=0.5, b=-1.5, c=2.0)),
    "diag": ([f(3, 4, 5)], dict(k=-1, axis1=2, axis2=0)),
    "_contrib_AdaptiveAvgPooling2D": ([f(2, 3, 7, 5)], dict(output_size=(3, 2))),
    "_contrib_BilinearResize2D": ([f(1, 2, 4, 5)], dict(height=7, width=3, align_corners=False)),
    "_contrib_box_iou": ([np.array([[0.1, 0.1, 0.6, 0.5], [0.3, 0.2, 0.4, 0.9], [0.5, 0.5, 0.4, 0.6]],
                                   np.float32),
                          np.array([[[0.2, 0.0, 0.7, 0.4]], [[0.0, 0.0, 1.0, 1.0]]], np.float32)],
                         {}),
    "_contrib_box_decode": ([f(2, 3, 4), np.abs(f(1, 3, 4)) + 0.5], dict(std0=0.1, clip=0.4)),
    "_contrib_box_encode": ([np.array([[1, 0, 1]], np.float32), np.array([[1, 0, 1]], np.float32),
                             np.array([[[0.1, 0.1, 0.5, 0.6], [0.2, 0.2, 0.3, 0.9],
                                        [0.0, 0.3, 0.7, 0.4]]], np.float32),
                             np.array([[[0.2, 0.1, 0.4, 0.8], [0.1, 0.0, 0.9, 0.5]]], np.float32),
                             np.array([0.1, 0.0, -0.1, 0.2], np.float32),
                             np.array([0.1, 0.1, 0.2, 0.2], np.float32)], {}),
    "_contrib_gradientmultiplier": ([f(*B)], dict(scalar=-2.0)),
    # values on the edges, outside the range, and in the last bin's upper edge
    "_contrib_MultiBoxPrior": ([f(1, 2, 3, 5)], dict(sizes=(0.5, 0.25), ratios=(1, 2, 0.5),
                                                    clip=True)),
    # a region past the border, a malformed one (x2 < x1), an invalid batch index
    "_contrib_DeformableConvolution": ([f(2, 4, 5, 6), f(2, 36, 5, 6) * 2.0, f(4, 2, 3, 3), f(4)],
                                       dict(kernel=(3, 3), pad=(1, 1), num_filter=4, num_group=2,
                                            num_deformable_group=2)),
    "_contrib_ModulatedDeformableConvolution": ([f(1, 3, 6, 5), f(1, 12, 3, 3) * 1.5,
                                                 pos(1, 6, 3, 3), f(2, 3, 2, 3)],
                                                dict(kernel=(2, 3), stride=(2, 1), dilate=(1, 1),
                                                     num_filter=2, no_bias=True)),
    "_contrib_ROIAlign": ([f(2, 3, 8, 7), np.array([[0, 0.6, 1.2, 4.4, 5.0], [1, 3.0, 2.0, 9.0, 8.0],
                                                  [-1, 1.0, 1.0, 3.0, 3.0], [1, -5.0, -4.0, 20.0, 30.0]],
                                                 np.float32)],
                          dict(pooled_size=(2, 3), spatial_scale=0.8)),
    "_contrib_PSROIPooling": ([f(2, 8, 6, 7), np.array([[0, 0.6, 1.2, 4.4, 5.0],
                                                      [1, 3.0, 2.0, 9.0, 8.0]], np.float32)],
                              dict(pooled_size=2, output_dim=2, spatial_scale=0.5)),
    "ROIPooling": ([f(2, 3, 6, 7), np.array([[0, 0.6, 1.2, 4.4, 5.0], [1, 3.0, 2.0, 9.0, 8.0],
                                             [1, 5.0, 5.0, 2.0, 1.0], [3, 1.0, 1.0, 2.0, 2.0]],
                                            np.float32)],
                   dict(pooled_size=(2, 3), spatial_scale=1.0)),
    # classes 0-2 (col 0), scores (col 1), corner boxes in a 4 x 4 field
    "_contrib_box_nms": ([np.concatenate(
        [np.floor(f(2, 9, 1, low=0.0, high=3.0)), f(2, 9, 1, low=0.0, high=1.0),
         (lambda xy: np.concatenate([xy, xy + f(2, 9, 2, low=0.5, high=2.0)], axis=2))(
             f(2, 9, 2, low=0.0, high=4.0))], axis=2).astype(np.float32)],
                         dict(overlap_thresh=0.2, valid_thresh=0.1, id_index=0, topk=7,
                              out_format="center")),
    "_contrib_bipartite_matching": ([f(2, 5, 4, low=0.0, high=1.0)],
                                    dict(threshold=0.3, topk=2)),
    # anchors in the unit square, three / one ground truths (class -1 pads)
    "_contrib_MultiBoxTarget": (
        [(lambda xy: np.concatenate([xy, xy + f(1, 12, 2, low=0.1, high=0.4)], axis=2))(
            f(1, 12, 2, low=0.0, high=0.6)).astype(np.float32),
         np.array([[[0, 0.1, 0.1, 0.5, 0.4], [2, 0.5, 0.4, 0.9, 0.9], [1, 0.2, 0.5, 0.4, 0.8]],
                   [[1, 0.3, 0.3, 0.6, 0.7], [-1, -1, -1, -1, -1], [-1, -1, -1, -1, -1]]],
                  np.float32),
         f(2, 4, 12)],
        dict(negative_mining_ratio=2.0, overlap_threshold=0.4)),
    "_contrib_MultiBoxDetection": (
        [(lambda x: (x / x.sum(axis=1, keepdims=True)).astype(np.float32))(
            f(2, 3, 12, low=0.0, high=1.0)), f(2, 48, low=-0.5, high=0.5),
         (lambda xy: np.concatenate([xy, xy + f(1, 12, 2, low=0.2, high=0.4)], axis=2))(
             f(1, 12, 2, low=0.0, high=0.6)).astype(np.float32)],
        dict(threshold=0.3, nms_threshold=0.3, nms_topk=8)),
    "_contrib_RROIAlign": ([f(2, 3, 8, 7), np.array([[0, 3.0, 4.0, 4.4, 5.0, 20.0],
                                                    [1, 5.0, 2.0, 9.0, 3.0, -110.0]],
                                                   np.float32)],
                           dict(pooled_size=(2, 2), spatial_scale=0.5)),
    # 2 anchors on a 3 x 4 map of 16-pixel cells
    "_contrib_Proposal": ([f(1, 4, 3, 4, low=0.0, high=1.0), f(1, 8, 3, 4, low=-0.3, high=0.3),
                           np.array([[40, 60, 1.0]], np.float32)],
                          dict(scales=(1.0, 2.0), ratios=(1.0,), rpn_pre_nms_top_n=10,
                               rpn_post_nms_top_n=6, output_score=True)),
    "_contrib_MultiProposal": ([f(2, 4, 3, 4, low=0.0, high=1.0),
                                f(2, 8, 3, 4, low=-0.3, high=0.3),
                                np.array([[40, 60, 1.0], [48, 50, 0.5]], np.float32)],
                               dict(scales=(1.0, 2.0), ratios=(1.0,), rpn_post_nms_top_n=6,
                                    threshold=0.5, rpn_min_size=8)),
    "_contrib_round_ste": ([f(*B)], {}),
    "_contrib_sign_ste": ([np.round(f(*B))], {}),
    "khatri_rao": ([f(3, 2), f(4, 2), f(2, 2)], {}),
    "_image_to_tensor": ([R.integers(0, 256, (4, 5, 3)).astype(np.uint8)], {}),
    "_image_normalize": ([f(3, 4, 5)], dict(mean=(0.1, 0.5, 2.0), std=(3.0, 0.7, 1.3))),
    "_image_flip_left_right": ([f(4, 5, 3)], {}),
    "_image_flip_top_bottom": ([f(5, 4, 1)], {}),
    "_image_crop": ([f(2, 5, 6, 3)], dict(x=1, y=2, width=4, height=3)),
    "_image_adjust_lighting": ([R.integers(0, 256, (4, 5, 3)).astype(np.uint8)],
                               dict(alpha=(2.0, -4.0, 1.0))),
    "_random_pdf_uniform": ([f(2, 3, 4, low=0.1, high=0.9), f(2, 3, low=-1.0, high=0.0),
                             f(2, 3, low=1.0, high=2.0)], dict(is_log=True)),
    "_random_pdf_normal": ([f(2, 3, 4), f(2, 3), pos(2, 3)], {}),
    "_random_pdf_gamma": ([pos(2, 5), pos(2), pos(2)], {}),
    "_random_pdf_exponential": ([pos(3, 4), pos(3)], dict(is_log=True)),
    "_random_pdf_poisson": ([np.array([[0, 1, 3], [2, 5, 0]], np.float32), pos(2)], {}),
    "_random_pdf_negative_binomial": ([np.array([[0, 1, 3], [2, 5, 0]], np.float32),
                                       pos(2), f(2, low=0.2, high=0.8)], {}),
    "_random_pdf_generalized_negative_binomial": (
        [np.array([[0, 1, 3], [2, 5, 0]], np.float32), pos(2), pos(2)], dict(is_log=True)),
    "_random_pdf_dirichlet": ([(lambda v: (v / v.sum(axis=-1, keepdims=True)).astype(np.float32))(
        pos(2, 4, 3)), pos(2, 3)], {}),
    "BilinearSampler": ([f(2, 3, 5, 6), f(2, 2, 4, 3, low=-1.2, high=1.2)], {}),
    "SpatialTransformer": ([f(2, 3, 6, 5), np.array([[0.9, 0.1, 0.2, -0.2, 1.1, 0.0],
                                                     [1.0, 0.0, 0.0, 0.0, 1.0, 0.0]], np.float32)],
                           dict(target_shape=(4, 4), transform_type="affine",
                                sampler_type="bilinear")),
    "_contrib_quantize": ([f(3, 4), np.array([-0.5], np.float32), np.array([2.0], np.float32)],
                          dict(out_type="int8")),
    "_contrib_dequantize": ([np.array([[-127, -3, 0, 5, 127]], np.int8),
                             np.array([-0.5], np.float32), np.array([1.0], np.float32)], {}),
    "GridGenerator": ([f(2, 6)], dict(transform_type="affine", target_shape=(3, 4))),
    "im2col": ([f(2, 3, 6, 5)], dict(kernel=(3, 2), stride=(2, 1), pad=(1, 0))),
    "col2im": ([f(2, 18, 12)], dict(output_size=(6, 5), kernel=(3, 2), stride=(2, 1),
                                     pad=(1, 0))),
    "_contrib_interleaved_matmul_selfatt_qk": ([f(4, 2, 18)], dict(heads=3)),
    "_contrib_interleaved_matmul_selfatt_valatt": ([f(4, 2, 18), f(6, 4, 4)], dict(heads=3)),
    "_contrib_interleaved_matmul_encdec_qk": ([f(4, 2, 6), f(5, 2, 12)], dict(heads=3)),
    "_contrib_interleaved_matmul_encdec_valatt": ([f(5, 2, 12), f(6, 4, 5)], dict(heads=3)),
    "Correlation": ([f(2, 3, 7, 6), f(2, 3, 7, 6)],
                    dict(kernel_size=3, max_displacement=2, stride1=2, stride2=2, pad_size=2)),
    # MXNet's docstring example shape, distinct in-range indices
    "scatter_nd": ([f(2, 3, 5), np.array([[[0, 2, 1], [3, 1, 0]], [[1, 1, 0], [2, 2, 2]]],
                                         np.float32)], dict(shape=(4, 3, 5))),
    "_linalg_extractdiag": ([f(2, 4, 4)], dict(offset=-1)),
    "_linalg_makediag": ([f(2, 3)], dict(offset=1)),
    "_linalg_extracttrian": ([f(2, 4, 4)], dict(offset=1)),
    "_linalg_maketrian": ([f(3, 6)], dict(lower=False)),
    # symmetric positive definite (lower reads the lower triangle only: the
    # upper one is noise)
    "_linalg_potrf": ([(lambda a: (np.tril(a @ np.swapaxes(a, -1, -2) + 4 * np.eye(4))
                                   + np.triu(f(2, 4, 4), 1)).astype(np.float32))(f(2, 4, 4))],
                      {}),
    "_linalg_potri": ([(np.triu(f(2, 3, 3)) + 3 * np.eye(3)).astype(np.float32)],
                      dict(lower=False)),
    "_linalg_trmm": ([f(2, 3, 3), f(2, 4, 3)], dict(rightside=True, transpose=True, alpha=2.0)),
    "_linalg_trsm": ([(f(2, 3, 3) + 4 * np.eye(3)).astype(np.float32), f(2, 3, 4)],
                     dict(lower=False, alpha=-0.5)),
    "_linalg_sumlogdiag": ([pos(2, 3, 3)], {}),
    "_linalg_syrk": ([f(2, 3, 4)], dict(transpose=True, alpha=0.5)),
    "_linalg_gelqf": ([f(2, 3, 5)], {}),
    "_linalg_inverse": ([(f(2, 4, 4) + 3 * np.eye(4)).astype(np.float32)], {}),
    "_linalg_det": ([f(2, 3, 3)], {}),
    "_linalg_slogdet": ([f(3, 3)], {}),
    # symmetric in its lower triangle; the upper one is noise
    "_linalg_syevd": ([(lambda a: (np.tril(a + np.swapaxes(a, 1, 2)) + np.triu(f(2, 4, 4), 1))
                       .astype(np.float32))(f(2, 4, 4))], {}),
    "_histogram": ([np.array([[-3.0, -2.5, -1.0, 0.0], [0.5, 1.25, 2.5, 3.0]], np.float32)],
                   dict(bin_cnt=4, range=(-2.5, 2.5))),
    "_random_uniform": ([], dict(low=-1.0, high=3.0, shape=(50, 40))),
    "_sample_multinomial": ([np.array([[0.1, 0.6, 0.3], [0.5, 0.0, 0.5]], np.float32)],
                            dict(shape=(4000,), get_prob=True)),
    "_shuffle": ([np.arange(24, dtype=np.float32).reshape(8, 3)], {}),
    "_random_normal": ([], dict(loc=2.0, scale=0.5, shape=(50, 40), dtype="float64")),
    "_random_gamma": ([], dict(alpha=2.5, beta=0.5, shape=(100, 100))),
    "_random_exponential": ([], dict(lam=4.0, shape=(100, 100), dtype="float64")),
    "_random_poisson": ([], dict(lam=4.0, shape=(100, 100))),
    "_random_negative_binomial": ([], dict(k=3, p=0.4, shape=(100, 100))),
    "_random_generalized_negative_binomial": ([], dict(mu=2.0, alpha=0.3, shape=(100, 100),
                                                       dtype="float16")),
    "_random_uniform_like": ([np.ones((100, 100), np.float64)], dict(low=-1.0, high=3.0)),
    "_random_normal_like": ([np.ones((100, 100), np.float32)], dict(loc=2.0, scale=0.5)),
    "_random_gamma_like": ([np.ones((100, 100), np.float32)], dict(alpha=0.4, beta=2.0)),
    "_random_exponential_like": ([np.ones((100, 100), np.float32)], dict(lam=0.5)),
    "_random_poisson_like": ([np.ones((100, 100), np.float32)], dict(lam=30.0)),
    "_random_negative_binomial_like": ([np.ones((100, 100), np.float16)], dict(k=5, p=0.5)),
    "_random_generalized_negative_binomial_like": ([np.ones((100, 100), np.float32)],
                                                   dict(mu=4.0, alpha=0.0)),
    "_sample_uniform": ([np.array([0.0, -2.0], np.float32), np.array([1.0, 6.0], np.float32)],
                        dict(shape=(10000,))),
    "_sample_normal": ([np.array([0.0, 5.0], np.float32), np.array([1.0, 0.25], np.float32)],
                       dict(shape=(10000,), dtype="float64")),
    "_sample_gamma": ([np.array([0.5, 9.0], np.float32), np.array([1.0, 0.5], np.float32)],
                      dict(shape=(10000,))),
    "_sample_exponential": ([np.array([1.0, 8.5], np.float32)], dict(shape=(10000,))),
    "_sample_poisson": ([np.array([2.7, 25.0], np.float64)], dict(shape=(10000,))),
    "_sample_negative_binomial": ([np.array([3.0, 6.0], np.float32),
                                   np.array([0.4, 0.84], np.float32)], dict(shape=(10000,))),
    "_sample_generalized_negative_binomial": ([np.array([2.0, 1.3], np.float32),
                                               np.array([1.0, 0.2], np.float32)],
                                              dict(shape=(10000,))),
    "_contrib_div_sqrt_dim": ([f(*B)], {}),
    "softmax_cross_entropy": ([f(*U), np.array([3, 0, 2], np.float32)], {}),
    "all_finite": ([np.array([[1.0, np.inf], [0.0, 2.0]], np.float32)], {}),
    "multi_all_finite": ([f(*U), np.array([np.nan, 1.0], np.float32)], dict(num_arrays=2)),
    "dot": ([f(3, 4), f(4, 5)], {}),
    "batch_dot": ([f(2, 3, 4), f(2, 5, 4)], dict(transpose_b=True)),
    "Reshape": ([f(*B)], dict(shape=(0, -1))),
    "transpose": ([f(*B)], dict(axes=(1, 0, 2))),
    "expand_dims": ([f(2, 3)], dict(axis=1)),
    "pick": ([f(2, 3), np.array([2, 0], np.float32)], dict(axis=1)),
    "take": ([f(4, 3), np.array([[3, 0], [1, 9]], np.float32)], dict(axis=0)),
    "Embedding": ([np.array([[1, 0, 4]], np.float32), f(5, 2)], dict(input_dim=5, output_dim=2)),
    "reshape_like": ([f(6), f(3, 2)], {}),
    "slice_axis": ([f(2, 5)], dict(axis=1, begin=1, end=4)),
    "softmax": ([f(*U)], dict(axis=0)),
    "log_softmax": ([f(*U)], {}),
    "LeakyReLU": ([f(*U)], dict(act_type="leaky", slope=0.1)),
    "clip": ([f(*U)], dict(a_min=-0.5, a_max=0.5)),
    "where": ([np.round(pos(*U) - 0.5), f(*U), f(*U)], {}),
    "zeros_like": ([f(*U)], {}),
    "ones_like": ([f(*U)], {}),
    "one_hot": ([np.array([0, 2, 1, 3], np.float32)], dict(depth=4)),
    "_zeros": ([], dict(shape=(2, 3), dtype="int32")),
    "_ones": ([], dict(shape=(4,), dtype="float16")),
    "_full": ([], dict(shape=(2, 2), value=-2.5, dtype="int8")),
    "_arange": ([], dict(start=1.3, stop=20.0, step=1.3, repeat=2)),
    "_eye": ([], dict(N=3, M=5, k=-1, dtype="float64")),
    "_contrib_arange_like": ([f(2, 7)], dict(start=2.0, step=0.5, axis=-1)),
    "SliceChannel": ([f(2, 3, 4)], dict(num_outputs=3, axis=-2, squeeze_axis=True)),
    "UpSampling": ([f(1, 2, 2, 3), f(1, 3, 4, 6)], dict(scale=2, sample_type="nearest")),
    "RNN": ([f(3, 2, 4), 0.3 * f((4 + 5 + 2) * 4 * 5), f(1, 2, 5), f(1, 2, 5)],
            dict(mode="lstm", state_size=5, num_layers=1, state_outputs=True)),
    "CTCLoss": ([f(6, 2, 4), np.array([[1, 3, 0], [2, 2, 1]], np.float32)], {}),
    "SequenceMask": ([f(4, 3, 2), np.array([2, 4, 1], np.float32)],
                     dict(use_sequence_length=True, value=-1.0)),
    "SequenceLast": ([f(3, 4, 2), np.array([2, 4, 1], np.float32)],
                     dict(use_sequence_length=True, axis=1)),
    "SequenceReverse": ([f(4, 3, 2), np.array([2, 4, 1], np.float32)],
                        dict(use_sequence_length=True)),
    "SVMOutput": ([f(4, 5), np.array([0, 3, 1, 4], np.float32)], dict(margin=0.5)),
    "SoftmaxActivation": ([f(2, 3, 4)], dict(mode="channel")),
    "gamma": ([f(2, 3, low=-2.5, high=4.0)], {}),
    "gammaln": ([f(2, 3, low=-2.5, high=20.0)], {}),
    "erf": ([f(2, 3)], {}),
    "erfinv": ([f(2, 3, low=-0.99, high=0.99)], {}),
    "_identity_with_attr_like_rhs": ([f(2, 3), f(2, 3)], {}),
    "gather_nd": ([f(3, 4, 2), np.array([[0, 2, -1], [3, 1, 0]], np.float32)], {}),
    "_contrib_index_copy": ([f(5, 3), np.array([0, 4, 2], np.int64), f(3, 3)], {}),
    "_contrib_index_array": ([f(2, 3, 4)], dict(axes=(2, 0))),
    "_linalg_gemm": ([f(2, 3, 4), f(2, 5, 3), f(2, 4, 5)],
                     dict(transpose_a=True, transpose_b=True, alpha=2.0, beta=-0.5)),
    "_linalg_gemm2": ([f(3, 2, 4), f(4, 2, 5)], dict(axis=0, alpha=1.5)),
    "_ravel_multi_index": ([np.array([[0, 2, 1], [3, 0, 4], [1, 1, 0]], np.float32)],
                           dict(shape=(-1, 5, 2))),
    "_unravel_index": ([np.array([0, 7, 13, 29], np.float32)], dict(shape=(3, 5, 2))),
}


def test_every_op_has_an_example():
    assert sorted(mx._ops.OPS) == sorted(EXAMPLES)


#: samplers: checked for shape, type, range and moments instead of values
RANDOM = {"_random_uniform", "_random_normal", "_sample_multinomial", "_shuffle"}


def _moments(dist, a, b=None):
    """The mean and standard deviation of MXNet's distribution `dist` with
    parameters (a, b) as the operators name them."""
    return {
        "uniform": lambda: ((a + b) / 2, (b - a) / np.sqrt(12)),
        "normal": lambda: (a, b),
        "gamma": lambda: (a * b, np.sqrt(a) * b),
        "exponential": lambda: (1 / a, 1 / a),
        "poisson": lambda: (a, np.sqrt(a)),
        "negative_binomial": lambda: (a * (1 - b) / b, np.sqrt(a * (1 - b)) / b),
        "generalized_negative_binomial": lambda: (a, np.sqrt(a + b * a * a)),
    }[dist]()


#: _random_<d>, _random_<d>_like, _sample_<d>: checked for shape, type and moments
DISTRIBUTIONS = {op for op in EXAMPLES
                 if op.startswith(("_random_", "_sample_")) and not op.startswith("_random_pdf")
                 and op not in RANDOM}


def _check_distribution(op, inputs, kwargs):
    spec = mx._ops.OPS[op]
    dist = op[len("_sample_"):] if op.startswith("_sample_") else \
        op[len("_random_"):].replace("_like", "")
    got = getattr(mx.nd, op)(*[mx.nd.array(x, dtype=x.dtype) for x in inputs], **kwargs)
    got = got.asnumpy()
    if op.startswith("_sample_"):
        assert got.shape == inputs[0].shape + kwargs["shape"], op
        assert got.dtype == np.dtype(kwargs.get("dtype", "float32")), op
        rows = [(got[i].astype(np.float64), [x[i] for x in inputs])
                for i in range(inputs[0].shape[0])]
    else:
        params = [float(kwargs[a]) for a in spec.attrs if a not in ("shape", "ctx", "dtype")]
        if inputs:  # _like: data's shape and type
            assert got.shape == inputs[0].shape and got.dtype == inputs[0].dtype, op
        else:
            assert got.shape == kwargs["shape"], op
            assert got.dtype == np.dtype(kwargs.get("dtype", "float32")), op
        rows = [(got.astype(np.float64).ravel(), params)]
    for samples, params in rows:
        mean, std = _moments(dist, *[float(p) for p in params])
        n = samples.size
        assert abs(samples.mean() - mean) < 6 * std / np.sqrt(n) + 1e-3 * abs(mean), \
            (op, params, samples.mean(), mean)
        assert abs(samples.std() - std) < 0.06 * std, (op, params, samples.std(), std)
        if dist in ("poisson", "negative_binomial", "generalized_negative_binomial"):
            assert (samples == np.round(samples)).all() and samples.min() >= 0, op


@pytest.mark.parametrize("op", sorted(EXAMPLES))
def test_op_against_numpy(op):
    inputs, kwargs = EXAMPLES[op]
    if op == "_sample_multinomial":
        p = inputs[0]
        idx, logp = mx.nd._sample_multinomial(mx.nd.array(p), **kwargs)
        idx, logp = idx.asnumpy(), logp.asnumpy()
        assert idx.shape == (2, 4000) and idx.dtype == np.int32 and logp.dtype == np.float32
        for row in range(2):  # frequencies near the probabilities, none drawn at p = 0
            freq = np.bincount(idx[row], minlength=3) / 4000.0
            np.testing.assert_allclose(freq, p[row], atol=0.03)
        np.testing.assert_allclose(logp, np.log(np.take_along_axis(p, idx, axis=1)), rtol=1e-6)
        return
    if op == "_shuffle":
        x = inputs[0]
        got = mx.nd._shuffle(mx.nd.array(x)).asnumpy()
        assert got.shape == x.shape
        # rows kept whole, a permutation of them, and not the identity
        # (1 chance in 8! for a fair shuffle)
        assert sorted(map(tuple, got)) == sorted(map(tuple, x))
        assert not np.array_equal(got, x)
        return
    if op in DISTRIBUTIONS:
        _check_distribution(op, inputs, kwargs)
        return
    if op in RANDOM:
        got = getattr(mx.nd, op)(**kwargs).asnumpy()
        assert got.shape == kwargs["shape"]
        assert got.dtype == np.dtype(kwargs.get("dtype", "float32"))
        if op == "_random_uniform":
            assert got.min() >= kwargs["low"] and got.max() < kwargs["high"]
            assert abs(got.mean() - 1.0) < 0.15
        else:
            assert abs(got.mean() - 2.0) < 0.05 and abs(got.std() - 0.5) < 0.05
        return
    spec = mx._ops.OPS[op]
    fn = getattr(mx.nd.contrib, op[len("_contrib_"):]) if op.startswith("_contrib_") \
        else getattr(mx.nd, op)
    got = fn(*[mx.nd.array(x, dtype=x.dtype) for x in inputs], **kwargs)
    got = got if isinstance(got, list) else [got]
    attrs = spec.format_attrs(kwargs)
    if spec.variadic:
        attrs["num_args"] = str(len(inputs))
    want = REF[op]([x.copy() for x in inputs], attrs)
    assert len(got) == spec.visible_outputs(attrs)
    for g, w in zip(got, want):
        assert g.shape == tuple(np.shape(w)), op
        np.testing.assert_allclose(g.asnumpy().astype(np.float64),
                                   np.asarray(w).astype(np.float64), rtol=1e-4, atol=1e-5,
                                   err_msg=op)
