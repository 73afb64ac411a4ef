"""Gold from fact clusters, through the event log as the app writes it: a campaign where ten facts are
each stated by a majority in several wordings, plus four real disagreements — a missing fact, a
different number, a different citation subset, a merged fact. Gold keeps the ten, the disputes are
exactly the four, and majority entailment counts every annotator who answered."""

from __future__ import annotations

import pytest

from annotation.agreement.adjudication import adjudicate
from annotation.agreement.reliability import measure_agreement
from annotation.protocol.citations import Citation
from annotation.protocol.ids import Unit, entailment_task
from annotation.protocol.records import Response, Sentence
from annotation.state import project_state
from annotation.store.project_store import ProjectStore
from annotation.work.labels import annotator_records, labels_by_unit
from annotation.work.session import plan


def visual(s):
    return Citation("visual", float(s), float(s))


def audio(a, b):
    return Citation("audio", float(a), float(b))


SENTENCES = [
    Sentence("A yellow triangle appears on a black background (visual, 0:01).", None, [visual(1)]),
    Sentence(
        "The number 83 is shown while a tone plays (visual, 0:02; audio, 0:02-0:03).",
        None,
        [visual(2), audio(2, 3)],
    ),
    Sentence("A man waves and smiles (visual, 0:04).", None, [visual(4)]),
    Sentence("The counter shows 38 (visual, 0:05).", None, [visual(5)]),
    Sentence("A dog barks twice (audio, 0:06-0:07; audio, 0:07-0:08).", None, [audio(6, 7), audio(7, 8)]),
    Sentence("A red square is shown on a white background (visual, 0:09).", None, [visual(9)]),
]
# sentence → annotator → [(fact text, citations)]
FACTS = {
    0: {
        "alice": [("A yellow triangle is on screen.", [0]), ("The background is black.", [0])],
        "bob": [("A yellow triangle appears.", [0]), ("The screen has a black background.", [0])],
        "carol": [("There is a yellow triangle on screen.", [0]), ("The background is black.", [0])],
    },
    1: {
        "alice": [("The number 83 is displayed.", [0]), ("A tone is heard.", [1])],
        "bob": [("83 is shown.", [0]), ("A tone plays.", [1])],
        "carol": [("The number 83 appears on screen.", [0]), ("A tone can be heard.", [1])],
    },
    2: {  # carol leaves the smile out: a missing fact
        "alice": [("A man waves.", [0]), ("The man smiles.", [0])],
        "bob": [("The man is waving.", [0]), ("A man is smiling.", [0])],
        "carol": [("A man waves.", [0])],
    },
    3: {  # carol reads another number
        "alice": [("The counter shows 38.", [0])],
        "bob": [("The counter displays 38.", [0])],
        "carol": [("The counter shows 83.", [0])],
    },
    4: {  # carol cites the first bark only
        "alice": [("A dog barks twice.", [0, 1])],
        "bob": [("The dog barks two times.", [0, 1])],
        "carol": [("A dog barks twice.", [0])],
    },
    5: {  # carol merges the square and the background into one fact
        "alice": [("A red square is on screen.", [0]), ("The background is white.", [0])],
        "bob": [("There is a red square on screen.", [0]), ("The screen has a white background.", [0])],
        "carol": [("A red square is on screen and the background is white.", [0])],
    },
}
NAMES = ("alice", "bob", "carol")


def label(store, name: str, supported) -> None:
    """`name`'s labels: every sentence verifiable, their facts, and a yes to every stage-3 question
    the app asks (`supported(sentence, text)` may say no)."""
    for i in range(len(SENTENCES)):
        store.events.append(name, "r1", Unit.of_sentence(i), "verifiable", True)
    for i, by_name in FACTS.items():
        facts = by_name[name]
        store.events.append(
            name, "r1", Unit.of_sentence(i), "facts", [{"text": t, "citations": c} for t, c in facts]
        )
        for text, cites in facts:
            unit = Unit.of_fact(i, text, cites)
            answer = supported(i, text)
            store.events.append(name, "r1", unit, "all", answer)
            if len(cites) == 2:
                for j in range(2):
                    store.events.append(name, "r1", unit, entailment_task("alone", j), answer)


@pytest.fixture
def campaign(tmp_path):
    store = ProjectStore.open(tmp_path / "p", create=True)
    text = " ".join(s.text for s in SENTENCES)
    store.add_responses(
        [(Response("r1", text), [Sentence(s.text, None, list(s.citations)) for s in SENTENCES])]
    )
    for name in NAMES:
        store.add_user(name, "annotator", None)
    store.add_user("ada", "adjudicator", None)
    for name in NAMES:
        label(store, name, lambda i, text: True)
    return store


def gold_facts(gold):
    return [[(f.text, f.citations) for f in s.facts] for s in gold.records[0].sentences]


def test_gold_keeps_every_fact_a_majority_stated_in_whatever_words(campaign):
    assert gold_facts(project_state(campaign).gold) == [
        [("A yellow triangle is on screen.", [0]), ("The background is black.", [0])],
        [("The number 83 is displayed.", [0]), ("A tone is heard.", [1])],
        [("A man waves.", [0]), ("The man smiles.", [0])],
        [("The counter shows 38.", [0])],
        [("A dog barks twice.", [0, 1])],
        [("A red square is on screen.", [0]), ("The background is white.", [0])],
    ]


