"""Stand-in for MXNet 1.9.1's tests/python/unittest/common.py: the helpers
its Gluon tests import (with_seed, setup_module, teardown, assertRaises,
assert_raises_cudnn_not_satisfied, environment, ...), written for mxc."""
import functools
import os
import random
import tempfile

import numpy as np
import pytest

import mxnet as mx
from mxnet.test_utils import environment  # noqa: F401

TemporaryDirectory = tempfile.TemporaryDirectory


def assertRaises(expected_exception, func, *args, **kwargs):
    with pytest.raises(expected_exception):
        func(*args, **kwargs)


def with_seed(seed=None):
    def helper(orig_test):
        @functools.wraps(orig_test)
        def test_new(*args, **kwargs):
            s = seed if seed is not None else int(os.getenv("MXNET_TEST_SEED",
                                                            np.random.randint(0, 2 ** 31 - 1)))
            state = np.random.get_state()
            np.random.seed(s)
            mx.random.seed(s)
            random.seed(s)
            try:
                orig_test(*args, **kwargs)
            finally:
                mx.nd.waitall()
                np.random.set_state(state)
        return test_new
    return helper


def setup_module():
    seed = int(os.getenv("MXNET_MODULE_SEED", "1234"))
    np.random.seed(seed)
    mx.random.seed(seed)
    random.seed(seed)


def teardown():
    mx.nd.waitall()


def assert_raises_cudnn_not_satisfied(min_version):
    def deco(f):
        return f
    return deco


assert_raises_cuda_not_satisfied = assert_raises_cudnn_not_satisfied


def with_environment(*args_):
    def deco(f):
        @functools.wraps(f)
        def wrapped(*a, **k):
            with environment(*args_):
                return f(*a, **k)
        return wrapped
    return deco


def xfail_when_nonstandard_decimal_separator(func):
    return func


def retry(n):
    def deco(f):
        return f
    return deco
