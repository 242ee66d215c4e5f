"""gluon.rnn.RNN / LSTM / GRU: MXNet 1.9.1's fused recurrent layers.

The parameters are MXNet's (`l0_i2h_weight`, `l0_h2h_weight`, `l0_i2h_bias`,
`l0_h2h_bias`, `r0_...` for the reverse direction, layer by layer), and the
forward is MXNet's: every parameter flattened and concatenated in the fused
operator's order (weights, then biases; layer by layer, direction by
direction, i2h before h2h) into the `RNN` operator, which mxc's compiler
unrolls (mx-decompose). Differences from MXNet: the concatenation is a
Concat node (MXNet writes `_rnn_param_concat`, which mxc reads as Concat);
`projection_size`, `use_sequence_length` and `state_clip_nan` raise.
"""
from ... import ndarray
from ... import symbol
from ...base import MXNetError
from ...ndarray import NDArray
from ...rnn.rnn_cell import zeros_from
from ..block import HybridBlock

__all__ = ["RNN", "LSTM", "GRU"]


class _RNNLayer(HybridBlock):
    """A fused recurrent layer (MXNet's gluon.rnn._RNNLayer)."""

    def __init__(self, hidden_size, num_layers, layout, dropout, bidirectional, input_size,
                 i2h_weight_initializer, h2h_weight_initializer, i2h_bias_initializer,
                 h2h_bias_initializer, mode, projection_size, h2r_weight_initializer,
                 lstm_state_clip_min, lstm_state_clip_max, lstm_state_clip_nan, dtype,
                 use_sequence_length=False, **kwargs):
        super().__init__(**kwargs)
        if layout not in ("TNC", "NTC"):
            raise MXNetError("Invalid layout %s; must be one of ['TNC' or 'NTC']" % layout)
        if projection_size:
            raise MXNetError("%s: projection_size (LSTMP) is not supported by mxc" % mode)
        if use_sequence_length:
            raise MXNetError("%s: use_sequence_length=True (variable sequence lengths) is not "
                             "supported by mxc" % mode)
        if lstm_state_clip_nan:
            raise MXNetError("LSTM: state_clip_nan=True is not supported by mxc")
        self._hidden_size = hidden_size
        self._projection_size = None
        self._num_layers = num_layers
        self._mode = mode
        self._layout = layout
        self._dropout = dropout
        self._dir = 2 if bidirectional else 1
        self._input_size = input_size
        self._i2h_weight_initializer = i2h_weight_initializer
        self._h2h_weight_initializer = h2h_weight_initializer
        self._i2h_bias_initializer = i2h_bias_initializer
        self._h2h_bias_initializer = h2h_bias_initializer
        self._lstm_state_clip_min = lstm_state_clip_min
        self._lstm_state_clip_max = lstm_state_clip_max
        self._lstm_state_clip_nan = lstm_state_clip_nan
        self._dtype = dtype
        self._use_sequence_length = use_sequence_length
        self.skip_states = None
        self._gates = {"rnn_relu": 1, "rnn_tanh": 1, "lstm": 4, "gru": 3}[mode]
        ng, ni, nh = self._gates, input_size, hidden_size
        for i in range(num_layers):
            for j in ["l", "r"][:self._dir]:
                self._register_param("%s%d_i2h_weight" % (j, i), (ng * nh, ni),
                                     i2h_weight_initializer, dtype)
                self._register_param("%s%d_h2h_weight" % (j, i), (ng * nh, nh),
                                     h2h_weight_initializer, dtype)
                self._register_param("%s%d_i2h_bias" % (j, i), (ng * nh,),
                                     i2h_bias_initializer, dtype)
                self._register_param("%s%d_h2h_bias" % (j, i), (ng * nh,),
                                     h2h_bias_initializer, dtype)
            ni = nh * self._dir

    def _register_param(self, name, shape, init, dtype):
        p = self.params.get(name, shape=shape, init=init, allow_deferred_init=True,
                            dtype=dtype)
        setattr(self, name, p)
        return p

    def __repr__(self):
        s = "{name}({mapping}, {_layout}"
        if self._num_layers != 1:
            s += ", num_layers={_num_layers}"
        if self._dropout != 0:
            s += ", dropout={_dropout}"
        if self._dir == 2:
            s += ", bidirectional"
        s += ")"
        shape = self.l0_i2h_weight.shape
        mapping = "{0} -> {1}".format(shape[1] if shape[1] else None, shape[0] // self._gates)
        return s.format(name=self.__class__.__name__, mapping=mapping, **self.__dict__)

    def state_info(self, batch_size=0):
        raise NotImplementedError

    def infer_shape(self, inputs, *args):
        """The first layer's input size from the data (the fused operator's
        parameter vector does not give it back through a flattening)."""
        size = inputs.shape[-1]
        for j in ["l", "r"][:self._dir]:
            p = getattr(self, "%s0_i2h_weight" % j)
            p.shape = (p.shape[0], size)

    def cast(self, dtype):
        super().cast(dtype)
        self._dtype = dtype

    def begin_state(self, batch_size=0, func=ndarray.zeros, **kwargs):
        """The initial states (zeros by default; `func` makes each from
        name=..., shape=... and kwargs such as ctx, dtype)."""
        states = []
        for i, info in enumerate(self.state_info(batch_size)):
            if info is not None:
                info.update(kwargs)
            else:
                info = kwargs
            states.append(func(name="%sh0_%d" % (self.prefix, i), **info))
        return states

    def __call__(self, inputs, states=None, sequence_length=None, **kwargs):
        self.skip_states = states is None
        if states is None:
            if isinstance(inputs, NDArray):
                batch_size = inputs.shape[self._layout.find("N")]
                states = self.begin_state(batch_size, ctx=inputs.context, dtype=inputs.dtype)
            else:
                # (traced: the batch size is the input's; zeros are made
                # from it in _forward_kernel, as MXNet infers them)
                states = []
        if isinstance(states, (NDArray, symbol.Symbol)):
            states = [states]
        return super().__call__(inputs, states, **kwargs)

    def hybrid_forward(self, F, inputs, states, **kwargs):
        if F is ndarray:
            batch_size = inputs.shape[self._layout.find("N")]
            for state, info in zip(states, self.state_info(batch_size)):
                if state.shape != info["shape"]:
                    raise MXNetError("Invalid recurrent state shape. Expecting %s, got %s."
                                     % (str(info["shape"]), str(state.shape)))
        out = self._forward_kernel(F, inputs, states, **kwargs)
        return out[0] if self.skip_states else out

    def _forward_kernel(self, F, inputs, states, **kwargs):
        if self._layout == "NTC":
            inputs = F.swapaxes(inputs, dim1=0, dim2=1)
        if not states:  # zeros (L * D, N, H) from the (T, N, C) input
            z = zeros_from(F, inputs, 1, (self._num_layers * self._dir, 0, self._hidden_size))
            states = [z] * (2 if self._mode == "lstm" else 1)
        params = [kwargs["%s%d_%s_%s" % (d, l, g, t)].reshape((-1,))
                  for t in ["weight", "bias"]
                  for l in range(self._num_layers)
                  for d in ["l", "r"][:self._dir]
                  for g in ["i2h", "h2h"]]
        params = F.concat(*params, dim=0)
        clip = {}
        if self._lstm_state_clip_min is not None or self._lstm_state_clip_max is not None:
            clip = {"lstm_state_clip_min": self._lstm_state_clip_min,
                    "lstm_state_clip_max": self._lstm_state_clip_max}
        rnn = F.RNN(inputs, params, *states, state_size=self._hidden_size,
                    num_layers=self._num_layers, bidirectional=self._dir == 2,
                    p=self._dropout, state_outputs=True, mode=self._mode, **clip)
        if self._mode == "lstm":
            outputs, states = rnn[0], [rnn[1], rnn[2]]
        else:
            outputs, states = rnn[0], [rnn[1]]
        if self._layout == "NTC":
            outputs = F.swapaxes(outputs, dim1=0, dim2=1)
        return outputs, states


class RNN(_RNNLayer):
    """Elman RNN layer (relu or tanh), MXNet's gluon.rnn.RNN."""

    def __init__(self, hidden_size, num_layers=1, activation="relu", layout="TNC", dropout=0,
                 bidirectional=False, i2h_weight_initializer=None, h2h_weight_initializer=None,
                 i2h_bias_initializer="zeros", h2h_bias_initializer="zeros", input_size=0,
                 dtype="float32", **kwargs):
        super().__init__(hidden_size, num_layers, layout, dropout, bidirectional, input_size,
                         i2h_weight_initializer, h2h_weight_initializer, i2h_bias_initializer,
                         h2h_bias_initializer, "rnn_" + activation, None, None, None, None,
                         False, dtype, **kwargs)

    def state_info(self, batch_size=0):
        return [{"shape": (self._num_layers * self._dir, batch_size, self._hidden_size),
                 "__layout__": "LNC", "dtype": self._dtype}]


class LSTM(_RNNLayer):
    """Long short-term memory layer, MXNet's gluon.rnn.LSTM."""

    def __init__(self, hidden_size, num_layers=1, layout="TNC", dropout=0, bidirectional=False,
                 input_size=0, i2h_weight_initializer=None, h2h_weight_initializer=None,
                 i2h_bias_initializer="zeros", h2h_bias_initializer="zeros",
                 projection_size=None, h2r_weight_initializer=None, state_clip_min=None,
                 state_clip_max=None, state_clip_nan=False, dtype="float32", **kwargs):
        super().__init__(hidden_size, num_layers, layout, dropout, bidirectional, input_size,
                         i2h_weight_initializer, h2h_weight_initializer, i2h_bias_initializer,
                         h2h_bias_initializer, "lstm", projection_size, h2r_weight_initializer,
                         state_clip_min, state_clip_max, state_clip_nan, dtype, **kwargs)

    def state_info(self, batch_size=0):
        shape = (self._num_layers * self._dir, batch_size, self._hidden_size)
        return [{"shape": shape, "__layout__": "LNC", "dtype": self._dtype},
                {"shape": shape, "__layout__": "LNC", "dtype": self._dtype}]


class GRU(_RNNLayer):
    """Gated recurrent unit layer, MXNet's gluon.rnn.GRU."""

    def __init__(self, hidden_size, num_layers=1, layout="TNC", dropout=0, bidirectional=False,
                 input_size=0, i2h_weight_initializer=None, h2h_weight_initializer=None,
                 i2h_bias_initializer="zeros", h2h_bias_initializer="zeros", dtype="float32",
                 **kwargs):
        super().__init__(hidden_size, num_layers, layout, dropout, bidirectional, input_size,
                         i2h_weight_initializer, h2h_weight_initializer, i2h_bias_initializer,
                         h2h_bias_initializer, "gru", None, None, None, None, False, dtype,
                         **kwargs)

    def state_info(self, batch_size=0):
        return [{"shape": (self._num_layers * self._dir, batch_size, self._hidden_size),
                 "__layout__": "LNC", "dtype": self._dtype}]
