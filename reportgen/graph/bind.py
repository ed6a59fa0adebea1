"""Bind the ledger's edges to entities (graph.md section 2) and check them against the
vocabulary: one entity per name, declared relations and types, evidence that names its ends."""

from __future__ import annotations

import hashlib
from typing import Any

from reportgen.errors import LedgerError
from reportgen.graph.model import BoundEdge, EntityModel, EntityNode
from reportgen.errors import did_you_mean
from reportgen.graph.names import nearest_names, norm, squash
from reportgen.graph.vocab import RELATION_RE, EntityDecl, load_vocabulary
from reportgen.model import Edge, Fact, Ledger


def _where(file: str | None, line: int | None) -> str:
    from reportgen.errors import display_path
    return f"{display_path(file)}:{line}" if file else "an edge endpoint"


def _show(e: Edge) -> str:
    return f"edge {e.source} -{e.relation}-> {e.target}"


class _Binder:
    def __init__(self, ledger: Ledger) -> None:
        self.ledger = ledger
        self.m = EntityModel()
        self.squashed: dict[str, list[str]] = {}  # entity id -> its names, squashed
        self.quotes: dict[str, str] = {}  # fact id -> its quote, squashed

    def add(self, msg: str, file: str | None, line: int | None) -> None:
        self.m.problems.append(LedgerError(msg, file, line))

    # ---- entities ------------------------------------------------------------------
    def register(self, node: EntityNode, name: str, file: str | None, line: int | None) -> None:
        key = norm(name)
        if not key:
            return
        other = self.m.names.get(key)
        if other is None:
            self.m.names[key] = node.id
        elif other != node.id:
            o = self.m.entities[other]
            self.add(f"the name {name!r} of entity {node.id!r} is already a name of entity "
                     f"{other!r} ({_where(o.file, o.line)}); a name binds one entity: remove it "
                     "from one of them", file, line)

    def declare(self, d: EntityDecl) -> None:
        if d.id in self.m.entities:
            self.add(f"duplicate entity id {d.id!r}; ids are unique", d.file, d.line)
            return
        node = EntityNode(d.id, d.name, d.type, [], d.docs, d.file, d.line, True)
        self.m.entities[d.id] = node
        for n in (d.id, d.name, *d.aliases):
            self.register(node, n, d.file, d.line)
            if n != d.id and n != node.name and n not in node.aliases:
                node.aliases.append(n)

    def merge_listed(self) -> None:
        """Report files' `entities:` lists: merge into the entity their names bind to, or
        declare a new one named by its name."""
        schema = self.m.schema
        for rep in self.ledger.reports:
            for ent in rep.entities:
                file, line = ent.loc.file, ent.loc.line
                if ent.type is not None and schema is not None \
                        and ent.type not in schema.entity_types:
                    self.add(f"entity {ent.name!r}: type {ent.type!r} is not declared in "
                             f"schema.yaml{did_you_mean(ent.type, schema.entity_types)}",
                             file, line)
                hits = {self.m.names[k] for k in (norm(n) for n in (ent.name, *ent.aliases))
                        if k in self.m.names}
                if len(hits) > 1:
                    self.add(f"entity {ent.name!r}: its names belong to several entities "
                             f"({', '.join(sorted(hits))}); one entity per list item", file, line)
                    continue
                if hits:
                    node = self.m.entities[hits.pop()]
                    if ent.type is not None and node.type is not None and ent.type != node.type:
                        self.add(f"entity {ent.name!r}: type {ent.type!r} differs from "
                                 f"{node.type!r} declared for {node.id!r} at "
                                 f"{_where(node.file, node.line)}", file, line)
                else:
                    node = EntityNode(ent.name, ent.name, ent.type, [], (), file, line, True)
                    self.m.entities[node.id] = node
                for n in (ent.name, *ent.aliases):
                    if norm(n) not in self.m.names:
                        self.register(node, n, file, line)
                    if n != node.name and n not in node.aliases:
                        node.aliases.append(n)

    def endpoint(self, name: str, e: Edge) -> str | None:
        eid = self.m.names.get(norm(name))
        if eid is not None:
            return eid
        if self.m.has_entities_file:
            known = sorted({n for node in self.m.entities.values() for n in node.names()})
            self.add(f"{_show(e)}: {name!r} names no entity{nearest_names(name, known)}; add it as "
                     "an alias in entities.yaml, declare the entity, or use its declared name",
                     e.loc.file, e.loc.line)
            return None
        node = EntityNode(name, name, None, [], (), None, None, False)
        self.m.entities[name] = node
        self.m.names[norm(name)] = name
        return name

    # ---- edges ---------------------------------------------------------------------
    def qualifiers(self, e: Edge) -> tuple[dict[str, Any], dict[str, str]]:
        """The values of the edge's anchor facts, so every qualifier is itself anchored; with
        a schema, only the names the relation declares. Also each as written ("2.60")."""
        schema = self.m.schema
        rel = schema.relations.get(e.relation) if schema is not None else None
        out: dict[str, Any] = {}
        src: dict[str, str] = {}
        written: dict[str, str] = {}
        for a in e.anchors:
            fact = self.ledger.claims.get(a)
            if not isinstance(fact, Fact):
                continue
            for (k, v), text in zip(fact.values, fact.value_texts):
                if schema is not None and (rel is None or k not in rel.qualifiers):
                    continue
                if k in out and out[k] != v:
                    self.add(f"{_show(e)}: its anchors give {k} as {out[k]:g} ({src[k]}) and "
                             f"{v:g} ({a}); anchor it on facts that agree", e.loc.file, e.loc.line)
                    continue
                out.setdefault(k, v)
                src.setdefault(k, a)
                written.setdefault(k, text)
        return out, written

    def check_vocabulary(self, e: Edge, s: EntityNode, t: EntityNode) -> None:
        schema = self.m.schema
        if schema is None:
            if not RELATION_RE.match(e.relation):
                self.add(f"{_show(e)}: relation {e.relation!r} must be snake_case (a-z, 0-9, _), "
                         "e.g. buys_from", e.loc.file, e.loc.line)
            return
        rel = schema.relations.get(e.relation)
        if rel is None:
            self.add(f"{_show(e)}: relation {e.relation!r} is not declared in schema.yaml"
                     f"{did_you_mean(e.relation, schema.relations)}; declare it under relations: "
                     "or use a declared one", e.loc.file, e.loc.line)
            return

        def fits(node: EntityNode, allowed: tuple[str, ...]) -> bool:
            return not allowed or node.type is None or node.type in allowed

        ok = fits(s, rel.source) and fits(t, rel.target)
        if not ok and rel.symmetric:
            ok = fits(t, rel.source) and fits(s, rel.target)
        if not ok:
            self.add(f"{_show(e)}: {e.relation} goes from {'/'.join(rel.source) or 'any'} to "
                     f"{'/'.join(rel.target) or 'any'}, but {s.name} is {s.type or 'untyped'} "
                     f"and {t.name} is {t.type or 'untyped'}; fix the types in entities.yaml "
                     "or use another relation", e.loc.file, e.loc.line)
        for k in ("valid_from", "valid_to"):
            if getattr(e, k) is not None and k not in rel.qualifiers:
                self.add(f"{_show(e)}: qualifier {k!r} is not declared for {e.relation}"
                         f"{did_you_mean(k, rel.qualifiers)}; add it to the relation's "
                         "qualifiers in schema.yaml or remove it", e.loc.file, e.loc.line)

    def check_named(self, e: Edge, node: EntityNode) -> None:
        """Edge evidence names its ends: a quote names the entity, or stands in its filing."""
        facts = [f for f in (self.ledger.claims.get(a) for a in e.anchors) if isinstance(f, Fact)]
        if not facts:
            return
        names = self.squashed.get(node.id)
        if names is None:
            names = self.squashed[node.id] = [s for s in map(squash, node.names()) if s]
        for f in facts:
            if f.doc in node.docs:
                return
            q = self.quotes.get(f.id)
            if q is None:
                q = self.quotes[f.id] = squash(f.quote)
            if any(n in q for n in names):
                return
        aka = f" (or {', '.join(node.aliases)})" if node.aliases else ""
        self.add(f"{_show(e)}: no anchor quote names {node.name}{aka} and no anchor stands in "
                 f"its own filing (docs: {', '.join(node.docs) or 'none'}), so the anchors do not "
                 "show this relation; add the name the quote uses as an alias, declare the "
                 "filing under docs in entities.yaml, anchor it on another fact, or make it a "
                 "gap", e.loc.file, e.loc.line)

    def bind_edges(self) -> None:
        seen: dict[str, int] = {}
        for rep in self.ledger.reports:
            for e in rep.edges:
                s, t = self.endpoint(e.source, e), self.endpoint(e.target, e)
                if s is None or t is None:
                    continue
                sn, tn = self.m.entities[s], self.m.entities[t]
                self.check_vocabulary(e, sn, tn)
                if self.m.has_entities_file:
                    self.check_named(e, sn)
                    if t != s:
                        self.check_named(e, tn)
                quals, written = self.qualifiers(e)
                eid = edge_id(e, s, t)
                n = seen.get(eid, 0) + 1
                seen[eid] = n
                if n > 1:
                    eid = f"{eid}-{n}"
                self.m.edges.append(BoundEdge(eid, e, s, t, tuple(quals.items()),
                                              tuple(written.items())))


def edge_id(e: Edge, source: str, target: str) -> str:
    """Stable across unrelated edits: the report, the bound ends, relation and evidence."""
    key = "\x1f".join([e.report, source, e.relation, target, ",".join(e.anchors), e.gap or ""])
    return f"{e.report}-{hashlib.sha256(key.encode('utf-8')).hexdigest()[:10]}"


def bind_ledger(ledger: Ledger) -> EntityModel:
    """Entities and bound edges of the ledger; `problems` lists every error with its line."""
    b = _Binder(ledger)
    voc = load_vocabulary(ledger.root, set(ledger.documents))
    b.m.problems.extend(voc.problems)
    b.m.schema = voc.schema
    b.m.has_entities_file = voc.entities_file is not None
    for d in voc.entities:
        b.declare(d)
    b.merge_listed()
    b.bind_edges()
    return b.m


def graph_problems(ledger: Ledger) -> list[LedgerError]:
    """The graph's ledger errors (vocabulary, binding, evidence naming its ends)."""
    return bind_ledger(ledger).problems
