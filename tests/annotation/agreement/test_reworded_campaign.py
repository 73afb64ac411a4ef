"""A campaign written the way people write, labelled through the annotate page's own path
(`session.next_question` → `session.record_answer`): three people state each fact in their own words
— typos, a passive, short forms, dropped articles, synonyms, meta-talk, number words, a compound
spelt apart — and disagree for real seven times. The disputes are exactly the seven; every fact a
majority stated is in gold once, worded cleanly."""

from __future__ import annotations

import pytest

from annotation.agreement.paraphrase import misspelt_words
from annotation.agreement.same_fact import open_questions
from annotation.protocol.citations import Citation
from annotation.protocol.records import Response, Sentence
from annotation.state import project_state
from annotation.store.project_store import ProjectStore
from annotation.work.labels import labels_by_unit
from annotation.work.session import next_question, record_answer


def visual(s):
    return Citation("visual", float(s), float(s))


def audio(a, b):
    return Citation("audio", float(a), float(b))


SENTENCES = [
    Sentence("A white van is parked outside the bakery (visual, 0:02).", None, [visual(2)]),
    Sentence(
        "The goalkeeper catches the ball and the crowd cheers (visual, 0:05; audio, 0:05-0:07).",
        None,
        [visual(5), audio(5, 7)],
    ),
    Sentence("The lecturer writes two equations on the whiteboard (visual, 0:10).", None, [visual(10)]),
    Sentence("A woman pours olive oil into a frying pan (visual, 0:14).", None, [visual(14)]),
    Sentence("The singer taps the microphone twice (audio, 0:20-0:21).", None, [audio(20, 21)]),
    Sentence("A dog chases a cat across the street (visual, 0:25).", None, [visual(25)]),
    Sentence(
        "The kids start to sing when the teacher claps (audio, 0:30-0:32; visual, 0:30).",
        None,
        [audio(30, 32), visual(30)],
    ),
    Sentence("The shop is not open yet (visual, 0:40).", None, [visual(40)]),
    Sentence("Therefore the answer is B.", None, []),
    Sentence("A red car drives past the camera (visual, 0:45).", None, [visual(45)]),
    Sentence("A man opens the door and a dog runs in (visual, 0:50).", None, [visual(50)]),
]
NOT_VERIFIABLE = {"alice": {8}, "bob": {8}, "carol": set()}  # planted: carol calls sentence 8 verifiable
# sentence → person → [(fact, citations)]
FACTS = {
    0: {
        "alice": [("A white van is parked outside the bakery.", [0])],
        "bob": [("A wite van is parked outside the bakery.", [0])],
        "carol": [("The video shows a white van parked outside the bakery.", [0])],
    },
    1: {
        "alice": [("The goalkeeper catches the ball.", [0]), ("The crowd cheers.", [1])],
        "bob": [("The ball is caught by the goalie.", [0]), ("The crowd is cheering.", [1])],
        "carol": [("Goalkeeper catches ball.", [0]), ("Crowd cheers.", [1])],
    },
    2: {  # planted: carol counts three equations
        "alice": [("The lecturer writes two equations on the whiteboard.", [0])],
        "bob": [("The lecturer wrote 2 equations on the white board.", [0])],
        "carol": [("The lecturer writes three equations on the whiteboard.", [0])],
    },
    3: {  # planted: carol states the oil, not the olive oil — a part of the fact
        "alice": [("A woman pours olive oil into a frying pan.", [0])],
        "bob": [("Woman pours olive oil into frying pan.", [0])],
        "carol": [("A woman pours oil into a pan.", [0])],
    },
    4: {
        "alice": [("The singer taps the mic twice.", [0])],
        "bob": [("The singer taps the microphone two times.", [0])],
        "carol": [("The microphone is tapped twice by the singer.", [0])],
    },
    5: {  # planted: carol swaps who chases whom
        "alice": [("A dog chases a cat across the street.", [0])],
        "bob": [("A cat is chased across the street by a dog.", [0])],
        "carol": [("A cat chases a dog across the street.", [0])],
    },
    6: {
        "alice": [("The kids start to sing.", [0]), ("The teacher claps.", [1])],
        "bob": [("The kids begin to sing.", [0]), ("The teacher is clapping.", [1])],
        "carol": [("The kids start singing.", [0]), ("The teacher applauds.", [1])],
    },
    7: {  # planted: carol leaves the negation out
        "alice": [("The shop is not open.", [0])],
        "bob": [("The store isn't open.", [0])],
        "carol": [("The shop is open.", [0])],
    },
    9: {
        "alice": [("A red car drives past the camera.", [0])],
        "bob": [("A red car drives by the camera.", [0])],
        "carol": [("The clip shows a red car driving past the camera.", [0])],
    },
    10: {  # planted: carol merges the two facts into one
        "alice": [("A man opens the door.", [0]), ("A dog runs in.", [0])],
        "bob": [("The door is opened by a man.", [0]), ("A dog runs in.", [0])],
        "carol": [("A man opens the door and a dog runs in.", [0])],
    },
}
NAMES = ("alice", "bob", "carol")
PLANTED = [
    (2, "facts"),
    (3, "facts"),
    (5, "facts"),
    (7, "facts"),
    (8, "verifiable"),
    (9, "all"),  # carol: the car is not supported
    (10, "facts"),
]
# the facts a majority stated, by sentence: (their number, a word each wording has)
MAJORITY_FACTS = {0: 1, 1: 2, 2: 1, 3: 1, 4: 1, 5: 1, 6: 2, 7: 1, 9: 1, 10: 2}


