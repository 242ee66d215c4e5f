"""gluon.contrib: the parts the model zoo uses (nn.HybridConcurrent, Concurrent, Identity)."""
from . import nn
