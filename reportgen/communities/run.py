"""The library call behind `reportgen communities`: verify, build the entity graph, find
the communities, summarise them; and the `--json` object of the result."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from reportgen.communities.detect import Communities, EdgeInfo, detect, facts_of
from reportgen.communities.store import SummaryStore
from reportgen.communities.summary import SummaryRun, summarize, summarizer_id
from reportgen.model import Verification

if TYPE_CHECKING:
    from reportgen.llm.client import Model


@dataclass(frozen=True)
class Options:
    seed: int = 42
    resolution: float = 1.0
    max_levels: int = 3


@dataclass
class CommunitiesResult:
    verification: Verification
    communities: Communities
    run: SummaryRun


def state_folder(ledger_root: Path) -> Path:
    """The project's state folder: `.reportgen/` beside the ledger folder (as the index)."""
    return ledger_root.resolve().parent / ".reportgen"


def llm_cache_folder(ledger_root: Path) -> Path:
    return state_folder(ledger_root) / "llm"


def store_for(ledger_root: Path, model: Model | None) -> SummaryStore:
    """`.reportgen/communities/<ledger folder>-<hash of its path>/<summariser>/`."""
    root = ledger_root.resolve()
    tag = hashlib.sha256(str(root).encode("utf-8")).hexdigest()[:8]
    return SummaryStore(state_folder(root) / "communities" / f"{root.name}-{tag}"
                        / summarizer_id(model))


def communities_of(v: Verification, opts: Options = Options()) -> Communities:
    """The communities of a verified ledger's entity graph."""
    from reportgen.graph import entity_graph

    return detect(entity_graph(v.ledger), facts_of(v), seed=opts.seed,
                  resolution=opts.resolution, max_levels=opts.max_levels)


def build_communities(paths: Sequence[Path], opts: Options = Options(), *,
                      model: Model | None = None, allow_outside: bool = False
                      ) -> CommunitiesResult:
    """Verify the ledger, find its communities and summarise them (kept in the state
    folder by fingerprint). Raises LedgerErrors for an invalid ledger."""
    from reportgen.verify.run import verify

    v = verify(list(paths), allow_outside=allow_outside)
    comms = communities_of(v, opts)
    run = summarize(comms, store_for(v.ledger.root, model), model)
    return CommunitiesResult(v, comms, run)


def _edge(e: EdgeInfo) -> dict[str, Any]:
    out: dict[str, Any] = {"id": e.id, "from": e.source, "relation": e.relation, "to": e.target,
                           "report": e.report}
    if e.gap is None:
        out["anchors"] = list(e.anchors)
    else:
        out["gap"] = e.gap
    return out


def to_json(comms: Communities, run: SummaryRun) -> dict[str, Any]:
    """The `--json` object (spec section 4), plus each community's children and, for a
    leaf, why it is one."""
    return {"levels": [
        {"level": k, "communities": [
            {"id": c.id, "members": list(c.members), "edges": [_edge(e) for e in c.edges],
             "gaps": [_edge(e) for e in c.gaps], "fingerprint": c.fingerprint,
             "parent": c.parent, "children": list(c.children), "leaf": c.leaf,
             "summary": run.summaries.get(c.id, [])}
            for c in level]}
        for k, level in enumerate(comms.levels)]}
