"""Tokenisers for the two lexical channels; pure functions, shared by indexing and querying.

Chinese has no spaces between words, and no word segmenter is both small and good on
annual-report vocabulary (company names, product lines). Character n-grams need no
dictionary: a two- or three-character word of the query is itself a bigram or trigram
of the text, so a query such as 前五名供应商 matches without knowing where words end.

- `ngram_tokens`: bigrams and trigrams of every CJK run (a lone CJK character stands as
  itself), a number written against CJK characters counting as one character of the
  run; for every other script (Latin, Greek, Cyrillic, Hebrew, Arabic, Devanagari, ...)
  every word whole (lower case) plus its character trigrams when it has four letters or
  more (so a misspelt or inflected name still shares most of its
  grams). Every number is also a token alone, thousands separators removed.
- `unigram_tokens`: single CJK characters with the function characters removed
  (的 了 和 是 在 及 与 等 and a few more), other words whole without English stopwords,
  numbers. Punctuation never becomes a token.

Text is NFKC-normalised and lower-cased first, so full-width digits and letters and
ligatures such as U+FB01 read as their plain forms.
"""

from __future__ import annotations

import re
import unicodedata
from operator import add

_CJK = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u3040-\u30ff\uac00-\ud7af\u3005"


def _mark_ranges() -> str:
    """A character class body of the combining marks (Unicode category M) of the scripts
    written with them (Hebrew points, Arabic harakat, Indic vowel signs, Thai vowels, the
    dot of a lower-cased U+0130) and of the combining blocks: part of a word, not a break."""
    spans: list[list[int]] = []
    for lo, hi in ((0x0300, 0x1100), (0x1AB0, 0x1B00), (0x1DC0, 0x1E00), (0x20D0, 0x2100),
                   (0xFE20, 0xFE30)):
        for c in range(lo, hi):
            if unicodedata.category(chr(c))[0] == "M":
                if spans and spans[-1][1] == c - 1:
                    spans[-1][1] = c
                else:
                    spans.append([c, c])
    return "".join(f"{chr(a)}-{chr(b)}" for a, b in spans)


# A word is a run of letters of any script but the CJK ones (which are n-grammed instead),
# with their combining marks: [^\W\d_] is "a letter" in `re`.
_WORD = rf"(?:[^\W\d_{_CJK}][{_mark_ranges()}]*)+"
_TOKEN_RE = re.compile(
    rf"(?P<cjk>[{_CJK}]+)"
    r"|(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)"
    rf"|(?P<word>{_WORD})"
)
_CJK_RE = re.compile(f"[{_CJK}]")
# The scan of `both_tokens`: the three token kinds, then a run of characters no token
# starts at (not a letter, digit or CJK character): `findall` gives one tuple per token
# or gap, and a gap (all three groups empty) ends a run of CJK characters and numbers.
_SCAN_RE = re.compile(_TOKEN_RE.pattern + rf"|(?:(?![{_CJK}])[\W_])+")

FUNCTION_CHARS = frozenset("的了和是在及与等之其而或也并就都着把被呢吗啊")
STOPWORDS = frozenset("""
a an and are as at be been being but by for from had has have he her his i if in into is
it its of on or our she so than that the their them then there these they this those to
was we were what when which who will with would you your not no yes do does did can may
""".split())
_DROP_FUNCTION = {ord(c): None for c in FUNCTION_CHARS}  # a str.translate table


def normalize(text: str) -> str:
    """NFKC, lower case; the NFKC pass is skipped for text that is already NFKC (a check
    several times cheaper than the normalisation)."""
    if not unicodedata.is_normalized("NFKC", text):
        text = unicodedata.normalize("NFKC", text)
    return text.lower()


def is_cjk(term: str) -> bool:
    """A term of a CJK run (matched by its bigrams), not a word of another script."""
    return _CJK_RE.match(term) is not None


def _runs(text: str):
    for m in _TOKEN_RE.finditer(normalize(text)):
        kind = m.lastgroup
        s = m.group()
        if kind == "num":
            s = s.replace(",", "")
        yield kind, s


def ngram_tokens(text: str) -> list[str]:
    return both_tokens(text)[0]


