# SPDX-License-Identifier: BSD-3-Clause
"""environment.yml mirrors pyproject.toml: the same packages and pins, group by group.

Every dependency line of environment.yml ends with a comment naming its pyproject group
(``core`` or an extra's name). Active lines are core plus the extras that ``make venv``
installs; every other extra is a commented-out block of the pip section. Names are compared
after PEP 503 normalisation, pins as specifier sets; environment markers are ignored (conda
has none).
"""
from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path

import pytest
import yaml
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[2]
PYPROJECT = ROOT / "pyproject.toml"
ENVIRONMENT = ROOT / "environment.yml"
MAKEFILE = ROOT / "Makefile"

#: ``  - spec   # group ...`` or, commented out, ``  # - spec   # group ...``.
_LINE = re.compile(r"^\s*(?P<off>#\s*)?-\s+(?P<spec>[^#\s]+)\s*#\s*(?P<group>[A-Za-z0-9_-]+)")


def _key(spec: str) -> tuple[str, str]:
    """``(normalised name with extras, canonical specifier)`` of one requirement string."""
    req = Requirement(spec)
    extras = f"[{','.join(sorted(req.extras))}]" if req.extras else ""
    return canonicalize_name(req.name) + extras, ",".join(sorted(str(s) for s in req.specifier))


def _pyproject() -> dict:
    return tomllib.loads(PYPROJECT.read_text())["project"]


def _pyproject_groups() -> dict[str, set[tuple[str, str]]]:
    project = _pyproject()
    groups = {"core": {_key(s) for s in project["dependencies"]}}
    for extra, specs in project.get("optional-dependencies", {}).items():
        groups[extra] = {_key(s) for s in specs}
    return groups


def _yml_lines() -> list[dict]:
    """The dependency lines of environment.yml: spec, group, and whether it is active."""
    lines, inside = [], False
    for number, text in enumerate(ENVIRONMENT.read_text().splitlines(), 1):
        if re.match(r"^dependencies:\s*$", text):
            inside = True
            continue
        if inside and re.match(r"^\S", text) and not text.startswith("#"):
            inside = False
        if not inside:
            continue
        m = _LINE.match(text)
        if m:
            lines.append({"line": number, "spec": m["spec"], "group": m["group"], "active": not m["off"]})
    return lines


def _yml_groups(active_only: bool = False) -> dict[str, set[tuple[str, str]]]:
    groups: dict[str, set[tuple[str, str]]] = {}
    for entry in _yml_lines():
        if active_only and not entry["active"]:
            continue
        groups.setdefault(entry["group"], set()).add(_key(entry["spec"]))
    return groups


def _make_extras() -> tuple[set[str], set[str]]:
    """(extras `make venv` installs on every machine, extras it installs on some only: by
    platform or by GPU), as tools/extras.py, which the Makefile runs, chooses them."""
    assert "tools/extras.py" in MAKEFILE.read_text(), "the Makefile no longer asks tools/extras.py"
    spec = importlib.util.spec_from_file_location("extras", ROOT / "tools" / "extras.py")
    extras = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(extras)
    sets = [set(extras.platform_extras(system, machine)[0])
            for system, machine in (("Linux", "x86_64"), ("Linux", "aarch64"), ("Darwin", "arm64"))]
    everywhere = set.intersection(*sets)
    return everywhere, set.union(*sets, set(extras.GPU_EXTRAS)) - everywhere


def test_every_dependency_line_names_a_pyproject_group():
    known = set(_pyproject_groups())
    unknown = [f"environment.yml:{e['line']}: group {e['group']!r}" for e in _yml_lines()
               if e["group"] not in known]
    assert not unknown, "groups not in pyproject.toml:\n" + "\n".join(unknown)


@pytest.mark.parametrize("group", sorted(_pyproject_groups()))
def test_group_matches(group):
    want = _pyproject_groups()[group]
    have = _yml_groups().get(group, set())
    only_toml = sorted(want - have)
    only_yml = sorted(have - want)
    assert not only_toml and not only_yml, (
        f"group {group!r}: only in pyproject.toml {only_toml}; only in environment.yml {only_yml}"
    )


def test_active_lines_are_core_plus_make_venv_extras():
    """Conda's environment is one for every platform: it installs what `make venv` installs
    everywhere; an extra `make venv` adds on some platforms only (intel: x86-64 Linux) is a
    commented-out block, and the header says so."""
    active = set(_yml_groups(active_only=True))
    everywhere, somewhere = _make_extras()
    assert active == {"core"} | everywhere, (
        f"environment.yml installs {sorted(active)}; make venv installs core + {sorted(everywhere)} everywhere"
    )
    header = ENVIRONMENT.read_text().split("name:", 1)[0]
    for extra in somewhere:
        assert extra in _yml_groups() and extra not in active, extra
        assert f"`{extra}`" in header, f"environment.yml's header must say when make venv adds {extra}"
    # A group is either wholly active or wholly commented out.
    for entry in _yml_lines():
        if entry["group"] in active:
            assert entry["active"], f"environment.yml:{entry['line']}: {entry['spec']} is commented out"


def test_python_pin_matches_requires_python():
    data = yaml.safe_load(ENVIRONMENT.read_text())
    pins = [d for d in data["dependencies"] if isinstance(d, str) and d.startswith("python")]
    assert pins, "environment.yml pins no python"
    assert _key(pins[0])[1] == _key("python" + _pyproject()["requires-python"])[1]


def test_yaml_agrees_with_line_parser():
    """What conda reads (YAML) is exactly what the line parser saw as active."""
    data = yaml.safe_load(ENVIRONMENT.read_text())
    specs = []
    for dep in data["dependencies"]:
        if isinstance(dep, dict):
            specs += [s for s in dep["pip"] if not s.startswith("-")]
        elif dep != "pip":
            specs.append(dep)
    parsed = [e["spec"] for e in _yml_lines() if e["active"]]
    python = [s for s in specs if canonicalize_name(Requirement(s).name) == "python"]
    assert sorted(set(specs) - set(python)) == sorted(parsed)
