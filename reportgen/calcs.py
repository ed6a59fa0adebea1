"""Formulas are arithmetic over anchored values; an AST whitelist means a formula can never run code."""

from __future__ import annotations

import ast
import math
import operator
import re
import sys
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from decimal import (ROUND_HALF_EVEN, Context, Decimal, DecimalException, DivisionByZero,
                     InvalidOperation, Overflow, localcontext)

from reportgen.errors import did_you_mean

# Formulas run in decimal, on the numbers as written: 60 digits while computing, the result
# kept to 50, so x / 3 * 3 is x again and a tolerance of 0 means equal, with no float slack.
_WORK = Context(prec=60, rounding=ROUND_HALF_EVEN, Emax=999_999, Emin=-999_999,
                traps=[InvalidOperation, DivisionByZero, Overflow])
_KEEP = Context(prec=50, rounding=ROUND_HALF_EVEN, Emax=999_999, Emin=-999_999,
                traps=[InvalidOperation, Overflow])
# Claim numbers are floats when loaded, so nothing a formula compares with is larger.
_LARGEST = Decimal(sys.float_info.max)
ROUND_DIGITS = 30
_ROUND_HINT = (f"round() takes a whole number of decimals from -{ROUND_DIGITS} to {ROUND_DIGITS}, "
               "e.g. round(x, 2)")

_BINOPS: dict[type, Callable[[Decimal, Decimal], Decimal]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
}
_UNARY: dict[type, Callable[[Decimal], Decimal]] = {ast.USub: operator.neg, ast.UAdd: operator.pos}


def _round(x: Decimal, nd: Decimal = Decimal(0)) -> Decimal:
    """Python's round (half to even), on the decimal value rather than its binary neighbour."""
    if not _whole_digits(nd):
        raise FormulaError(_ROUND_HINT)
    try:
        return x.quantize(Decimal(1).scaleb(-int(nd)), rounding=ROUND_HALF_EVEN)
    except InvalidOperation:  # more places than the working precision: x is its own rounding
        return x


def _whole_digits(nd: Decimal) -> bool:
    return nd == nd.to_integral_value() and abs(nd) <= ROUND_DIGITS


def _sum(*args: Decimal) -> Decimal:
    return sum(args, Decimal(0))


