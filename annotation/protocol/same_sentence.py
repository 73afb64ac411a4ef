"""Is this the same sentence? Records of one response index their sentences alike; a sentence at
the same index counts as the same when its text is the same, surrounding blanks aside (an
imported record may carry another split, whose sentences are then not compared)."""

from __future__ import annotations

from annotation.protocol.records import EvaluationRecord, Sentence


def same_sentence(a: Sentence, b: Sentence) -> bool:
    return a.text.strip() == b.text.strip()


def sentence_at(record: EvaluationRecord | None, index: int, sentence: Sentence) -> Sentence | None:
    """`record`'s sentence at `index` when it is the same sentence as `sentence`, else None."""
    if record is None or index >= len(record.sentences):
        return None
    found = record.sentences[index]
    return found if same_sentence(found, sentence) else None
