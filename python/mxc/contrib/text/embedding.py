"""mx.contrib.text.embedding: token embeddings (MXNet 1.x's API): a
Vocabulary whose every index has a vector (idx_to_vec, an NDArray of
(len, vec_len); index 0 the unknown token's)."""
import io
import os
import warnings

import numpy as np

from ... import ndarray as nd
from ...base import MXNetError
from . import vocab

_REGISTRY = {}


def register(embedding_cls):
    """Registers a _TokenEmbedding subclass under its lower-cased name (the
    name create() takes)."""
    _REGISTRY[embedding_cls.__name__.lower()] = embedding_cls
    return embedding_cls


def create(embedding_name, **kwargs):
    """An instance of the registered embedding `embedding_name`."""
    cls = _REGISTRY.get(embedding_name.lower())
    if cls is None:
        raise KeyError("Cannot find `embedding_name` %s. Use `get_pretrained_file_names()` to "
                       "get all the valid embedding names." % embedding_name)
    return cls(**kwargs)


def get_pretrained_file_names(embedding_name=None):
    """The pretrained file names of one registered embedding (a list), or of
    every one (a dict name -> list)."""
    if embedding_name is not None:
        if embedding_name.lower() not in _REGISTRY:
            raise KeyError("Cannot find `embedding_name` %s." % embedding_name)
        return list(_REGISTRY[embedding_name.lower()].pretrained_file_name_sha1.keys())
    return {name: list(cls.pretrained_file_name_sha1.keys())
            for name, cls in _REGISTRY.items()
            if hasattr(cls, "pretrained_file_name_sha1")}