def unigram_tokens(text: str) -> list[str]:
    out: list[str] = []
    for kind, s in _runs(text):
        if kind == "cjk":
            out.extend(c for c in s if c not in FUNCTION_CHARS)
        elif kind == "word":
            if s not in STOPWORDS:
                out.append(s)
        else:
            out.append(s)
    return out


def both_tokens(text: str) -> tuple[list[str], list[str]]:
    """(ngram_tokens(text), unigram_tokens(text)) in one pass over the text (indexing).

    For the n-gram channel a number written against CJK characters (为4,327,614户,
    8至34年) counts as one more character of the run, so its grams tie the figure to
    its words: 为4327614, 4327614户, 8至34. Without that, a figure query would match
    every chunk that mentions the words, and the one chunk with the figure would not
    stand out. The number alone is a token too.

    Indexing tokenises every chunk, so the scan is one `findall` (tuples, no match
    objects) whose fourth alternative eats the text between tokens: a run of CJK
    characters and numbers ends at anything that is not one of them."""
    ng: list[str] = []
    uni: list[str] = []
    run: list[str] = []  # matched pieces (CJK runs, numbers) written against each other
    for cjk, num, word in _SCAN_RE.findall(normalize(text)):
        if cjk:
            run.append(cjk)
            chars = _CJK_CHARS.get(cjk)
            if chars is None:
                if len(_CJK_CHARS) >= _MEMO_MAX:
                    _CJK_CHARS.clear()
                chars = _CJK_CHARS[cjk] = tuple(cjk.translate(_DROP_FUNCTION))
            uni.extend(chars)
        elif num:
            num = num.replace(",", "")
            run.append(num)
            ng.append(num)
            uni.append(num)
        else:  # a word, or the text between tokens
            if run:
                _flush(run, ng)
                run = []
            if word:
                ng.append(word)
                if len(word) >= 4:
                    ng.extend(map(add, map(add, word, word[1:]), word[2:]))
                if word not in STOPWORDS:
                    uni.append(word)
    if run:
        _flush(run, ng)
    return ng, uni


# The tokens of runs already seen: a run's pieces -> its n-grams, a CJK run -> its
# unigrams. Reports repeat their phrases (报告期内, table headings, dates): over half the
# characters of the sample's runs are repeats, and a repeat costs a lookup instead of
# making its tokens again (and shares their strings, whose hashes are then cached for the
# document-frequency count). Bounded: each is cleared when full.
_RUN_GRAMS: dict = {}
_CJK_CHARS: dict[str, tuple[str, ...]] = {}
_MEMO_MAX = 1 << 16


def _flush(run: list[str], ng: list[str]) -> None:
    """Add the n-grams of a run of CJK characters and numbers (a number alone is already
    a token)."""
    key = run[0] if len(run) == 1 else tuple(run)
    grams = _RUN_GRAMS.get(key)
    if grams is None:
        if len(_RUN_GRAMS) >= _MEMO_MAX:
            _RUN_GRAMS.clear()
        grams = _RUN_GRAMS[key] = _run_grams(run)
    ng.extend(grams)


def _run_grams(run: list[str]) -> tuple[str, ...]:
    """Bigrams, then trigrams, of a run's units (CJK characters and whole numbers), built
    in C by `map`; a run of one unit is itself, a number alone nothing."""
    if len(run) == 1:
        units = run[0]
        if units[0].isdigit():
            return ()
    else:
        units = [u for p in run for u in ((p,) if p[0].isdigit() else p)]
    if len(units) == 1:
        return (units[0],)
    pairs = list(map(add, units, units[1:]))
    return (*pairs, *map(add, pairs, units[2:]))


def query_terms(text: str) -> list[str]:
    """The visible terms of a query, for marking matches: CJK runs, words and numbers."""
    terms = []
    for kind, s in _runs(text):
        if kind == "word" and s in STOPWORDS:
            continue
        if kind == "cjk":
            s = "".join(c for c in s if c not in FUNCTION_CHARS) if len(s) == 1 else s
            if not s:
                continue
        if s not in terms:
            terms.append(s)
    return terms


def unique(tokens: list[str]) -> list[str]:
    return list(dict.fromkeys(tokens))


TOKENIZERS = {"ngram": ngram_tokens, "unigram": unigram_tokens}
