"""Meaning vectors of words and short texts: wordllama's static token embeddings (MIT; the weights
and tokenizer ship inside the wheel), mean-pooled and unit-normalised, so the cosine of two vectors
says how alike two wordings mean.

The model is loaded once per process from the installed package itself, with downloads disabled:
nothing is fetched at run time (a missing file is an error, never a download). Vectors are cached by
text and new texts are embedded in one batch (`vectors`), so clustering a campaign embeds each
distinct word once.
"""

from __future__ import annotations

import os
import threading
from functools import lru_cache
from pathlib import Path

import numpy as np

# the tokenizer's thread pool costs more than it saves on the few words of a fact (and the machine's
# cores are shared): tokenize on the calling thread
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
_LOCK = threading.Lock()
_MODEL = None
_CACHE: dict[str, np.ndarray] = {}
_CACHE_LIMIT = 1 << 18  # words and short facts; a campaign holds far fewer


def _model():
    """The wordllama model from the installed package's own files (weights/ and tokenizers/ beside
    its code, which is where `cache_dir` points), downloads disabled."""
    global _MODEL
    with _LOCK:
        if _MODEL is None:
            import wordllama

            _MODEL = wordllama.WordLlama.load(
                cache_dir=Path(wordllama.__file__).parent, disable_download=True
            )
        return _MODEL


def vectors(texts) -> np.ndarray:
    """Unit vectors (rows, in order) of `texts`; the texts not cached yet are embedded in one batch.
    An empty or wordless text gives the zero vector (cosine 0 with everything)."""
    texts = list(texts)
    if texts and all(t in _CACHE for t in texts):  # the common case once a campaign is embedded
        return np.array([_CACHE[t] for t in texts])
    if len(_CACHE) > _CACHE_LIMIT:
        _CACHE.clear()
    missing = sorted({t for t in texts if t not in _CACHE})
    if missing:
        embedded = _model().embed(missing, batch_size=256)
        norms = np.linalg.norm(embedded, axis=1, keepdims=True)
        embedded = np.divide(embedded, norms, out=np.zeros_like(embedded), where=norms > 0)
        _CACHE.update(zip(missing, embedded, strict=True))
    if not texts:
        return np.zeros((0, 256), dtype=np.float32)
    return np.stack([_CACHE[t] for t in texts])


def cosine(a: str, b: str) -> float:
    """Cosine in [-1, 1] of the two texts' meaning vectors."""
    va, vb = vectors([a, b])
    return float(va @ vb)


@lru_cache(maxsize=1 << 16)
def piece_count(word: str) -> int:
    """How many tokenizer pieces `word` takes: a word the vocabulary knows whole takes fewer than its
    misspellings ('squirrel' vs 'squirel'), which is how a misspelt wording is told from a clean one."""
    return len(_model().tokenizer.encode(word, add_special_tokens=False).ids)
