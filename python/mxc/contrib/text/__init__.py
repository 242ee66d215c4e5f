"""mx.contrib.text: MXNet 1.x's text helpers — token counting (utils),
vocabularies (vocab) and token embeddings (embedding) — in Python over
mxc's NDArrays. Pretrained embeddings are not downloaded (no network here):
CustomEmbedding loads a local file; a registered embedding class whose file
is missing raises MXNetError naming the path it looked at."""
from . import utils
from . import vocab
from . import embedding

__all__ = ["utils", "vocab", "embedding"]
