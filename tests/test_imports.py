"""The package's import graph: no cycles, and no module reaching into another's private names.

Read with the stdlib `ast` from the source, so it holds for imports inside functions too
(a lazy import that closes a cycle is still a cycle); `if TYPE_CHECKING:` blocks are left out.
"""

from __future__ import annotations

import ast
from pathlib import Path

PKG = Path(__file__).resolve().parent.parent / "reportgen"


def module_name(path: Path) -> str:
    rel = path.relative_to(PKG.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules() -> dict[str, Path]:
    return {module_name(p): p for p in sorted(PKG.rglob("*.py"))}


def _type_checking_nodes(tree: ast.AST) -> set[int]:
    skip: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If):
            t = node.test
            name = t.id if isinstance(t, ast.Name) else t.attr if isinstance(t, ast.Attribute) else ""
            if name == "TYPE_CHECKING":
                skip.update(id(n) for stmt in node.body for n in ast.walk(stmt))
    return skip


def imports_of(name: str, path: Path, known: set[str]) -> list[tuple[str, list[str], int]]:
    """(imported module, names taken from it, line) for every reportgen import in a file."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skip = _type_checking_nodes(tree)
    is_pkg = path.name == "__init__.py"
    here = name.split(".") if is_pkg else name.split(".")[:-1]
    out = []
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if isinstance(node, ast.Import):
            out.extend((a.name, [], node.lineno) for a in node.names
                       if a.name.split(".")[0] == "reportgen")
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(here[:len(here) - node.level + 1] + ([base] if base else []))
            if base.split(".")[0] != "reportgen":
                continue
            names = [a.name for a in node.names]
            subs = [f"{base}.{n}" for n in names if f"{base}.{n}" in known]
            rest = [n for n in names if f"{base}.{n}" not in known]
            out.extend((s, [], node.lineno) for s in subs)
            if rest or not subs:
                out.append((base, rest, node.lineno))
    return out


def graph() -> dict[str, set[str]]:
    """module -> modules it imports (a submodule import also runs its packages' __init__,
    except the importer's own packages, which are already loading)."""
    mods = modules()
    known = set(mods)
    g: dict[str, set[str]] = {m: set() for m in mods}
    for m, p in mods.items():
        own = {".".join(m.split(".")[:i]) for i in range(1, m.count(".") + 1)}
        for target, _, _ in imports_of(m, p, known):
            parts = target.split(".")
            for i in range(1, len(parts) + 1):
                t = ".".join(parts[:i])
                if t in known and t != m and t not in own:
                    g[m].add(t)
    return g


def find_cycle(g: dict[str, set[str]]) -> list[str] | None:
    """One cycle as a path [a, b, ..., a], or None (iterative DFS, sorted for a stable answer)."""
    state: dict[str, int] = {}
    for start in sorted(g):
        if state.get(start):
            continue
        stack = [(start, iter(sorted(g[start])))]
        path = [start]
        state[start] = 1
        while stack:
            node, it = stack[-1]
            nxt = next(it, None)
            if nxt is None:
                state[node] = 2
                stack.pop()
                path.pop()
                continue
            if state.get(nxt) == 1:
                return path[path.index(nxt):] + [nxt]
            if not state.get(nxt):
                state[nxt] = 1
                stack.append((nxt, iter(sorted(g[nxt]))))
                path.append(nxt)
    return None


def test_the_package_has_no_import_cycle() -> None:
    cycle = find_cycle(graph())
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def test_no_module_imports_another_modules_private_names() -> None:
    mods = modules()
    bad = []
    for m, p in mods.items():
        for target, names, line in imports_of(m, p, set(mods)):
            if target == m:
                continue
            bad.extend(f"{p.relative_to(PKG.parent)}:{line}: {n} from {target}"
                       for n in names if n.startswith("_") and not n.startswith("__"))
    assert not bad, "private names imported across modules:\n" + "\n".join(bad)


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set(), "c": {"a", "b"}}) is None
