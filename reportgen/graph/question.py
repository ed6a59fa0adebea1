"""Bind the names in a question to entities (graph.md section 2): the longest declared names
first, then a fuzzy score with a threshold and a margin; never a guess."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from reportgen.graph.names import bigrams, norm

THRESHOLD = 0.75
MARGIN = 0.10

# Words of a question that are not names: English function and question words, and Chinese
# function characters and common nouns of relation questions (split on, never bound).
STOPWORDS = frozenset("""a an and are as at behind between both by does do either for from has
have how in is it its of on or sit sits supply supplies supplier suppliers customer customers
the their them to what which who whom why with between path paths link links relation
relations connect connects connected""".split())
CJK_SPLIT = re.compile("[的和与及跟同是在对向从间吗呢了]+|之间|哪些|什么|谁|供应商|客户|关系|公司|企业|"
                       "路径|联系")
SEGMENT = re.compile(r"[^\W_]+(?:[ '&.-][^\W_]+)*")


@dataclass(frozen=True)
class Binding:
    mention: str
    entity: str
    name: str
    score: float
    method: str  # id | name | alias | fuzzy | vector


@dataclass(frozen=True)
class Candidate:
    mention: str
    entity: str
    name: str
    score: float


@dataclass(frozen=True)
class Bound:
    bindings: tuple[Binding, ...]
    candidates: tuple[Candidate, ...]
    status: str  # ok | ambiguous | unbound


class NameIndex:
    """Every id, name and alias of a graph's entities, normalised, with how it names them."""

    def __init__(self, entities: Iterable[tuple[str, str, Iterable[str]]]) -> None:
        self.keys: dict[str, tuple[str, str]] = {}  # norm(name) -> (entity id, method)
        self.display: dict[str, str] = {}  # entity id -> name
        self._grams: dict[str, set[str]] | None = None  # bigram -> names holding it
        for eid, name, aliases in entities:
            self.display[eid] = name
            for text, method in ((name, "name"), *((a, "alias") for a in aliases), (eid, "id")):
                key = norm(text)
                if key and key not in self.keys:
                    self.keys[key] = (eid, method)
        self.longest = max(map(len, self.keys), default=0)

    @property
    def grams(self) -> dict[str, set[str]]:
        """Built on the first fuzzy lookup: most questions name their entities exactly."""
        if self._grams is None:
            self._grams = {}
            for key in self.keys:
                for g in bigrams(key):
                    self._grams.setdefault(g, set()).add(key)
        return self._grams

    @classmethod
    def of_graph(cls, g) -> NameIndex:  # g: networkx graph with name/aliases node attrs
        return cls((n, d.get("name", n), d.get("aliases", ())) for n, d in g.nodes(data=True))

    def exact(self, q: str) -> list[tuple[int, int, str]]:
        """(start, end, key) of every name found in the normalised question, longest first,
        non-overlapping; a Latin name must stand as a word (ABB is not in ABBA)."""
        found = []
        for start in range(len(q)):  # every substring up to the longest name: a dict lookup
            for end in range(start + 1, min(len(q), start + self.longest) + 1):
                key = q[start:end]
                if key in self.keys and _word_ok(q, start, end):
                    found.append((start, end, key))
        found.sort(key=lambda f: (-(f[1] - f[0]), f[0]))
        taken: list[tuple[int, int, str]] = []
        for f in found:
            if all(f[1] <= t[0] or f[0] >= t[1] for t in taken):
                taken.append(f)
        return sorted(taken)

    def fuzzy(self, mention: str) -> list[tuple[float, str]]:
        """(score, entity id) best first: bigram Dice against each name sharing a bigram."""
        mg = bigrams(mention)
        if not mg:
            return []
        keys = set().union(*(self.grams.get(g, set()) for g in mg))
        best: dict[str, float] = {}
        total_m = sum(mg.values())
        for key in keys:
            kg = bigrams(key)
            s = 2 * sum((mg & kg).values()) / (total_m + sum(kg.values()))
            eid = self.keys[key][0]
            if s > best.get(eid, 0.0):
                best[eid] = s
        return sorted(((round(s, 4), e) for e, s in best.items()), key=lambda x: (-x[0], x[1]))


def _word_ok(q: str, start: int, end: int) -> bool:
    def latin(ch: str) -> bool:
        return ch.isascii() and ch.isalnum()
    if latin(q[start]) and start > 0 and latin(q[start - 1]):
        return False
    return not (latin(q[end - 1]) and end < len(q) and latin(q[end]))


def mentions(rest: str) -> list[str]:
    """What may be a name in the text the exact phase left: words that are not stopwords,
    not plain lower-case English, and longer than one character."""
    out = []
    for seg in SEGMENT.findall(rest):
        for part in CJK_SPLIT.split(seg):
            words = [w for w in part.split() if w.casefold() not in STOPWORDS]
            text = " ".join(w for w in words if not (w.isascii() and w.islower()))
            if len(text.replace(" ", "")) > 1:
                out.append(text)
    return out


def bind_question(question: str, index: NameIndex, threshold: float = THRESHOLD,
                  margin: float = MARGIN) -> Bound:
    """Bindings in question order; unbound and ambiguous mentions only as candidates."""
    import unicodedata

    shown = " ".join(unicodedata.normalize("NFKC", question).split())
    q = norm(question)
    if len(shown) != len(q):  # casefolding changed a length (ß -> ss): positions differ
        shown = q
    bindings: list[Binding] = []
    candidates: list[Candidate] = []
    status = "ok"
    spans = index.exact(q)
    rest = list(shown)  # as written (case kept), for telling names from plain words
    for start, end, key in spans:
        eid, method = index.keys[key]
        bindings.append(Binding(q[start:end], eid, index.display[eid], 1.0, method))
        rest[start:end] = " " * (end - start)
    for m in mentions("".join(rest)):
        scored = index.fuzzy(m)
        best = scored[0][0] if scored else 0.0
        if best < threshold:
            status = "unbound" if status == "ok" else status
            candidates.extend(Candidate(m, e, index.display[e], s) for s, e in scored[:3])
            if not scored:
                candidates.append(Candidate(m, "", "", 0.0))
            continue
        close = [(s, e) for s, e in scored if best - s <= margin + 1e-9]
        if len(close) > 1:
            status = "ambiguous" if status in ("ok", "ambiguous") else status
            candidates.extend(Candidate(m, e, index.display[e], s) for s, e in close[:5])
            continue
        bindings.append(Binding(m, scored[0][1], index.display[scored[0][1]], best, "fuzzy"))
    seen: set[str] = set()
    unique = []
    for b in bindings:  # one entity named twice is one start
        if b.entity not in seen:
            seen.add(b.entity)
            unique.append(b)
    return Bound(tuple(unique), tuple(candidates), status)
