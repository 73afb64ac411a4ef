"""Fact clusters: the annotators' atomic facts of one sentence, grouped so that each group is one fact
however each person worded it. Gold (stage 2 and 3), the disputes and the decomposition agreement
all read the same clusters, so they never disagree about what counts as the same fact.

For each sentence, the annotators' fact lists are taken in name order; each person's facts are
placed on the clusters built so far by a one-to-one Hungarian assignment (`alignment.best_pairs`)
on the mean similarity to a cluster's members, and a fact no cluster takes starts its own. Two
facts can be one only when their citation subsets overlap and their texts are rewordings
(`paraphrase.paraphrase_similarity` ≥ SAME_FACT_THRESHOLD) — or a person said so: `answered(a, b)`
gives the adjudicator's "Same fact?" answer on two wordings (True, False or None), which wins over
the similarity (`same_fact.py`). A person has at most one fact in a cluster.

Two clusters whose similarity falls in the uncertain band (between ASK_THRESHOLD and
SAME_FACT_THRESHOLD), with no author in common, overlapping citations and no answer yet, are a
*doubt*: kept apart for now and listed (`SentenceClusters.doubts`) as a "Same fact?" question on
their closest two wordings.

A cluster keeps every member's wording with its author (provenance), a canonical text — the most
typical wording: the member whose meaning vector (its content words' mean) is closest to the
members' mean, never one with a misspelt word when a member spells it right (ties: the wording most
members used, then the first author's) — and the citation subset most members gave (ties: the canonical member's). A cluster
whose canonical text states the canonical texts of two or more other clusters, none of whose
authors it has, is a *combined* fact: people disagree on how to decompose, not on what is there.

An annotator's *signature* for a sentence — the set of (cluster, citation subset) they stated — is
what their decomposition means in substance: two annotators agree on a sentence exactly when their
signatures are equal, however they worded their facts.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from annotation.agreement import meaning
from annotation.agreement.alignment import best_pairs, normalise_fact_text
from annotation.agreement.paraphrase import (
    ASK_THRESHOLD,
    SAME_FACT_THRESHOLD,
    contains,
    meaning_texts,
    misspelt_counts,
    paraphrase_similarity,
)
from annotation.protocol.records import EvaluationRecord, Fact, Sentence

Signature = frozenset[tuple[int, tuple[int, ...]]]
Answered = Callable[[str, str], "bool | None"]


def _unanswered(_a: str, _b: str) -> bool | None:
    return None


@dataclass(frozen=True)
class Member:
    """One annotator's fact in a cluster, as they wrote it, with their sentence (for derivation)."""

    author: str
    fact: Fact
    sentence: Sentence

    def __post_init__(self):
        # `citations`, its fact's sorted distinct citations: asked for every comparison the member
        # takes part in, so set once here (a cached_property takes a lock on each first ask)
        object.__setattr__(self, "citations", tuple(sorted(set(self.fact.citations))))

    @property
    def text(self) -> str:
        return self.fact.text


@dataclass(frozen=True)
class FactCluster:
    """One fact of a sentence as the annotators stated it (module doc). `index` is its place among
    the sentence's clusters."""

    index: int
    members: tuple[Member, ...]
    canonical: str
    citations: tuple[int, ...]

    @property
    def authors(self) -> tuple[str, ...]:
        return tuple(m.author for m in self.members)

    @property
    def support(self) -> int:
        return len(self.members)

    @property
    def wordings(self) -> tuple[tuple[str, str, tuple[int, ...]], ...]:
        """(author, text, citation subset) of every member, by author."""
        return tuple((m.author, m.text, m.citations) for m in self.members)

    @property
    def citations_differ(self) -> bool:
        return len({m.citations for m in self.members}) > 1

    def member(self, author: str) -> Member | None:
        return next((m for m in self.members if m.author == author), None)


@dataclass(frozen=True)
class Combination:
    """Cluster `combined` states what clusters `covered` state separately."""

    combined: int
    covered: tuple[int, ...]


@dataclass(frozen=True)
class Doubt:
    """Clusters `first` and `second` may be one fact: a "Same fact?" question on two wordings."""

    first: int
    second: int
    text_a: str
    text_b: str


