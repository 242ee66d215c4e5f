"""mx.contrib.text: token counting, Vocabulary's order, CustomEmbedding
(loading, unknown vectors, a vocabulary's index), CompositeEmbedding and
vector updates, as MXNet 1.x's contrib.text behaves."""
from collections import Counter

import numpy as np
import pytest

import mxc as mx
from mxc.contrib import text

COUNTER = Counter(["a", "b", "b", "c", "c", "c", "some_word$"])


def test_count_tokens():
    cnt = text.utils.count_tokens_from_str(" Life is great ! \n life is good . \n", " ", "\n",
                                           to_lower=True, counter_to_update=Counter({"life": 2}))
    assert cnt == Counter({"life": 4, "is": 2, "great": 1, "!": 1, "good": 1, ".": 1})


def test_vocabulary_order_and_lookups():
    v = text.vocab.Vocabulary(COUNTER, reserved_tokens=["<pad>", "b"], most_freq_count=2)
    # unknown, reserved, then by count (ties ascending), reserved ones skipped
    assert v.idx_to_token == ["<unk>", "<pad>", "b", "c", "a"]
    assert v.to_indices(["a", "zzz", "c"]) == [4, 0, 3] and v.to_indices("b") == 2
    assert v.to_tokens([3, 0]) == ["c", "<unk>"]
    with pytest.raises(ValueError):
        v.to_tokens(9)
    with pytest.raises(AssertionError):
        text.vocab.Vocabulary(COUNTER, reserved_tokens=["b", "b"])
    with pytest.raises(AssertionError):
        text.vocab.Vocabulary(COUNTER, min_freq=0)


def _write(path, rows):
    path.write_text("".join("\t".join([t] + [str(x) for x in v]) + "\n" for t, v in rows))
    return str(path)


def test_custom_and_composite_embeddings(tmp_path):
    f1 = _write(tmp_path / "e1.txt", [("a", [0.1, 0.2]), ("b", [0.3, 0.4]), ("<unk>", [9, 9])])
    f2 = _write(tmp_path / "e2.txt", [("A", [1.0]), ("c", [2.0, 3.0]), ("c", [5.0, 6.0])])
    e1 = text.embedding.CustomEmbedding(f1, "\t")
    assert e1.idx_to_token == ["<unk>", "a", "b"] and e1.vec_len == 2
    np.testing.assert_allclose(e1.idx_to_vec.asnumpy(), [[9, 9], [0.1, 0.2], [0.3, 0.4]],
                               rtol=1e-6)
    np.testing.assert_allclose(e1.get_vecs_by_tokens("B", lower_case_backup=True).asnumpy(),
                               [0.3, 0.4], rtol=1e-6)
    with pytest.warns(UserWarning):       # one-value lines: headers, skipped; "c" twice
        e2 = text.embedding.CustomEmbedding(f2, "\t", init_unknown_vec=mx.nd.ones)
    assert e2.idx_to_token == ["<unk>", "c"]
    np.testing.assert_allclose(e2.idx_to_vec.asnumpy(), [[1, 1], [2, 3]])
    with pytest.raises(mx.MXNetError, match="no vectors"):
        text.embedding.CustomEmbedding(_write(tmp_path / "h.txt", [("n", [3.0])]), "\t")
    vocab = text.vocab.Vocabulary(COUNTER, unknown_token="a")
    ce = text.embedding.CompositeEmbedding(vocab, [e1, e1])
    assert ce.idx_to_token == ["a", "c", "b", "some_word$"] and ce.vec_len == 4
    # row 0 is each embedding's unknown vector, not its vector of "a"
    np.testing.assert_allclose(ce.idx_to_vec.asnumpy()[0], [9, 9, 9, 9])
    np.testing.assert_allclose(ce.idx_to_vec.asnumpy()[2], [0.3, 0.4, 0.3, 0.4], rtol=1e-6)
    ce.update_token_vectors(["b"], mx.nd.array([[1, 2, 3, 4]]))
    np.testing.assert_allclose(ce.get_vecs_by_tokens(["b"]).asnumpy(), [[1, 2, 3, 4]])
    with pytest.raises(ValueError):
        ce.update_token_vectors("nope", mx.nd.array([1, 2, 3, 4]))
    with pytest.raises(AssertionError):
        ce.update_token_vectors("b", mx.nd.array([1, 2]))
    bad = _write(tmp_path / "bad.txt", [("a", [0.1, 0.2]), ("b", [0.3, 0.4, 0.5])])
    with pytest.raises(AssertionError):
        text.embedding.CustomEmbedding(bad, "\t")
