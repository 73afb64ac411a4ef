"""`python -m annotation users …`: accounts of a project from the command line, so a project made
by `import` can get its first admin. A password is never an argument (argv is visible to every
user of the machine): it comes from $MURGAT_PASSWORD, else one line of standard input when that is
not a terminal, else a prompt (asked twice)."""

from __future__ import annotations

import getpass
import os
import sys

PASSWORD_ENV = "MURGAT_PASSWORD"
MIN_PASSWORD = 3  # as the admin page asks


def read_password(name: str) -> str:
    """The new password of `name` (see module doc); ValueError when it is too short or the two
    typed ones differ."""
    password = os.environ.get(PASSWORD_ENV)
    if password is None and not sys.stdin.isatty():
        password = sys.stdin.readline().rstrip("\r\n")
    elif password is None:
        password = getpass.getpass(f"Password for {name}: ")
        if getpass.getpass("Again: ") != password:
            raise ValueError("the two passwords differ")
    if len(password) < MIN_PASSWORD:
        raise ValueError(f"choose a password of at least {MIN_PASSWORD} characters")
    return password


def cmd_users(args) -> int:
    from annotation.store.accounts import add_account, check_new_account_name, remove_account
    from annotation.store.project_store import ProjectStore
    from annotation.store.sessions import live_sessions, revoke_sessions

    try:
        store = ProjectStore.open(args.project)
        if args.action == "list":
            sessions = live_sessions(store)
            for user in store.users():
                email = user.email or "-"
                print(f"{user.name}\t{user.role}\t{email}\t{sessions.get(user.name, 0)} session(s)")
            return 0
        if args.action == "add":
            # The name first: a name that will be refused must not ask for a password.
            name = check_new_account_name(store, args.name)
            add_account(store, name, args.role, read_password(name), args.email or "")
            print(f"added {name} ({args.role})")
        elif args.action == "end-sessions":
            if store.user(args.name) is None:
                raise ValueError(f"there is no user '{args.name}'")
            print(f"ended {revoke_sessions(store, args.name)} session(s) of {args.name}")
        else:
            remove_account(store, args.name)
            print(f"removed {args.name} and ended their sessions (their labels stay)")
    except (FileNotFoundError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


def add_users_parser(sub) -> None:
    from annotation.store.project_store import ROLES

    p = sub.add_parser("users", help="list, add or remove accounts; end a person's sessions")
    actions = p.add_subparsers(dest="action", required=True)
    listing = actions.add_parser("list", help="accounts, roles, emails and live sessions")
    listing.add_argument("--project", required=True)
    add = actions.add_parser(
        "add", help=f"add an account (password from ${PASSWORD_ENV}, standard input, or a prompt)"
    )
    add.add_argument("name")
    add.add_argument("--role", required=True, choices=ROLES)
    add.add_argument("--email", help="for single sign-on (optional)")
    add.add_argument("--project", required=True)
    for action, words in (("end-sessions", "sign a person out everywhere"), ("remove", "remove an account")):
        q = actions.add_parser(action, help=words)
        q.add_argument("name")
        q.add_argument("--project", required=True)
    p.set_defaults(func=cmd_users)