@dataclass(frozen=True)
class SentenceClusters:
    """The clusters of one sentence; `decomposers` are the annotators who gave it facts; `doubts`
    the pairs of clusters only a person can tell apart (module doc)."""

    sentence: int
    decomposers: tuple[str, ...] = ()
    clusters: tuple[FactCluster, ...] = ()
    combinations: tuple[Combination, ...] = field(default=())
    doubts: tuple[Doubt, ...] = field(default=())
    answered: Answered = field(default=_unanswered, compare=False, repr=False)

    def signature(self, author: str) -> Signature:
        """The (cluster index, citation subset) pairs `author` stated (module doc)."""
        return frozenset(
            (c.index, m.citations) for c in self.clusters for m in c.members if m.author == author
        )

    def signatures(self) -> dict[str, Signature]:
        """{author: `signature(author)`} of every author with a member, in one pass."""
        found: dict[str, set] = {}
        for c in self.clusters:
            for m in c.members:
                found.setdefault(m.author, set()).add((c.index, m.citations))
        return {author: frozenset(stated) for author, stated in found.items()}

    def majority(self) -> list[FactCluster]:
        """The clusters more than half of the decomposers stated."""
        return [c for c in self.clusters if c.support * 2 > len(self.decomposers)]

    def find(self, text: str, citations) -> FactCluster | None:
        """The cluster a fact worded `text` with `citations` belongs to: the one with a member worded
        the same (normalised) with the same subset, else the one it is most similar to (mean over
        members, at least SAME_FACT_THRESHOLD, citations overlapping); None when there is none."""
        subset = tuple(sorted(set(citations)))
        plain = normalise_fact_text(text)
        for cluster in self.clusters:
            if any(normalise_fact_text(m.text) == plain and m.citations == subset for m in cluster.members):
                return cluster
        scores = [_linkage(text, subset, cluster.members, self.answered) for cluster in self.clusters]
        best = int(np.argmax(scores)) if scores else -1
        return self.clusters[best] if scores and scores[best] >= SAME_FACT_THRESHOLD else None

    def signature_of(self, facts: list[dict]) -> Signature:
        """The signature of any fact list ({'text', 'citations'}), e.g. a ruled one: a fact no
        cluster takes counts as a cluster of its own (index −1 − its position)."""
        out = set()
        for position, fact in enumerate(facts):
            subset = tuple(sorted(set(fact.get("citations", []))))
            cluster = self.find(fact["text"], subset)
            out.add((cluster.index if cluster is not None else -1 - position, subset))
        return frozenset(out)


def _overlap(a: tuple[int, ...], b: tuple[int, ...]) -> bool:
    return not a or not b or not set(a).isdisjoint(b)


def pair_similarity(
    text_a: str,
    cites_a: tuple[int, ...],
    text_b: str,
    cites_b: tuple[int, ...],
    answered: Answered = _unanswered,
) -> float:
    """How alike two facts are: 0 when their citation subsets do not overlap (neither empty); else
    1 or 0 when a person answered whether the two wordings are one fact; else their texts'
    paraphrase similarity."""
    if not _overlap(cites_a, cites_b):
        return 0.0
    answer = answered(text_a, text_b)
    if answer is not None:
        return 1.0 if answer else 0.0
    return paraphrase_similarity(text_a, text_b)


def _linkage(text: str, cites: tuple[int, ...], members, answered: Answered = _unanswered) -> float:
    """How alike a fact is to a cluster: 0 when a person said it is not the same fact as a member,
    1 when they said it is, else the mean similarity to the members (average linkage)."""
    if answered is not _unanswered:
        answers = {answered(text, m.text) for m in members if _overlap(cites, m.citations)}
        if False in answers:
            return 0.0
        if True in answers:
            return 1.0
    total = 0  # pair_similarity of each member without answers, summed in member order
    for m in members:
        total += paraphrase_similarity(text, m.text) if _overlap(cites, m.citations) else 0.0
    return total / len(members)


def _group(lists: dict[str, list[Member]], answered: Answered) -> list[list[Member]]:
    """Each author's members placed on the groups so far by a Hungarian assignment (module doc)."""
    same = _same_facts_each(lists, answered)
    if same is not None:
        return same
    first, *others = sorted(lists)
    groups: list[list[Member]] = [[member] for member in lists[first]]  # nothing to place them on yet
    for author in others:
        members = lists[author]
        similarity = np.array(
            [[_linkage(m.text, m.citations, group, answered) for group in groups] for m in members]
        ).reshape(len(members), len(groups))
        placed = {row: column for row, column, _ in best_pairs(similarity, SAME_FACT_THRESHOLD)}
        for row, member in enumerate(members):
            if row in placed:
                groups[placed[row]].append(member)
            else:
                groups.append([member])
    return groups


