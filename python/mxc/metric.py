"""mx.metric: evaluation metrics (MXNet 1.x).

update(labels, preds) takes lists of NDArrays (or numpy arrays); get()
returns (name, value) for the instances since the last reset(),
get_global() since the last reset() of the global statistics (MXNet's
reset_local() keeps them).
"""
import numpy as np

from .base import MXNetError
from .ndarray import NDArray

_REGISTRY = {}


def register(klass, *aliases):
    for n in (klass.__name__.lower(),) + aliases:
        _REGISTRY[n] = klass
    return klass


def alias(*aliases):
    def deco(klass):
        return register(klass, *aliases)
    return deco


def _np(a):
    return a.asnumpy() if isinstance(a, NDArray) else np.asarray(a)


def check_label_shapes(labels, preds, wrap=False, shape=False):
    """Raises when the numbers (or, with shape=True, the shapes) differ."""
    if not shape:
        label_shape, pred_shape = len(labels), len(preds)
    else:
        label_shape, pred_shape = labels.shape, preds.shape
    if label_shape != pred_shape:
        raise MXNetError("Shape of labels {} does not match shape of predictions {}"
                         .format(label_shape, pred_shape))
    if wrap:
        if isinstance(labels, (NDArray, np.ndarray)):
            labels = [labels]
        if isinstance(preds, (NDArray, np.ndarray)):
            preds = [preds]
    return labels, preds


class EvalMetric:
    """Base class: sum_metric / num_inst (local) and global_sum_metric /
    global_num_inst."""

    def __init__(self, name, output_names=None, label_names=None, **kwargs):
        self.name = str(name)
        self.output_names = output_names
        self.label_names = label_names
        self._has_global_stats = kwargs.pop("has_global_stats", False)
        self._kwargs = kwargs
        self.reset()

    def __str__(self):
        return "EvalMetric: {}".format(dict(self.get_name_value()))

    def get_config(self):
        config = self._kwargs.copy()
        config.update({"metric": self.__class__.__name__, "name": self.name,
                       "output_names": self.output_names, "label_names": self.label_names})
        return config

    def update_dict(self, label, pred):
        if self.output_names is not None:
            pred = [pred[name] for name in self.output_names]
        else:
            pred = list(pred.values())
        if self.label_names is not None:
            label = [label[name] for name in self.label_names]
        else:
            label = list(label.values())
        self.update(label, pred)

    def update(self, labels, preds):
        raise NotImplementedError()

    def reset(self):
        self.num_inst = 0
        self.sum_metric = 0.0
        self.global_num_inst = 0
        self.global_sum_metric = 0.0

    def reset_local(self):
        self.num_inst = 0
        self.sum_metric = 0.0

    def _add(self, value, n):
        self.sum_metric += value
        self.global_sum_metric += value
        self.num_inst += n
        self.global_num_inst += n

    def get(self):
        if self.num_inst == 0:
            return (self.name, float("nan"))
        return (self.name, self.sum_metric / self.num_inst)

    def get_global(self):
        if self._has_global_stats:
            if self.global_num_inst == 0:
                return (self.name, float("nan"))
            return (self.name, self.global_sum_metric / self.global_num_inst)
        return self.get()

    def get_name_value(self):
        name, value = self.get()
        if not isinstance(name, list):
            name, value = [name], [value]
        return list(zip(name, value))

    def get_global_name_value(self):
        name, value = self.get_global()
        if not isinstance(name, list):
            name, value = [name], [value]
        return list(zip(name, value))


@alias("composite")
class CompositeEvalMetric(EvalMetric):
    """Several metrics updated together; get() returns lists."""

    def __init__(self, metrics=None, name="composite", output_names=None, label_names=None):
        super().__init__(name, output_names=output_names, label_names=label_names,
                         has_global_stats=True)
        self.metrics = [create(m) for m in (metrics or [])]

    def add(self, metric):
        self.metrics.append(create(metric))

    def get_metric(self, index):
        try:
            return self.metrics[index]
        except IndexError:
            raise MXNetError("Metric index {} is out of range 0 and {}".format(
                index, len(self.metrics)))

    def update_dict(self, labels, preds):
        for metric in self.metrics:
            metric.update_dict(labels, preds)

    def update(self, labels, preds):
        for metric in self.metrics:
            metric.update(labels, preds)

    def reset(self):
        for metric in getattr(self, "metrics", []):
            metric.reset()

    def reset_local(self):
        for metric in self.metrics:
            metric.reset_local()

    def _collect(self, getter):
        names, values = [], []
        for metric in self.metrics:
            name, value = getattr(metric, getter)()
            if isinstance(name, str):
                name, value = [name], [value]
            names.extend(name)
            values.extend(value)
        return (names, values)

    def get(self):
        return self._collect("get")

    def get_global(self):
        return self._collect("get_global")


