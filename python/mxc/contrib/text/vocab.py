"""mx.contrib.text.vocab: MXNet's Vocabulary (index 0 the unknown token,
then the reserved tokens, then the counter's tokens by descending count,
ties in ascending order)."""


class Vocabulary:
    """Indexes tokens: `counter` (a collections.Counter, or None) gives the
    tokens; those counted fewer than min_freq times are left out, and at
    most most_freq_count of the others (the most frequent) are kept; the
    unknown token and reserved_tokens (distinct, without the unknown token)
    come first. Tokens may be any hashable values (strings, tuples)."""

    def __init__(self, counter=None, most_freq_count=None, min_freq=1, unknown_token="<unk>",
                 reserved_tokens=None):
        assert min_freq > 0, "`min_freq` must be set to a positive value."
        if reserved_tokens is not None:
            reserved = set(reserved_tokens)
            assert unknown_token not in reserved, \
                "`reserved_token` cannot contain `unknown_token`."
            assert len(reserved) == len(reserved_tokens), \
                "`reserved_tokens` cannot contain duplicate reserved tokens."
        self._index_unknown_and_reserved_tokens(unknown_token, reserved_tokens)
        if counter is not None:
            self._index_counter_keys(counter, unknown_token, reserved_tokens, most_freq_count,
                                     min_freq)

    def _index_unknown_and_reserved_tokens(self, unknown_token, reserved_tokens):
        self._unknown_token = unknown_token
        self._idx_to_token = [unknown_token]
        if reserved_tokens is None:
            self._reserved_tokens = None
        else:
            self._reserved_tokens = list(reserved_tokens)
            self._idx_to_token.extend(reserved_tokens)
        self._token_to_idx = {t: i for i, t in enumerate(self._idx_to_token)}

    def _index_counter_keys(self, counter, unknown_token, reserved_tokens, most_freq_count,
                            min_freq):
        skip = {unknown_token} | (set(reserved_tokens) if reserved_tokens else set())
        ordered = sorted(counter.items(), key=lambda kv: kv[0])
        ordered.sort(key=lambda kv: kv[1], reverse=True)      # stable: ties stay ascending
        limit = len(counter) if most_freq_count is None else most_freq_count
        kept = 0
        for token, freq in ordered:
            if freq < min_freq or kept >= limit:
                break
            if token in skip:
                continue
            self._idx_to_token.append(token)
            self._token_to_idx[token] = len(self._idx_to_token) - 1
            kept += 1

    def __len__(self):
        return len(self._idx_to_token)

    def __contains__(self, token):
        return token in self._token_to_idx

    @property
    def token_to_idx(self):
        return self._token_to_idx

    @property
    def idx_to_token(self):
        return self._idx_to_token

    @property
    def unknown_token(self):
        return self._unknown_token

    @property
    def reserved_tokens(self):
        return self._reserved_tokens

    def to_indices(self, tokens):
        """The index of a token (0 for an unknown one), or the list of
        indices of a list of tokens."""
        single = not isinstance(tokens, list)
        ids = [self._token_to_idx.get(t, 0) for t in ([tokens] if single else tokens)]
        return ids[0] if single else ids

    def to_tokens(self, indices):
        """The token of an index, or the tokens of a list of indices; an
        index past the vocabulary is a ValueError."""
        single = not isinstance(indices, list)
        out = []
        for i in ([indices] if single else indices):
            if not isinstance(i, int) or not 0 <= i < len(self._idx_to_token):
                raise ValueError("Token index %s in the provided `indices` is invalid." % (i,))
            out.append(self._idx_to_token[i])
        return out[0] if single else out