def _same_facts_each(lists: dict[str, list[Member]], answered: Answered) -> list[list[Member]] | None:
    """The groups `_group` makes when every author stated the same facts — the same wordings with
    the same citation subsets, none twice — found without an assignment, or None when they did not.
    Each fact then scores 1 with its own group, so the assignment is the identity unless two facts of
    one list are as alike (1): only those pairs are compared. With a "Same fact?" answer in play,
    the general way."""
    if answered is not _unanswered or not lists:
        return None
    authors = sorted(lists)
    first = lists[authors[0]]
    place = {(m.text, m.citations): k for k, m in enumerate(first)}
    if len(place) != len(first):
        return None
    groups = [[m] for m in first]
    for position, author in enumerate(authors[1:], start=1):
        theirs = lists[author]
        if len(theirs) != len(first):
            return None
        for member in theirs:
            k = place.get((member.text, member.citations))
            if k is None or len(groups[k]) != position:
                return None  # a fact the first did not state, or one stated twice
            groups[k].append(member)
    for k, a in enumerate(first):
        for b in first[k + 1 :]:
            if pair_similarity(a.text, a.citations, b.text, b.citations) >= 1.0:
                return None  # two facts as alike: the assignment decides between them
    return groups


@lru_cache(maxsize=1 << 16)  # a wording is compared with every cluster it may join
def _text_vector(text: str) -> np.ndarray:
    """A wording's meaning: the unit mean of its content words' vectors (zero without any)."""
    words = meaning_texts(text)
    if not words:
        return np.zeros(meaning.vectors(["a"]).shape[1])
    rows = meaning.vectors(words)
    mean = np.add.reduce(rows, axis=0) / len(rows)  # rows.mean(axis=0), without its per-call cost
    norm = float(np.linalg.norm(mean))
    return mean / norm if norm else mean


def _canonical(members: list[Member]) -> Member:
    """The most typical member (module doc): fewest words another member spells right, then the
    closest to the mean meaning vector, then the wording most members used, then the first."""
    texts = [m.text for m in members]
    if all(text == texts[0] for text in texts):  # one wording (every rank equal): the first
        return members[0]
    vectors = np.array([_text_vector(t) for t in texts])
    typical = (vectors @ (np.add.reduce(vectors, axis=0) / len(vectors))).tolist()
    ranks = [
        (-misspelt, round(closeness, 6))
        for misspelt, closeness in zip(misspelt_counts(texts), typical, strict=True)
    ]
    best = max(ranks)
    if ranks.count(best) == 1:  # no tie for the later ranks to break (most clusters)
        return members[ranks.index(best)]
    used = Counter(normalise_fact_text(t) for t in texts)
    return members[
        max(range(len(members)), key=lambda p: (*ranks[p], used[normalise_fact_text(texts[p])], -p))
    ]


def _cluster(index: int, members: list[Member]) -> FactCluster:
    members = sorted(members, key=lambda m: m.author)
    canonical = _canonical(members)
    if all(m.citations == canonical.citations for m in members):  # one subset (most clusters): no counting
        return FactCluster(index, tuple(members), canonical.text, canonical.citations)
    subsets = Counter(m.citations for m in members)
    top = max(subsets.values())
    citations = canonical.citations if subsets[canonical.citations] == top else subsets.most_common(1)[0][0]
    return FactCluster(index, tuple(members), canonical.text, citations)


def _combinations(clusters: list[FactCluster]) -> tuple[Combination, ...]:
    """Clusters whose canonical text states two or more other clusters' (module doc)."""
    if len(clusters) < 3:  # a whole and two parts at least
        return ()
    authors = {id(c): frozenset(c.authors) for c in clusters}  # asked for every pair
    out = []
    for whole in clusters:
        covered = [
            part
            for part in clusters
            if part is not whole
            and authors[id(part)].isdisjoint(authors[id(whole)])
            and _overlap(part.citations, whole.citations)
            and contains(whole.canonical, part.canonical)
        ]
        # only the largest parts: a part that another covered part states adds nothing
        largest = [
            p for p in covered if not any(q is not p and contains(q.canonical, p.canonical) for q in covered)
        ]
        if len(largest) >= 2:
            out.append(Combination(whole.index, tuple(p.index for p in largest)))
    return tuple(out)


