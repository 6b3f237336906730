"""The layers of the package, read from the source: what may import what, and no cycles.

    cli.py ─> commands/, tools/ ─> engine.py ─> rules/ ─> model.py, reader.py, parsers/ ...
                      └──────────> reporters/ ─> findings.py

Every import counts, at module level or inside a function (a cycle through a function-level
import is still a cycle); an `if TYPE_CHECKING:` block does not, since it never runs."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _modules() -> dict[str, Path]:
    """Module name -> file, for checker/ and rules/ (installed as checker.rules)."""
    found = {}
    for path in sorted((ROOT / "checker").rglob("*.py")):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    for path in sorted((ROOT / "rules").glob("*.py")):
        found["checker.rules" + ("" if path.stem == "__init__" else f".{path.stem}")] = path
    return found


MODULES = _modules()


def _type_checking_only(node: ast.AST) -> bool:
    return isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)


def _imports(name: str, path: Path) -> set[str]:
    """Every module `name` imports, by full name: checker modules and third-party ones."""
    package = name if path.stem == "__init__" else name.rpartition(".")[0]
    found: set[str] = set()
    stack = list(ast.parse(path.read_text(encoding="utf-8")).body)
    while stack:
        node = stack.pop()
        if _type_checking_only(node):
            continue
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            submodules = {f"{target}.{alias.name}" for alias in node.names} & MODULES.keys()
            found.update(submodules)
            if len(submodules) < len(node.names):  # names defined in `target` itself
                found.add(target)
        stack.extend(ast.iter_child_nodes(node))
    return found


GRAPH = {name: _imports(name, path) for name, path in MODULES.items()}


def _inside(name: str) -> set[str]:
    return {m for m in GRAPH[name] if m in MODULES and m != name}


def _cycles() -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for other in sorted(_inside(node)):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in on_stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for name in sorted(MODULES):
        if name not in index:
            visit(name)
    return found


def test_the_graph_is_read() -> None:
    """The reading itself works: known edges are there, so the tests below can fail."""
    assert "checker.engine" in _inside("checker.commands.check")
    assert "checker.commands.common" in _inside("checker.cli")
    assert "checker.model" in _inside("checker.rules.performance")
    assert "checker.rules" in _inside("checker.engine")  # load_all, inside a function
    assert "os" in GRAPH["checker.tree"]


def test_the_package_has_no_import_cycle() -> None:
    assert _cycles() == []


RULE_MODULES = sorted(name for name in MODULES if name.startswith("checker.rules."))


@pytest.mark.parametrize("name", RULE_MODULES)
def test_rules_only_read_through_the_model(name: str) -> None:
    """A rule touches no file system (os, pathlib, the tree) and knows nothing of the engine,
    the commands or the command line: it reads artefacts through the model."""
    forbidden = [
        m
        for m in GRAPH[name]
        if m.split(".")[0] in ("os", "pathlib", "shutil", "glob", "io")
        or m in ("checker.tree.Tree", "checker.engine", "checker.cli")
        or m.startswith(("checker.commands", "checker.tools", "checker.reporters"))
    ]
    assert forbidden == []


CORE = sorted(
    name
    for name in MODULES
    if not name.startswith(("checker.commands", "checker.tools", "checker.cli", "checker.__main__"))
)


@pytest.mark.parametrize("name", CORE)
def test_the_core_does_not_import_the_commands(name: str) -> None:
    """The engine, model, rules, parsers and reporters stand on their own; commands and tools
    are built on them, and a new command needs no change below."""
    assert sorted(m for m in _inside(name) if m.startswith(("checker.commands", "checker.tools", "checker.cli"))) == []


@pytest.mark.parametrize("name", sorted(n for n in MODULES if n.startswith("checker.parsers")))
def test_parsers_are_pure(name: str) -> None:
    """Parsers turn text into values: they import other parsers and the one YAML loader only."""
    assert sorted(m for m in _inside(name) if not m.startswith(("checker.parsers", "checker.yamlsafe"))) == []


@pytest.mark.parametrize("name", sorted(n for n in MODULES if n.startswith("checker.commands.")))
def test_commands_do_not_import_each_others_command_line(name: str) -> None:
    assert "checker.cli" not in _inside(name)
