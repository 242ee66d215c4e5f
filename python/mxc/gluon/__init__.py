"""mx.gluon: MXNet 1.9.1's imperative/hybrid front end on the mxc compiler
(docs/gluon.md: what is implemented and where it differs from MXNet)."""
from .parameter import Parameter, Constant, ParameterDict, DeferredInitializationError
from .block import Block, HybridBlock, SymbolBlock
from . import nn
from . import loss
from . import utils
from .trainer import Trainer
from . import data
from . import contrib
from . import rnn
from . import model_zoo
