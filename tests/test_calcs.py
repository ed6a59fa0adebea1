"""The formula evaluator: arithmetic only, never code; tolerance as the spec defines it."""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from reportgen.calcs import FormulaError, default_tolerance, evaluate, parse, scale_slip, within

IDS = ["s2-4", "s2-5", "s2-6", "a.b", "300274-x"]
VALUES = {("s2-4", "share"): 14.59, ("s2-5", "share"): 2.55, ("s2-6", "share"): 2.54,
          ("a.b", "x"): 2.0, ("300274-x", "amount"): 10.0}


@pytest.mark.parametrize("text,expected", [
    ("s2-4.share / (s2-5.share + s2-6.share)", 14.59 / 5.09),
    ("s2-4.share-s2-5.share", 14.59 - 2.55),
    ("round(a.b.x * 3.333, 2)", 6.67),
    ("sum(1, 2, 3) + max(1, 5) - min(2, 3) + abs(-1)", 10.0),
    ("300274-x.amount / 4", 2.5),
    ("-a.b.x + 1e2", 98.0),
])
def test_evaluates(text: str, expected: float) -> None:
    assert evaluate(parse(text, IDS), VALUES) == pytest.approx(expected)


@pytest.mark.parametrize("text", [
    "__import__('os').system('true')", "open('x')", "s2-4.share ** 2", "(lambda: 1)()",
    "[1][0]", "1 if 1 else 2", "x.share + 1", "s2-4.share.real", "'a' * 3", "True + 1",
    "s2-4.share; 1", "1 +", "a.b.x < 2", "{1: 2}", "f'{1}'", "().__class__",
])
def test_rejects_anything_but_arithmetic(text: str) -> None:
    with pytest.raises(FormulaError):
        evaluate(parse(text, IDS), VALUES)


def test_division_by_zero_is_a_formula_error() -> None:
    with pytest.raises(FormulaError, match="division by zero"):
        evaluate(parse("a.b.x / (a.b.x - 2)", IDS), VALUES)


@given(st.text(max_size=60))
def test_arbitrary_text_never_runs(text: str) -> None:
    """Whatever an analyst types, the result is a number or a FormulaError."""
    try:
        r = evaluate(parse(text, IDS), VALUES)
    except FormulaError:
        return
    assert isinstance(r, float)


@pytest.mark.parametrize("written,tol", [("2.87", 0.005), ("3", 0.5), ("1.390", 0.0005),
                                         ("100", 0.5), ("1e3", 0.5)])
def test_default_tolerance_is_half_the_last_place(written: str, tol: float) -> None:
    assert default_tolerance(written) == pytest.approx(tol)


def test_within_edges() -> None:
    assert within(2.8664, 2.87, 0.005)
    assert within(2.865, 2.87, 0.005)
    assert not within(2.8649, 2.87, 0.005)


@pytest.mark.parametrize("computed,stated,tol,expected", [
    ("90.5512", "0.9055", "0.00005", "; the stated result is 100 times smaller than computed (a "
     "percentage written as a fraction?): state 90.55, or divide the formula by 100"),
    ("0.905512", "90.55", "0.005", "; the stated result is 100 times larger than computed (a "
     "fraction written as a percentage?): state 0.9055, or multiply the formula by 100"),
    ("2469", "2.469", "0.0005", "; the stated result is 1,000 times smaller than computed "
     "(thousands written as units?): state 2469, or divide the formula by 1,000"),
    ("90.5512", "0.95", "0.005", ""),  # 95 times: no factor to name
    ("0.001", "0.04", "0.005", ""),  # within the scaled tolerance, but 40 times
    ("0", "3", "0.5", ""),
])
def test_calc_result_off_by_a_factor_of_100_says_so(computed, stated, tol, expected):
    assert scale_slip(Decimal(computed), Decimal(stated), Decimal(tol)) == expected
