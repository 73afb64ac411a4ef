"""`python -m annotation settings --project P [NAME=VALUE …]`: list the project settings, or set
some, checked as the admin page checks them (`annotation.project_settings.write_settings`). A
VALUE is read as JSON when it is JSON (`0.5`, `false`, `["ann","bob"]`, `null`), else as the text
itself (`staged`). One bad value writes nothing and exits 2, naming the setting and what it allows."""

from __future__ import annotations

import json
import sys


def parse_assignment(text: str) -> tuple[str, object]:
    """(name, value) of `NAME=VALUE` (see module doc); ValueError without a name and '='."""
    name, sep, raw = text.partition("=")
    if not sep or not name.strip():
        raise ValueError(f"{text!r}: write NAME=VALUE, e.g. pad_s=0.5")
    try:
        value = json.loads(raw)
    except ValueError:
        value = raw
    return name.strip(), value


def cmd_settings(args) -> int:
    from annotation.project_settings import KNOWN, ProjectSettings, SettingError, write_settings
    from annotation.store.project_store import ProjectStore

    try:
        values = dict(parse_assignment(a) for a in args.assignments)
        store = ProjectStore.open(args.project)
        if values:
            write_settings(store, values)
            for name in values:
                print(f"{name} = {json.dumps(store.get_setting(name))}")
            return 0
        settings, problems = ProjectSettings.for_correction(store)
        stored = store.stored_settings()
        for name, setting in KNOWN.items():
            shown = json.dumps(getattr(settings, name))
            origin = "" if name in stored and name not in problems else "  (default)"
            print(f"{name} = {shown}{origin}\t# {setting.meaning}; {setting.allows}")
        for problem in problems.values():
            print(f"warning: {problem}; the default is used until it is set again", file=sys.stderr)
    except SettingError as exc:
        for problem in exc.problems:
            print(f"error: {problem}", file=sys.stderr)
        print("nothing was written", file=sys.stderr)
        return 2
    except (FileNotFoundError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


def add_settings_parser(sub) -> None:
    p = sub.add_parser(
        "settings",
        help="list or set the project settings",
        description="List the project settings (no NAME=VALUE), or set them: every value is "
        "checked first, and one bad value writes nothing.",
    )
    p.add_argument("--project", required=True, help="project directory")
    p.add_argument(
        "assignments",
        nargs="*",
        metavar="NAME=VALUE",
        help="a setting and its value (JSON, or plain text), e.g. pad_s=0.5 gold_rule=unanimity",
    )
    p.set_defaults(func=cmd_settings)
