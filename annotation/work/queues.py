"""Who labels which response: assignment with overlap, progress, resume.

Assignment is computed, not stored (`assignment`): the pool (project setting `pool`, default every
account with role annotator) sorted by name, and the responses to annotate in order
(`sample_queues.annotation_response_ids`: queued samples first, then the rest in import order,
or only the queued ones when the project says so). A response's people are those who have started
it (any event on it but a ruling), whatever the pool has become — their work is never orphaned —
and, while they are fewer than `overlap`, as many more pool members as it still needs: the least
loaded so far, ties broken round robin from the response's turn ((p × overlap) mod n at position
p). Before anyone starts, that is plain round robin (loads differ by at most one); when the pool
changes mid-campaign, only the work nobody has started moves, no response gets more people than
`overlap` (unless more started it), and a newcomer takes the remaining work before someone who
has already finished theirs. Done = a live `response/done` label; set aside = a `skip` event not
undone.

The queries read the store's event log; they are read-only.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from annotation.protocol.ids import DONE_TASK, Task, Unit
from annotation.work.sample_queues import annotation_response_ids
from annotation.work.session import Question, ResponseWork, normalise_campaign_mode, open_response

DEFAULT_OVERLAP = 3


@dataclass(frozen=True)
class Progress:
    """One person's (or everyone's) queue: assigned responses, how many done or set aside."""

    who: str
    assigned: int
    done: int
    skipped: int

    @property
    def remaining(self) -> int:
        return self.assigned - self.done - self.skipped

    def to_dict(self) -> dict:
        return {
            "who": self.who,
            "assigned": self.assigned,
            "done": self.done,
            "skipped": self.skipped,
            "remaining": self.remaining,
        }


def overlap(store) -> int:
    """Annotators per response (setting `overlap`, default 3, at least 1)."""
    try:
        return max(1, int(store.get_setting("overlap", DEFAULT_OVERLAP)))
    except (TypeError, ValueError):
        return DEFAULT_OVERLAP


def pool(store) -> list[str]:
    """The annotators who receive responses, sorted: setting `pool` (names of existing
    accounts; unknown names are ignored), else every account whose role is annotator."""
    known = {u.name: u.role for u in store.users()}
    chosen = store.get_setting("pool")
    if chosen is None:
        return sorted(name for name, role in known.items() if role == "annotator")
    return sorted({str(name) for name in chosen if str(name) in known})


def is_assigned(position: int, member_index: int, pool_size: int, per_response: int) -> bool:
    """Whether pool member `member_index` (0-based, of `pool_size`) gets the response at
    `position` when each response goes to `per_response` members round robin."""
    if pool_size <= 0:
        return False
    per_response = min(per_response, pool_size)
    return (member_index - position * per_response) % pool_size < per_response


def assignment(
    response_ids: list[str], members: list[str], per_response: int, started: dict[str, set[str]]
) -> dict[str, list[str]]:
    """{pool member: their responses among `response_ids`, in order} (module doc): each response's
    `started` people (who have an event on it) keep it; while they are fewer than `per_response`,
    the least loaded of the other `members` join it, ties in round-robin order from the response's
    turn. Without anyone started, `is_assigned`'s round robin."""
    n = len(members)
    index = {name: i for i, name in enumerate(members)}
    load, out = [0] * n, {name: [] for name in members}
    for position, rid in enumerate(response_ids):
        people = started.get(rid, ())
        for name in people:
            if name in index:
                load[index[name]] += 1
                out[name].append(rid)
        need = per_response - len(people)
        if need <= 0 or not n:
            continue
        turn = position * min(per_response, n)
        free = [(load[(turn + k) % n], k) for k in range(n) if members[(turn + k) % n] not in people]
        for _, k in sorted(free)[:need]:
            load[(turn + k) % n] += 1
            out[members[(turn + k) % n]].append(rid)
    return out


def done_response_ids(store, who: str) -> set[str]:
    return store.events.labelled_response_ids(who, Unit.response(), DONE_TASK)


def skipped_response_ids(store, who: str) -> dict[str, str]:
    """{response_id: reason} of the responses `who` set aside and has not taken back."""
    return {e.response_id: (e.value or {}).get("reason", "") for e in store.events.live_skips(who)}


def unskip(store, who: str, response_id: str) -> int:
    """Take back `who`'s skips of a response (an undo event per live skip); returns how many."""
    skips = store.events.live_skips(who, response_id)
    for skip in skips:
        store.events.append(who, response_id, Unit.response(), Task("skip"), kind="undo", ref=skip.id)
    return len(skips)