def test_the_disputes_are_exactly_the_four_real_disagreements(campaign):
    disputes = project_state(campaign).gold.disputes()
    assert sorted((d.sentence, d.question) for d in disputes) == [
        (2, "facts"),
        (3, "facts"),
        (4, "facts"),
        (5, "facts"),
    ]


def test_majority_entailment_counts_every_annotator_who_answered_in_their_own_words(campaign):
    voters = {
        (v.sentence, v.fact, v.question): sorted(v.values)
        for v in project_state(campaign).gold.values
        if str(v.task) in ("all", "alone.0")
    }
    assert voters[(0, "A yellow triangle is on screen.", "all")] == ["alice", "bob", "carol"]
    assert voters[(1, "The number 83 is displayed.", "all")] == ["alice", "bob", "carol"]
    assert voters[(2, "The man smiles.", "all")] == ["alice", "bob"]  # carol stated no smile
    assert voters[(5, "A red square is on screen.", "all")] == [
        "alice",
        "bob",
    ]  # carol's merged fact is another


def test_an_answer_on_a_fact_cited_differently_counts_where_it_asks_the_same_question(campaign):
    # carol's `all` on the dog cited (audio 0:06-0:07) alone is E(dog, {first bark}): gold's alone[0]
    values = {
        v.question: sorted(v.values)
        for v in project_state(campaign).gold.values
        if v.sentence == 4 and v.task
    }
    assert values["all"] == ["alice", "bob"]
    assert values["alone[0]"] == ["alice", "bob", "carol"]
    assert values["alone[1]"] == ["alice", "bob"]


def test_a_reworded_dissent_on_entailment_is_counted_and_outvoted(campaign):
    store = campaign
    carol = "carol"
    store.events.append(
        carol, "r1", Unit.of_fact(0, "There is a yellow triangle on screen.", [0]), "all", False
    )
    (value,) = [
        v
        for v in project_state(store).gold.values
        if v.sentence == 0 and v.question == "all" and "triangle" in v.fact
    ]
    assert value.values == {"alice": True, "bob": True, "carol": False}
    assert (value.value, value.provenance) == (True, "majority 2/3")


def test_the_combined_fact_is_surfaced_as_a_decomposition_disagreement(campaign):
    (dispute,) = [d for d in project_state(campaign).gold.disputes() if d.sentence == 5]
    combination = dispute.clusters.combinations[0]
    combined = dispute.clusters.clusters[combination.combined]
    assert combined.wordings == (("carol", "A red square is on screen and the background is white.", (0,)),)
    assert [dispute.clusters.clusters[i].canonical for i in combination.covered] == [
        "A red square is on screen.",
        "The background is white.",
    ]


def test_a_ruling_made_on_a_members_wording_counts_for_the_gold_fact(campaign):
    adjudicate(campaign, "ada", "r1", Unit.of_fact(0, "A yellow triangle appears.", [0]), "all", False)
    (value,) = [
        v
        for v in project_state(campaign).gold.values
        if v.sentence == 0 and v.question == "all" and "triangle" in v.fact
    ]
    assert (value.value, value.provenance) == (False, "adjudicated:ada")


def test_decomposition_agreement_counts_the_same_disagreements_as_gold(campaign):
    # alice and bob state the same 10 facts; carol states 8, and shares 5 with each of them: not the
    # smile (missing), the counter (another number), the dog (other citations), the square and the
    # background (merged); precision is the first of a pair's share, recall the second's, pooled:
    # (shared, first's, second's) alice-bob (10, 10, 10), alice-carol and bob-carol (5, 10, 8)
    result = measure_agreement(annotator_records(campaign), n_resamples=5)["decomposition"]
    assert result.n_pairs == 3
    assert result.precision == pytest.approx(20 / 30)
    assert result.recall == pytest.approx(20 / 26)


def test_a_staged_campaign_asks_everyone_stage_3_about_the_canonical_wording(tmp_path):
    store = ProjectStore.open(tmp_path / "staged", create=True)
    store.add_responses(
        [(Response("r1", SENTENCES[0].text), [Sentence(SENTENCES[0].text, None, [visual(1)])])]
    )
    for name, wording in zip(
        NAMES,
        ("A yellow triangle appears.", "There is a yellow triangle on screen.", "A yellow triangle appears."),
        strict=True,
    ):
        store.add_user(name, "annotator", None)
        store.events.append(name, "r1", "s0", "verifiable", True)
        store.events.append(name, "r1", "s0", "facts", [{"text": wording, "citations": [0]}])
    gold = project_state(store).gold.records[0]
    asked = {
        name: [
            q.fact.text
            for q in plan(
                store.response_sentences("r1"),
                labels_by_unit(store.events.current_labels(name, "r1")),
                "staged",
                gold,
            )[0]
            if q.stage == 3
        ]
        for name in NAMES
    }
    assert asked == {name: ["A yellow triangle appears."] for name in NAMES}
    for name, answer in zip(NAMES, (True, True, False), strict=True):
        store.events.append(name, "r1", Unit.of_fact(0, "A yellow triangle appears.", [0]), "all", answer)
    (value,) = [v for v in project_state(store).gold.values if v.question == "all"]
    assert value.values == {"alice": True, "bob": True, "carol": False}
