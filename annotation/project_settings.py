"""The project settings: each setting a person may set, its type, allowed values and default
(written once, here); the one check a value passes before it is written; and the typed read.

`write_settings(store, {name: value})` is how the admin page, `python -m annotation settings` and
the demo build write them: every value is checked first, and when one is bad (an unknown name, a
wrong type, a value out of range) nothing is written and `SettingError` names the setting and what
it allows. `ProjectSettings.of(store)` reads them all in one query, typed, defaults filled in; a
page reads them once per run (or as `project_state(store).settings`), not per widget.

The allowed values come from the rooms whose rules they are (the gold rules from `agreement`, the
campaign modes and queue scopes from `work`), so this module stands above those and below the
state, which reads it. Values other modules keep in the same table (`media_root`, `demo`) are not
settings and are written by their owners.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields
from pathlib import Path

from annotation.agreement.gold import DEFAULT_RULE, RULES
from annotation.work.queues import DEFAULT_OVERLAP
from annotation.work.sample_queues import SCOPE_SETTING, SCOPES
from annotation.work.session import CAMPAIGN_MODES, DEFAULT_CAMPAIGN_MODE

DEFAULT_PAD_S = 1.0  # seconds of media played before and after a cited moment
DEFAULT_LEAD_IN_S = 1.0  # seconds of sound before a clip's cited moment
DEFAULT_COOLDOWN_MS = 250  # a new question ignores decision keys for this many ms
MAX_PAD_S = 10.0
MAX_OVERLAP = 20
MAX_COOLDOWN_MS = 5000


class SettingError(ValueError):
    """Settings refused: `refused` maps each bad setting's name to its problem (one line naming the
    setting and what it allows); `names` and `problems` are its keys and values, in order. A
    caller that locates the error (a CLI problem's field, a page's note) takes the name from here."""

    def __init__(self, refused: Mapping[str, str]):
        self.refused = dict(refused)
        super().__init__("; ".join(self.refused.values()))

    @property
    def names(self) -> list[str]:
        return list(self.refused)

    @property
    def problems(self) -> list[str]:
        return list(self.refused.values())


@dataclass(frozen=True)
class Setting:
    """One project setting: `check` returns the value as it is stored (a number as float, a
    list of names sorted) or raises ValueError; `allows` says in words what it accepts. Its
    default is its field's in `ProjectSettings`."""

    name: str
    allows: str
    check: Callable[[object], object]
    meaning: str


def _one_of(choices: tuple[str, ...]) -> Callable[[object], object]:
    def check(value):
        if not isinstance(value, str) or value not in choices:
            raise ValueError
        return value

    return check


def _number(low: float, high: float) -> Callable[[object], object]:
    def check(value):
        if isinstance(value, bool) or not isinstance(value, int | float) or not low <= value <= high:
            raise ValueError
        return float(value)

    return check


def _whole(low: int, high: int) -> Callable[[object], object]:
    def check(value):
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise ValueError
        return value

    return check


def _boolean(value):
    if not isinstance(value, bool):
        raise ValueError
    return value


def _text(value):
    if not isinstance(value, str):
        raise ValueError
    return value.strip()


def _names_or_none(value):
    if value is None:
        return None
    if not isinstance(value, list | tuple) or not all(isinstance(n, str) and n.strip() for n in value):
        raise ValueError
    return tuple(sorted({n.strip() for n in value}))


def _listed(choices: tuple[str, ...]) -> str:
    return "one of " + ", ".join(choices)


KNOWN: dict[str, Setting] = {
    s.name: s
    for s in (
        Setting("gold_rule", _listed(RULES), _one_of(RULES), "how annotators' values become gold"),
        Setting(
            "auto_accept_unanimous",
            "true or false",
            _boolean,
            "a unit all annotators agree on is gold without a ruling",
        ),
        Setting(
            "pad_s",
            f"a number of seconds from 0 to {MAX_PAD_S:g}",
            _number(0.0, MAX_PAD_S),
            "media played before and after a cited span",
        ),
        Setting(
            "lead_in_s",
            f"a number of seconds from 0 to {MAX_PAD_S:g}",
            _number(0.0, MAX_PAD_S),
            "sound played before a clip's cited moment",
        ),
        Setting(
            "overlap",
            f"a whole number from 1 to {MAX_OVERLAP}",
            _whole(1, MAX_OVERLAP),
            "annotators per response",
        ),
        Setting(
            "pool",
            "a list of account names, or null for every annotator",
            _names_or_none,
            "who receives responses",
        ),
        Setting(
            "campaign_mode",
            _listed(CAMPAIGN_MODES),
            _one_of(CAMPAIGN_MODES),
            "end to end, or staged on the gold units",
        ),
        Setting(
            SCOPE_SETTING,
            _listed(SCOPES),
            _one_of(SCOPES),
            "which responses annotators are asked: all (queued first) or only queued ones",
        ),
        Setting(
            "key_cooldown_ms",
            f"a whole number of milliseconds from 0 to {MAX_COOLDOWN_MS}",
            _whole(0, MAX_COOLDOWN_MS),
            "a new question ignores decision keys for this long (a key meant for the last one is not taken)",
        ),
        Setting("judges_toml", "text (a file path, or empty)", _text, "the judges file"),
        Setting("project_name", "text", _text, "the project's name"),
        Setting("synthetic", "true or false", _boolean, "the project holds synthetic data"),
    )
}


