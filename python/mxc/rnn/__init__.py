"""mx.rnn: MXNet 1.x's symbolic RNN cells (RNNCell, LSTMCell, GRUCell,
SequentialRNNCell, BidirectionalCell, DropoutCell, ZoneoutCell,
ResidualCell, the convolutional cells, FusedRNNCell on MXNet's RNN
operator with its parameters and unfuse()), the bucketing data helpers
(mx.rnn.io) and the RNN checkpoint functions."""
from . import io
from . import rnn_cell
from .io import BucketSentenceIter, encode_sentences
from .rnn import do_rnn_checkpoint, load_rnn_checkpoint, save_rnn_checkpoint
from .rnn_cell import (BaseConvRNNCell, BaseRNNCell, BidirectionalCell, ConvGRUCell,
                       ConvLSTMCell, ConvRNNCell, DropoutCell, FusedRNNCell, GRUCell,
                       LSTMCell, ModifierCell, ResidualCell, RNNCell, RNNParams,
                       SequentialRNNCell, ZoneoutCell)

__all__ = ["io", "rnn_cell", "BucketSentenceIter", "encode_sentences", "do_rnn_checkpoint",
           "load_rnn_checkpoint", "save_rnn_checkpoint", "BaseConvRNNCell", "BaseRNNCell",
           "BidirectionalCell", "ConvGRUCell", "ConvLSTMCell", "ConvRNNCell", "DropoutCell",
           "FusedRNNCell", "GRUCell", "LSTMCell", "ModifierCell", "ResidualCell", "RNNCell",
           "RNNParams", "SequentialRNNCell", "ZoneoutCell"]
