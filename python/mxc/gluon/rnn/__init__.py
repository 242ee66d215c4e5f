"""gluon.rnn: recurrent layers (RNN, LSTM, GRU: MXNet's fused operator) and
cells (RNNCell, LSTMCell, GRUCell and their combinators), MXNet 1.9.1."""
from .rnn_layer import RNN, LSTM, GRU
from .rnn_cell import *  # noqa: F401,F403
