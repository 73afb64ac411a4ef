"""The disputes list kept per response (annotation/agreement/dispute_index.py), on a copy of the
demo: the same disputes, order, questions and counts as reading the whole gold set, and after one
ruling only the ruled response's share is read again."""

from annotation.agreement.adjudication import adjudicate
from annotation.agreement.dispute_index import DisputeIndex
from annotation.agreement.same_fact import open_questions, wording_only
from annotation.state import project_state
from annotation.store.project_store import ProjectStore


def test_the_index_lists_the_disputes_and_questions_of_the_whole_gold_set_in_its_order(demo_copy):
    state = project_state(ProjectStore.open(demo_copy))
    view = DisputeIndex().view(state)
    expected = [v for v in state.gold.disputes() if not wording_only(v)]
    assert [row.value for row in view.rows] == expected and len(expected) > 50
    assert [row.key for row in view.rows] == [v.key for v in expected]
    assert list(view.questions) == open_questions(state.gold)
    assert view.responses == tuple(sorted({v.response_id for v in expected}))


def test_the_counts_add_up_to_the_disputes(demo_copy):
    view = DisputeIndex().view(project_state(ProjectStore.open(demo_copy)))
    counts = view.counts()
    assert counts["need a ruling"] + counts["settled by a majority"] + counts["ruled"] == counts["disputes"]
    assert counts["need a ruling"] == sum(1 for row in view.rows if row.value.needs_ruling)


def test_after_a_ruling_only_the_ruled_responses_disputes_are_read_again(demo_copy):
    store = ProjectStore.open(demo_copy)
    index = DisputeIndex()
    before = index.view(project_state(store))
    first = next(row for row in before.rows if row.value.question == "verifiable" and not row.ruled)
    adjudicate(store, "ada", first.value.response_id, first.value.unit, first.value.task, True, None)
    after = index.view(project_state(store))
    same = {id(row) for row in before.rows} & {id(row) for row in after.rows}
    # every row of another response is the very row read before; the ruled response's are new
    assert {row.value.response_id for row in after.rows if id(row) not in same} == {first.value.response_id}
    assert next(row for row in after.rows if row.key == first.key).ruled
    assert after.counts()["ruled"] == before.counts()["ruled"] + 1