def _doubts(clusters: list[FactCluster], answered: Answered) -> tuple[Doubt, ...]:
    """Pairs of clusters in the uncertain band, unanswered (module doc), each on its closest two
    wordings."""
    authors = [frozenset(c.authors) for c in clusters]  # asked for every pair
    out = []
    for x, first in enumerate(clusters):
        for y, second in enumerate(clusters[x + 1 :], start=x + 1):
            if not authors[x].isdisjoint(authors[y]) or not _overlap(first.citations, second.citations):
                continue
            pairs = [(a, b) for a in first.members for b in second.members]
            if any(answered(a.text, b.text) is not None for a, b in pairs):
                continue  # a person already said: asked once
            scored = [
                (pair_similarity(a.text, a.citations, b.text, b.citations), a.text, b.text) for a, b in pairs
            ]
            mean = float(np.mean([score for score, _, _ in scored]))
            best = max(scored, key=lambda found: found[0])
            if ASK_THRESHOLD <= max(mean, best[0]) < SAME_FACT_THRESHOLD:
                out.append(Doubt(first.index, second.index, best[1], best[2]))
    return tuple(out)


def cluster_sentence(
    index: int, facts: dict[str, tuple[list[Fact], Sentence]], answered: Answered | None = None
) -> SentenceClusters:
    """The clusters of sentence `index` from each annotator's (facts, sentence); annotators with no
    facts are not decomposers. `answered(a, b)`: a person's "Same fact?" answer on two wordings."""
    answered = answered or _unanswered
    lists = {
        author: [Member(author, fact, sentence) for fact in their]
        for author, (their, sentence) in facts.items()
        if their
    }
    if not lists:  # nobody decomposed it (most sentences): nothing to group, combine or doubt
        return SentenceClusters(index, answered=answered)
    clusters = [_cluster(i, group) for i, group in enumerate(_group(lists, answered))]
    # an author in every cluster (most sentences) leaves no two clusters without an author in common:
    # nothing combined, nothing in doubt
    shared = set(lists).intersection(*(c.authors for c in clusters))
    return SentenceClusters(
        index,
        tuple(sorted(lists)),
        tuple(clusters),
        () if shared else _combinations(clusters),
        () if shared else _doubts(clusters, answered),
        answered,
    )


def response_clusters(
    by_name: dict[str, EvaluationRecord], answered: Callable[[int], Answered] | None = None
) -> dict[int, SentenceClusters]:
    """{sentence index: clusters} of one response from its annotators' records; `answered(i)` gives
    sentence i's "Same fact?" answers. Sentences follow the alphabetically first annotator's record;
    another's sentence with a different text is left out."""
    if not by_name:
        return {}
    # every vector the response's comparisons may need, in one batch
    texts = {f.text for record in by_name.values() for s in record.sentences for f in s.facts}
    meaning.cache_vectors([word for text in texts for word in meaning_texts(text)])
    base = by_name[min(by_name)].sentences
    named = sorted(by_name.items())  # read for every sentence
    out = {}
    for i, sentence in enumerate(base):
        text = sentence.text.strip()
        theirs = [(name, record.sentences[i]) for name, record in named if i < len(record.sentences)]
        facts = {name: (their.facts, their) for name, their in theirs if their.text.strip() == text}
        out[i] = cluster_sentence(i, facts, answered(i) if answered is not None else None)
    return out


def same_facts(a: list[dict], b: list[dict]) -> bool:
    """Do two fact lists ({'text', 'citations'}) state the same facts, worded as they may be: one to
    one, each pair rewordings (SAME_FACT_THRESHOLD) with the same citation subset."""
    if len(a) != len(b):
        return False
    subsets_a = [tuple(sorted(set(f.get("citations", [])))) for f in a]
    subsets_b = [tuple(sorted(set(f.get("citations", [])))) for f in b]
    similarity = np.array(
        [
            [
                paraphrase_similarity(fa["text"], fb["text"]) if sa == sb else 0.0
                for fb, sb in zip(b, subsets_b, strict=True)
            ]
            for fa, sa in zip(a, subsets_a, strict=True)
        ]
    ).reshape(len(a), len(b))
    return len(best_pairs(similarity, SAME_FACT_THRESHOLD)) == len(a)