@alias("acc")
class Accuracy(EvalMetric):
    """Fraction of predictions equal to the labels; predictions of a
    different shape than the labels are argmax'ed along `axis` first."""

    def __init__(self, axis=1, name="accuracy", output_names=None, label_names=None):
        super().__init__(name, axis=axis, output_names=output_names, label_names=label_names,
                         has_global_stats=True)
        self.axis = axis

    def update(self, labels, preds):
        labels, preds = check_label_shapes(labels, preds, True)
        for label, pred_label in zip(labels, preds):
            pred_label, label = _np(pred_label), _np(label)
            if pred_label.shape != label.shape:
                pred_label = np.argmax(pred_label, axis=self.axis)
            pred_label = pred_label.astype("int32").ravel()
            label = label.astype("int32").ravel()
            check_label_shapes(label, pred_label, shape=True)
            self._add(int((pred_label == label).sum()), len(pred_label))


@alias("top_k_accuracy", "top_k_acc")
class TopKAccuracy(EvalMetric):
    """Fraction of labels among the top_k highest scores."""

    def __init__(self, top_k=1, name="top_k_accuracy", output_names=None, label_names=None):
        super().__init__(name, top_k=top_k, output_names=output_names, label_names=label_names,
                         has_global_stats=True)
        self.top_k = top_k
        if self.top_k <= 1:
            raise MXNetError("Please use Accuracy if top_k is no more than 1")
        self.name += "_%d" % self.top_k

    def update(self, labels, preds):
        labels, preds = check_label_shapes(labels, preds, True)
        for label, pred_label in zip(labels, preds):
            pred_label = _np(pred_label).astype("float32")
            if pred_label.ndim > 2:
                raise MXNetError("Predictions should be no more than 2 dims")
            pred_label = np.argpartition(pred_label, -self.top_k)
            label = _np(label).astype("int32")
            check_label_shapes(label, pred_label)
            num_samples = pred_label.shape[0]
            num_dims = len(pred_label.shape)
            if num_dims == 1:
                self._add(int((pred_label.ravel() == label.ravel()).sum()), num_samples)
            elif num_dims == 2:
                num_classes = pred_label.shape[1]
                top_k = min(num_classes, self.top_k)
                correct = 0
                for j in range(top_k):
                    correct += int((pred_label[:, num_classes - 1 - j].ravel()
                                    == label.ravel()).sum())
                self._add(correct, num_samples)


@alias("ce")
class CrossEntropy(EvalMetric):
    """Mean of -log(p[label] + eps) over the samples."""

    def __init__(self, eps=1e-12, name="cross-entropy", output_names=None, label_names=None):
        super().__init__(name, eps=eps, output_names=output_names, label_names=label_names,
                         has_global_stats=True)
        self.eps = eps

    def update(self, labels, preds):
        labels, preds = check_label_shapes(labels, preds, True)
        for label, pred in zip(labels, preds):
            label, pred = _np(label).ravel(), _np(pred)
            if label.shape[0] != pred.shape[0]:
                raise MXNetError("CrossEntropy: %d labels for %d predictions"
                                 % (label.shape[0], pred.shape[0]))
            prob = pred[np.arange(label.shape[0]), np.int64(label)]
            self._add(float((-np.log(prob + self.eps)).sum()), label.shape[0])


@alias("nll_loss")
class NegativeLogLikelihood(CrossEntropy):
    def __init__(self, eps=1e-12, name="nll-loss", output_names=None, label_names=None):
        super().__init__(eps=eps, name=name, output_names=output_names, label_names=label_names)


