"""gluon.data.vision: MNIST / FashionMNIST from local idx files, transforms."""
from . import datasets
from . import transforms
from .datasets import MNIST, FashionMNIST
