"""Per annotator: how often their value equals the gold value, how fast they decide, and how often
they cannot tell.

The agreement page's table and chart read `annotator_rows`. Values
are compared on the questions a person is asked (a gold value with a task) whose gold is
resolved; fact lists compare as the gold derivation compares them (`GoldValue.agrees_with_gold`:
the same fact clusters with the same citations, however worded).
"""

from __future__ import annotations

from statistics import median

from annotation.agreement.gold import FAST_MS, GoldValue
from annotation.work.labels import cant_tell_reason


def annotator_rows(values: list[GoldValue], events) -> list[dict]:
    """One row per annotator found in `values`, by name: `agrees_with_gold` (share, None when
    nothing was comparable), `compared`, `adjudicated_agree` / `adjudicated` (the same on the
    values an adjudicator ruled, where the annotator's own vote did not make the gold),
    `median_s` and `fast_share` over their timed label events (`events`: the store's current
    labels; response-level events and rulings are left out)."""
    names = sorted({name for v in values for name in v.values})
    tally = {name: [0, 0, 0, 0] for name in names}  # agree, compared, agree on ruled, ruled
    for v in values:
        if v.task is None or v.value is None:
            continue
        for name in v.values:
            same = v.agrees_with_gold(name)
            tally[name][0] += same
            tally[name][1] += 1
            if v.ruling is not None:
                tally[name][2] += same
                tally[name][3] += 1
    times: dict[str, list[int]] = {name: [] for name in names}
    for event in events:
        if (
            event.who in times
            and event.spent_ms is not None
            and not event.unit.is_response
            and not event.task.ruling
        ):
            times[event.who].append(event.spent_ms)
    rows = []
    for name in names:
        agree, compared, agree_ruled, ruled = tally[name]
        spent = times[name]
        rows.append(
            {
                "annotator": name,
                "agrees_with_gold": agree / compared if compared else None,
                "compared": compared,
                "adjudicated_agree": agree_ruled,
                "adjudicated": ruled,
                "median_s": median(spent) / 1000 if spent else None,
                "fast_share": sum(ms < FAST_MS for ms in spent) / len(spent) if spent else None,
                "decisions_timed": len(spent),
            }
        )
    return rows


def cant_tell_rates(events) -> dict[str, tuple[int, int]]:
    """{annotator: (their "can't tell" answers, their stage-3 answers)} over `events` (the store's
    current labels); rulings and tasks that are not a known decision are left out."""
    rates: dict[str, list[int]] = {}
    for event in events:
        task = event.task
        if task.ruling or task.stage != 3:
            continue
        tally = rates.setdefault(event.who, [0, 0])
        tally[0] += cant_tell_reason(event.value) is not None
        tally[1] += 1
    return {name: (count, total) for name, (count, total) in sorted(rates.items())}
