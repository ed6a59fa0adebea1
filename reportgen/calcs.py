"""Formulas are arithmetic over anchored values; an AST whitelist means a formula can never run code."""

from __future__ import annotations

import ast
import math
import operator
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

_BINOPS: dict[type, Callable[[float, float], float]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
}
_UNARY: dict[type, Callable[[float], float]] = {ast.USub: operator.neg, ast.UAdd: operator.pos}


def _round(x: float, nd: float = 0) -> float:
    if nd != int(nd):
        raise FormulaError("round() takes a whole number of decimals")
    return float(round(x, int(nd)))


def _sum(*args: float) -> float:
    return math.fsum(args)


_FUNCS: dict[str, Callable[..., float]] = {
    "abs": abs, "min": min, "max": max, "round": _round, "sum": _sum,
}
_REF_START = re.compile(r"[A-Za-z0-9]")
_WORD = re.compile(r"[A-Za-z0-9._-]*")
_NUMBER = re.compile(r"[0-9]+(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?")
_TOKEN = re.compile(r"[0-9]+(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?(?![A-Za-z0-9_])|[A-Za-z_][A-Za-z0-9_]*")


class FormulaError(ValueError):
    """A formula that cannot be parsed or evaluated; the message says what to fix."""


@dataclass(frozen=True)
class Formula:
    text: str
    refs: tuple[tuple[str, str], ...]  # (claim id, value name) in order of appearance
    tree: ast.Expression


def parse(text: str, known_ids: Iterable[str]) -> Formula:
    """Replace `claim-id.value` references by placeholders, then check the AST against a whitelist."""
    ids = set(known_ids)
    refs: list[tuple[str, str]] = []
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        prev = text[i - 1] if i else " "
        if not (_REF_START.match(ch) and not (prev.isalnum() or prev in "._")):
            out.append(ch)
            i += 1
            continue
        word = _WORD.match(text, i).group(0)  # type: ignore[union-attr]
        ref = _split_ref(word, ids)
        if ref is not None:
            refs.append((ref[0], ref[1]))
            out.append(f"__ref{len(refs) - 1}")
            i += ref[2]
            continue
        tok = _TOKEN.match(text, i)
        if tok is None or (tok.end() < n and text[tok.end()] in "._-" and
                           not _NUMBER.fullmatch(tok.group(0) + text[tok.end()])):
            cid = word.rsplit(".", 1)[0] if "." in word else word
            raise FormulaError(f"unknown claim id {cid!r} in formula {text!r}; references are "
                               "written claim-id.value, separated from operators by spaces")
        out.append(tok.group(0))
        i = tok.end()
    src = "".join(out)
    try:
        tree = ast.parse(src.strip(), mode="eval")
    except SyntaxError:
        raise FormulaError(f"cannot parse formula {text!r}; use numbers, claim-id.value, "
                           "+ - * /, parentheses and abs min max round sum") from None
    for node in ast.walk(tree):
        _check_node(node, text, len(refs))
    called = {id(n.func) for n in ast.walk(tree) if isinstance(n, ast.Call)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and (node.id in _FUNCS) != (id(node) in called):
            raise FormulaError(f"formula {text!r}: {node.id if node.id in _FUNCS else 'a value'}"
                               " used as a function or a function used as a value; write "
                               "abs(x), min(a, b), round(x, 2)")
    return Formula(text, tuple(refs), tree)


def _split_ref(word: str, ids: set[str]) -> tuple[str, str, int] | None:
    """The longest known claim id followed by `.name` at the start of word."""
    best = None
    for j in range(len(word) - 1, 0, -1):
        if word[j] != ".":
            continue
        cid = word[:j]
        if cid in ids:
            m = re.compile(r"[A-Za-z_][A-Za-z0-9_]*").match(word, j + 1)
            if m:
                best = (cid, m.group(0), m.end())
                break
    return best


def _check_node(node: ast.AST, text: str, nrefs: int) -> None:
    allowed = (ast.Expression, ast.BinOp, ast.UnaryOp, ast.Constant, ast.Name, ast.Call,
               ast.Load, ast.Add, ast.Sub, ast.Mult, ast.Div, ast.USub, ast.UAdd)
    if not isinstance(node, allowed):
        raise FormulaError(f"formula {text!r} uses {type(node).__name__}, which is not allowed; "
                           "use numbers, claim-id.value, + - * /, parentheses and "
                           "abs min max round sum")
    if isinstance(node, ast.Constant) and (
            isinstance(node.value, bool) or not isinstance(node.value, (int, float))):
        raise FormulaError(f"formula {text!r} holds a constant that is not a number")
    if isinstance(node, ast.Name):
        ok = node.id in _FUNCS or (node.id.startswith("__ref") and node.id[5:].isdigit()
                                   and int(node.id[5:]) < nrefs)
        if not ok:
            raise FormulaError(f"unknown name {node.id!r} in formula {text!r}; "
                               "references are written claim-id.value")
    if isinstance(node, ast.Call):
        if not isinstance(node.func, ast.Name) or node.func.id not in _FUNCS or node.keywords:
            raise FormulaError(f"formula {text!r} calls something other than "
                               "abs, min, max, round or sum")


def evaluate(f: Formula, values: Mapping[tuple[str, str], float]) -> float:
    """Compute the formula; raises FormulaError for a missing value or a division by zero."""

    def ev(node: ast.AST) -> float:
        if isinstance(node, ast.Expression):
            return ev(node.body)
        if isinstance(node, ast.Constant):
            return float(node.value)
        if isinstance(node, ast.Name):
            ref = f.refs[int(node.id[5:])]
            if ref not in values:
                raise FormulaError(f"{ref[0]} has no value {ref[1]!r}")
            return float(values[ref])
        if isinstance(node, ast.BinOp):
            a, b = ev(node.left), ev(node.right)
            if isinstance(node.op, ast.Div) and b == 0:
                raise FormulaError(f"division by zero in {f.text!r}")
            return _BINOPS[type(node.op)](a, b)
        if isinstance(node, ast.UnaryOp):
            return _UNARY[type(node.op)](ev(node.operand))
        if isinstance(node, ast.Call):
            assert isinstance(node.func, ast.Name)
            args = [ev(a) for a in node.args]
            if not args:
                raise FormulaError(f"{node.func.id}() needs arguments in {f.text!r}")
            try:
                return float(_FUNCS[node.func.id](*args))
            except TypeError:
                raise FormulaError(f"wrong arguments to {node.func.id}() in {f.text!r}") from None
        raise FormulaError(f"cannot evaluate {type(node).__name__}")  # pragma: no cover

    result = ev(f.tree)
    if not math.isfinite(result):
        raise FormulaError(f"{f.text!r} does not give a finite number")
    return result


def default_tolerance(result_text: str) -> float:
    """Half a unit in the last decimal place of the result as written: 2.87 -> 0.005."""
    try:
        d = Decimal(result_text.strip())
    except InvalidOperation:
        return 0.5
    exp = d.as_tuple().exponent
    return 0.5 * 10.0 ** (exp if isinstance(exp, int) and exp < 0 else 0)


def within(computed: float, result: float, tolerance: float) -> bool:
    """Compare with a little float slack so 2.865 against 2.87 +/- 0.005 is not lost to binary."""
    return abs(computed - result) <= tolerance + 1e-9 * max(1.0, abs(result))


def fmt(x: float) -> str:
    """Numbers in messages and JSON: four decimals are enough to see a rounding slip."""
    r = round(x, 4)
    return str(int(r)) if r == int(r) and abs(r) < 1e15 else repr(r)
