"""Global questions (spec section 5): map the question over the summaries of the
communities at one level, reduce the partial answers under a token budget with the
evidence-packing policies of `find` (reportgen.index.pack), and keep only sentences that
cite facts that hit. Without a model the map scores with the lexical channels (the
index's two tokenisers, fused by RRF) and the answer is the best cited summary sentences,
grouped by community. `dry_run` plans and estimates, and calls nothing."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from reportgen.communities.detect import Communities, Community
from reportgen.communities.summary import Sentence, check
from reportgen.index.fusion import rrf
from reportgen.index.pack import Policy, estimate_tokens, pack
from reportgen.index.tokens import ngram_tokens, unigram_tokens

if TYPE_CHECKING:
    from reportgen.llm.client import Model
    from reportgen.llm.prompts import Prompt

# the extractive answer keeps sentences covering at least this share of what the best
# sentence covers of the question (weighted by idf): the best, not every faint match
MIN_COVER_SHARE = 0.5
REDUCE_OUTPUT_ALLOWANCE = 1024  # tokens of the budget kept for the reduce call's own text


@dataclass
class GlobalAnswer:
    question: str
    level: int
    mode: str  # "model" or "extractive"
    sentences: list[dict[str, Any]]  # {"text", "citations", "communities"}
    communities: list[str]  # the communities whose sentences the answer uses
    dropped: list[dict[str, Any]]  # {"text", "citations", "reason", "stage", "community"?}
    plan: dict[str, Any]
    left_out: list[dict[str, Any]] = field(default_factory=list)  # packing: what did not fit
    calls: int = 0
    cached: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    dry_run: bool = False

    def as_dict(self) -> dict[str, Any]:
        return {"question": self.question, "level": self.level, "mode": self.mode,
                "dry_run": self.dry_run, "plan": self.plan, "answer": self.sentences,
                "communities": self.communities, "dropped": self.dropped,
                "left_out": self.left_out,
                "usage": {"calls": self.calls, "cached": self.cached,
                          "input_tokens": self.tokens_in, "output_tokens": self.tokens_out}}


def level_communities(comms: Communities, level: int) -> list[Community]:
    """The communities at `level`, and the leaves above it, so the whole graph is covered
    whichever level is asked (a leaf at level 0 has no level-1 children to stand for it)."""
    if level < 0:
        raise ValueError("level must be 0 or more")
    out = []
    for k, lv in enumerate(comms.levels[:level + 1]):
        out.extend(c for c in lv if k == level or c.children == ())
    return out


def _hits(comms: Communities) -> set[str]:
    return {f for f, info in comms.facts.items() if info.hit}


def lexical_scores(question: str, sentences: Sequence[str]) -> tuple[list[float], list[float]]:
    """Each sentence's RRF score over the two lexical channels (the order), and its share
    of the question covered (the cut): every channel weighs the question's tokens by idf
    over these sentences and scores a sentence by the weight of those it holds. Both are
    0 for a sentence that shares no token with the question."""
    n = len(sentences)
    rankings = {}
    cover = [0.0] * n
    for name, tok in (("ngram", ngram_tokens), ("unigram", unigram_tokens)):
        q = set(tok(question))
        docs = [set(tok(s)) & q for s in sentences]
        df: dict[str, int] = {}
        for d in docs:
            for t in d:
                df[t] = df.get(t, 0) + 1
        idf = {t: math.log(1 + n / df.get(t, 0.5)) for t in q}
        total = sum(idf.values()) or 1.0
        score = [sum(idf[t] for t in d) for d in docs]
        for i in range(n):
            cover[i] += score[i] / total / 2
        rankings[name] = [i for i in sorted(range(n), key=lambda i: (-score[i], i))
                          if score[i] > 0]
    fused = [0.0] * n
    for f in rrf(rankings):
        fused[f.id] = f.score  # type: ignore[index]
    return fused, cover


def answer_global(question: str, comms: Communities, summaries: Mapping[str, list[Sentence]],
                  *, level: int = 0, budget: int = 8000, model: Model | None = None,
                  dry_run: bool = False, policy: Policy = "skip") -> GlobalAnswer:
    """Answer `question` over the communities at `level` (see the module's docstring)."""
    units = [(c, summaries.get(c.id, [])) for c in level_communities(comms, level)]
    units = [(c, s) for c, s in units if s]  # a community with nothing cited says nothing
    if model is None:
        return _extractive(question, units, comms, level, budget, dry_run, policy)
    return _mapreduce(question, units, comms, level, budget, model, dry_run, policy)


def _extractive(question: str, units: list[tuple[Community, list[Sentence]]],
                comms: Communities, level: int, budget: int, dry_run: bool,
                policy: Policy) -> GlobalAnswer:
    plan = {"communities": len(units), "map_calls": 0, "reduce_calls": 0,
            "estimated_input_tokens": 0, "budget": budget}
    ans = GlobalAnswer(question, level, "extractive", [], [], [], plan, dry_run=dry_run)
    if dry_run:
        return ans
    flat = [(k, s) for k, (_, sents) in enumerate(units) for s in sents]
    scores, cover = lexical_scores(question, [s["text"] for _, s in flat])
    cut = max(cover, default=0.0) * MIN_COVER_SHARE
    best: dict[int, float] = {}
    for (k, _), sc in zip(flat, scores):
        best[k] = max(best.get(k, 0.0), sc)
    ranked = sorted((i for i in range(len(flat)) if scores[i] > 0 and cover[i] >= cut),
                    key=lambda i: (-best[flat[i][0]], flat[i][0], -scores[i], i))
    packed = pack([flat[i] for i in ranked], budget, policy=policy,
                  text=lambda ks: ks[1]["text"])
    hits = _hits(comms)
    for k, s in packed.chosen:
        c = units[k][0]
        kept, dropped = check([s], hits)
        for d in dropped:
            ans.dropped.append(dict(d, stage="answer", community=c.id))
        for s2 in kept:
            ans.sentences.append(dict(s2, communities=[c.id]))
            if c.id not in ans.communities:
                ans.communities.append(c.id)
    ans.left_out = [{"community": units[lo.item[0]][0].id, "text": lo.item[1]["text"],
                     "tokens": lo.tokens, "reason": lo.reason} for lo in packed.left_out]
    return ans


def _map_item(c: Community, sents: list[Sentence]) -> dict[str, Any]:
    return {"id": c.id, "summary": sents}


def _estimate(prompt: Prompt, payload: Any) -> int:
    """Input tokens of a call, estimated as `find` estimates them."""
    return (estimate_tokens(prompt.system) + estimate_tokens(json.dumps(prompt.tool))
            + estimate_tokens(json.dumps(payload, ensure_ascii=False, sort_keys=True,
                                         indent=1)))


def batches(question: str, units: list[tuple[Community, list[Sentence]]], budget: int,
            prompt: Prompt) -> list[list[int]]:
    """Units in order, cut into map calls whose estimated input stays under `budget` (a unit
    larger than the budget on its own goes alone)."""
    out: list[list[int]] = []
    cur: list[int] = []
    for k, (c, sents) in enumerate(units):
        trial = cur + [k]
        payload = {"question": question,
                   "communities": [_map_item(*units[i]) for i in trial]}
        if cur and _estimate(prompt, payload) > budget:
            out.append(cur)
            cur = [k]
        else:
            cur = trial
    if cur:
        out.append(cur)
    return out


def _mapreduce(question: str, units: list[tuple[Community, list[Sentence]]],
               comms: Communities, level: int, budget: int, model: Model, dry_run: bool,
               policy: Policy) -> GlobalAnswer:
    from reportgen.llm.prompts import load_prompt

    mp, rp = load_prompt("map"), load_prompt("reduce")
    groups = batches(question, units, budget, mp)
    payloads = [{"question": question, "communities": [_map_item(*units[i]) for i in g]}
                for g in groups]
    est = sum(_estimate(mp, p) for p in payloads)
    est += _estimate(rp, {"question": question, "partials": []}) + budget if groups else 0
    plan = {"communities": len(units), "map_calls": len(groups),
            "reduce_calls": 1 if groups else 0, "estimated_input_tokens": est,
            "budget": budget, "model": model.model}
    ans = GlobalAnswer(question, level, "model", [], [], [], plan, dry_run=dry_run)
    if dry_run:
        return ans
    before = (model.usage.calls, model.usage.cached, model.usage.input_tokens,
              model.usage.output_tokens)
    hits = _hits(comms)
    valid = {c.id: {x for s in sents for x in s["citations"]} & hits for c, sents in units}
    order = {c.id: k for k, (c, _) in enumerate(units)}
    partials: list[dict[str, Any]] = []
    for g, payload in zip(groups, payloads):
        asked = {units[i][0].id for i in g}
        got = model.call(mp, payload)
        for p in got.get("partials", []):
            cid = p.get("community")
            if cid not in asked:
                for s in p.get("answer", []):
                    ans.dropped.append({"text": s.get("text", ""),
                                        "citations": s.get("citations", []), "stage": "map",
                                        "reason": f"names community {cid!r}, not one asked"})
                continue
            kept, dropped = check(p.get("answer", []), valid[cid])
            ans.dropped.extend(dict(d, stage="map", community=cid) for d in dropped)
            if p.get("score", 0) > 0 and kept:
                partials.append({"community": cid, "score": int(p["score"]), "answer": kept})
    partials.sort(key=lambda p: (-p["score"], order[p["community"]]))
    room = max(0, budget - _estimate(rp, {"question": question, "partials": []})
               - REDUCE_OUTPUT_ALLOWANCE)
    packed = pack(partials, room, policy=policy,
                  text=lambda p: json.dumps(p, ensure_ascii=False, indent=1))
    ans.left_out = [{"community": lo.item["community"], "tokens": lo.tokens,
                     "reason": lo.reason} for lo in packed.left_out]
    if packed.chosen:
        chosen = list(packed.chosen)
        got = model.call(rp, {"question": question, "partials": chosen})
        allowed = {x for p in chosen for s in p["answer"] for x in s["citations"]}
        kept, dropped = check(got.get("sentences", []), allowed)
        ans.dropped.extend(dict(d, stage="reduce") for d in dropped)
        for s in kept:
            from_ = [p["community"] for p in chosen
                     if set(s["citations"]) & {x for a in p["answer"] for x in a["citations"]}]
            ans.sentences.append(dict(s, communities=from_))
            ans.communities.extend(c for c in from_ if c not in ans.communities)
    u = model.usage
    ans.calls, ans.cached = u.calls - before[0], u.cached - before[1]
    ans.tokens_in, ans.tokens_out = u.input_tokens - before[2], u.output_tokens - before[3]
    return ans


def ask_global(paths: Sequence[Any], question: str, *, level: int = 0, budget: int = 8000,
               model: Model | None = None, dry_run: bool = False, policy: Policy = "skip",
               opts: Any = None, allow_outside: bool = False) -> tuple[GlobalAnswer, Any]:
    """The library call behind `reportgen query --global`: the ledger's communities with
    their (extractive, kept) summaries, then the answer; returns it with the SummaryRun."""
    from reportgen.communities.run import Options, build_communities

    res = build_communities(list(paths), opts or Options(), allow_outside=allow_outside)
    ans = answer_global(question, res.communities, res.run.summaries, level=level,
                        budget=budget, model=model, dry_run=dry_run, policy=policy)
    return ans, res.run