def assigned_response_ids(
    store,
    who: str,
    *,
    response_ids: list[str] | None = None,
    members: list[str] | None = None,
    started: dict[str, set[str]] | None = None,
) -> list[str]:
    """`who`'s responses in the order asked (`assignment`), then any they started that are no longer
    among the responses to annotate. `response_ids` (the responses to annotate, in order),
    `members` and `started` (`EventLog.people_by_response`) may be passed to avoid re-reading them
    for many people."""
    ids = annotation_response_ids(store) if response_ids is None else response_ids
    members = pool(store) if members is None else members
    started = store.events.people_by_response() if started is None else started
    mine = {rid for rid, people in started.items() if who in people}
    listed = set(ids)
    # worked on before it left the responses to annotate: still theirs
    outside = (
        [rid for rid in store.response_ids() if rid in mine and rid not in listed] if mine - listed else []
    )
    if who not in members:
        return [rid for rid in ids if rid in mine] + outside
    return assignment(ids, members, overlap(store), started)[who] + outside


def next_unfinished(
    store, who: str, *, assigned: list[str] | None = None, exclude: set[str] = frozenset()
) -> str | None:
    """The first of `who`'s responses (import order) neither done nor set aside nor in
    `exclude` — where a returning annotator resumes. None when the queue is empty."""
    assigned = assigned_response_ids(store, who) if assigned is None else assigned
    finished = done_response_ids(store, who) | set(skipped_response_ids(store, who)) | set(exclude)
    return next((rid for rid in assigned if rid not in finished), None)


def progress(store, who: str, *, assigned: list[str] | None = None) -> Progress:
    """done / skipped / assigned for one person (done and skipped counted within assigned)."""
    assigned = assigned_response_ids(store, who) if assigned is None else assigned
    mine = set(assigned)
    done = done_response_ids(store, who) & mine
    skipped = set(skipped_response_ids(store, who)) & mine - done
    return Progress(who, len(assigned), len(done), len(skipped))


def team_progress(store) -> tuple[list[Progress], Progress]:
    """Progress of every pool member and of any other annotator who labelled, and the overall sum
    (who = 'overall'); adjudicators' rulings and admins' events are no annotation progress. Reads
    the response list and the pool once."""
    ids = annotation_response_ids(store)
    members = pool(store)
    started = store.events.people_by_response()
    roles = {u.name: u.role for u in store.users()}
    labellers = {who for who in store.events.event_authors() if roles.get(who, "annotator") == "annotator"}
    rows = [
        progress(
            store,
            who,
            assigned=assigned_response_ids(store, who, response_ids=ids, members=members, started=started),
        )
        for who in sorted(set(members) | labellers)
    ]
    total = Progress(
        "overall", sum(r.assigned for r in rows), sum(r.done for r in rows), sum(r.skipped for r in rows)
    )
    return rows, total


@dataclass
class Queue:
    """One person's queue as read once: their responses in order, those done and those set aside
    (with the reason), and — in a staged campaign — the gold records the questions follow."""

    who: str
    assigned: list[str]
    done: set[str]
    skipped: dict[str, str]
    gold: dict = field(default_factory=dict)

    @property
    def progress(self) -> Progress:
        mine = set(self.assigned)
        done = self.done & mine
        return Progress(self.who, len(mine), len(done), len(set(self.skipped) & mine - done))


def read_queue(store, who: str, gold: dict | None = None) -> Queue:
    """`who`'s queue now; `gold` ({response_id: gold record}) for a staged campaign."""
    return Queue(
        who,
        assigned_response_ids(store, who),
        done_response_ids(store, who),
        skipped_response_ids(store, who),
        gold or {},
    )


@dataclass(frozen=True)
class NextItem:
    """What to show: the response and its open question with the person's work on it (all None
    when the queue is finished), and the responses that wait for gold (staged)."""

    response_id: str | None
    question: Question | None
    work: ResponseWork | None = None
    waiting: tuple[str, ...] = ()

    @property
    def labels(self) -> dict:
        return {} if self.work is None else self.work.labels


def next_item(
    store, queue: Queue, mode: str, current: str | None = None, known: ResponseWork | None = None
) -> NextItem:
    """The first open question of `current` (when it is still open), else of the first response of
    the queue that is neither done, set aside, complete nor waiting for gold. `known` is the
    person's work on a response as an answer left it (`session.answer`): used as it is, not read
    again — unless it was planned in another campaign mode (an admin changed it since the page was
    drawn): then it is read and planned again in `mode`. Reads only; a response found complete
    without its `done` mark counts as finished here (the mark is written by the answer that
    completes it)."""
    if known is not None and known.mode != normalise_campaign_mode(mode):
        known = None
    waiting: list[str] = []
    finished = queue.done | set(queue.skipped)
    candidates = ([current] if current is not None else []) + queue.assigned
    for rid in dict.fromkeys(candidates):
        if rid in finished:
            continue
        if known is not None and known.response_id == rid:
            work = known
        else:
            work = open_response(store, queue.who, rid, mode, queue.gold.get(rid))
        result = work.next
        if isinstance(result, Question):
            return NextItem(rid, result, work, tuple(waiting))
        if result is not None:
            waiting.append(rid)
    return NextItem(None, None, None, tuple(waiting))
