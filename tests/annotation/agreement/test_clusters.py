"""annotation.agreement.clusters: one sentence's facts grouped across annotators, however worded."""

from __future__ import annotations

from annotation.agreement.clusters import Combination, cluster_sentence, same_facts
from annotation.protocol.citations import Citation
from annotation.protocol.records import Fact, Sentence

SENTENCE = Sentence(
    "A yellow triangle appears on a black background while a tone plays (visual, 0:01; audio, 0:01-0:02).",
    True,
    [Citation("visual", 1.0, 1.0), Citation("audio", 1.0, 2.0)],
)


def clusters_of(**facts):
    """Each keyword an annotator, its value a list of (text, citations)."""
    return cluster_sentence(
        0,
        {
            name: ([Fact(text, list(cites)) for text, cites in their], SENTENCE)
            for name, their in facts.items()
        },
    )


def wordings(clusters):
    return [[(author, text) for author, text, _ in c.wordings] for c in clusters.clusters]


def test_rewordings_of_one_fact_are_one_cluster_with_every_wording_and_author():
    clusters = clusters_of(
        alice=[("A yellow triangle is on screen.", [0])],
        bob=[("A yellow triangle appears.", [0])],
        carol=[("There is a yellow triangle on screen.", [0])],
    )
    assert wordings(clusters) == [
        [
            ("alice", "A yellow triangle is on screen."),
            ("bob", "A yellow triangle appears."),
            ("carol", "There is a yellow triangle on screen."),
        ]
    ]


def test_the_canonical_wording_is_the_one_most_members_used_when_all_are_as_close():
    clusters = clusters_of(
        alice=[("A yellow triangle appears.", [0])],
        bob=[("A yellow triangle is on screen.", [0])],
        carol=[("A yellow triangle is on screen.", [0])],
    )
    assert clusters.clusters[0].canonical == "A yellow triangle is on screen."


def test_each_annotators_facts_go_to_the_clusters_they_reword_whatever_their_order():
    clusters = clusters_of(
        alice=[("A yellow triangle is on screen.", [0]), ("The background is black.", [0])],
        bob=[("The screen has a black background.", [0]), ("A yellow triangle appears.", [0])],
    )
    assert [c.authors for c in clusters.clusters] == [("alice", "bob"), ("alice", "bob")]
    assert clusters.signature("alice") == clusters.signature("bob")


def test_different_facts_are_different_clusters_short_of_majority():
    clusters = clusters_of(
        alice=[("The number 83 is displayed.", [0])],
        bob=[("The number 83 appears.", [0])],
        carol=[("The number 38 is displayed.", [0])],
    )
    assert [c.authors for c in clusters.clusters] == [("alice", "bob"), ("carol",)]
    assert [c.index for c in clusters.majority()] == [0]


def test_overlapping_citation_subsets_are_one_cluster_citing_what_most_members_cite():
    clusters = clusters_of(
        alice=[("A tone plays.", [0, 1])], bob=[("A tone is heard.", [0, 1])], carol=[("A tone plays.", [1])]
    )
    (cluster,) = clusters.clusters
    assert cluster.citations == (0, 1) and cluster.citations_differ
    assert clusters.signature("alice") != clusters.signature("carol")


def test_the_same_words_citing_disjoint_segments_are_different_facts():
    clusters = clusters_of(alice=[("A tone plays.", [0])], bob=[("A tone plays.", [1])])
    assert len(clusters.clusters) == 2


def test_a_person_has_at_most_one_fact_in_a_cluster():
    clusters = clusters_of(
        alice=[("A tone plays.", [1]), ("A tone is heard.", [1])], bob=[("A tone plays.", [1])]
    )
    assert [c.authors for c in clusters.clusters] == [("alice", "bob"), ("alice",)]


