"""mx.callback: callbacks for Module.fit (MXNet 1.x).

Batch-end callbacks get a BatchEndParam (epoch, nbatch, eval_metric,
locals); epoch-end callbacks get (epoch, symbol, arg_params, aux_params).
"""
import logging
import time

from .model import save_checkpoint


def module_checkpoint(mod, prefix, period=1, save_optimizer_states=False):
    """Saves the module's checkpoint every `period` epochs."""
    period = int(max(1, period))

    def _callback(iter_no, sym=None, arg=None, aux=None):
        if (iter_no + 1) % period == 0:
            mod.save_checkpoint(prefix, iter_no + 1, save_optimizer_states)
    return _callback


def do_checkpoint(prefix, period=1):
    """Saves prefix-symbol.json and prefix-%04d.params (epoch + 1) every
    `period` epochs."""
    period = int(max(1, period))

    def _callback(iter_no, sym, arg, aux):
        if (iter_no + 1) % period == 0:
            save_checkpoint(prefix, iter_no + 1, sym, arg, aux)
    return _callback


def log_train_metric(period, auto_reset=False):
    """Logs the training metric every `period` batches."""
    def _callback(param):
        if param.nbatch % period == 0 and param.eval_metric is not None:
            for name, value in param.eval_metric.get_name_value():
                logging.info("Iter[%d] Batch[%d] Train-%s=%f", param.epoch, param.nbatch,
                             name, value)
            if auto_reset:
                param.eval_metric.reset_local()
    return _callback


class Speedometer:
    """Logs the training speed (samples/s) and the metric every `frequent`
    batches, as MXNet's: 'Epoch[0] Batch [0-50]\tSpeed: 1234.56 samples/sec\t
    accuracy=0.812500'."""

    def __init__(self, batch_size, frequent=50, auto_reset=True):
        self.batch_size = batch_size
        self.frequent = frequent
        self.init = False
        self.tic = 0
        self.last_count = 0
        self.auto_reset = auto_reset
        self.last_speed = None

    def __call__(self, param):
        count = param.nbatch
        if self.last_count > count:
            self.init = False
        self.last_count = count
        if self.init:
            if count % self.frequent == 0:
                try:
                    speed = self.frequent * self.batch_size / (time.time() - self.tic)
                except ZeroDivisionError:
                    speed = float("inf")
                self.last_speed = speed
                if param.eval_metric is not None:
                    name_value = param.eval_metric.get_name_value()
                    if self.auto_reset:
                        param.eval_metric.reset_local()
                        msg = "Epoch[%d] Batch [%d-%d]\tSpeed: %.2f samples/sec"
                        msg += "\t%s=%f" * len(name_value)
                        logging.info(msg, param.epoch, count - self.frequent, count, speed,
                                     *sum(name_value, ()))
                    else:
                        msg = "Epoch[%d] Batch [0-%d]\tSpeed: %.2f samples/sec"
                        msg += "\t%s=%f" * len(name_value)
                        logging.info(msg, param.epoch, count, speed, *sum(name_value, ()))
                else:
                    logging.info("Iter[%d] Batch [%d]\tSpeed: %.2f samples/sec",
                                 param.epoch, count, speed)
                self.tic = time.time()
        else:
            self.init = True
            self.tic = time.time()
