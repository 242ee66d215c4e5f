"""MXNet's contrib.rand_zipfian (python/mxnet/{ndarray,symbol}/contrib.py),
composed of mxc's operators the same way for NDArrays and Symbols: classes
drawn from the approximately Zipfian (log-uniform) distribution
P(class) = (log(class + 2) - log(class + 1)) / log(range_max + 1)."""
import math


def rand_zipfian(F, true_classes, num_sampled, range_max, ctx=None):
    """(sampled classes (num_sampled,) int64, expected counts of the true
    classes, expected counts of the sampled ones, both float64), as MXNet's:
    F is mx.nd or mx.sym."""
    log_range = math.log(range_max + 1)
    kwargs = {} if ctx is None else {"ctx": ctx}
    rand = F.random.uniform(0, log_range, shape=(num_sampled,), dtype="float64", **kwargs)
    # make sure the sampled classes are in the range of [0, range_max)
    sampled_classes = (rand.exp() - 1).astype("int64") % range_max
    true_cls = true_classes.astype("float64")
    expected_count_true = ((true_cls + 2.0) / (true_cls + 1.0)).log() / log_range * num_sampled
    sampled_fp64 = sampled_classes.astype("float64")
    expected_prob_sampled = ((sampled_fp64 + 2.0) / (sampled_fp64 + 1.0)).log() / log_range
    return sampled_classes, expected_count_true, expected_prob_sampled * num_sampled
