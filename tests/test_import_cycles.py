"""The judge's modules import each other without cycles (issue 14), and no import is put
inside a function to hide one, nor under ``if TYPE_CHECKING:`` (issue 22: a type is a
dependency too); the layers stand in order: the mail layer never imports the games layer,
the command grammar (``judge/commands``) never imports the games that carry commands out,
the reports and pictures (``judge/reports.py``, ``judge/render``) are made from the data the
games layer hands them and never import it, and a variant's rules never reach the mail layer
(their templates and times come from ``judge/text.py``).

The modules are read with ``ast`` (nothing is imported): the repository's ``judge/`` folder
as ``judge.*`` and ``variants/`` as ``judge.variants.*``. An edge is an import of a judge
module; the first test leaves out the imports under ``if TYPE_CHECKING:`` (what runs), the
others count them.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FOLDERS = ((ROOT / "judge", "judge"), (ROOT / "variants", "judge.variants"))


def _modules() -> dict[str, Path]:
    out: dict[str, Path] = {}
    for folder, package in FOLDERS:
        for path in folder.rglob("*.py"):
            parts = list(path.relative_to(folder).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            out[".".join([package, *parts])] = path
    return out


MODULES = _modules()


def _imported(module: str, node: ast.Import | ast.ImportFrom) -> list[str]:
    """The judge modules ``node`` (in ``module``) imports."""
    if isinstance(node, ast.Import):
        names = [a.name for a in node.names]
    else:
        base = node.module or ""
        if node.level:
            package = module if MODULES[module].name == "__init__.py" else \
                module.rsplit(".", 1)[0]
            for _ in range(node.level - 1):
                package = package.rsplit(".", 1)[0]
            base = f"{package}.{base}" if base else package
        # ``from judge.games import game``: the module judge.games.game
        names = [f"{base}.{a.name}" if f"{base}.{a.name}" in MODULES else base
                 for a in node.names]
    return [n for n in names if n in MODULES]


def _type_checking(node: ast.AST) -> bool:
    return isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)


def _imports(tree: ast.Module, anywhere: bool, types: bool = False
             ) -> Iterator[ast.Import | ast.ImportFrom]:
    """The module's imports run at import time (``anywhere``: in its functions too;
    ``types``: those for type checkers only too)."""
    def walk(node: ast.AST) -> Iterator[ast.Import | ast.ImportFrom]:
        for child in ast.iter_child_nodes(node):
            if _type_checking(child) and not types:
                continue
            if isinstance(child, (ast.Import, ast.ImportFrom)):
                yield child
            elif anywhere or not isinstance(
                    child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
                yield from walk(child)
            else:  # a class body runs at import time; its methods do not
                if isinstance(child, ast.ClassDef):
                    for item in child.body:
                        if not isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                            yield from walk(ast.Module(body=[item], type_ignores=[]))
    return walk(tree)


def graph(anywhere: bool, within: str = "judge", types: bool = False) -> dict[str, set[str]]:
    """Module -> the judge modules it imports, for the modules named ``within`` or below
    (``types``: counting the imports under ``if TYPE_CHECKING:``)."""
    out: dict[str, set[str]] = {}
    for name, path in MODULES.items():
        if name != within and not name.startswith(within + "."):
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        out[name] = {t for node in _imports(tree, anywhere, types) for t in _imported(name, node)
                     if t != name and (t == within or t.startswith(within + "."))}
    return out


def cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


def test_no_cycle_among_the_modules_as_they_are_imported():
    assert cycles(graph(anywhere=False)) == []


def test_no_import_inside_a_function_hides_a_cycle():
    """Were every import of judge/ at the top of its module, there would still be no cycle
    (a function may import late for speed, e.g. the command line, never to dodge a cycle).
    The variants' own folders are held to the first test only."""
    edges = {m: targets for m, targets in graph(anywhere=True).items()
             if not m.startswith("judge.variants.")}
    assert cycles(edges) == []


def _in(module: str, *packages: str) -> bool:
    return any(module == p or module.startswith(p + ".") for p in packages)


def _judge_only(edges: dict[str, set[str]]) -> dict[str, set[str]]:
    """The edges of judge/ (the variants' own folders are held to the first test only)."""
    return {m: targets for m, targets in edges.items() if not _in(m, "judge.variants")}


def largest_cycle(edges: dict[str, set[str]]) -> int:
    return max((len(c) for c in cycles(edges)), default=0)


def test_no_cycle_even_counting_the_imports_for_type_checkers():
    """A handler typed with the actor's private session type made 12 modules of commands,
    games and reports one circle (issue 22); a type names a dependency as an import does."""
    edges = _judge_only(graph(anywhere=True, types=True))
    assert largest_cycle(edges) == 0, cycles(edges)


def _reach(edges: dict[str, set[str]], start: str) -> set[str]:
    """The modules ``start`` imports, directly or through others."""
    seen: set[str] = set()
    todo = [start]
    while todo:
        for t in edges.get(todo.pop(), ()):
            if t not in seen:
                seen.add(t)
                todo.append(t)
    return seen


def _imports_of(sources: tuple[str, ...], targets: tuple[str, ...],
                through: bool = True) -> dict[str, list[str]]:
    """Each module of ``sources`` -> the modules of ``targets`` it imports (types and imports
    in functions counted; ``through``: through other modules too), when it imports any."""
    edges = graph(anywhere=True, types=True)
    out = {}
    for m in edges:
        if _in(m, *sources):
            reached = _reach(edges, m) if through else edges[m]
            wrong = sorted(t for t in reached if _in(t, *targets))
            if wrong:
                out[m] = wrong
    return out


def test_the_mail_layer_never_imports_the_games_layer():
    assert _imports_of(("judge.mail",), ("judge.games",)) == {}


def test_the_command_grammar_never_imports_the_games():
    """``judge/commands`` reads lines into commands; binding them to their handlers is the
    games layer's (judge/games/commands.py)."""
    assert _imports_of(("judge.commands",), ("judge.games",)) == {}


def test_reports_and_pictures_never_import_the_games():
    """A report or a map is made from the data the games layer hands it."""
    assert _imports_of(("judge.reports", "judge.render"), ("judge.games",)) == {}


def test_variants_never_reach_the_mail_layer():
    """A variant's rules render their templates and times through judge/text.py (the mail
    layer is the judge's, under the variants)."""
    assert _imports_of(("judge.variants",), ("judge.mail",), through=False) == {}


def test_the_check_finds_a_cycle():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []
