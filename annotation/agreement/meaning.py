"""Meaning vectors of words and short texts: wordllama's static token embeddings (MIT; the weights
and tokenizer ship inside the wheel), mean-pooled and unit-normalised, so the cosine of two vectors
says how alike two wordings mean.

The model is loaded once per process from the installed package itself, with downloads disabled:
nothing is fetched at run time (a missing file is an error, never a download). Vectors are cached by
text and new texts are embedded in one batch (`vectors`), so clustering a campaign embeds each
distinct word once.
"""

from __future__ import annotations

import importlib.util
import math
import os
import threading
from functools import lru_cache
from pathlib import Path

import numpy as np

# the tokenizer's thread pool costs more than it saves on the few words of a fact (and the machine's
# cores are shared): tokenize on the calling thread
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
_LOCK = threading.RLock()  # the model's load and the cache
_MODEL: _StaticEmbedding | None = None
# the cached vectors: one row of _TABLE per text (rows fetched in one indexing, not stacked one by one)
_ROWS: dict[str, int] = {}
_TABLE = np.zeros((0, 256), dtype=np.float32)
_CACHE_LIMIT = 1 << 18  # words and short facts; a campaign holds far fewer


class _StaticEmbedding:
    """wordllama's model as its `embed` uses it: the tokenizer and the table of token vectors,
    read from the files the wheel ships (config l2_supercat, 256 dimensions), and the same mean
    pooling (`WordLlamaInference.embed`), so the vectors are wordllama's to the bit
    (tests/annotation/agreement/test_meaning.py). Read directly because importing the package
    (requests, its Cython algorithms) and widening the whole 32k-row table to float32 cost more
    CPU than the words of a campaign: only the rows a batch uses are widened."""

    def __init__(self, package: Path):
        from safetensors import safe_open
        from tokenizers import Tokenizer

        self.tokenizer = Tokenizer.from_file(
            str(package / "tokenizers" / "l2_supercat_tokenizer_config.json")
        )
        self.tokenizer.enable_padding()  # as WordLlamaInference sets it
        self.tokenizer.no_truncation()
        with safe_open(str(package / "weights" / "l2_supercat_256.safetensors"), framework="np") as f:
            self.table = f.get_tensor("embedding.weight")  # float16, one row per token

    def embed(self, texts: list[str], batch_size: int = 256) -> np.ndarray:
        """The mean of each text's token vectors, as `WordLlamaInference.embed(texts)`."""
        out = np.empty((len(texts), self.table.shape[1]), dtype=np.float32)
        for start in range(0, len(texts), batch_size):
            encoded = self.tokenizer.encode_batch(
                texts[start : start + batch_size], is_pretokenized=False, add_special_tokens=False
            )
            ids = np.array([e.ids for e in encoded], dtype=np.int32)
            mask = np.array([e.attention_mask for e in encoded], dtype=np.float32)
            np.clip(ids, 0, self.table.shape[0] - 1, out=ids)
            rows = self.table[ids].astype(np.float32)
            counts = np.maximum(mask.sum(axis=1, keepdims=True), 1.0).astype(np.float32)
            out[start : start + len(encoded)] = (
                np.sum(rows * mask[..., np.newaxis], axis=1, dtype=np.float32) / counts
            )
        return out


def _package_folder() -> Path:
    """The installed wordllama package's folder, found without importing it."""
    spec = importlib.util.find_spec("wordllama")
    if spec is None or not spec.submodule_search_locations:
        raise FileNotFoundError("the wordllama package is not installed")
    return Path(next(iter(spec.submodule_search_locations)))


def _model() -> _StaticEmbedding:
    """The model from the installed package's own files (weights/ and tokenizers/ beside its code);
    nothing is downloaded: a missing file is an error."""
    global _MODEL
    with _LOCK:
        if _MODEL is None:
            _MODEL = _StaticEmbedding(_package_folder())
        return _MODEL


def cache_vectors(texts) -> None:
    """Embed the texts not cached yet, in one batch (a campaign's words at once)."""
    global _TABLE
    with _LOCK:
        texts = set(texts)
        missing = sorted(t for t in texts if t not in _ROWS)
        if not missing:
            return
        if len(_ROWS) + len(missing) > _CACHE_LIMIT:  # start afresh (rows handed out are copies)
            _ROWS.clear()
            missing = sorted(texts)
        embedded = _model().embed(missing, batch_size=256)
        norms = np.linalg.norm(embedded, axis=1, keepdims=True)
        embedded = np.divide(embedded, norms, out=np.zeros_like(embedded), where=norms > 0)
        start, end = len(_ROWS), len(_ROWS) + len(missing)
        if end > len(_TABLE):  # grow by doubling
            grown = np.zeros((max(end, 2 * len(_TABLE), 1024), embedded.shape[1]), dtype=np.float32)
            grown[:start] = _TABLE[:start]
            _TABLE = grown
        _TABLE[start:end] = embedded
        _ROWS.update(zip(missing, range(start, end), strict=True))


def vectors(texts) -> np.ndarray:
    """Unit vectors (rows, in order) of `texts`; the texts not cached yet are embedded in one batch.
    An empty or wordless text gives the zero vector (cosine 0 with everything)."""
    texts = list(texts)
    if not texts:
        return np.zeros((0, _TABLE.shape[1]), dtype=np.float32)
    with _LOCK:
        rows = [_ROWS.get(t) for t in texts]
        if None in rows:
            cache_vectors(texts)
            rows = [_ROWS[t] for t in texts]
        return _TABLE[rows]


def cosine(a: str, b: str) -> float:
    """Cosine in [-1, 1] of the two texts' meaning vectors."""
    va, vb = vectors([a, b])
    return float(va @ vb)


@lru_cache(maxsize=1 << 16)
def spelling_cost(word: str) -> tuple[int, float]:
    """How unlikely `word` is as written, by the tokenizer's vocabulary: (how many pieces it takes,
    Σ log of their ranks). A word the vocabulary knows takes fewer pieces than its misspellings
    ('white' 1, 'wite' 2); at equal counts the clean spelling's pieces are the commoner ones
    ('squirrel' 23.1 against 'squirel' 23.2: a piece's frequency falls about as 1 / its rank, so
    the sum is the word's negative log-likelihood up to a constant). Lower is more plausible."""
    ids = _model().tokenizer.encode(word, add_special_tokens=False).ids
    return len(ids), round(sum(math.log(max(i, 1)) for i in ids), 9)
