"""mx.contrib.svrg_optimization: stochastic variance-reduced gradient descent
(Johnson & Zhang, 2013) on the Module API, as MXNet 1.9.1's contrib package:
SVRGModule and the _SVRGOptimizer it trains with."""
from . import svrg_module, svrg_optimizer
from .svrg_module import SVRGModule
from .svrg_optimizer import _AssignmentOptimizer, _SVRGOptimizer

__all__ = ["SVRGModule", "svrg_module", "svrg_optimizer"]