def answer(name: str, question) -> object:
    if question.kind == "verifiable":
        return question.sentence_index not in NOT_VERIFIABLE[name]
    if question.kind == "facts":
        return [{"text": t, "citations": c} for t, c in FACTS[question.sentence_index][name]]
    return not (name == "carol" and question.sentence_index == 9)


def label_everything(store, name: str) -> None:
    """`name` answers every question the annotate page would ask them, in its order."""
    sentences = store.response_sentences("r1")
    while True:
        question = next_question(sentences, labels_by_unit(store.events.current_labels(name, "r1")))
        if question is None:
            return
        assert record_answer(store, name, "r1", question, answer(name, question), spent_ms=3000) is not None


@pytest.fixture(scope="module")
def campaign(tmp_path_factory):
    store = ProjectStore.open(tmp_path_factory.mktemp("campaign") / "p", create=True)
    store.add_responses([(Response("r1", " ".join(s.text for s in SENTENCES)), SENTENCES)])
    for name in NAMES:
        store.add_user(name, "annotator", None)
        label_everything(store, name)
    return project_state(store).gold


def test_the_disputes_are_exactly_the_planted_disagreements(campaign):
    assert sorted((d.sentence, d.question) for d in campaign.disputes()) == PLANTED


def test_no_wording_is_left_for_a_person_to_settle(campaign):
    assert open_questions(campaign) == []


def test_every_fact_a_majority_stated_is_in_gold_once(campaign):
    record = campaign.records[0]
    assert {i: len(s.facts) for i, s in enumerate(record.sentences) if s.facts} == MAJORITY_FACTS


def test_every_majority_fact_counts_every_person_who_stated_it(campaign):
    for sentence in campaign.records[0].sentences:
        for fact in sentence.facts:
            authors = {w["author"] for w in fact.provenance["wordings"]}
            assert len(authors) >= 2, fact.text


def test_no_gold_fact_is_worded_with_a_misspelling_a_member_spelt_right(campaign):
    for sentence in campaign.records[0].sentences:
        for fact in sentence.facts:
            others = [w["text"] for w in fact.provenance["wordings"]]
            assert misspelt_words(fact.text, others) == [], fact.text
    assert campaign.records[0].sentences[0].facts[0].text != "A wite van is parked outside the bakery."


def test_stage_3_gold_counts_all_three_people_where_all_three_stated_the_fact(campaign):
    voters = {
        (v.sentence, v.fact): sorted(v.values)
        for v in campaign.values
        if v.question == "all" and v.sentence in (0, 1, 4, 6)
    }
    assert set(map(tuple, voters.values())) == {("alice", "bob", "carol")}
