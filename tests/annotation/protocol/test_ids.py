"""annotation.protocol.ids: every identifier reads back as it was written, and nothing else reads."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from annotation.protocol.ids import (
    QuestionKey,
    Source,
    Task,
    Unit,
    annotator_name,
    configuration_of,
    entailment_task,
    fact_key,
    source_kind,
)

names = st.text(st.characters(blacklist_categories=("Cs",)), min_size=1).filter(str.strip)
tasks = st.one_of(
    st.sampled_from(["verifiable", "facts", "all", "done", "skip", "flag"]).map(Task),
    st.builds(Task, st.sampled_from(["alone", "without"]), st.integers(0, 50)),
).flatmap(lambda task: st.sampled_from([task, task.as_ruling]))
units = st.one_of(
    st.just(Unit.response()),
    st.integers(0, 500).map(Unit.of_sentence),
    st.builds(Unit.of_fact, st.integers(0, 500), st.text(), st.lists(st.integers(0, 9))),
)


@given(units)
def test_a_unit_reads_back_as_written(unit):
    assert Unit.parse(str(unit)) == unit


@given(tasks)
def test_a_task_reads_back_as_written_and_keeps_its_value_name(task):
    assert Task.parse(str(task)) == task
    assert Task.from_value_name(task.value_name) == task.answer


@given(names, names)
def test_a_source_reads_back_as_written(kind_name, name):
    for source in (Source.gold(), Source.human(name), Source.judge(name)):
        assert Source.parse(str(source)) == source


@given(st.text(min_size=1), units, tasks)
def test_a_question_key_reads_back_even_when_the_response_id_holds_the_separator(rid, unit, task):
    key = QuestionKey(rid, unit, task)
    assert QuestionKey.parse(str(key)) == key


def test_the_event_log_vocabulary_is_what_it_always_was():
    assert str(Unit.of_sentence(3)) == "s3"
    assert Unit.of_fact(0, "A man points.", [1, 0]) == Unit.of_fact(0, "  a MAN points. ", [0, 1])
    fact = str(Unit.of_fact(0, "A man points.", [0]))
    assert fact.startswith("s0/") and len(str(Unit.of_fact(0, "x", [0]))) == 15
    assert str(entailment_task("all")) == "all" and str(entailment_task("alone", 2)) == "alone.2"
    assert str(Task("without", 1).as_ruling) == "gold.without.1" and Task("alone", 0).value_name == "alone[0]"
    assert Task.parse("gold.verifiable").ruling and not Task.parse("verifiable").ruling


def test_a_question_key_with_a_malformed_unit_or_task_does_not_read():
    with pytest.raises(ValueError, match="not a unit"):
        QuestionKey.parse("r1|s1/XYZ|all")
    with pytest.raises(ValueError, match="not a task"):
        QuestionKey.parse("r1|s1|maybe")


@pytest.mark.parametrize("text", ["", "s", "s01", "s-1", "s1/", "s1/XYZ", "s1/abc", "responses", "S1"])
def test_anything_else_is_not_a_unit(text):
    with pytest.raises(ValueError, match="not a unit"):
        Unit.parse(text)


@pytest.mark.parametrize(
    "text", ["", "gold.", "alone", "alone.x", "alone.01", "all.1", "verifiable.0", "maybe"]
)
def test_anything_else_is_not_a_task(text):
    with pytest.raises(ValueError, match="not a"):
        Task.parse(text)


def test_source_kinds_and_judge_configurations():
    assert [source_kind(s) for s in ("gold", "human:a", "judge:b", "judge:", "robot:x", "golden")] == [
        "gold",
        "human",
        "judge",
        "other",
        "other",
        "other",
    ]
    assert annotator_name("human:alice") == "alice" and annotator_name("judge:alice") is None
    assert configuration_of("judge:a+gold+b") == ("a", "gold", "b")
    assert configuration_of("judge: a + b + c ") == ("a", "b", "c")
    assert configuration_of("judge:metric-file") is None
    assert configuration_of("judge:a++b") is None
    assert configuration_of("human:a+b+c") is None
    assert str(Source.judge_configuration("v", "d", "e")) == "judge:v+d+e"


@given(st.integers(0, 500), st.text(), st.lists(st.integers(0, 9)))
def test_a_facts_unit_is_its_sentence_and_the_key_of_its_text_and_citations(sentence, text, citations):
    assert Unit.of_fact(sentence, text, citations) == Unit(sentence, fact_key(text, citations))
