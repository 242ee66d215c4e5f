"""MXNet's mx.monitor (mx.mon): statistics of a bound executor's arrays.

    mon = mx.mon.Monitor(interval, stat_func=None, pattern='.*', sort=False,
                         monitor_all=False)
    mod.install_monitor(mon)            # or mon.install(executor)
    mon.tic(); mod.forward_backward(batch); mon.toc_print()

What the executor's monitor callback reports (Executor.set_monitor_callback:
each operator's outputs in a forward, with monitor_all its inputs too; each
backward node's outputs '<node>_backward_<j>' in a backward) and, at toc(),
every argument and auxiliary state, filtered by `pattern` and summarised by
`stat_func` (default: the norm over the square root of the size), once every
`interval` steps. MXNet's python/mxnet/monitor.py, on mxc's executor.
"""
import logging
import re
from math import sqrt

from .base import py_str
from .ndarray import NDArray
from . import ndarray as nd

__all__ = ["Monitor"]


class Monitor:
    """Monitor inputs, outputs, weights and gradients for debugging."""

    def __init__(self, interval, stat_func=None, pattern=".*", sort=False,
                 monitor_all=False):
        if stat_func is None:
            def asum_stat(x):
                """The norm over the square root of the size."""
                return nd.norm(x) / sqrt(x.size)
            stat_func = asum_stat
        self.stat_func = stat_func
        self.interval = interval
        self.activated = False
        self.queue = []
        self.step = 0
        self.exes = []
        self.re_prog = re.compile(pattern)
        self.sort = sort
        self.monitor_all = monitor_all

        def stat_helper(name, array):
            """The executor's callback: (name, NDArray)."""
            name = py_str(name)
            if not self.activated or not self.re_prog.match(name):
                return
            if not isinstance(array, NDArray):  # an NDArrayHandle
                array = NDArray(array, writable=False)
            self.queue.append((self.step, name, self.stat_func(array)))
        self.stat_helper = stat_helper

    def install(self, exe):
        """Installs the callback on executor `exe`."""
        exe.set_monitor_callback(self.stat_helper, self.monitor_all)
        self.exes.append(exe)

    def tic(self):
        """Starts collecting for this batch (every `interval` batches)."""
        if self.step % self.interval == 0:
            for exe in self.exes:
                for array in exe.arg_arrays:
                    array.wait_to_read()
                for array in exe.aux_arrays:
                    array.wait_to_read()
            self.queue = []
            self.activated = True
        self.step += 1

    def toc(self):
        """Ends collecting: the arguments' and auxiliary states' statistics
        are added, and [(step, name, 'value\\t...')] returned."""
        if not self.activated:
            return []
        for exe in self.exes:
            for array in exe.arg_arrays:
                array.wait_to_read()
            for array in exe.aux_arrays:
                array.wait_to_read()
        for exe in self.exes:
            for name, array in zip(exe._symbol.list_arguments(), exe.arg_arrays):
                if self.re_prog.match(name):
                    self.queue.append((self.step, name, self.stat_func(array)))
            for name, array in zip(exe._symbol.list_auxiliary_states(), exe.aux_arrays):
                if self.re_prog.match(name):
                    self.queue.append((self.step, name, self.stat_func(array)))
        self.activated = False
        res = []
        if self.sort:
            self.queue.sort(key=lambda x: x[1])
        for n, k, v_list in self.queue:
            if isinstance(v_list, NDArray):
                v_list = [v_list]
            assert isinstance(v_list, list)
            s = ""
            for v in v_list:
                assert isinstance(v, NDArray)
                if v.shape == (1,) or v.shape == ():
                    s += str(v.asscalar()) + "\t"
                else:
                    s += str(v.asnumpy()) + "\t"
            res.append((n, k, s))
        self.queue = []
        return res

    def toc_print(self):
        """toc(), logged one line per entry."""
        res = self.toc()
        for n, k, v in res:
            logging.info("Batch: {:7d} {:30s} {:s}".format(n, k, v))
