"""Records → MURGAT-S rows over the sweep's responses: one float vector per (source, precision mode),
NaN where the source has no record or the response's MURGAT-S is undetermined (PROTOCOL §3: left
out of every correlation, never 0), with the undetermined responses listed."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from annotation.protocol.errors import InputError, Problem
from annotation.protocol.records import EvaluationRecord
from calibration.scoring.kept_scores import kept_scores
from calibration.scoring.murgat_s import score_form_modes


@dataclass
class ScoreRows:
    """`values[(source, mode)]`: MURGAT-S over the response ids (NaN: missing or undetermined);
    `undetermined[(source, mode)]`: the response ids whose MURGAT-S is undetermined, in id order."""

    values: dict[tuple[str, str], np.ndarray]
    undetermined: dict[tuple[str, str], list[str]]


def score_rows(
    records_by_source: dict[str, dict[str, EvaluationRecord]],
    ids: list[str],
    modes,
    forms: dict[tuple[str, str], list] | None = None,
) -> ScoreRows:
    """Score every source's records in every mode over `ids` (records of other responses are
    ignored): a record whose score form is in `forms` ({(source, response): form}, stored beside
    the record: annotation/store/record_form.py) from that form, the same numbers without walking
    the record. Raises InputError naming the source, response, sentence and fact of a record the
    scorer rejects."""
    column = {rid: i for i, rid in enumerate(ids)}
    forms = forms or {}
    values: dict[tuple[str, str], np.ndarray] = {}
    undetermined: dict[tuple[str, str], list[str]] = {}
    for source, records in records_by_source.items():
        for mode in modes:
            values[(source, mode)] = np.full(len(ids), np.nan)
            undetermined[(source, mode)] = []
        scores, unformed = [], []
        for rid, record in records.items():
            form = forms.get((source, rid)) if rid in column else None
            if form is None:
                if rid in column:
                    unformed.append(record)
                continue
            try:
                scores.extend(score_form_modes(rid, source, form, modes))
            except ValueError:  # not a form after all (the file was edited): the record decides
                unformed.append(record)
        try:
            scores.extend(kept_scores(unformed, modes))
        except ValueError as exc:  # the scorer names response, sentence and fact
            raise InputError(Problem(f"<{source}>", None, "sentences", str(exc))) from None
        for score in scores:
            key = (source, score.precision_mode)
            if score.undetermined:
                undetermined[key].append(score.response_id)
            else:
                values[key][column[score.response_id]] = score.murgat_s
    for listed in undetermined.values():
        listed.sort(key=column.get)
    return ScoreRows(values, undetermined)