def check_setting(name: str, value) -> object:
    """`value` as setting `name` stores it; SettingError naming the setting and what it allows
    (or, for an unknown name, the known ones)."""
    setting = KNOWN.get(name)
    if setting is None:
        raise SettingError({name: f"{name!r} is not a project setting (the settings: {', '.join(KNOWN)})"})
    try:
        return setting.check(value)
    except ValueError:
        raise SettingError(
            {name: f"project setting {name} = {value!r} is refused: it must be {setting.allows}"}
        ) from None


def write_settings(store, values: Mapping[str, object]) -> None:
    """Check every value, then write them all in one transaction. SettingError listing each bad
    one (its name and what it allows); then nothing is written. A pool must name people of the
    project, at least one (a name it does not know would be skipped, and an empty pool would assign
    nobody: both silently)."""
    checked, refused = {}, {}
    for name, value in values.items():
        try:
            checked[name] = check_setting(name, value)
        except SettingError as exc:
            refused.update(exc.refused)
    if checked.get("pool") is not None:
        unknown = sorted(set(checked["pool"]) - {user.name for user in store.users()})
        if unknown or not checked["pool"]:
            refused["pool"] = (
                f"project setting pool names no account of this project: {', '.join(unknown)}"
                if unknown
                else "project setting pool names nobody: name at least one person, or null for every annotator"
            )
    if checked.get("judges_toml"):  # a folder would be read as the judges file on every visit
        path = judges_file_location(store.directory, checked["judges_toml"])
        if path.is_dir():
            refused["judges_toml"] = (
                f"project setting judges_toml = {values['judges_toml']!r} is refused: {path} is a "
                "folder: give the path of a file"
            )
    if refused:
        raise SettingError(refused)
    store.set_settings({name: list(v) if isinstance(v, tuple) else v for name, v in checked.items()})


def judges_file_location(directory, configured: str) -> Path:
    """Where the setting `judges_toml` = `configured` (not empty) points: `~` expanded, a relative
    path taken from the project `directory`. Whether a file is there is the reader's business."""
    path = Path(configured).expanduser()
    return path if path.is_absolute() else Path(directory) / path


@dataclass(frozen=True)
class ProjectSettings:
    """Every project setting, typed (see `KNOWN` for what each means and allows); fields are named
    as the settings are stored. Made from bad values it raises SettingError (a ValueError)
    naming the setting: a file written by hand or by an older tool can hold one."""

    gold_rule: str = DEFAULT_RULE
    auto_accept_unanimous: bool = True
    pad_s: float = DEFAULT_PAD_S
    lead_in_s: float = DEFAULT_LEAD_IN_S
    overlap: int = DEFAULT_OVERLAP
    pool: tuple[str, ...] | None = None
    campaign_mode: str = DEFAULT_CAMPAIGN_MODE
    annotate: str = SCOPES[0]
    key_cooldown_ms: int = DEFAULT_COOLDOWN_MS
    judges_toml: str = ""
    project_name: str = ""
    synthetic: bool = False

    def __post_init__(self):
        for f in fields(self):
            object.__setattr__(self, f.name, check_setting(f.name, getattr(self, f.name)))

    @classmethod
    def of(cls, store) -> ProjectSettings:
        """The project's settings, read in one query; defaults for those never set."""
        stored = store.stored_settings()
        return cls(**{name: stored[name] for name in KNOWN if name in stored})

    @classmethod
    def for_correction(cls, store) -> tuple[ProjectSettings, dict[str, str]]:
        """(the project's settings with each bad stored value replaced by its default, {name: the
        refusal naming it}): what a page or command where an admin corrects them starts from."""
        stored = store.stored_settings()
        values, problems = {}, {}
        for name in KNOWN:
            if name in stored:
                try:
                    values[name] = check_setting(name, stored[name])
                except SettingError as exc:
                    problems[name] = str(exc)
        return cls(**values), problems

    @property
    def gold(self) -> tuple[str, bool]:
        """(rule, auto_accept_unanimous): what gold derivation depends on."""
        return self.gold_rule, self.auto_accept_unanimous
