"""Account emails: how a single sign-on identity finds its account (annotation/accounts.py, store)."""

import shutil
import sqlite3

import pytest

from annotation.store.accounts import account_for_identity, add_account, normalise_email, set_email
from annotation.store.database import FILE_OWNER, Database
from annotation.store.project_store import DB_NAME, MIGRATIONS, ProjectStore
from annotation.store.rows import Account, Person


@pytest.fixture(scope="module")
def accounts(tmp_path_factory):
    """A project with dana (her email) and ada, made once per module (each account costs a real
    scrypt hash, which no test here checks); each test opens its own copy."""
    directory = tmp_path_factory.mktemp("emails") / "p"
    store = ProjectStore.open(directory, create=True)
    add_account(store, "dana", "annotator", "dana", email="dana@example.org")
    add_account(store, "ada", "adjudicator", "ada")
    store.close()
    return directory


@pytest.fixture
def store(accounts, tmp_path):
    return ProjectStore.open(shutil.copytree(accounts, tmp_path / "p"))


def test_email_is_stored_stripped_and_lower_cased():
    assert normalise_email("  Dana@Example.ORG ") == "dana@example.org"


@pytest.mark.parametrize(
    "bad", ["dana", "dana@", "@example.org", "dana@example", "da na@example.org", "a@b@example.org", ""]
)
def test_a_string_that_is_not_an_email_address_is_refused_by_name(bad):
    with pytest.raises(ValueError, match="is not an email address"):
        normalise_email(bad)


def test_identity_email_finds_its_account_ignoring_case_and_spaces(store):
    assert account_for_identity(store, " DANA@example.org ") == Person("dana", "annotator")


def test_identity_email_without_an_account_finds_nobody(store):
    assert account_for_identity(store, "nobody@example.org") is None


@pytest.mark.parametrize("email", [None, "", "not an email"])
def test_missing_or_malformed_identity_email_finds_nobody(store, email):
    assert account_for_identity(store, email) is None


def test_account_for_identity_follows_a_role_change(store):
    store.set_user("dana", role="adjudicator")
    assert account_for_identity(store, "dana@example.org") == Person("dana", "adjudicator")


def test_admin_gives_an_existing_account_an_email(store):
    assert set_email(store, "ada", "Ada@Example.org") == "ada@example.org"
    assert store.user("ada").email == "ada@example.org"
    assert account_for_identity(store, "ada@example.org") == Person("ada", "adjudicator")


def test_an_empty_email_removes_it(store):
    assert set_email(store, "dana", "  ") is None
    assert store.user("dana").email is None and account_for_identity(store, "dana@example.org") is None


def test_an_email_another_account_has_is_refused_naming_the_owner(store):
    with pytest.raises(ValueError, match="already belongs to 'dana'"):
        set_email(store, "ada", "DANA@example.org")
    assert store.user("ada").email is None


def test_a_new_account_with_a_taken_email_is_refused_and_not_created(store):
    with pytest.raises(ValueError, match="already belongs to 'dana'"):
        add_account(store, "eve", "annotator", "eve", email="dana@example.org")
    assert store.user("eve") is None


def test_setting_ones_own_email_again_is_allowed(store):
    assert set_email(store, "dana", "Dana@example.org") == "dana@example.org"


def test_email_of_an_unknown_account_is_refused(store):
    with pytest.raises(ValueError, match="no user 'ghost'"):
        set_email(store, "ghost", "ghost@example.org")


def test_the_store_itself_refuses_a_duplicate_email_in_any_case(store):
    # The unique index is the last line of defence when two admins save at the same moment.
    with pytest.raises(sqlite3.IntegrityError):
        store.add_user("eve", "annotator", None, "Dana@Example.org")


def test_several_accounts_may_have_no_email(store):
    add_account(store, "bob", "annotator", "bob")
    assert [u.email for u in store.users()] == [None, None, "dana@example.org"]


def test_a_project_from_before_emails_gains_the_column_keeping_its_accounts(tmp_path):
    directory = tmp_path / "old"
    directory.mkdir()
    old = Database(directory / DB_NAME)
    old.migrate(FILE_OWNER, MIGRATIONS[:1])  # the schema before emails (later migrations may follow it)
    old.connection.execute("INSERT INTO users(name, role, created_at) VALUES ('ann', 'annotator', 'then')")
    old.close()
    store = ProjectStore.open(directory)
    assert store.user("ann") == Account("ann", "annotator", None, None)
    set_email(store, "ann", "ann@example.org")
    assert account_for_identity(store, "ANN@example.org") == Person("ann", "annotator")
