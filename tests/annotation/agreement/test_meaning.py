"""annotation.agreement.meaning: the meaning vectors are wordllama's own, read from the files its
wheel ships without importing the package."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import wordllama
from paraphrase_pairs import fact_pairs

from annotation.agreement import meaning
from annotation.agreement.paraphrase import meaning_texts


def test_the_vectors_are_wordllamas_embeddings_to_the_bit_unit_normalised():
    words = sorted({w for r in fact_pairs() for t in (r["a"], r["b"]) for w in meaning_texts(t)})
    texts = [*words, "The goalkeeper catches the ball.", "a", ""]
    model = wordllama.WordLlama.load(cache_dir=Path(wordllama.__file__).parent, disable_download=True)
    theirs = model.embed(texts, batch_size=64)
    norms = np.linalg.norm(theirs, axis=1, keepdims=True)
    expected = np.divide(theirs, norms, out=np.zeros_like(theirs), where=norms > 0)
    ours = meaning.vectors(texts)
    assert len(words) > 300
    assert np.array_equal(ours, expected)
    assert not ours[-1].any()  # an empty text: the zero vector


def test_spelling_cost_counts_the_tokenizers_pieces_as_wordllamas_tokenizer_cuts_them():
    model = wordllama.WordLlama.load(cache_dir=Path(wordllama.__file__).parent, disable_download=True)
    for word in ("white", "wite", "squirrel", "squirel"):
        pieces = model.tokenizer.encode(word, add_special_tokens=False).ids
        assert meaning.spelling_cost(word)[0] == len(pieces)
    assert meaning.spelling_cost("white")[0] < meaning.spelling_cost("wite")[0]


def test_past_its_limit_the_cache_starts_afresh_and_every_vector_stays_right(monkeypatch):
    words = ["goalkeeper", "ball", "net", "referee", "whistle", "crowd", "red", "card"]
    expected = meaning.vectors(words)
    monkeypatch.setattr(meaning, "_CACHE_LIMIT", 3)
    meaning.cache_vectors(["kettle", "teapot"])
    assert np.array_equal(meaning.vectors(words), expected)  # more than the limit in one call
    assert np.array_equal(meaning.vectors(words[::-1]), expected[::-1])
    assert meaning.vectors([]).shape == (0, expected.shape[1])
