"""The house rules that a parser can hold: imports flow one way (README, "Layout"), nothing below
`pages/` knows Streamlit, no module reaches for another module's private names, and a package's
`__init__` says what it owns instead of re-exporting."""

from __future__ import annotations

import ast
from collections import Counter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# Within each package, a subpackage (or top-level module) may import only from lower ranks and
# from itself. The same order is written in README.md, "Layout".
RANKS = {
    "annotation": {
        "protocol": 0,
        "formats": 1,
        "store": 1,
        "media": 1,
        "work": 2,
        "agreement": 3,
        "project_settings": 4,
        "state": 5,
        "project": 6,
        "demo": 7,
        "cli": 8,
        "__main__": 9,
    },
    "calibration": {
        "scoring": 0,
        "stats": 0,
        "judges": 1,
        "sweep": 1,
        "config": 2,
        "estimates": 3,
        "cli": 4,
        "__main__": 5,
    },
}
FORBIDDEN = {
    "annotation": ("calibration", "pages", "streamlit", "app"),
    "calibration": ("pages", "streamlit", "app"),
}


def modules(package: str) -> list[Path]:
    return sorted((ROOT / package).rglob("*.py"))


def imports_of(path: Path) -> list[tuple[int, str, list[str]]]:
    """(line, imported module, imported names) for every import statement of a file."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name, []) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append((node.lineno, node.module, [alias.name for alias in node.names]))
    return found


def part_of(package: str, dotted: str) -> str | None:
    """The ranked part ('protocol', 'project', …) a dotted name of `package` belongs to."""
    pieces = dotted.split(".")
    if pieces[0] != package or len(pieces) < 2:
        return None
    return pieces[1]


def where(path: Path, line: int) -> str:
    return f"{path.relative_to(ROOT)}:{line}"


@pytest.mark.parametrize("package", sorted(RANKS))
def test_every_part_of_a_package_has_a_rank(package):
    parts = {
        p.stem if p.parent == ROOT / package else p.relative_to(ROOT / package).parts[0]
        for p in modules(package)
    }
    assert parts - {"__init__"} <= set(RANKS[package]), "give the new part a rank here and in README.md"


@pytest.mark.parametrize("package", sorted(RANKS))
def test_imports_between_parts_flow_one_way(package):
    wrong = []
    for path in modules(package):
        relative = path.relative_to(ROOT / package)
        mine = relative.parts[0] if len(relative.parts) > 1 else path.stem
        if mine == "__init__":
            continue
        for line, module, names in imports_of(path):
            targets = (
                [module]
                if part_of(package, module) or module != package
                else [f"{package}.{n}" for n in names]
            )
            for target in targets:
                theirs = part_of(package, target)
                if theirs is None or theirs == mine or theirs not in RANKS[package]:
                    continue
                if RANKS[package][theirs] >= RANKS[package][mine]:
                    wrong.append(f"{where(path, line)}: {mine} imports {target}")
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize("package", sorted(FORBIDDEN))
def test_core_packages_never_import_the_layers_above_them(package):
    wrong = [
        f"{where(path, line)}: {module}"
        for path in modules(package)
        for line, module, _ in imports_of(path)
        if module.split(".")[0] in FORBIDDEN[package]
    ]
    assert not wrong, "\n".join(wrong)


def test_no_module_imports_another_modules_private_name():
    wrong = []
    for folder in ("annotation", "calibration", "pages", "tests", "benchmarks"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            for line, module, names in imports_of(path):
                private = [n for n in names if n.startswith("_") and not n.startswith("__")]
                if module.split(".")[0] in ("annotation", "calibration", "pages") and private:
                    wrong.append(f"{where(path, line)}: {module} {private}")
    assert not wrong, "\n".join(wrong)


def test_package_inits_say_what_they_own_and_re_export_nothing():
    wrong = []
    for package in ("annotation", "calibration", "pages"):
        for init in sorted((ROOT / package).rglob("__init__.py")):
            tree = ast.parse(init.read_text(encoding="utf-8"))
            if package != "pages" and ast.get_docstring(tree) is None:
                wrong.append(f"{init.relative_to(ROOT)}: no docstring saying what it owns")
            if any(isinstance(node, ast.Import | ast.ImportFrom) for node in tree.body):
                wrong.append(f"{init.relative_to(ROOT)}: imports (re-exports) something")
    assert not wrong, "\n".join(wrong)


def test_ci_runs_the_readmes_test_command_and_lints_before_testing():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = [b.split("```", 1)[0].strip() for b in readme.split("```bash\n")[1:]]
    test_command = next(b for b in blocks if "pytest" in b)
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").strip().splitlines()[-1]
    assert ci == test_command
    order = [test_command.index(step) for step in ("ruff check", "ruff format --check", "-m pytest")]
    assert order == sorted(order)


def test_test_modules_have_unique_names():
    # tests/ has no packages: pytest imports each test module by its file name, so two files of one
    # name make the second fail to collect ("import file mismatch") in a clean run.
    names = Counter(path.name for path in (ROOT / "tests").rglob("test_*.py"))
    assert [name for name, count in names.items() if count > 1] == []
