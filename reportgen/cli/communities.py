"""`reportgen communities`: Leiden communities of the entity graph with cited summaries.

Only click is imported at module load; the graph, igraph, leidenalg and the model load
inside the command."""

from __future__ import annotations

import click

from reportgen.cli.common import fail, json_line, ledger_paths


@click.command("communities")
@click.argument("path", required=False, type=click.Path())
@click.option("--seed", type=int, default=42, show_default=True,
              help="Leiden's random seed: the same ledger and seed give the same bytes.")
@click.option("--resolution", type=click.FloatRange(min=0, min_open=True), default=1.0,
              show_default=True, help="Leiden's resolution (higher: smaller communities).")
@click.option("--max-levels", type=click.IntRange(min=1), default=3, show_default=True,
              help="Levels of the hierarchy at most.")
@click.option("--model", "use_model", is_flag=True,
              help="Summaries written by the model (ANTHROPIC_API_KEY, REPORTGEN_MODEL) "
                   "instead of the extractive ones; every sentence must still cite.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@click.option("--allow-outside", is_flag=True,
              help="Allow documents outside the ledger's repository.")
def communities(path: str | None, seed: int, resolution: float, max_levels: int,
                use_model: bool, as_json: bool, allow_outside: bool) -> None:
    """Find communities in the entity graph and summarise each with cited sentences."""
    from reportgen.communities.run import (Options, build_communities, llm_cache_folder,
                                           to_json)
    from reportgen.errors import ReportgenError

    paths = ledger_paths((path,) if path else ())
    try:
        model = None
        if use_model:
            from reportgen.llm.client import Model

            root = paths[0] if paths[0].is_dir() else paths[0].parent
            model = Model.from_env(llm_cache_folder(root))
        res = build_communities(paths, Options(seed, resolution, max_levels), model=model,
                                allow_outside=allow_outside)
    except ReportgenError as e:
        fail(e)
    comms, run = res.communities, res.run
    if as_json:
        click.echo(json_line(to_json(comms, run)))
    else:
        names = comms.names
        for k, level in enumerate(comms.levels):
            click.echo(f"level {k}: {len(level)} communities")
            for c in level:
                shown = ", ".join(names.get(m, m) for m in c.members[:8])
                more = f" and {len(c.members) - 8} more" if len(c.members) > 8 else ""
                why = f"; leaf: {c.leaf}" if c.leaf else f"; {len(c.children)} children"
                click.echo(f"  {c.id} ({len(c.members)} members: {shown}{more}; "
                           f"{len(c.edges)} edges, {len(c.gaps)} gaps{why})")
                for s in run.summaries.get(c.id, []):
                    cites = "; ".join(f"@{x}" for x in s["citations"])
                    click.echo(f"    {s['text']} [{cites}]")
    for cid, dropped in sorted(run.dropped.items()):
        for d in dropped:
            click.echo(f"dropped from {cid}: {d['text']!r} ({d['reason']})", err=True)
    n = run.counts
    line = (f"summaries: {n['reused']} reused, {n['written']} written, {n['removed']} removed; "
            f"{run.n_dropped} sentences dropped")
    if run.fallbacks:
        line += f"; {run.fallbacks} extractive (no valid model sentence)"
    click.echo(line, err=as_json)
    if run.usage is not None:
        click.echo(run.usage.line(), err=as_json)
    misses = sum(1 for f in comms.facts.values() if not f.hit)
    if misses:
        click.echo(f"note: {misses} facts miss; edges anchored on them count as gaps "
                   "(run `reportgen verify` for the details)", err=True)


def global_query(question: str, path: str | None, *, level: int = 0, budget: int = 8000,
                 dry_run: bool = False, as_json: bool = False, extractive: bool = False,
                 allow_outside: bool = False) -> None:
    """`reportgen query --global`: the model answers when ANTHROPIC_API_KEY is set (unless
    `extractive`), the lexical channels and the extractive summaries otherwise."""
    from reportgen.communities.answer import ask_global
    from reportgen.communities.run import llm_cache_folder
    from reportgen.errors import ReportgenError
    from reportgen.llm.client import has_key

    if not question.strip():
        raise click.UsageError("the question is empty")
    paths = ledger_paths((path,) if path else ())
    try:
        model = None
        if has_key() and not extractive:
            from reportgen.llm.client import Model

            root = paths[0] if paths[0].is_dir() else paths[0].parent
            model = Model.from_env(llm_cache_folder(root))
        ans, run = ask_global(paths, question, level=level, budget=budget, model=model,
                              dry_run=dry_run, allow_outside=allow_outside)
    except ReportgenError as e:
        fail(e)
    if as_json:
        click.echo(json_line(ans.as_dict()))
    else:
        p = ans.plan
        def n(k: int, what: str) -> str:
            return f"{k} {what}{'' if k == 1 else 's'}"

        comms = "community" if p["communities"] == 1 else "communities"
        click.echo(f"plan: {p['communities']} {comms} at level {ans.level}, "
                   f"{n(p['map_calls'], 'map call')} and {n(p['reduce_calls'], 'reduce call')}, "
                   f"at most about {p['estimated_input_tokens']} input tokens (budget "
                   f"{p['budget']} a call; {ans.mode}"
                   + (f", {p['model']})" if "model" in p else ")"))
        if not ans.dry_run:
            if not ans.sentences:
                click.echo("no cited sentence answers this question")
            current = None
            for s in ans.sentences:
                if ans.mode == "extractive" and s["communities"][0] != current:
                    current = s["communities"][0]
                    click.echo(f"{current}:")
                cites = "; ".join(f"@{x}" for x in s["citations"])
                click.echo(f"  {s['text']} [{cites}]")
            click.echo(f"communities used: {', '.join(ans.communities) or 'none'}")
            click.echo(f"calls: {ans.calls} ({ans.cached} from cache), tokens: "
                       f"{ans.tokens_in} in, {ans.tokens_out} out")
            for lo in ans.left_out:
                click.echo(f"left out ({lo['community']}): {lo['reason']}")
    for d in ans.dropped:
        click.echo(f"dropped ({d['stage']}): {d['text']!r} ({d['reason']})", err=as_json)
    n = run.counts
    click.echo(f"summaries: {n['reused']} reused, {n['written']} written, "
               f"{n['removed']} removed", err=True)
