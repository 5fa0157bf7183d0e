"""Shared fixtures, and the test tiers. Sockets are disabled for every test (pytest-socket, see pyproject
addopts).

Each test lives in one tier folder under tests/ and gets that tier's marker here, so no test is unmarked:
``unit`` (pure: no model, no files, no subprocess; folders named after the package's modules), ``contract``
(the store contract and the one filter semantics), ``integration`` (real SQLite files, the MiniLM model, the
adapters, the notebooks, a live Couchbase when configured), ``eval`` (the evaluation harness) and
``reliability`` (crashes, kills, concurrency, hostile and poison input, erasure). tests/support holds helpers
shared by the tiers (fakes, hostile strings, the notebook runner); it holds no tests.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from cbmemory import AgentMemory
from cbmemory.embedding import MiniLMEmbedder

TIERS = ("unit", "contract", "integration", "eval", "reliability")
TESTS = Path(__file__).resolve().parent
NOT_PURE = {"tmp_path", "tmp_path_factory", "tmpdir", "tmpdir_factory", "minilm"}  # asked for directly or not


@pytest.hookimpl(tryfirst=True)  # before ``-m`` deselects by marker
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark each test with the tier of its folder. Collection fails for a test outside the tier folders, a
    tier marker that disagrees with the folder, a module whose docstring does not begin with its layer
    ("Unit layer", ...), or a unit test that asks for a temporary folder or the model."""
    problems: dict[str, str] = {}
    for item in items:
        try:
            parts = item.path.resolve().relative_to(TESTS).parts
        except ValueError:
            continue
        tier = parts[0] if len(parts) > 1 else None
        where = str(Path("tests", *parts))
        if tier not in TIERS:
            problems[where] = f"is outside the tier folders (tests/{{{','.join(TIERS)}}}/)"
            continue
        wrong = [t for t in TIERS if t != tier and item.get_closest_marker(t)]
        if wrong:
            problems[item.nodeid] = f"is marked {wrong} but lives in tests/{tier}/"
        module = item.getparent(pytest.Module)
        doc = ((module.obj.__doc__ if module is not None else None) or "").lstrip()
        if not doc.lower().startswith(f"{tier} layer"):
            problems[where] = f'has no docstring beginning "{tier.capitalize()} layer"'
        if tier == "unit" and NOT_PURE & set(getattr(item, "fixturenames", ())):
            asked = sorted(NOT_PURE & set(item.fixturenames))
            problems[item.nodeid] = f"is a unit test but asks for {asked}: move it out of tests/unit"
        item.add_marker(getattr(pytest.mark, tier))
    if problems:
        lines = "\n".join(f"  {where} {what}" for where, what in problems.items())
        raise pytest.UsageError(f"test tiers (tests/conftest.py):\n{lines}")


DURATION_MARKS = ("slow", "heavy", "process", "packaging")  # every test over 2 s carries one (pyproject markers)


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--unmarked-over", type=float, default=None, metavar="SECONDS",
                     help="list the tests that took over SECONDS (setup, call and teardown together) with none "
                          f"of the marks {', '.join(DURATION_MARKS)}")


_TOOK: dict[str, float] = {}
_UNMARKED: set[str] = set()


def pytest_collection_finish(session: pytest.Session) -> None:
    _UNMARKED.update(i.nodeid for i in session.items if not any(i.get_closest_marker(m) for m in DURATION_MARKS))


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    _TOOK[report.nodeid] = _TOOK.get(report.nodeid, 0.0) + report.duration


def pytest_terminal_summary(terminalreporter, config: pytest.Config) -> None:
    limit = config.getoption("--unmarked-over")
    if limit is None:
        return
    over = sorted(((t, n) for n, t in _TOOK.items() if t > limit and n in _UNMARKED), reverse=True)
    terminalreporter.section(f"unmarked tests over {limit:g} s: {len(over)}")
    for took, nodeid in over:
        terminalreporter.write_line(f"{took:7.2f}s {nodeid}")


@pytest.fixture(scope="session")
def minilm() -> MiniLMEmbedder:
    """The real offline embedder, loaded once per test session."""
    return MiniLMEmbedder()


@pytest.fixture
def memory(tmp_path, minilm):
    m = AgentMemory.open(tmp_path / "memory.db", embedder=minilm)
    yield m
    m.close()


class ScriptedEmbedder:
    """A custom embedder whose output the test controls (for checks of what cbmemory does with bad vectors).
    Not used where retrieval quality is under test."""

    def __init__(self, name: str = "scripted", dimension: int = 4, broken: str | None = None):
        self.name, self.dimension, self.broken = name, dimension, broken

    def embed(self, texts):
        out = np.ones((len(texts), self.dimension), dtype=np.float32) / np.sqrt(self.dimension)
        if self.broken == "nan":
            out[0, 0] = np.nan
        elif self.broken == "dim":
            out = np.ones((len(texts), self.dimension + 1), dtype=np.float32)
        elif self.broken == "rows":
            out = out[:-1]
        return out

    def embed_query(self, text):
        return self.embed([text])[0]


@pytest.fixture
def scripted():
    return ScriptedEmbedder
