"""Issue 23, finding 12: a project made by `import` gets its first admin from the command line,
the password never on the command line."""

from __future__ import annotations

import io
import subprocess
import sys

from annotation.cli.main import main as annotation_main
from annotation.store.accounts import authenticate
from annotation.store.project_store import ProjectStore
from annotation.store.rows import Person
from annotation.store.sessions import session_user, start_session


def test_a_first_admin_is_added_with_the_password_from_standard_input(fresh_project, monkeypatch, capsys):
    assert ProjectStore.open(fresh_project).users() == []
    monkeypatch.delenv("MURGAT_PASSWORD", raising=False)
    monkeypatch.setattr(sys, "stdin", io.StringIO("s3cret-pw\n"))
    assert annotation_main(["users", "add", "root", "--role", "admin", "--project", str(fresh_project)]) == 0
    assert authenticate(ProjectStore.open(fresh_project), "root", "s3cret-pw") == Person("root", "admin")


def test_the_password_comes_from_the_environment_in_a_separate_process(fresh_project):
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "annotation",
            "users",
            "add",
            "eve",
            "--role",
            "annotator",
            "--project",
            str(fresh_project),
        ],
        env={"MURGAT_PASSWORD": "from-env", "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 0, done.stderr
    assert authenticate(ProjectStore.open(fresh_project), "eve", "from-env") is not None


def test_a_password_option_does_not_exist(fresh_project, capsys):
    argv = ["users", "add", "x", "--role", "admin", "--password", "p", "--project", str(fresh_project)]
    try:
        code = annotation_main(argv)
    except SystemExit as exited:
        code = exited.code
    assert code == 2


def test_a_too_short_password_is_refused(fresh_project, monkeypatch, capsys):
    monkeypatch.setenv("MURGAT_PASSWORD", "ab")
    assert annotation_main(["users", "add", "x", "--role", "admin", "--project", str(fresh_project)]) == 2
    assert "at least 3 characters" in capsys.readouterr().err


def test_end_sessions_signs_a_person_out_everywhere(fresh_project, monkeypatch):
    monkeypatch.setenv("MURGAT_PASSWORD", "pw-of-ann")
    annotation_main(["users", "add", "ann", "--role", "annotator", "--project", str(fresh_project)])
    token = start_session(ProjectStore.open(fresh_project), "ann")
    assert annotation_main(["users", "end-sessions", "ann", "--project", str(fresh_project)]) == 0
    assert session_user(ProjectStore.open(fresh_project), token) is None


def test_a_name_with_a_zero_width_space_is_refused_before_a_password_is_asked(
    fresh_project, monkeypatch, capsys
):
    monkeypatch.delenv("MURGAT_PASSWORD", raising=False)
    typed = io.StringIO("s3cret-pw\n")
    monkeypatch.setattr(sys, "stdin", typed)
    argv = ["users", "add", "dana\u200b", "--role", "annotator", "--project", str(fresh_project)]
    assert annotation_main(argv) == 2
    assert capsys.readouterr().err == (
        "error: the user name 'dana<U+200B>' has U+200B (ZERO WIDTH SPACE) at character 5: "
        "a format character (it shows as nothing); a user name cannot contain one\n"
    )
    assert (typed.tell(), ProjectStore.open(fresh_project).users()) == (0, [])
