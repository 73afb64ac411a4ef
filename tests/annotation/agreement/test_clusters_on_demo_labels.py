"""Fact clusters on the demo world's simulated labels, where what each wording means is known: the
clusters group exactly the wordings of one meaning (the claims the simulated person stated)."""

from __future__ import annotations

import itertools
import random

from annotation.agreement.alignment import normalise_fact_text
from annotation.agreement.clusters import cluster_sentence
from annotation.demo.ground_truth import align_plan
from annotation.demo.labellers import ANNOTATORS, Labeller, label_response
from annotation.demo.texts import make_response
from annotation.demo.videos import make_video_truth
from annotation.protocol.records import Fact
from annotation.protocol.sentences import sentences_for_response

# rewords every fact that has another wording, and merges, splits and drops often
REWORDER = Labeller(0.0, 0.3, 0.3, 1.0, 0.2, 0.0)
PEOPLE = {**ANNOTATORS, "dana": REWORDER}


def demo_world_sentences(videos: int, per_video: int, seed: int):
    """(sentence, {person: [(Fact, claims)]}) of every sentence the people decomposed."""
    for video in range(videos):
        truth = make_video_truth(f"v{video}.mp4", random.Random(f"{seed}:video:{video}"))
        for k in range(per_video):
            rid = f"v{video}-{k}"
            plan = make_response(rid, truth, k, random.Random(f"{seed}:response:{rid}"))
            gold = align_plan(plan, sentences_for_response(plan.response.text, truth.duration_s))
            labels = {
                name: label_response(truth, gold, who, random.Random(f"{seed}:{name}:{rid}"))
                for name, who in PEOPLE.items()
            }
            for i, g in enumerate(gold):
                facts = {
                    name: [(Fact(f.text, f.citations), frozenset(f.claims)) for f in their[i].facts or []]
                    for name, their in labels.items()
                }
                if any(facts.values()):
                    yield g.sentence, facts


def test_on_demo_labels_clusters_join_exactly_the_wordings_that_mean_the_same():
    reworded = different = joined_apart = split_alike = 0
    for sentence, facts in demo_world_sentences(videos=4, per_video=8, seed=13):
        clusters = cluster_sentence(0, {n: ([f for f, _ in their], sentence) for n, their in facts.items()})
        cluster_of = {(m.author, m.text): c.index for c in clusters.clusters for m in c.members}
        members = [(name, fact.text, claims) for name, their in facts.items() for fact, claims in their]
        for (a, text_a, meant_a), (b, text_b, meant_b) in itertools.combinations(members, 2):
            if a == b:
                continue
            together = cluster_of[(a, text_a)] == cluster_of[(b, text_b)]
            alike = meant_a == meant_b
            reworded += alike and normalise_fact_text(text_a) != normalise_fact_text(text_b)
            different += not alike
            joined_apart += together and not alike
            split_alike += alike and not together
    assert reworded > 300 and different > 300  # 401 and 395 pairs of two people's facts with seed 13
    assert (joined_apart, split_alike) == (0, 0)
