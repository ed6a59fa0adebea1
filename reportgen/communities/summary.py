"""Summaries of communities, bottom up, each sentence citing facts that hit and anchor an
edge inside the community. Extractive by default (the statements of those facts, ordered
and cited: no model, no key); a model summary on request, whose uncitable sentences are
dropped and counted. Kept by key in a SummaryStore."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from reportgen.communities.detect import Communities, Community, FactInfo
from reportgen.communities.store import SummaryStore

if TYPE_CHECKING:
    from reportgen.llm.client import Model, Usage

Sentence = dict[str, Any]  # {"text": str, "citations": [fact id, ...]}
MAX_SENTENCES = 12  # an extractive summary's length; the model's prompt asks for at most 8
MAX_PROMPT_FACTS = 60  # facts (and edges) shown to the model for one community
EXTRACTIVE = "extractive.v1"


def valid_citations(c: Community, facts: Mapping[str, FactInfo]) -> set[str]:
    """The facts a sentence about `c` may cite: they hit and anchor an edge inside it."""
    return {a for e in c.edges for a in e.anchors if a in facts and facts[a].hit}


def check(sentences: Sequence[Any], valid: set[str]) -> tuple[list[Sentence], list[dict]]:
    """Sentences whose every citation is valid, and the others with the reason each was
    dropped (a sentence citing anything outside `valid` is dropped whole: part of what it
    says may rest on that fact)."""
    kept: list[Sentence] = []
    dropped: list[dict] = []
    for s in sentences:
        text = str(s.get("text") or "").strip() if isinstance(s, dict) else ""
        raw = s.get("citations") if isinstance(s, dict) else None
        cites = list(dict.fromkeys(str(x) for x in raw)) if isinstance(raw, list) else []
        bad = [x for x in cites if x not in valid]
        if not text:
            reason = "no text"
        elif not cites:
            reason = "no citation"
        elif bad:
            reason = f"cites {', '.join(bad)}, not a fact that hits and anchors an edge here"
        else:
            kept.append({"text": text, "citations": cites})
            continue
        dropped.append({"text": text, "citations": cites, "reason": reason})
    return kept, dropped


def ranked_facts(c: Community, facts: Mapping[str, FactInfo],
                 edges: Sequence[Any] | None = None) -> list[str]:
    """Valid facts of `edges` (default: all of c's), most edges anchored first, then in
    the order their first edge comes (edges are sorted by id)."""
    count: dict[str, int] = {}
    for e in (c.edges if edges is None else edges):
        for a in e.anchors:
            if a in facts and facts[a].hit:
                count[a] = count.get(a, 0) + 1
    first = {a: k for k, a in enumerate(count)}
    return sorted(count, key=lambda a: (-count[a], first[a]))


def extractive(c: Community, facts: Mapping[str, FactInfo],
               children: Sequence[Sequence[Sentence]], limit: int = MAX_SENTENCES
               ) -> list[Sentence]:
    """A leaf: the statements of its facts, ranked, one cited sentence each. A parent: the
    facts of the edges between its children first, then its children's sentences in turn."""
    out: list[Sentence] = []
    seen: set[tuple[str, ...]] = set()

    def add(s: Sentence) -> None:
        k = tuple(s["citations"])
        if k not in seen and len(out) < limit:
            seen.add(k)
            out.append({"text": s["text"], "citations": list(s["citations"])})

    if children:
        kids = [set(s2 for s in ch for s2 in s["citations"]) for ch in children]
        between = [e for e in c.edges if not any(set(e.anchors) <= k for k in kids)]
        for a in ranked_facts(c, facts, between):
            add({"text": facts[a].statement, "citations": [a]})
        for i in range(max((len(ch) for ch in children), default=0)):
            for ch in children:
                if i < len(ch):
                    add(ch[i])
    else:
        for a in ranked_facts(c, facts):
            add({"text": facts[a].statement, "citations": [a]})
    return out


def model_input(c: Community, comms: Communities, children: Sequence[Sequence[Sentence]]
                ) -> dict[str, Any]:
    """What the model reads about `c`: members, edges with their facts, and for a parent
    its children's summaries (and only the facts of the edges between them)."""
    facts, names = comms.facts, comms.names
    by_id = {k: s for k, s in zip(c.children, children)}
    inner = set(s2 for ch in children for s in ch for s2 in s["citations"])
    edges = [e for e in c.edges if not (children and set(e.anchors) <= inner)]
    shown = ranked_facts(c, facts, edges)[:MAX_PROMPT_FACTS]
    keep = set(shown)
    return {
        "community": c.id, "level": c.level,
        "members": [{"id": m, "name": names.get(m, m)} for m in c.members[:MAX_PROMPT_FACTS]],
        "edges": [{"from": names.get(e.source, e.source), "relation": e.relation,
                   "to": names.get(e.target, e.target),
                   "facts": [a for a in e.anchors if a in keep]}
                  for e in edges if keep.intersection(e.anchors)][:MAX_PROMPT_FACTS],
        "facts": [{"id": a, "statement": facts[a].statement, "quote": facts[a].quote}
                  for a in shown],
        "children": [{"id": k, "summary": by_id[k]} for k in c.children],
    }


@dataclass
class SummaryRun:
    """Every community's summary (id -> sentences), what was dropped, and what it cost."""

    summaries: dict[str, list[Sentence]]
    dropped: dict[str, list[dict]] = field(default_factory=dict)
    counts: dict[str, int] = field(default_factory=dict)  # reused / written / removed
    fallbacks: int = 0  # model summaries with no valid sentence left: extractive instead
    usage: Usage | None = None

    @property
    def n_dropped(self) -> int:
        return sum(len(d) for d in self.dropped.values())


def summarizer_id(model: Model | None) -> str:
    """Names the store folder: one per summariser, prompt version and model."""
    if model is None:
        return EXTRACTIVE
    from reportgen.llm.prompts import load_prompt

    p = load_prompt("summary")
    return f"model.{p.id}.{model.model}".replace("/", "_")


def _key(*parts: Any) -> str:
    blob = json.dumps(parts, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


def summarize(comms: Communities, store: SummaryStore, model: Model | None = None) -> SummaryRun:
    """Summaries bottom up (children before parents), from the store where the key (the
    fingerprint, the summariser and what it reads) is unchanged; then unused entries are
    pruned. Every sentence is checked against the community's valid citations."""
    prompt = None
    if model is not None:
        from reportgen.llm.prompts import load_prompt

        prompt = load_prompt("summary")
    run = SummaryRun({}, usage=model.usage if model is not None else None)
    for level in reversed(comms.levels):
        for c in level:
            children = [run.summaries[k] for k in c.children]
            valid = valid_citations(c, comms.facts)
            ext = extractive(c, comms.facts, children)
            if prompt is None or not valid:
                key = _key(EXTRACTIVE, c.fingerprint, ext)
                got = store.get(key)
                if got is None:
                    store.put(key, {"community": c.id, "fingerprint": c.fingerprint,
                                    "summarizer": EXTRACTIVE, "sentences": ext, "dropped": []})
                    got = {"sentences": ext, "dropped": []}
            else:
                payload = model_input(c, comms, children)
                key = _key(prompt.id, prompt.sha256, model.model, c.fingerprint, payload)
                got = store.get(key)
                if got is None:
                    out = model.call(prompt, payload)
                    kept, dropped = check(out.get("sentences", []), valid)
                    fallback = not kept
                    got = {"sentences": kept or ext, "dropped": dropped, "fallback": fallback}
                    store.put(key, {"community": c.id, "fingerprint": c.fingerprint,
                                    "summarizer": f"{prompt.id} {model.model}", **got})
                run.fallbacks += bool(got.get("fallback"))
            kept, late = check(got["sentences"], valid)  # a stored entry is checked again
            run.summaries[c.id] = kept
            if got.get("dropped") or late:
                run.dropped[c.id] = list(got.get("dropped") or []) + late
    store.prune()
    run.counts = store.counts()
    return run
