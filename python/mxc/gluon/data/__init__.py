"""gluon.data: datasets, samplers, DataLoader, vision datasets and transforms."""
from .dataset import Dataset, SimpleDataset, ArrayDataset
from .sampler import (Sampler, SequentialSampler, RandomSampler, FilterSampler,
                      IntervalSampler, BatchSampler)
from .dataloader import DataLoader, default_batchify_fn, default_mp_batchify_fn
from . import vision
