"""gluon.model_zoo: vision networks with MXNet 1.9.1's definitions."""
from . import model_store
from . import vision
