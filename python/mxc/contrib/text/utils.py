"""mx.contrib.text.utils: counting tokens in a string."""
import collections
import re


def count_tokens_from_str(source_str, token_delim=" ", seq_delim="\n", to_lower=False,
                          counter_to_update=None):
    """A collections.Counter of the tokens of `source_str`: split at
    `token_delim` and `seq_delim` (both literal strings), empty tokens
    dropped, lower-cased with to_lower; added to counter_to_update (which is
    updated and returned) when given."""
    pattern = "|".join(re.escape(d) for d in (token_delim, seq_delim) if d)
    tokens = [t for t in (re.split(pattern, source_str) if pattern else [source_str]) if t]
    if to_lower:
        tokens = [t.lower() for t in tokens]
    if counter_to_update is None:
        return collections.Counter(tokens)
    counter_to_update.update(tokens)
    return counter_to_update
