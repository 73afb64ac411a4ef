"""The labelled sets of atomic-fact pairs (no tests here).

`fact_pairs(split)`: tests/data/fact_pairs.jsonl, 302 pairs written by hand in the world of real
videos (kitchens, sports, lectures, streets, nature, music): the rewordings annotators produce
(tense, word order, number words, dropped articles, typos, spelling variants, function words,
compound spelling, rephrasing, synonyms, the passive, abbreviations, meta-talk) and the near-misses
that must stay apart (colour, count, object, negation, roles swapped in either voice, another
time, a part for the whole, "oil" / "olive oil", one fact for two merged). Each line: a, b, same,
kind and `split`, fixed once before any threshold was chosen (alternating within each kind):
thresholds are chosen on "tune" only; "held-out" only reports.

`LABELLED_PAIRS`: an older, smaller set, half in the demo's world (shapes, numbers, tones): each
entry (first wording, second wording, same fact?, kind).
"""

from __future__ import annotations

import json
from pathlib import Path

FACT_PAIRS_FILE = Path(__file__).resolve().parents[2] / "data" / "fact_pairs.jsonl"


def fact_pairs(split: str | None = None) -> list[dict]:
    """The hand-written pairs of tests/data/fact_pairs.jsonl, those of `split` ('tune' or
    'held-out') when given, in file order."""
    with open(FACT_PAIRS_FILE, encoding="utf-8") as handle:
        rows = [json.loads(line) for line in handle if line.strip()]
    return [row for row in rows if split is None or row["split"] == split]


SAME, DIFFERENT = True, False

REWORDINGS = [
    ("A yellow triangle is on screen.", "A yellow triangle appears.", "order and meta-talk"),
    ("A red triangle is on screen.", "There is a red triangle on screen.", "order and meta-talk"),
    ("A triangle is on screen.", "The shape on screen is a triangle.", "generic noun"),
    ("The shape on screen is red.", "A red shape is shown.", "generic noun"),
    ("The background is black.", "The screen has a black background.", "order"),
    ("The background is blue.", "The background colour is blue.", "generic noun"),
    ("The number 83 is displayed.", "The number 83 appears on screen.", "meta-talk"),
    ("The number 83 is displayed.", "83 is shown on the screen.", "meta-talk"),
    ('The word "cat" is displayed.', 'The word "cat" appears on screen.', "meta-talk"),
    ('The word "river" is written on screen.', "The word RIVER is shown.", "case and quotes"),
    ("A high-pitched tone is heard.", "A high-pitched tone plays.", "meta-talk"),
    ("A low-pitched tone is heard.", "A low pitched tone can be heard.", "hyphen and meta-talk"),
    ("A burst of noise is heard.", "There is a burst of noise.", "meta-talk"),
    ("The video shows a green circle.", "A green circle is visible.", "meta-talk"),
    ("Two cars pass by.", "2 cars pass by.", "number word"),
    ("A man points at the screen.", "The man is pointing at the screen.", "inflection"),
    ("A woman speaks.", "A woman is speaking.", "inflection"),
    ("The man waves.", "A man is waving.", "inflection"),
    ("The presenter holds up a book.", "The presenter is holding up a book.", "inflection"),
    ("A dog barks twice.", "A dog is heard barking two times.", "number word and meta-talk"),
    ("The speaker says hello.", "The speaker says 'hello'.", "punctuation"),
    ("The car is red.", "The colour of the car is red.", "generic noun"),
    ("A woman opens the door.", "A woman opens the door (visual, 0:04).", "citation in the text"),
    ("The man wears a grey coat.", "The man wears a gray coat.", "spelling"),
    ("The ball rolls to the left.", "The ball rolls towards the left.", "function word"),
    ("A colourful kite flies.", "A colorful kite flies.", "spelling"),
    ("The trafic light turns green.", "The traffic light turns green.", "typo"),
    ("The audio is silent.", "Nothing can be heard.", "silence as an absence"),
    ("There is silence.", "No sound is heard.", "silence as an absence"),
    # true rewordings a string measure cannot see: the recall figure counts them as misses
    ("A man points at the screen.", "A man gestures toward the display.", "synonym (a miss)"),
    ("The man holds a cup.", "A cup is held by the man.", "passive (a miss)"),
]

DIFFERENT_FACTS = [
    ("83 is shown.", "38 is shown.", "number"),
    ("The number 83 is displayed.", "The number 38 is displayed.", "number"),
    ("Two cars pass by.", "Three cars pass by.", "number"),
    ("The number 12 appears next to a circle.", "The number 21 appears next to a circle.", "number"),
    ("A red triangle is on screen.", "A blue triangle is on screen.", "colour"),
    ("The background is black.", "The background is white.", "colour"),
    ("A man in a red shirt points at the screen.", "A man in a blue shirt points at the screen.", "colour"),
    ("A red triangle", "A red square", "shape"),
    ("A triangle is on screen.", "A circle is on screen.", "shape"),
    ("The number 12 appears next to a circle.", "The number 12 appears next to a square.", "shape"),
    ('The word "cat" is displayed.', 'The word "hat" is displayed.', "quoted word"),
    ('The speaker says "turn left".', 'The speaker says "turn right".', "quoted word"),
    ("A tone is heard.", "No tone is heard.", "negation"),
    ("The man is smiling.", "The man is not smiling.", "negation"),
    ("The door is open.", "The door isn't open.", "negation"),
    ("The man hands the woman a cup.", "The woman hands the man a cup.", "subject swap"),
    ("The dog chases the cat.", "The cat chases the dog.", "subject swap"),
    ("The red car overtakes the bus.", "The bus overtakes the red car.", "subject swap"),
    ("A low-pitched tone is heard.", "A high-pitched tone is heard.", "pitch"),
    ("A mid-pitched tone plays.", "A burst of noise is heard.", "sound"),
    ("The man waves.", "The man points.", "action"),
    ("A man in a red shirt points at the door.", "A man in a red shirt points at the screen.", "object"),
    ("The background is black.", "The shape on screen is black.", "what is black"),
    (
        "A yellow triangle is on screen and the background is black.",
        "A yellow triangle is on screen.",
        "combined fact",
    ),
    (
        "A yellow triangle is on screen and the background is black.",
        "The background is black.",
        "combined fact",
    ),
    ("A red triangle is on screen.", "A triangle is on screen.", "one claim of two"),
    ("A red triangle is on screen.", "The shape on screen is red.", "one claim of two"),
    ("The man opens the door.", "The man closes the door.", "action"),
    ("A woman speaks.", "A woman sings.", "action"),
    ("The audio is silent.", "A burst of noise is heard.", "sound"),
    ("The audio is silent.", "The man is silent.", "who is silent"),
    ("Nothing can be heard.", "A tone can be heard.", "sound"),
]

LABELLED_PAIRS = [(a, b, SAME, kind) for a, b, kind in REWORDINGS] + [
    (a, b, DIFFERENT, kind) for a, b, kind in DIFFERENT_FACTS
]
