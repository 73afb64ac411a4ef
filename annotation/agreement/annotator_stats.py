"""Per annotator: how often their value equals the gold value, how fast they decide, how often
they cannot tell, and how often their stage-3 answers on one fact cannot all be true.

The agreement page's table and chart read `annotator_rows`. Values
are compared on the questions a person is asked (a gold value with a task) whose gold is
resolved; fact lists compare as the gold derivation compares them (`GoldValue.agrees_with_gold`:
the same fact clusters with the same citations, however worded).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from statistics import median

from annotation.agreement.gold import FAST_MS, GoldValue
from annotation.protocol.derivation import fact_citation_validity
from annotation.protocol.records import Fact, Sentence
from annotation.work.labels import cant_tell_reason


@dataclass
class AnnotatorTally:
    """One annotator's counts behind their row (`annotator_rows`), over some responses: values
    equal to gold among those compared, the same among the ruled ones, and their decision times."""

    agree: int = 0
    compared: int = 0
    agree_ruled: int = 0
    ruled: int = 0
    times: list[int] = field(default_factory=list)


def annotator_tallies(values: list[GoldValue], events) -> dict[str, AnnotatorTally]:
    """{annotator: AnnotatorTally} over `values` and `events` (see `annotator_rows`); everyone with a
    timed decision among the events is tallied, whether or not they have a value here, so that
    tallies of separate responses add up to the tally of all of them (`annotator_rows_of`)."""
    tally: dict[str, AnnotatorTally] = {}
    for v in values:
        if v.task is None or v.value is None:
            continue
        for name in v.values:
            same = v.agrees_with_gold(name)
            mine = tally.setdefault(name, AnnotatorTally())
            mine.agree += same
            mine.compared += 1
            if v.ruling is not None:
                mine.agree_ruled += same
                mine.ruled += 1
    for event in events:
        if event.spent_ms is not None and not event.unit.is_response and not event.task.ruling:
            tally.setdefault(event.who, AnnotatorTally()).times.append(event.spent_ms)
    return tally


def annotator_rows_of(tallies, names) -> list[dict]:
    """The rows (`annotator_rows`) of `names`, sorted, from tallies of separate responses
    ({annotator: AnnotatorTally} each, `annotator_tallies`) added up."""
    total = {name: AnnotatorTally() for name in names}
    for part in tallies:
        for name, mine in part.items():
            if name in total:
                into = total[name]
                into.agree += mine.agree
                into.compared += mine.compared
                into.agree_ruled += mine.agree_ruled
                into.ruled += mine.ruled
                into.times.extend(mine.times)
    rows = []
    for name in sorted(total):
        mine = total[name]
        spent = mine.times
        rows.append(
            {
                "annotator": name,
                "agrees_with_gold": mine.agree / mine.compared if mine.compared else None,
                "compared": mine.compared,
                "adjudicated_agree": mine.agree_ruled,
                "adjudicated": mine.ruled,
                "median_s": median(spent) / 1000 if spent else None,
                "fast_share": sum(ms < FAST_MS for ms in spent) / len(spent) if spent else None,
                "decisions_timed": len(spent),
            }
        )
    return rows


def annotator_rows(values: list[GoldValue], events) -> list[dict]:
    """One row per annotator found in `values`, by name: `agrees_with_gold` (share, None when
    nothing was comparable), `compared`, `adjudicated_agree` / `adjudicated` (the same on the
    values an adjudicator ruled, where the annotator's own vote did not make the gold),
    `median_s` and `fast_share` over their timed label events (`events`: the store's current
    labels; response-level events and rulings are left out)."""
    return annotator_rows_of([annotator_tallies(values, events)], {name for v in values for name in v.values})


def cant_tell_tallies(events) -> dict[str, tuple[int, int]]:
    """{annotator: (their "can't tell" answers, their stage-3 answers)} over `events`, unsorted
    (`cant_tell_rates`)."""
    rates: dict[str, list[int]] = {}
    for event in events:
        task = event.task
        if task.ruling or task.stage != 3:
            continue
        tally = rates.setdefault(event.who, [0, 0])
        tally[0] += cant_tell_reason(event.value) is not None
        tally[1] += 1
    return {name: (count, total) for name, (count, total) in rates.items()}


def counts_added(tallies) -> dict[str, tuple[int, int]]:
    """{annotator: (count, out of)} of the tallies of separate responses ({annotator: (count, out
    of)} each: `cant_tell_tallies`, `impossible_tallies`) added up, by name."""
    rates: dict[str, tuple[int, int]] = {}
    for part in tallies:
        for name, (count, total) in part.items():
            before = rates.get(name, (0, 0))
            rates[name] = (before[0] + count, before[1] + total)
    return dict(sorted(rates.items()))


def cant_tell_rates(events) -> dict[str, tuple[int, int]]:
    """{annotator: (their "can't tell" answers, their stage-3 answers)} over `events` (the store's
    current labels); rulings and tasks that are not a known decision are left out."""
    return counts_added([cant_tell_tallies(events)])


def impossible_answers(fact: Fact, sentence: Sentence) -> bool:
    """Do a person's stage-3 answers on `fact` contradict each other? The cited segments together
    do not support it (`all` no) while one valid citation alone does (`alone[j]` yes) or the others
    without one still do (`without[j]` yes): a set of segments supports whatever a part of it does.
    An invalid citation's answers do not count (PROTOCOL §2 overrules them), nor does a fact whose
    citation indices point nowhere."""
    given = fact.entailment
    if given is None or given.all is not False:
        return False
    try:
        validity = fact_citation_validity(fact, sentence)
    except ValueError:  # an index its sentence lacks
        return False
    return any(
        valid and value is True
        for answers in (given.alone, given.without)
        for valid, value in zip(validity, answers or (), strict=False)
    )


def impossible_tallies(by_name: dict) -> dict[str, tuple[int, int]]:
    """{annotator: (facts whose answers contradict each other, facts they answered `all` on)} over
    one response's annotator records ({annotator: record}); an annotator without such a fact is
    left out."""
    out = {}
    for name, record in by_name.items():
        impossible = answered = 0
        for sentence in record.sentences:
            for fact in sentence.facts:
                if fact.entailment is not None and fact.entailment.all is not None:
                    answered += 1
                    impossible += impossible_answers(fact, sentence)
        if answered:
            out[name] = (impossible, answered)
    return out