def test_a_fact_that_combines_two_clusters_others_state_apart_is_a_combination():
    clusters = clusters_of(
        alice=[("A yellow triangle is on screen.", [0]), ("The background is black.", [0])],
        dana=[("A yellow triangle appears.", [0]), ("The background is black.", [0])],
        bob=[("A yellow triangle is on screen and the background is black.", [0])],
    )
    assert [c.authors for c in clusters.clusters] == [("alice", "dana"), ("alice", "dana"), ("bob",)]
    assert clusters.combinations == (Combination(2, (0, 1)),)
    assert [c.index for c in clusters.majority()] == [0, 1]


def test_find_places_a_new_wording_in_its_cluster_and_an_unrelated_fact_nowhere():
    clusters = clusters_of(alice=[("A yellow triangle is on screen.", [0])], bob=[("A tone plays.", [1])])
    assert clusters.find("There is a yellow triangle.", [0]).index == 0
    assert clusters.find("A red square is on screen.", [0]) is None


def test_a_ruled_list_has_a_signature_in_the_same_clusters():
    clusters = clusters_of(
        alice=[("A yellow triangle is on screen.", [0])], bob=[("A yellow triangle appears.", [0])]
    )
    ruled = [{"text": "There is a yellow triangle.", "citations": [0]}]
    assert clusters.signature_of(ruled) == clusters.signature("alice")


def test_same_facts_compares_lists_in_any_wording_and_order_but_not_other_citations():
    truth = [
        {"text": "A yellow triangle is on screen.", "citations": [0]},
        {"text": "A tone plays.", "citations": [1]},
    ]
    reworded = [
        {"text": "A tone is heard.", "citations": [1]},
        {"text": "A yellow triangle appears.", "citations": [0]},
    ]
    assert same_facts(truth, reworded)
    assert not same_facts(truth, [reworded[0], {"text": "A yellow triangle appears.", "citations": [0, 1]}])
    assert not same_facts(truth, reworded[:1])


def test_a_one_to_one_tie_of_spellings_names_the_cluster_by_the_clean_one_whoever_wrote_first():
    # 'squirel' and 'squirrel' both take three tokenizer pieces; the clean one's are the commoner
    for first, second in (
        ("A squirel climbs the tree.", "A squirrel climbs the tree."),
        ("A squirrel climbs the tree.", "A squirel climbs the tree."),
    ):
        clusters = clusters_of(alice=[(first, [0])], bob=[(second, [0])])
        assert clusters.clusters[0].canonical == "A squirrel climbs the tree."


def test_annotators_stating_the_same_facts_in_any_order_make_one_cluster_each_led_by_the_first():
    clusters = clusters_of(
        alice=[("The background is black.", [0]), ("A tone plays.", [1])],
        bob=[("A tone plays.", [1]), ("The background is black.", [0])],
        carol=[("The background is black.", [0]), ("A tone plays.", [1])],
    )
    assert wordings(clusters) == [
        [
            ("alice", "The background is black."),
            ("bob", "The background is black."),
            ("carol", "The background is black."),
        ],
        [("alice", "A tone plays."), ("bob", "A tone plays."), ("carol", "A tone plays.")],
    ]
    assert [c.citations for c in clusters.clusters] == [(0,), (1,)]
    assert clusters.signature("alice") == clusters.signature("bob") == {(0, (0,)), (1, (1,))}
    assert clusters.combinations == () and clusters.doubts == ()


def test_the_same_facts_cited_otherwise_by_one_annotator_are_placed_by_similarity():
    # bob cites the tone fact with both segments: not the same facts each, the assignment places them
    clusters = clusters_of(
        alice=[("The background is black.", [0]), ("A tone plays.", [1])],
        bob=[("A tone plays.", [0, 1]), ("The background is black.", [0])],
    )
    assert [c.authors for c in clusters.clusters] == [("alice", "bob"), ("alice", "bob")]
    assert clusters.clusters[1].citations_differ


def test_one_annotator_giving_a_fact_twice_is_not_matched_twice():
    clusters = clusters_of(
        alice=[("A tone plays.", [1]), ("A tone plays.", [1])],
        bob=[("A tone plays.", [1]), ("A tone plays.", [1])],
    )
    assert [c.authors for c in clusters.clusters] == [("alice", "bob"), ("alice", "bob")]
