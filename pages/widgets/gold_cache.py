"""The project's gold set for the pages that show it (disputes, agreement), kept in the person's
session between reruns and brought up to date by re-deriving only the responses with a new event.

A ruling touches one response. Its value is patched into the kept set at once (`note_ruling`: the
disputes list moves on without waiting), and that response is re-derived on a background thread
(`gold_from_store(store, [response])`); the next read splices the result in, so what a ruling
changes further down (a sentence ruled not verifiable loses its facts' disputes) shows a moment
later. Events written by others since are re-derived the same way, but at once. `exact=True`
(downloads) waits for the background work. The revision is the event log's newest id, the
records' newest id and the gold settings; anything else new (an import, another rule) derives
everything again. `current_gold` is the one entry point, so a project-wide state cached per
revision can replace this module without touching its callers.
"""

from __future__ import annotations

import dataclasses
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field

import streamlit as st

from annotation.agreement.gold import GoldSet, GoldValue, Ruling, gold_from_store, gold_settings

CACHE_KEY = "gold_cache"
MOST_RESPONSES_SPLICED = 8  # beyond this many changed responses, one whole derivation is as quick
_BACKGROUND = ThreadPoolExecutor(max_workers=1, thread_name_prefix="gold-rederive")


@dataclass
class KeptGold:
    """`gold` reflects every event up to `event_id`: exactly up to `exact_id`, and the rulings after
    it (`patches`) by their own value only, until `pending` (their responses re-derived) is in."""

    project: str
    settings: tuple[str, bool]
    records_id: int
    event_id: int
    gold: GoldSet
    exact_id: int = 0
    # (event id, response id, value key, ruling) of the rulings patched in since `exact_id`
    patches: list[tuple[int, str, str, Ruling]] = field(default_factory=list)
    pending: tuple[int, set[str], Future] | None = None  # (exact up to, responses, their gold)


def splice(kept: GoldSet, fresh: GoldSet, changed: set[str]) -> GoldSet | None:
    """`kept` with the values and records of the `changed` responses replaced by `fresh`'s (in their
    place, so the list keeps its order); None when a changed response is new to `kept` (its place
    is unknown: derive everything)."""
    known = {r.response_id for r in kept.records}
    if any(r.response_id not in known for r in fresh.records):
        return None
    values, placed = [], set()
    for value in kept.values:
        rid = value.response_id
        if rid not in changed:
            values.append(value)
        elif rid not in placed:
            placed.add(rid)
            values.extend(v for v in fresh.values if v.response_id == rid)
    by_id = {r.response_id: r for r in fresh.records}
    records = [by_id.get(r.response_id) if r.response_id in changed else r for r in kept.records]
    return GoldSet(kept.rule, kept.auto_accept_unanimous, values, [r for r in records if r is not None])


def ruled(value: GoldValue, ruling: Ruling) -> GoldValue:
    """`value` as a ruling leaves it (what a derivation would give it, its own value only)."""
    compared = ruling.value
    if value.clusters is not None and isinstance(ruling.value, list):
        compared = value.clusters.signature_of(ruling.value)
    return dataclasses.replace(
        value, ruling=ruling, value=ruling.value, provenance=ruling.provenance, gold_compared=compared
    )


def _patched(gold: GoldSet, patches) -> GoldSet:
    by_key = {key: ruling for _, _, key, ruling in patches}
    values = [ruled(v, by_key[v.key]) if v.task is not None and v.key in by_key else v for v in gold.values]
    return GoldSet(gold.rule, gold.auto_accept_unanimous, values, gold.records)


def note_ruling(store, value: GoldValue, ruling: Ruling) -> None:
    """After `ruling` (its event just written) on `value`: patch the kept set and re-derive the
    response in the background. Does nothing when someone else wrote in between (the next read
    re-derives what changed)."""
    kept: KeptGold | None = st.session_state.get(CACHE_KEY)
    if kept is None or kept.project != str(store.directory) or ruling.event_id != kept.event_id + 1:
        return
    kept.patches.append((ruling.event_id, value.response_id, value.key, ruling))
    kept.gold = _patched(kept.gold, [kept.patches[-1]])
    kept.event_id = ruling.event_id
    _start_background(store, kept)


def _start_background(store, kept: KeptGold) -> None:
    if kept.pending is not None or not kept.patches:
        return
    responses = {response_id for _, response_id, _, _ in kept.patches}
    upto = kept.patches[-1][0]
    kept.pending = (upto, responses, _BACKGROUND.submit(gold_from_store, store, responses))


def _fold_in(store, kept: KeptGold, wait: bool) -> None:
    """Splice the background re-derivation in when it is done (or `wait` for it), re-apply the
    rulings made since it started, and start the next one for those."""
    while kept.pending is not None and (wait or kept.pending[2].done()):
        upto, responses, future = kept.pending
        kept.pending = None
        spliced = splice(kept.gold, future.result(), responses)
        if spliced is None:  # cannot happen for a response already kept; derive afresh to be sure
            kept.gold, kept.patches = gold_from_store(store), []
            kept.exact_id = kept.event_id = store.events.last_id()
            return
        kept.patches = [p for p in kept.patches if p[0] > upto]
        kept.gold = _patched(spliced, kept.patches)
        kept.exact_id = upto
        _start_background(store, kept)


def current_gold(store, *, exact: bool = False) -> GoldSet:
    """The gold set as of now (what `gold_from_store(store)` returns), from the session's kept one
    when only a few responses changed since; `exact=False` may show a ruling just made by its own
    value before its response is re-derived. Raises ValueError on an unknown gold rule."""
    settings = gold_settings(store)
    project, records_id, event_id = str(store.directory), store.last_record_id(), store.events.last_id()
    kept: KeptGold | None = st.session_state.get(CACHE_KEY)
    if kept is not None and (kept.project, kept.settings, kept.records_id) == (project, settings, records_id):
        _fold_in(store, kept, wait=exact)
        if kept.event_id == event_id and (kept.pending is None or not exact):
            return kept.gold
        _fold_in(store, kept, wait=True)  # others wrote too: finish ours, then re-derive theirs
        changed = store.events.response_ids_since(kept.event_id)
        if len(changed) <= MOST_RESPONSES_SPLICED:
            spliced = splice(kept.gold, gold_from_store(store, changed), changed)
            if spliced is not None:
                kept.gold, kept.event_id, kept.exact_id = spliced, event_id, event_id
                return kept.gold
    gold = gold_from_store(store)
    st.session_state[CACHE_KEY] = KeptGold(project, settings, records_id, event_id, gold, event_id)
    return gold