_FUNCS: dict[str, Callable[..., Decimal]] = {
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
    # each number constant of the tree (by node id) as written, e.g. 0.1 exactly
    numbers: dict[int, Decimal] = field(default_factory=dict, compare=False)


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
            raise FormulaError(f"unknown claim id {cid!r} in formula {_show(text)}; references "
                               "are written claim-id.value, separated from operators by spaces"
                               + did_you_mean(cid, ids))
        out.append(tok.group(0))
        i = tok.end()
    src = "".join(out).strip()
    try:
        tree = ast.parse(src, mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError) as e:
        if isinstance(e, (SyntaxError, ValueError)):
            raise FormulaError(f"cannot parse formula {_show(text)}; use numbers, claim-id.value,"
                               " + - * /, parentheses and abs min max round sum") from None
        raise FormulaError(f"formula {_show(text)} is too long or too deeply nested to parse; "
                           "split it into several calcs") from None
    numbers: dict[int, Decimal] = {}
    for node in ast.walk(tree):
        _check_node(node, text, len(refs))
        if isinstance(node, ast.Constant):
            numbers[id(node)] = _number(node, src)
        elif isinstance(node, ast.Call) and getattr(node.func, "id", "") == "round":
            _check_round(node, src)
    called = {id(n.func) for n in ast.walk(tree) if isinstance(n, ast.Call)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and (node.id in _FUNCS) != (id(node) in called):
            what = node.id if node.id in _FUNCS else "a value"
            raise FormulaError(f"formula {_show(text)}: {what} used as a function or a function "
                               "used as a value; write abs(x), min(a, b), round(x, 2)")
    return Formula(text, tuple(refs), tree, numbers)


def _show(text: str) -> str:
    """A formula in a message, cut short so one message stays one line."""
    return repr(text) if len(text) <= 80 else repr(text[:77] + "...")


def _number(node: ast.Constant, src: str) -> Decimal:
    """A constant as written (0.1 is one tenth, not its binary neighbour), within float range."""
    written = ast.get_source_segment(src, node) or repr(node.value)
    try:
        d = Decimal(written.replace("_", ""))
    except InvalidOperation:
        d = Decimal(repr(node.value))
    if not d.is_finite() or abs(d) > _LARGEST:
        shown = written if len(written) <= 40 else written[:37] + "..."
        raise FormulaError(f"formula holds the number {shown}, larger than any number a claim "
                           "can hold (about 1.8e308); write a smaller number")
    return d


def _check_round(node: ast.Call, src: str) -> None:
    """round(x, 2): a constant number of decimals is checked here, so the error has a line."""
    if len(node.args) != 2:
        return
    nd: ast.AST = node.args[1]
    sign = 1
    while isinstance(nd, ast.UnaryOp) and isinstance(nd.op, (ast.USub, ast.UAdd)):
        sign = -sign if isinstance(nd.op, ast.USub) else sign
        nd = nd.operand
    if isinstance(nd, ast.Constant) and not _whole_digits(sign * _number(nd, src)):
        raise FormulaError(_ROUND_HINT)


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
        raise FormulaError(f"formula {_show(text)} uses {type(node).__name__}, which is not "
                           "allowed; use numbers, claim-id.value, + - * /, parentheses and "
                           "abs min max round sum")
    if isinstance(node, ast.Constant) and (
            isinstance(node.value, bool) or not isinstance(node.value, (int, float))):
        raise FormulaError(f"formula {_show(text)} holds a constant that is not a number")
    if isinstance(node, ast.Name):
        ok = node.id in _FUNCS or (node.id.startswith("__ref") and node.id[5:].isdigit()
                                   and int(node.id[5:]) < nrefs)
        if not ok:
            raise FormulaError(f"unknown name {node.id!r} in formula {_show(text)}; "
                               "references are written claim-id.value")
    if isinstance(node, ast.Call):
        if not isinstance(node.func, ast.Name) or node.func.id not in _FUNCS or node.keywords:
            raise FormulaError(f"formula {_show(text)} calls something other than "
                               "abs, min, max, round or sum")


def evaluate_exact(f: Formula, values: Mapping[tuple[str, str], Decimal]) -> Decimal:
    """Compute the formula in decimal, without recursion (2,000 terms or 990 signs just work);
    raises FormulaError for a missing value, a division by zero or an unbounded result."""
    try:
        with localcontext(_WORK):
            result = _run(f, values)
        result = _KEEP.plus(result)
    except DecimalException:
        raise FormulaError(f"{_show(f.text)} does not give a finite number") from None
    if abs(result) > _LARGEST:
        raise FormulaError(f"{_show(f.text)} does not give a finite number")
    return result


def _run(f: Formula, values: Mapping[tuple[str, str], Decimal]) -> Decimal:
    """Post-order over the tree with an explicit stack: operands first, then their operator."""
    out: list[Decimal] = []
    todo: list[tuple[ast.AST, bool]] = [(f.tree.body, False)]
    while todo:
        node, ready = todo.pop()
        if isinstance(node, ast.Constant):
            out.append(f.numbers[id(node)])
            continue
        if isinstance(node, ast.Name):
            ref = f.refs[int(node.id[5:])]
            if ref not in values:
                raise FormulaError(f"{ref[0]} has no value {ref[1]!r}")
            out.append(values[ref])
            continue
        kids = _operands(node)
        if not ready:
            todo.append((node, True))
            todo.extend((k, False) for k in reversed(kids))
            continue
        args = out[len(out) - len(kids):]
        del out[len(out) - len(kids):]
        out.append(_apply(node, args, f.text))
    return out[0]


def _operands(node: ast.AST) -> list[ast.AST]:
    if isinstance(node, ast.BinOp):
        return [node.left, node.right]
    if isinstance(node, ast.UnaryOp):
        return [node.operand]
    if isinstance(node, ast.Call):
        return list(node.args)
    raise FormulaError(f"cannot evaluate {type(node).__name__}")  # pragma: no cover


def _apply(node: ast.AST, args: list[Decimal], text: str) -> Decimal:
    if isinstance(node, ast.BinOp):
        if isinstance(node.op, ast.Div) and args[1] == 0:
            raise FormulaError(f"division by zero in {_show(text)}")
        return _BINOPS[type(node.op)](args[0], args[1])
    if isinstance(node, ast.UnaryOp):
        return _UNARY[type(node.op)](args[0])
    assert isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
    if not args:
        raise FormulaError(f"{node.func.id}() needs arguments in {_show(text)}")
    try:
        return _FUNCS[node.func.id](*args)
    except TypeError:
        raise FormulaError(f"wrong arguments to {node.func.id}() in {_show(text)}") from None


def evaluate(f: Formula, values: Mapping[tuple[str, str], float]) -> float:
    """evaluate_exact for float values (each taken as its shortest decimal form)."""
    return float(evaluate_exact(f, {k: exact(v) for k, v in values.items()}))


def exact(value: float, written: str | None = None) -> Decimal:
    """A claim's number as the analyst wrote it ("2.870", "6_928.5"), else the float's own
    shortest form; an integer is exact as it is."""
    if isinstance(value, int) and not isinstance(value, bool):
        return Decimal(value)
    if written is not None:
        try:
            d = Decimal(written.strip().replace("_", ""))
        except InvalidOperation:
            d = None
        if d is not None and d.is_finite() and float(d) == value:
            return d
    return Decimal(repr(float(value)))


def half_last_place(result_text: str) -> Decimal:
    """The default tolerance: half a unit in the last decimal place as written, 2.87 -> 0.005."""
    try:
        d = Decimal(result_text.strip().replace("_", ""))
    except InvalidOperation:
        return Decimal("0.5")
    exp = d.as_tuple().exponent
    return Decimal(5).scaleb(exp - 1) if isinstance(exp, int) and exp < 0 else Decimal("0.5")


def default_tolerance(result_text: str) -> float:
    """half_last_place as a float, for display."""
    return float(half_last_place(result_text))


def within(computed: Decimal | float, result: Decimal | float,
           tolerance: Decimal | float) -> bool:
    """|computed - result| <= tolerance, exactly: no slack beyond the stated tolerance."""
    def dec(x: Decimal | float) -> Decimal:
        return x if isinstance(x, Decimal) else exact(x)

    with localcontext(_WORK):
        return abs(dec(computed) - dec(result)) <= dec(tolerance)


def scale_slip(computed: Decimal, stated: Decimal, tolerance: Decimal) -> str:
    """'; the stated result is 100 times smaller than computed ...' when the result is off
    by a factor of 100 or 1,000 (within the tolerance scaled alike): a percentage written
    as a fraction, thousands for units. '' otherwise."""
    def shown(d: Decimal) -> str:
        return f"{d.normalize():f}"

    for factor, small, large in ((100, "a percentage written as a fraction",
                                  "a fraction written as a percentage"),
                                 (1000, "thousands written as units",
                                  "units written as thousands")):
        f = Decimal(factor)
        if not (computed and stated):
            return ""
        with localcontext(_WORK):
            ratio = abs(computed / stated)
        near = abs(ratio / f - 1) <= Decimal("0.05") or abs(ratio * f - 1) <= Decimal("0.05")
        if not near:
            continue
        if within(computed, stated * f, tolerance * f):
            return (f"; the stated result is {factor:,} times smaller than computed ({small}?): "
                    f"state {shown(stated * f)}, or divide the formula by {factor:,}")
        if within(computed * f, stated, tolerance * f):
            return (f"; the stated result is {factor:,} times larger than computed ({large}?): "
                    f"state {shown(stated / f)}, or multiply the formula by {factor:,}")
    return ""


def fmt(x: float) -> str:
    """Numbers in messages and JSON: four decimals are enough to see a rounding slip."""
    if not math.isfinite(x):
        return repr(x)
    r = round(x, 4)
    return str(int(r)) if r == int(r) and abs(r) < 1e15 else repr(r)
