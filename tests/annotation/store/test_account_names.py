"""New account names (annotation/store/accounts.py, `check_new_account_name`): what a person can
type into the one-line Name field and tell apart from every other name. Older accounts keep their
names and keep signing in."""

from __future__ import annotations

import pytest

from annotation.store import accounts
from annotation.store.accounts import add_account, authenticate, check_new_account_name, hash_password
from annotation.store.project_store import ProjectStore
from annotation.store.rows import Person

CHEAP_N = 2**4  # older accounts are made here with cheap hashes; the name rules do not hash


@pytest.fixture
def store(tmp_path):
    """A project whose only account is 'dana' (made without a password: no test signs her in)."""
    store = ProjectStore.open(tmp_path / "p", create=True)
    store.add_user("dana", "annotator", None)
    return store


def refusal(store, name: str) -> str:
    with pytest.raises(ValueError) as refused:
        check_new_account_name(store, name)
    return str(refused.value)


# --- what a person cannot see or type ------------------------------------------------------------


def test_a_zero_width_space_is_refused_by_its_code_point_and_position(store):
    assert refusal(store, "dana\u200b") == (
        "the user name 'dana<U+200B>' has U+200B (ZERO WIDTH SPACE) at character 5: "
        "a format character (it shows as nothing); a user name cannot contain one"
    )


def test_a_direction_override_is_refused(store):
    assert refusal(store, "\u202eadmin") == (
        "the user name '<U+202E>admin' has U+202E (RIGHT-TO-LEFT OVERRIDE) at character 1: "
        "a format character (it shows as nothing); a user name cannot contain one"
    )


@pytest.mark.parametrize(
    "typed, code_point",
    [
        ("x\ny", "U+000A at character 2"),
        ("x\ty", "U+0009 at character 2"),
        ("x y", "U+0020 (SPACE) at character 2"),
        ("x\u00a0y", "U+00A0 (NO-BREAK SPACE) at character 2"),
        ("x\u3000y", "U+3000 (IDEOGRAPHIC SPACE) at character 2"),
    ],
)
def test_whitespace_inside_a_name_is_refused(store, typed, code_point):
    assert refusal(store, typed).endswith(f"has {code_point}: whitespace; a user name cannot contain any")


@pytest.mark.parametrize(
    "typed, why",
    [
        ("x\x07y", "U+0007 at character 2: a control character"),
        ("x\udc80y", "U+DC80 at character 2: a lone surrogate"),  # undecodable bytes on a command line
        ("x\ue000y", "U+E000 at character 2: a private-use character"),
        ("x\u0378y", "U+0378 at character 2: an unassigned code point"),
    ],
)
def test_control_surrogate_private_use_and_unassigned_characters_are_refused(store, typed, why):
    assert why in refusal(store, typed)


@pytest.mark.parametrize("typed", ["a:b", "a/b"])
def test_colon_and_slash_stay_refused(store, typed):
    assert "a user name cannot contain ':' or '/'" in refusal(store, typed)


def test_a_blank_name_is_refused(store):
    assert refusal(store, " \t ") == "a user name must not be empty"


# --- one way to write each name ------------------------------------------------------------------


def test_a_compatibility_ligature_is_refused_with_the_plain_form_it_would_be(store):
    assert refusal(store, "\ufb01") == (
        "the user name '\ufb01' is not in its plain (NFKC) form: "
        "U+FB01 at character 1 would be U+0066 U+0069; type it as 'fi'"
    )


def test_a_decomposed_accent_is_refused_with_the_composed_letter_it_would_be(store):
    assert refusal(store, "zoe\u0308") == (
        "the user name 'zoe\u0308' is not in its plain (NFKC) form: "
        "U+0065 U+0308 at character 3 would be U+00EB; type it as 'zo\u00eb'"
    )


@pytest.mark.parametrize("typed", ["María", "o.brien", "li_wei", "zo\u00eb", "李伟", "Ærøskøbing"])
def test_plain_names_are_accepted_as_typed(store, typed):
    assert check_new_account_name(store, typed) == typed


def test_surrounding_whitespace_is_dropped_as_before(store):
    assert check_new_account_name(store, "  maría\n") == "maría"


# --- names sign-in takes for one ------------------------------------------------------------------


def test_the_same_name_again_is_refused(store):
    assert refusal(store, "dana") == "user 'dana' already exists"


def test_a_name_differing_only_in_case_is_refused_because_sign_in_ignores_case(store):
    assert (
        refusal(store, "Dana")
        == "user 'Dana' already exists as 'dana' (the two names ignore case at sign-in)"
    )


def test_a_name_differing_only_by_folded_case_is_refused(store):
    # casefold, not lower: 'ß' folds to 'ss', as sign-in's look-up folds it
    store.add_user("strasse", "annotator", None)
    assert "already exists as 'strasse'" in refusal(store, "straße")


def test_a_name_matching_two_older_accounts_that_differ_in_case_is_refused(store):
    # Sign-in's look-up finds neither of two such accounts for 'ann'; the check must still see them.
    store.add_user("Ann", "annotator", None)
    store.add_user("ANN", "annotator", None)
    assert "already exists as " in refusal(store, "ann")


def test_a_name_matching_an_older_compatibility_form_is_refused(store):
    store.add_user("\uff42\uff4f\uff42", "annotator", None)  # fullwidth 'ｂｏｂ', made before the rules
    assert refusal(store, "bob") == (
        "user 'bob' already exists as '\uff42\uff4f\uff42' "
        "(the two names differ only in case or compatibility forms)"
    )


# --- the ways accounts are made, and the older ones ----------------------------------------------


def test_add_account_refuses_a_name_the_check_refuses_and_stores_nothing(store):
    with pytest.raises(ValueError, match="U\\+200B"):
        add_account(store, "dana\u200b", "annotator", "a-password")
    assert [user.name for user in store.users()] == ["dana"]


def test_a_new_account_with_an_accented_name_signs_in_ignoring_case(store):
    add_account(store, "María", "annotator", "her-password")
    assert authenticate(store, "maría", "her-password") == Person("María", "annotator")


def test_an_older_account_with_an_invisible_character_still_signs_in(store, monkeypatch):
    monkeypatch.setattr(accounts, "SCRYPT_N", CHEAP_N)  # its cheap hash is not re-hashed on success
    store.add_user("dana\u200b", "annotator", hash_password("older", n=CHEAP_N))
    assert authenticate(store, "dana\u200b", "older") == Person("dana\u200b", "annotator")