@register
class MSE(EvalMetric):
    """Mean squared error (per sample, averaged)."""

    def __init__(self, name="mse", output_names=None, label_names=None):
        super().__init__(name, output_names=output_names, label_names=label_names,
                         has_global_stats=True)

    def update(self, labels, preds):
        labels, preds = check_label_shapes(labels, preds, True)
        for label, pred in zip(labels, preds):
            label, pred = _np(label), _np(pred)
            if label.ndim == 1:
                label = label.reshape(label.shape[0], 1)
            if pred.ndim == 1:
                pred = pred.reshape(pred.shape[0], 1)
            self._add(float(((label - pred) ** 2.0).mean()), 1)


def _as_columns(label, pred):
    label, pred = _np(label), _np(pred)
    if label.ndim == 1:
        label = label.reshape(label.shape[0], 1)
    if pred.ndim == 1:
        pred = pred.reshape(pred.shape[0], 1)
    return label, pred


@register
class MAE(EvalMetric):
    """Mean absolute error (per batch, averaged over batches, as MXNet)."""

    def __init__(self, name="mae", output_names=None, label_names=None):
        super().__init__(name, output_names=output_names, label_names=label_names,
                         has_global_stats=True)

    def update(self, labels, preds):
        labels, preds = check_label_shapes(labels, preds, True)
        for label, pred in zip(labels, preds):
            label, pred = _as_columns(label, pred)
            self._add(float(np.abs(label - pred).mean()), 1)


@register
class RMSE(EvalMetric):
    """Root mean squared error (per batch, averaged over batches, as MXNet)."""

    def __init__(self, name="rmse", output_names=None, label_names=None):
        super().__init__(name, output_names=output_names, label_names=label_names,
                         has_global_stats=True)

    def update(self, labels, preds):
        labels, preds = check_label_shapes(labels, preds, True)
        for label, pred in zip(labels, preds):
            label, pred = _as_columns(label, pred)
            self._add(float(np.sqrt(((label - pred) ** 2.0).mean())), 1)


@register
class Loss(EvalMetric):
    """Mean of the outputs themselves (a loss output); labels are ignored."""

    def __init__(self, name="loss", output_names=None, label_names=None):
        super().__init__(name, output_names=output_names, label_names=label_names,
                         has_global_stats=True)

    def update(self, _, preds):
        if isinstance(preds, (NDArray, np.ndarray)):
            preds = [preds]
        for pred in preds:
            p = _np(pred)
            self._add(float(p.sum()), p.size)


class CustomMetric(EvalMetric):
    """A metric from feval(label, pred) -> value or (sum, count)."""

    def __init__(self, feval, name=None, allow_extra_outputs=False, output_names=None,
                 label_names=None):
        if name is None:
            name = feval.__name__
            if name.find("<") != -1:
                name = "custom(%s)" % name
        super().__init__(name, feval=feval, allow_extra_outputs=allow_extra_outputs,
                         output_names=output_names, label_names=label_names,
                         has_global_stats=True)
        self._feval = feval
        self._allow_extra_outputs = allow_extra_outputs

    def update(self, labels, preds):
        if not self._allow_extra_outputs:
            labels, preds = check_label_shapes(labels, preds, True)
        for pred, label in zip(preds, labels):
            reval = self._feval(_np(label), _np(pred))
            if isinstance(reval, tuple):
                self._add(reval[0], reval[1])
            else:
                self._add(reval, 1)


def create(metric, *args, **kwargs):
    """A metric from an instance, a callable feval, a name ('acc',
    'accuracy', 'top_k_accuracy', 'ce', 'mse', 'loss', ...) or a list of
    those (a CompositeEvalMetric)."""
    if callable(metric) and not isinstance(metric, (EvalMetric, type)):
        return CustomMetric(metric, *args, **kwargs)
    if isinstance(metric, EvalMetric):
        return metric
    if isinstance(metric, list):
        composite = CompositeEvalMetric()
        for child in metric:
            composite.add(create(child, *args, **kwargs))
        return composite
    if isinstance(metric, str):
        klass = _REGISTRY.get(metric.lower())
        if klass is None:
            raise MXNetError("unknown metric '%s' (known: %s)"
                             % (metric, ", ".join(sorted(_REGISTRY))))
        return klass(*args, **kwargs)
    raise MXNetError("metric: expected a name, an EvalMetric, a callable or a list, got %r"
                     % (metric,))