class _TokenEmbedding(vocab.Vocabulary):
    """The base of token embeddings (MXNet's _TokenEmbedding)."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self._vec_len = 0
        self._idx_to_vec = None

    @classmethod
    def _check_pretrained_file_names(cls, pretrained_file_name):
        names = getattr(cls, "pretrained_file_name_sha1", {})
        if pretrained_file_name not in names:
            raise KeyError("Cannot find pretrained file %s for token embedding %s. Valid "
                           "pretrained files: %s" % (pretrained_file_name, cls.__name__.lower(),
                                                     ", ".join(names)))

    @classmethod
    def _get_pretrained_file(cls, embedding_root, pretrained_file_name):
        """The local path of a pretrained file: <root>/<namespace>/<name>.
        mxc does not download: a missing file is an MXNetError."""
        root = os.path.expanduser(embedding_root)
        path = os.path.join(root, getattr(cls, "namespace", cls.__name__.lower()),
                            pretrained_file_name)
        if not os.path.isfile(path):
            raise MXNetError("token embedding %s: %s is not there and mxc does not download "
                             "pretrained files; place it there" % (cls.__name__.lower(), path))
        return path

    def _load_embedding(self, pretrained_file_path, elem_delim, init_unknown_vec,
                        encoding="utf8"):
        """Reads `token<delim>v1<delim>v2...` lines: index 0 gets the unknown
        token's vector from the file when it is there, else
        init_unknown_vec(shape=vec_len); a repeated token keeps its first
        vector and a one-value line (a header) is skipped, both with a
        warning; a token without values or of another length is an
        AssertionError (MXNet's)."""
        path = os.path.expanduser(pretrained_file_path)
        if not os.path.isfile(path):
            raise ValueError("`pretrained_file_path` must be a valid path to the pre-trained "
                             "token embedding file.")
        vec_len, rows, loaded_unknown = None, [], None
        tokens = set()
        with io.open(path, "r", encoding=encoding) as f:
            for line_num, line in enumerate(f):
                elems = line.rstrip().split(elem_delim)
                assert len(elems) > 1, "At line %d of the pre-trained text embedding file: the " \
                    "data format of the pre-trained token embedding file %s is unexpected." % (
                        line_num, path)
                token, values = elems[0], [float(v) for v in elems[1:]]
                if token == self.unknown_token and loaded_unknown is None:
                    loaded_unknown = values
                    tokens.add(token)
                elif token in tokens:
                    warnings.warn("At line %d of the pre-trained token embedding file: the "
                                  "embedding vector for token %s has been loaded and a duplicate "
                                  "embedding for the same token is seen and skipped."
                                  % (line_num, token))
                elif len(values) == 1:
                    warnings.warn("At line %d of the pre-trained text embedding file: token %s "
                                  "with 1-dimensional vector %s is likely a header and is "
                                  "skipped." % (line_num, token, values))
                else:
                    if vec_len is None:
                        vec_len = len(values)
                    else:
                        assert len(values) == vec_len, "At line %d of the pre-trained token " \
                            "embedding file: the dimension of token %s is %d but the dimension " \
                            "of previous tokens is %d. Dimensions of all the tokens must be the " \
                            "same." % (line_num, token, len(values), vec_len)
                    rows.append(values)
                    self._idx_to_token.append(token)
                    self._token_to_idx[token] = len(self._idx_to_token) - 1
                    tokens.add(token)
        if vec_len is None:
            if loaded_unknown is None:
                raise MXNetError("token embedding file %s holds no vectors" % path)
            vec_len = len(loaded_unknown)
        self._vec_len = vec_len
        # index 0 (unknown) and the reserved tokens first, then the file's rows
        lead = len(self._idx_to_token) - len(rows)
        table = np.zeros((len(self._idx_to_token), vec_len), dtype=np.float32)
        if rows:
            table[lead:] = np.asarray(rows, dtype=np.float32)
        if loaded_unknown is not None:
            table[0] = np.asarray(loaded_unknown, dtype=np.float32)
        else:
            table[0] = init_unknown_vec(shape=vec_len).asnumpy()
        self._idx_to_vec = nd.array(table)

    def _index_tokens_from_vocabulary(self, vocabulary):
        self._token_to_idx = dict(vocabulary.token_to_idx)
        self._idx_to_token = list(vocabulary.idx_to_token)
        self._unknown_token = vocabulary.unknown_token
        self._reserved_tokens = None if vocabulary.reserved_tokens is None \
            else list(vocabulary.reserved_tokens)

    def _set_idx_to_vec_by_embeddings(self, token_embeddings, vocab_len, vocab_idx_to_token):
        """idx_to_vec: each embedding's vectors of the vocabulary's tokens,
        side by side; row 0 (the vocabulary's unknown token) holds each
        embedding's unknown vector, whatever that token is (MXNet's)."""
        self._vec_len = sum(e.vec_len for e in token_embeddings)
        parts = []
        for e in token_embeddings:
            part = np.empty((vocab_len, e.vec_len), dtype=np.float32)
            part[0] = e.idx_to_vec[0].asnumpy()
            if vocab_len > 1:
                part[1:] = e.get_vecs_by_tokens(list(vocab_idx_to_token[1:])).asnumpy().reshape(
                    vocab_len - 1, e.vec_len)
            parts.append(part)
        self._idx_to_vec = nd.array(np.concatenate(parts, axis=1).astype(np.float32))

    def _build_embedding_for_vocabulary(self, vocabulary):
        if vocabulary is not None:
            assert isinstance(vocabulary, vocab.Vocabulary), \
                "The argument `vocabulary` must be an instance of mxnet.contrib.text.vocab.Vocabulary."
            self._set_idx_to_vec_by_embeddings([self], len(vocabulary), vocabulary.idx_to_token)
            self._index_tokens_from_vocabulary(vocabulary)

    @property
    def vec_len(self):
        return self._vec_len

    @property
    def idx_to_vec(self):
        return self._idx_to_vec

    def get_vecs_by_tokens(self, tokens, lower_case_backup=False):
        """The vectors of a token (1-D) or of a list of tokens (2-D); an
        unknown token gets index 0's. lower_case_backup: a token not found
        is looked up lower-cased."""
        single = not isinstance(tokens, list)
        toks = [tokens] if single else tokens
        if lower_case_backup:
            ids = [self._token_to_idx.get(t, self._token_to_idx.get(t.lower(), 0)) for t in toks]
        else:
            ids = [self._token_to_idx.get(t, 0) for t in toks]
        vecs = nd.take(self._idx_to_vec, nd.array(ids, dtype="int64"), axis=0)
        return vecs.reshape((self._vec_len,)) if single else vecs

    def update_token_vectors(self, tokens, new_vectors):
        """Replaces the vectors of known tokens (a token or a list; new_vectors
        (len(tokens), vec_len), or (vec_len,) for one token)."""
        assert self._idx_to_vec is not None, "The property `idx_to_vec` has not been properly set."
        toks = tokens if isinstance(tokens, list) else [tokens]
        if new_vectors.ndim == 1:
            new_vectors = new_vectors.expand_dims(axis=0)
        assert tuple(new_vectors.shape) == (len(toks), self._vec_len), \
            "The length of new_vectors must be equal to the number of tokens and the width of " \
            "new_vectors must be equal to the dimension of embeddings of the glossary."
        ids = []
        for t in toks:
            if t not in self._token_to_idx:
                raise ValueError("Token %s is unknown. To update the embedding vector for an "
                                 "unknown token, please specify it explicitly as the "
                                 "`unknown_token` %s in `tokens`. This is to avoid unintended "
                                 "updates." % (t, self._idx_to_token[0]))
            ids.append(self._token_to_idx[t])
        table = self._idx_to_vec.asnumpy()
        table[ids] = new_vectors.asnumpy()
        self._idx_to_vec = nd.array(table)


class CustomEmbedding(_TokenEmbedding):
    """A token embedding read from a local file of `token<elem_delim>v1...`
    lines; with `vocabulary`, indexed as the vocabulary (its tokens without
    a vector get the unknown vector)."""

    def __init__(self, pretrained_file_path, elem_delim=" ", encoding="utf8",
                 init_unknown_vec=nd.zeros, vocabulary=None, **kwargs):
        super().__init__(**kwargs)
        self._load_embedding(pretrained_file_path, elem_delim, init_unknown_vec, encoding)
        if vocabulary is not None:
            self._build_embedding_for_vocabulary(vocabulary)


class CompositeEmbedding(_TokenEmbedding):
    """The vocabulary's tokens with the vectors of several embeddings
    concatenated (in the order given)."""

    def __init__(self, vocabulary, token_embeddings):
        assert isinstance(vocabulary, vocab.Vocabulary), \
            "The argument `vocabulary` must be an instance of mxnet.contrib.text.vocab.Vocabulary."
        if not isinstance(token_embeddings, list):
            token_embeddings = [token_embeddings]
        for e in token_embeddings:
            assert isinstance(e, _TokenEmbedding), \
                "The argument `token_embeddings` must be an instance or a list of instances of " \
                "mxnet.contrib.text.embedding._TokenEmbedding."
        super().__init__()
        self._index_tokens_from_vocabulary(vocabulary)
        self._set_idx_to_vec_by_embeddings(token_embeddings, len(self), self.idx_to_token)
