"""A predictable first proposal of a sentence's atomic facts (PROTOCOL stage 2), for annotators to edit.

Rule-based, so the same sentence always gives the same proposal. Coordinated observations are
split: two clauses joined by `;`, `and`, `while`, `whereas` or `but` ("A square is on screen and
the audio is silent"), and two predicates of one subject ("The man waves and smiles" → "The man
waves.", "The man smiles."); coordinated words that are not observations of their own stay
together ("black and white stripes", "between 3 and 5", "the dogs and the cats are sleeping").
Each fact carries the citations that belong to it: the group written after it inside the
sentence, else, when the clauses speak of different modalities ("on screen", "the audio"), the
citations of its own modality, else all.

Blindness: a proposal may start from a judge's decomposition, never from a record that saw gold
(`may_seed_a_proposal`): an annotator's editor opened on gold facts would make their stage-2
labels agree with gold by construction.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from annotation.protocol import records
from annotation.protocol.citations import Citation, find_citation_groups, strip_citations
from annotation.protocol.ids import Source, configuration_parts, source_kind

_GOLD_WORD = re.compile(r"(?i)(?<![a-z0-9])gold(?![a-z0-9])")


def may_seed_a_proposal(record: records.EvaluationRecord) -> bool:
    """Whether `record` may start an annotator's stage-2 fact list: only a judge's record that
    used no gold. Refused: gold itself, people's records, a judge configuration with `gold` in
    any stage (`V+gold+E` copies the gold facts), a judge name that mentions gold at all, and
    any record whose provenance mentions gold (a note of what gold said or lacked)."""
    if source_kind(record.source) != "judge":
        return False
    name = Source.parse(record.source).name
    parts = configuration_parts(name) or (name,)
    if any(_GOLD_WORD.search(part) for part in parts):
        return False
    return not any(
        _mentions_gold(sentence.provenance) or any(_mentions_gold(fact.provenance) for fact in sentence.facts)
        for sentence in record.sentences
    )


def _mentions_gold(value) -> bool:
    if isinstance(value, dict):
        return any(_mentions_gold(k) or _mentions_gold(v) for k, v in value.items())
    if isinstance(value, list | tuple):
        return any(_mentions_gold(v) for v in value)
    return isinstance(value, str) and bool(_GOLD_WORD.search(value))


_META_RE = re.compile(
    r"^(?:(?:in|from|according\s+to|based\s+on)\s+the\s+(?:video|audio|clip|footage|recording|frame|scene"
    r"|image|visuals?|soundtrack)\s*,?\s*"
    r"|(?:the|this)\s+(?:video|audio|clip|footage|recording|frame|scene|image)\s+(?:clearly\s+)?"
    r"(?:shows|displays|depicts|reveals|indicates|demonstrates|confirms|features|contains)\s+(?:that\s+)?"
    r"|(?:we|i|you|one)\s+(?:can\s+|could\s+)?(?:clearly\s+)?(?:see|hear|observe|notice)\s+(?:that\s+)?"
    r"|it\s+(?:is|can\s+be)\s+(?:clearly\s+)?(?:seen|heard|observed|shown)\s+that\s+"
    r"|as\s+(?:seen|shown|heard)\s+in\s+the\s+(?:video|audio|clip|footage)\s*,?\s*)+",
    re.IGNORECASE,
)
# What meta-talk said about a bare noun phrase it introduced ("The video shows the number 83"
# → "The number 83 is shown."), by the verb it used; a clause after it needs nothing.
_META_PREDICATE = (
    (re.compile(r"\b(?:hear|heard)\b", re.IGNORECASE), "heard"),
    (re.compile(r"\b(?:see|seen|observe|observed|notice)\b", re.IGNORECASE), "visible"),
    (re.compile(r"\bcontains\b", re.IGNORECASE), "present"),
    (re.compile(r"\b(?:shows|displays|depicts|reveals|features|shown)\b", re.IGNORECASE), "shown"),
)
_SEPARATOR_RE = re.compile(r";\s+|,?\s+(?:and|while|whereas|but)\s+(?:then\s+)?", re.IGNORECASE)
_PRONOUNS = {"he", "she", "they", "it", "we", "i", "you", "there", "someone", "everyone", "nobody"}
_DETERMINERS = {
    *("the", "a", "an", "this", "that", "these", "those", "his", "her", "their", "its"),
    *("another", "one", "two", "three", "some", "several", "many", "both"),
}
_PLURAL_DETERMINERS = {"these", "those", "two", "three", "some", "several", "many", "both"}
_VERBS = {
    *("is", "are", "was", "were", "be", "been", "has", "have", "had", "can", "could", "will", "would"),
    *("does", "do", "did", "may", "might", "ran", "sat", "stood", "took", "put", "held", "went", "came"),
    *("saw", "said", "made", "gave", "got", "left", "began", "wore", "threw", "ate", "drank", "fell"),
    *("rang", "sang", "spoke", "heard", "shown", "seen", "grew", "flew", "drew", "hung", "lit"),
}
# Words that say which modality a clause observes (for a group written after all its clauses).
_AUDIO_WORDS = {
    *("audio", "sound", "sounds", "soundtrack", "hear", "heard", "hears", "tone", "tones", "noise"),
    *("silent", "silence", "quiet", "loud", "music", "voice", "speech", "says", "said", "spoken"),
    *("speaks", "beep", "beeps", "rings", "ringing", "hum", "buzz", "whistle", "bang", "claps"),
    *("applause", "laughs", "sings", "singing", "song", "narrator", "pitched", "audible"),
    *("bark", "barks", "barked", "shout", "shouts", "shouted", "spoke", "rang", "speaker"),
}
_VISUAL_WORDS = {
    *("visible", "see", "seen", "shown", "shows", "screen", "displayed", "display", "appears"),
    *("appear", "picture", "frame", "image", "written", "text", "colour", "color", "background"),
    *("square", "circle", "triangle", "diamond", "shape", "red", "green", "blue", "yellow", "white"),
    *("black", "cyan", "orange", "purple", "wears", "holds", "points", "waves", "looks", "on-screen"),
    *("light", "lights", "blinks", "flashes", "jumps", "jumped", "walks", "runs", "moves", "smiles"),
    *("nods", "sits", "stands", "picks", "opens"),
}


@dataclass(frozen=True)
class _Clause:
    start: int
    end: int
    subject: str = ""  # borrowed from the clause before ("smiles" → "The man smiles")


def rule_based_facts(sentence: records.Sentence) -> list[records.Fact]:
    """A predictable first proposal of atomic facts, for annotators to edit (see module doc).

    Citation groups are removed from the text and meta-talk ("The video shows that", "In the
    audio,", "We can see") is dropped. Each fact gets every valid citation of the sentence;
    but when a group sits inside the sentence, a clause gets the valid citations of the first
    group at or after its start (clauses after the last group get all), and when all groups
    follow the last clause, a clause that names one modality gets that modality's citations.
    An empty sentence gives []; any other sentence at least one fact.
    """
    text = sentence.text
    if not text.strip():
        return []
    all_valid = sentence.valid_citation_indices
    units = _citation_units(text, sentence.citations)
    internal = [u for u in units if any(ch.isalnum() for ch in strip_citations(text[u[1] :]))]
    facts = []
    for clause in _clauses(text):
        fact_text = _fact_text(text[clause.start : clause.end], clause.subject)
        if not fact_text:
            continue
        later = [indices for unit_start, _, indices in units if unit_start >= clause.start]
        citations = later[0] if internal and later else all_valid
        facts.append(records.Fact(text=fact_text, citations=list(citations)))
    if not facts:
        fallback = strip_citations(text) or text.strip()
        facts.append(records.Fact(text=fallback, citations=list(all_valid)))
    return facts if internal else by_modality(facts, sentence.citations)


def atomic_split(fact: records.Fact, citations: list[Citation]) -> list[records.Fact]:
    """`fact` (e.g. a judge's decomposition) split where it coordinates observations, each part
    keeping the fact's citations of its own modality when the parts name different ones
    (`citations` are the sentence's, which the fact's indices point into)."""
    parts = [
        records.Fact(text, list(fact.citations))
        for clause in _clauses(fact.text)
        if (text := _fact_text(fact.text[clause.start : clause.end], clause.subject))
    ]
    return by_modality(parts, citations) if len(parts) > 1 else [fact]


def by_modality(facts: list[records.Fact], citations: list[Citation]) -> list[records.Fact]:
    """Each fact that names exactly one modality ("on screen", "the audio") keeps only its
    citations of that modality; when every fact that names one names the same, the facts that
    name none keep the other modality's citations. A fact left with nothing keeps all its own."""
    named = [_modalities(f.text) for f in facts]
    singles = {m for modalities in named if len(modalities) == 1 for m in modalities}
    if len(facts) < 2 or not singles:
        return facts
    out = []
    for fact, modalities in zip(facts, named, strict=True):
        if len(modalities) == 1:
            own = [i for i in fact.citations if citations[i].modality in modalities]
        elif not modalities and len(singles) == 1:
            own = [i for i in fact.citations if citations[i].modality not in singles]
        else:
            own = []
        out.append(records.Fact(fact.text, own or list(fact.citations)))
    return out


def _modalities(text: str) -> set[str]:
    words = {w.strip(".,;:!?\"'()*_").lower() for w in text.split()}
    return {m for m, cues in (("audio", _AUDIO_WORDS), ("visual", _VISUAL_WORDS)) if words & cues}


def _citation_units(text: str, citations: list[Citation]) -> list[tuple[int, int, list[int]]]:
    """Groups in `text` (adjacent ones merged) as (start, end, valid citation indices).

    The k-th citation written in the text is `citations[k]`, whose validity
    (e.g. against the media's duration) is the one that counts.
    """
    units: list[tuple[int, int, list[int]]] = []
    k = 0
    for group in find_citation_groups(text):
        indices = []
        for _ in group.citations:
            if k < len(citations) and citations[k].valid:
                indices.append(k)
            k += 1
        if units and not text[units[-1][1] : group.start].strip():
            start, _, previous = units[-1]
            units[-1] = (start, group.end, previous + indices)
        else:
            units.append((group.start, group.end, indices))
    return units


def _clauses(text: str) -> list[_Clause]:
    """Each clause of `text`: cut at `; ` always, at a conjunction only between two clauses or
    between a clause and a second predicate of its subject."""
    groups = find_citation_groups(text)
    cuts, clause_start, subject = [], 0, ""
    for sep in _SEPARATOR_RE.finditer(text):
        if any(g.start <= sep.start() < g.end for g in groups):
            continue
        left = subject.split() + _words(text[clause_start : sep.start()])
        right = _words(text[sep.end() :])
        if sep.group().startswith(";") or (_looks_like_clause(left) and _looks_like_clause(right)):
            cuts.append(_Clause(clause_start, sep.start(), subject))
            clause_start, subject = sep.end(), ""
        elif _second_predicate(left, right):
            cuts.append(_Clause(clause_start, sep.start(), subject))
            subject = subject or " ".join(left[: _verb_at(left)])
            clause_start = sep.end()
    cuts.append(_Clause(clause_start, len(text), subject))
    return cuts


def _words(part: str) -> list[str]:
    return _META_RE.sub("", strip_citations(part)).replace("**", "").replace("__", "").split()


def _verb_at(words: list[str]) -> int | None:
    """Index of the clause's verb: the first verb-ish word after its subject."""
    if not words:
        return None
    first = words[0].strip("*_\"'").lower()
    if first in _DETERMINERS:
        window = range(2, min(len(words), 5))
    elif first in _PRONOUNS or words[0][:1].isupper():
        window = range(1, min(len(words), 4))
    else:
        return None
    return next((i for i in window if _is_verbish(words[i])), None)


def _looks_like_clause(words: list[str]) -> bool:
    """A subject then a verb-ish word: `the woman smiles`, `he picks`, `Anna waves`."""
    return _verb_at(words) is not None


def _second_predicate(left: list[str], right: list[str]) -> bool:
    """`The man waves | and smiles`: the left is a clause and the right starts with a verb of
    the same form (-s, -ed, -ing or a known verb). Not `shows cats | and dogs`: a word in -s
    before and after the conjunction is a list of nouns unless the left one is the verb."""
    verb = _verb_at(left)
    if verb is None or not right or not _is_verbish(right[0]):
        return False
    head, before = _bare(right[0]), _bare(left[-1])
    if head.endswith("s") and before.endswith("s") and len(left) - 1 != verb:
        return False
    verb_form = _bare(left[verb])
    same_form = any(verb_form.endswith(e) and head.endswith(e) for e in ("ed", "ing", "s"))
    return same_form or head in _VERBS


def _bare(word: str) -> str:
    return word.strip(".,;:!?\"'*_()").lower()


def _is_verbish(word: str) -> bool:
    w = _bare(word)
    if w in _VERBS:
        return True
    if len(w) <= 3:
        return False
    return w.endswith(("ed", "ing")) or (w.endswith("s") and not w.endswith(("ss", "us", "is")))


def _fact_text(clause: str, subject: str = "") -> str:
    """A clause as a stand-alone statement: no citations, meta-talk or bold; the borrowed
    subject in front; capitalised; ends with '.'. A bare noun phrase that meta-talk introduced
    gets the predicate the meta-talk meant ("the number 83" → "The number 83 is shown.")."""
    bare = strip_citations(clause).replace("**", "").replace("__", "").strip()
    meta = _META_RE.match(bare)
    fact = _META_RE.sub("", bare).strip(" ,;:").rstrip(" .!?")
    if subject:
        fact = f"{subject} {fact}"
    if not any(ch.isalnum() for ch in fact):
        return ""
    if meta and meta.group().strip() and not _looks_like_clause(fact.split()):
        fact += _meta_predicate(meta.group(), fact)
    return fact[0].upper() + fact[1:] + "."


def _meta_predicate(meta: str, noun_phrase: str) -> str:
    said = next((word for pattern, word in _META_PREDICATE if pattern.search(meta)), None)
    if said is None:
        return ""
    words = noun_phrase.split()
    plural = _bare(words[0]) in _PLURAL_DETERMINERS or (
        len(words) > 1 and _bare(words[-1]).endswith("s") and not _bare(words[-1]).endswith("ss")
    )
    return f" {'are' if plural else 'is'} {said}"
