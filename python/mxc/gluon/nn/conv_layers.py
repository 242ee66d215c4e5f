"""gluon.nn convolution and pooling layers (MXNet 1.9.1's arguments and
parameter names). The transposed convolutions run MXNet's Deconvolution
operator (weight (in_channels, channels / groups, *kernel))."""
from ...base import MXNetError
from ..block import HybridBlock
from .basic_layers import Activation


def _tuple(x, n, what):
    if isinstance(x, int):
        return (x,) * n
    x = tuple(x)
    if len(x) != n:
        raise MXNetError("%s must be an int or a tuple of %d ints, got %s" % (what, n, (x,)))
    return x


class _Conv(HybridBlock):
    """N-d convolution: weight (channels, in_channels / groups, *kernel),
    bias (channels,)."""

    def __init__(self, channels, kernel_size, strides, padding, dilation, groups, layout,
                 in_channels=0, activation=None, use_bias=True, weight_initializer=None,
                 bias_initializer="zeros", op_name="Convolution", adj=None,
                 prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)
        with self.name_scope():
            self._channels = channels
            self._in_channels = in_channels
            n = len(kernel_size)
            strides = _tuple(strides, n, "strides")
            padding = _tuple(padding, n, "padding")
            dilation = _tuple(dilation, n, "dilation")
            self._op_name = op_name
            self._kwargs = {
                "kernel": kernel_size, "stride": strides, "dilate": dilation,
                "pad": padding, "num_filter": channels, "num_group": groups,
                "no_bias": not use_bias, "layout": layout}
            if adj is not None:
                self._kwargs["adj"] = adj
            if layout[:2] != "NC" and op_name != "Convolution":
                raise MXNetError("%s: layout %s is not supported by mxc for %s (channels-first "
                                 "layouts NCW / NCHW / NCDHW only)" % (self.name, layout, op_name))
            if in_channels % groups:
                raise MXNetError("%s: in_channels %d is not a multiple of groups %d"
                                 % (self.name, in_channels, groups))
            if op_name == "Deconvolution":
                wshape = (in_channels, channels // groups) + tuple(kernel_size)
            elif layout[:2] != "NC":  # channel-last: (channels, *kernel, in / groups)
                wshape = (channels,) + tuple(kernel_size) + (in_channels // groups,)
            else:
                wshape = (channels, in_channels // groups) + tuple(kernel_size)
            self.weight = self.params.get("weight", shape=wshape, init=weight_initializer,
                                          allow_deferred_init=True)
            if use_bias:
                self.bias = self.params.get("bias", shape=(channels,), init=bias_initializer,
                                            allow_deferred_init=True)
            else:
                self.bias = None
            if activation is not None:
                self.act = Activation(activation, prefix=activation + "_")
            else:
                self.act = None

    def hybrid_forward(self, F, x, weight, bias=None):
        op = getattr(F, self._op_name)
        if bias is None:
            act = op(x, weight, name="fwd", **self._kwargs)
        else:
            act = op(x, weight, bias, name="fwd", **self._kwargs)
        if self.act is not None:
            act = self.act(act)
        return act

    def _alias(self):
        return "conv"

    def __repr__(self):
        s = "{name}({mapping}, kernel_size={kernel}, stride={stride}"
        len_kernel_size = len(self._kwargs["kernel"])
        if self._kwargs["pad"] != (0,) * len_kernel_size:
            s += ", padding={pad}"
        if self._kwargs["dilate"] != (1,) * len_kernel_size:
            s += ", dilation={dilate}"
        if self._kwargs["num_group"] != 1:
            s += ", groups={num_group}"
        if self.bias is None:
            s += ", bias=False"
        if self.act:
            s += ", {}".format(self.act)
        s += ")"
        shape = self.weight.shape
        return s.format(name=self.__class__.__name__,
                        mapping="{0} -> {1}".format(shape[1] if shape[1] else None, shape[0]),
                        **self._kwargs)


class Conv1D(_Conv):
    def __init__(self, channels, kernel_size, strides=1, padding=0, dilation=1, groups=1,
                 layout="NCW", activation=None, use_bias=True, weight_initializer=None,
                 bias_initializer="zeros", in_channels=0, **kwargs):
        kernel_size = _tuple(kernel_size, 1, "kernel_size")
        super().__init__(channels, kernel_size, strides, padding, dilation, groups, layout,
                         in_channels, activation, use_bias, weight_initializer,
                         bias_initializer, **kwargs)


class Conv2D(_Conv):
    def __init__(self, channels, kernel_size, strides=(1, 1), padding=(0, 0),
                 dilation=(1, 1), groups=1, layout="NCHW", activation=None, use_bias=True,
                 weight_initializer=None, bias_initializer="zeros", in_channels=0, **kwargs):
        kernel_size = _tuple(kernel_size, 2, "kernel_size")
        super().__init__(channels, kernel_size, strides, padding, dilation, groups, layout,
                         in_channels, activation, use_bias, weight_initializer,
                         bias_initializer, **kwargs)


class Conv3D(_Conv):
    def __init__(self, channels, kernel_size, strides=(1, 1, 1), padding=(0, 0, 0),
                 dilation=(1, 1, 1), groups=1, layout="NCDHW", activation=None,
                 use_bias=True, weight_initializer=None, bias_initializer="zeros",
                 in_channels=0, **kwargs):
        kernel_size = _tuple(kernel_size, 3, "kernel_size")
        super().__init__(channels, kernel_size, strides, padding, dilation, groups, layout,
                         in_channels, activation, use_bias, weight_initializer,
                         bias_initializer, **kwargs)


class _ConvTranspose(_Conv):
    """Conv{1,2,3}DTranspose: Deconvolution with `output_padding` as `adj`."""
    _rank = 0
    _layout = ""

    def __init__(self, channels, kernel_size, strides, padding, output_padding, dilation,
                 groups, layout, activation=None, use_bias=True, weight_initializer=None,
                 bias_initializer="zeros", in_channels=0, **kwargs):
        n = self._rank
        if layout != self._layout:
            raise MXNetError("%s: layout %s is not supported by mxc (%s only)"
                             % (type(self).__name__, layout, self._layout))
        kernel_size = _tuple(kernel_size, n, "kernel_size")
        output_padding = _tuple(output_padding, n, "output_padding")
        op_name = kwargs.pop("op_name", "Deconvolution")
        super().__init__(channels, kernel_size, strides, padding, dilation, groups, layout,
                         in_channels, activation, use_bias, weight_initializer,
                         bias_initializer, op_name=op_name, adj=output_padding, **kwargs)
        self.outpad = output_padding


class Conv1DTranspose(_ConvTranspose):
    _rank, _layout = 1, "NCW"

    def __init__(self, channels, kernel_size, strides=1, padding=0, output_padding=0,
                 dilation=1, groups=1, layout="NCW", activation=None, use_bias=True,
                 weight_initializer=None, bias_initializer="zeros", in_channels=0, **kwargs):
        super().__init__(channels, kernel_size, strides, padding, output_padding, dilation,
                         groups, layout, activation, use_bias, weight_initializer,
                         bias_initializer, in_channels, **kwargs)


class Conv2DTranspose(_ConvTranspose):
    _rank, _layout = 2, "NCHW"

    def __init__(self, channels, kernel_size, strides=(1, 1), padding=(0, 0),
                 output_padding=(0, 0), dilation=(1, 1), groups=1, layout="NCHW",
                 activation=None, use_bias=True, weight_initializer=None,
                 bias_initializer="zeros", in_channels=0, **kwargs):
        super().__init__(channels, kernel_size, strides, padding, output_padding, dilation,
                         groups, layout, activation, use_bias, weight_initializer,
                         bias_initializer, in_channels, **kwargs)


class Conv3DTranspose(_ConvTranspose):
    _rank, _layout = 3, "NCDHW"

    def __init__(self, channels, kernel_size, strides=(1, 1, 1), padding=(0, 0, 0),
                 output_padding=(0, 0, 0), dilation=(1, 1, 1), groups=1, layout="NCDHW",
                 activation=None, use_bias=True, weight_initializer=None,
                 bias_initializer="zeros", in_channels=0, **kwargs):
        super().__init__(channels, kernel_size, strides, padding, output_padding, dilation,
                         groups, layout, activation, use_bias, weight_initializer,
                         bias_initializer, in_channels, **kwargs)


class _Pooling(HybridBlock):
    def __init__(self, pool_size, strides, padding, ceil_mode, global_pool, pool_type,
                 layout, count_include_pad=None, **kwargs):
        super().__init__(**kwargs)
        if strides is None:
            strides = pool_size
        if isinstance(strides, int):
            strides = (strides,) * len(pool_size)
        if isinstance(padding, int):
            padding = (padding,) * len(pool_size)
        self._kwargs = {
            "kernel": pool_size, "stride": strides, "pad": padding,
            "global_pool": global_pool, "pool_type": pool_type,
            "layout": layout,
            "pooling_convention": "full" if ceil_mode else "valid"}
        if count_include_pad is not None:
            self._kwargs["count_include_pad"] = count_include_pad

    def _alias(self):
        return "pool"

    def hybrid_forward(self, F, x):
        return F.Pooling(x, name="fwd", **self._kwargs)

    def __repr__(self):
        s = "{name}(size={kernel}, stride={stride}, padding={pad}, ceil_mode={ceil_mode}"
        s += ", global_pool={global_pool}, pool_type={pool_type}, layout={layout})"
        return s.format(name=self.__class__.__name__,
                        ceil_mode=self._kwargs["pooling_convention"] == "full",
                        **self._kwargs)


def _pool(n, pool_type, layout, default_size):
    def make(cls_name, count_pad):
        def __init__(self, pool_size=default_size, strides=None, padding=0, layout=layout,
                     ceil_mode=False, count_include_pad=True if count_pad else None, **kwargs):
            pool_size = _tuple(pool_size, n, "pool_size")
            if strides is not None:
                strides = _tuple(strides, n, "strides")
            _Pooling.__init__(self, pool_size, strides, padding, ceil_mode, False, pool_type,
                              layout, count_include_pad if count_pad else None, **kwargs)
        return type(cls_name, (_Pooling,), {"__init__": __init__})
    return make


MaxPool1D = _pool(1, "max", "NCW", 2)("MaxPool1D", False)
MaxPool2D = _pool(2, "max", "NCHW", (2, 2))("MaxPool2D", False)
MaxPool3D = _pool(3, "max", "NCDHW", (2, 2, 2))("MaxPool3D", False)
AvgPool1D = _pool(1, "avg", "NCW", 2)("AvgPool1D", True)
AvgPool2D = _pool(2, "avg", "NCHW", (2, 2))("AvgPool2D", True)
AvgPool3D = _pool(3, "avg", "NCDHW", (2, 2, 2))("AvgPool3D", True)


def _global_pool(n, pool_type, default_layout, cls_name):
    def __init__(self, layout=default_layout, **kwargs):
        _Pooling.__init__(self, (1,) * n, None, 0, True, True, pool_type, layout, **kwargs)
    return type(cls_name, (_Pooling,), {"__init__": __init__})


GlobalMaxPool1D = _global_pool(1, "max", "NCW", "GlobalMaxPool1D")
GlobalMaxPool2D = _global_pool(2, "max", "NCHW", "GlobalMaxPool2D")
GlobalMaxPool3D = _global_pool(3, "max", "NCDHW", "GlobalMaxPool3D")
GlobalAvgPool1D = _global_pool(1, "avg", "NCW", "GlobalAvgPool1D")
GlobalAvgPool2D = _global_pool(2, "avg", "NCHW", "GlobalAvgPool2D")
GlobalAvgPool3D = _global_pool(3, "avg", "NCDHW", "GlobalAvgPool3D")


class ReflectionPad2D(HybridBlock):
    """Pads the last two axes (H, W) of an NCHW input by mirroring it at the
    edges without repeating the edge (numpy's mode='reflect'). `padding` is an
    int (all four sides) or MXNet's 8-tuple pad_width (0, 0, 0, 0, top, bottom,
    left, right). The compiler has no Pad operator: the border is a Concat of
    one-wide slices, so the layer runs (and differentiates) imperatively and
    hybridized, and an export holds slice_axis / Concat nodes instead of Pad."""

    def __init__(self, padding=0, **kwargs):
        super().__init__(**kwargs)
        if isinstance(padding, int):
            padding = (0, 0, 0, 0, padding, padding, padding, padding)
        padding = tuple(int(p) for p in padding)
        if len(padding) != 8 or any(padding[:4]) or min(padding) < 0:
            raise MXNetError("ReflectionPad2D: padding must be an int or (0, 0, 0, 0, top, "
                             "bottom, left, right) with non-negative sides, got %s"
                             % (padding,))
        self._padding = padding

    def hybrid_forward(self, F, x):
        top, bottom, left, right = self._padding[4:]
        x = self._mirror(F, x, 2, top, bottom)
        return self._mirror(F, x, 3, left, right)

    @staticmethod
    def _mirror(F, x, axis, before, after):
        """x with `before` mirrored slices in front along `axis` (x[before],
        ..., x[1]) and `after` behind (x[-2], ..., x[-1 - after])."""
        if not before and not after:
            return x
        parts = [F.slice_axis(x, axis=axis, begin=i, end=i + 1) for i in range(before, 0, -1)]
        parts.append(x)
        parts += [F.slice_axis(x, axis=axis, begin=-2 - i, end=-1 - i) for i in range(after)]
        return F.concat(*parts, dim=axis)

    def __repr__(self):
        return "%s(padding=%s)" % (self.__class__.__name__, self._padding)
