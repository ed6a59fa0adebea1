"""The entity graph (graph.md sections 1-2): vocabulary files, binding, entity_graph()."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import jsonschema
import pytest
import yaml
from click.testing import CliRunner

from reportgen.cli import main
from reportgen.graph import entity_graph
from reportgen.graph.bind import bind_ledger, graph_problems
from reportgen.graph.names import dice, norm
from reportgen.graph.vocab import schema_file_text, vocabulary_schemas
from reportgen.ledger import load_ledger
from reportgen.verify.run import verify

ROOT = Path(__file__).resolve().parents[1]
CLAIMS = ROOT / "claims"
PDF_DIR = ROOT / "samples" / "pdfs"


@pytest.fixture(scope="module")
def sample_graph():
    return entity_graph(load_ledger([CLAIMS]))


# ---- the sample -----------------------------------------------------------------------

def test_sample_graph_has_one_node_per_entity(sample_graph) -> None:
    g = sample_graph
    assert g.number_of_edges() == 28
    assert g.nodes["sungrow"] == {"name": "阳光电源", "type": "Company",
                                  "aliases": ("Sungrow", "Sungrow Power Supply",
                                              "阳光电源股份有限公司", "300274"),
                                  "docs": ("300274",)}
    # 阳光电源 is the source of its edges and no second node exists for any of its names
    assert not any(d["name"] in ("Sungrow", "阳光电源") for n, d in g.nodes(data=True)
                   if n != "sungrow")
    names = [d["name"] for _, d in g.nodes(data=True)]
    assert len(names) == len(set(names))


def test_sample_edge_attributes(sample_graph) -> None:
    g = sample_graph
    [(key, attrs)] = [(k, d) for _, t, k, d in g.out_edges("sungrow", keys=True, data=True)
                      if t == "sunwoda" and d["relation"] == "buys_from"]
    assert key.startswith("S3-")
    assert attrs["report"] == "S3" and attrs["gap"] is None
    assert attrs["qualifiers"] == {"share": 2.55}
    assert attrs["valid_from"] == "2025-01-01" and attrs["valid_to"] == "2025-12-31"
    assert attrs["file"].endswith("S3.yaml") and attrs["line"] > 1
    assert list(g.successors("sungrow")).count("sunwoda") == 1
    assert g.number_of_edges("sungrow", "sunwoda") == 2  # buys_from and a gap
    gaps = [d for _, _, d in g.edges(data=True) if d["gap"]]
    assert all(d["anchors"] == () and d["qualifiers"] == {} for d in gaps)


def test_edge_ids_are_stable_and_unique(sample_graph) -> None:
    again = entity_graph(load_ledger([CLAIMS]))
    keys = sorted(k for _, _, k in sample_graph.edges(keys=True))
    assert keys == sorted(k for _, _, k in again.edges(keys=True))
    assert len(keys) == len(set(keys))


def test_shipped_json_schemas_are_current_and_accept_the_sample() -> None:
    for which in ("schema", "entities"):
        path = ROOT / "reportgen" / "graph" / f"{which}.schema.json"
        assert path.read_text(encoding="utf-8") == schema_file_text(which)
        data = yaml.load((CLAIMS / f"{which}.yaml").read_text(encoding="utf-8"),
                         Loader=yaml.SafeLoader)
        jsonschema.Draft202012Validator(vocabulary_schemas()[which]).validate(data)


def test_schema_command_prints_every_schema() -> None:
    res = CliRunner().invoke(main, ["schema", "--all"])
    assert res.exit_code == 0, res.output
    got = json.loads(res.output)
    assert set(got) == {"report", "schema", "entities"}
    assert got["entities"] == vocabulary_schemas()["entities"]
    res = CliRunner().invoke(main, ["schema", "--of", "entities"])
    assert res.exit_code == 0 and json.loads(res.output) == vocabulary_schemas()["entities"]


# ---- a small ledger to break -----------------------------------------------------------

def ledger_dir(tmp_path: Path, edges: str, schema: str | None = None,
               entities: str | None = None) -> Path:
    """A copy of the sample's S3 facts with the edges given, and optional vocabulary."""
    ws = tmp_path / "ws"
    (ws / "pdfs").mkdir(parents=True)
    shutil.copy(PDF_DIR / "300274.pdf", ws / "pdfs" / "300274.pdf")
    claims = ws / "claims"
    claims.mkdir()
    (claims / "documents.yaml").write_text(
        'documents:\n  "300274": {file: ../pdfs/300274.pdf}\n', encoding="utf-8")
    (claims / "R.yaml").write_text(
        "report: {id: R, title: T}\n"
        "claims:\n"
        "  - {id: f8, kind: fact, statement: S., doc: \"300274\", page: 36,\n"
        "     quote: \"4 欣旺达 1,210,902,177.36 2.55%\", values: {share: 2.55}}\n"
        "  - {id: f9, kind: fact, statement: S., doc: \"300274\", page: 36,\n"
        "     quote: \"5 瑞浦兰钧 1,205,888,424.62 2.54%\", values: {share: 2.54}}\n"
        "edges:\n" + edges, encoding="utf-8")
    if schema is not None:
        (claims / "schema.yaml").write_text(schema, encoding="utf-8")
    if entities is not None:
        (claims / "entities.yaml").write_text(entities, encoding="utf-8")
    return claims


SCHEMA = """entity_types:
  Company: a company
  Project: a project
relations:
  buys_from: {from: Company, to: Company, qualifiers: [share]}
  builds: {from: Company, to: Project}
"""
ENTITIES = """entities:
  sungrow: {name: 阳光电源, type: Company, aliases: [Sungrow], docs: ["300274"]}
  sunwoda: {name: 欣旺达, type: Company, aliases: [Sunwoda]}
  rept: {name: 瑞浦兰钧, type: Company}
  plant: {name: Plant, type: Project}
"""


def problems(claims: Path) -> list[str]:
    return [str(p) for p in graph_problems(load_ledger([claims]))]


def test_without_vocabulary_endpoints_are_entities_of_unknown_type(tmp_path: Path) -> None:
    claims = ledger_dir(tmp_path, "  - {from: 阳光电源, relation: buys_from, to: 欣旺达, anchors: [f8]}\n"
                                  "  - {from: ＳＵＮＧＲＯＷ, relation: r, to: 阳光电源, gap: why}\n"
                                  "  - {from: Sungrow, relation: r, to: 阳光电源, gap: why}\n")
    g = entity_graph(load_ledger([claims]))
    # ＳＵＮＧＲＯＷ and Sungrow are one name after NFKC and case folding: one node
    assert sorted(g.nodes) == sorted(["阳光电源", "欣旺达", "ＳＵＮＧＲＯＷ"])
    assert g.nodes["ＳＵＮＧＲＯＷ"]["aliases"] == ()
    assert g.nodes["阳光电源"]["type"] is None


def test_names_bind_after_nfkc_and_case_folding(tmp_path: Path) -> None:
    claims = ledger_dir(tmp_path, "  - {from: ＳＵＮＧＲＯＷ, relation: buys_from, to: sunwoda, anchors: [f8]}\n",
                        SCHEMA, ENTITIES)
    g = entity_graph(load_ledger([claims]))
    assert list(g.edges()) == [("sungrow", "sunwoda")]
    assert norm(" Ｓｕｎ  GROW ") == "sun grow"


def test_unbound_endpoint_lists_the_nearest_names(tmp_path: Path) -> None:
    claims = ledger_dir(tmp_path, "  - {from: Sungrow, relation: buys_from, to: Sunwod, anchors: [f8]}\n",
                        SCHEMA, ENTITIES)
    [msg] = problems(claims)
    assert "R.yaml:8: edge Sungrow -buys_from-> Sunwod: 'Sunwod' names no entity; did you mean " \
           "'Sunwoda'" in msg
    assert "alias in entities.yaml" in msg


def test_undeclared_relation_type_and_qualifier(tmp_path: Path) -> None:
    claims = ledger_dir(tmp_path,
                        "  - {from: Sungrow, relation: buy_from, to: 欣旺达, anchors: [f8]}\n"
                        "  - {from: Sungrow, relation: builds, to: 欣旺达, gap: not shown}\n"
                        "  - {from: Sungrow, relation: buys_from, to: 欣旺达, anchors: [f8], "
                        "valid_to: 2025-12-31}\n", SCHEMA, ENTITIES)
    got = problems(claims)
    assert len(got) == 3, got
    assert "relation 'buy_from' is not declared in schema.yaml; did you mean 'buys_from'?" in got[0]
    assert "builds goes from Company to Project, but 阳光电源 is Company and 欣旺达 is Company" in got[1]
    assert "qualifier 'valid_to' is not declared for buys_from" in got[2]


def test_schema_errors_name_the_closest_declared_name(tmp_path: Path) -> None:
    claims = ledger_dir(tmp_path, "  - {from: Sungrow, relation: buys_from, to: 欣旺达, anchors: [f8]}\n",
                        SCHEMA.replace("to: Project", "to: Projects"),
                        ENTITIES.replace("type: Project", "type: project"))
    got = problems(claims)
    assert any("schema.yaml:6: relation builds: to type 'Projects' is not declared in "
               "entity_types; did you mean 'Project'?" in p for p in got), got
    assert any("entities.yaml:5: entity plant: type 'project' is not declared in schema.yaml; "
               "did you mean 'Project'?" in p for p in got), got


def test_unknown_fields_of_relations_and_entities_name_the_closest_field(tmp_path: Path) -> None:
    claims = ledger_dir(tmp_path, "  - {from: Sungrow, relation: buys_from, to: 欣旺达, anchors: [f8]}\n",
                        SCHEMA.replace("qualifiers: [share]", "qualifers: [share]"),
                        ENTITIES.replace("aliases: [Sungrow]", "alias: [Sungrow]"))
    got = problems(claims)
    assert any("schema.yaml:5: relation buys_from: unknown field 'qualifers'; did you mean "
               "'qualifiers'?" in p for p in got), got
    assert any("entities.yaml:2: entity sungrow: unknown field 'alias'; did you mean "
               "'aliases'?" in p for p in got), got


def test_without_schema_relations_must_be_snake_case(tmp_path: Path) -> None:
    claims = ledger_dir(tmp_path, "  - {from: A, relation: Buys From, to: B, gap: why}\n")
    [msg] = problems(claims)
    assert "relation 'Buys From' must be snake_case" in msg


def test_edge_evidence_names_its_ends(tmp_path: Path) -> None:
    # f9's quote names 瑞浦兰钧, not 欣旺达, and 300274 is not 欣旺达's filing
    claims = ledger_dir(tmp_path, "  - {from: 阳光电源, relation: buys_from, to: 欣旺达, anchors: [f9]}\n"
                                  "  - {from: 阳光电源, relation: buys_from, to: 瑞浦兰钧, anchors: [f9]}\n"
                                  "  - {from: 欣旺达, relation: buys_from, to: 瑞浦兰钧, anchors: [f9]}\n",
                        SCHEMA, ENTITIES)
    got = problems(claims)
    assert len(got) == 2, got
    assert got[0].endswith("R.yaml:8: edge 阳光电源 -buys_from-> 欣旺达: no anchor quote names 欣旺达 "
                           "(or Sunwoda) and no anchor stands in its own filing (docs: none), so "
                           "the anchors do not show this relation; add the name the quote uses as "
                           "an alias, declare the filing under docs in entities.yaml, anchor it on "
                           "another fact, or make it a gap")
    assert "edge 欣旺达 -buys_from-> 瑞浦兰钧: no anchor quote names 欣旺达" in got[1]


def test_edge_evidence_error_fails_verify(tmp_path: Path) -> None:
    claims = ledger_dir(tmp_path, "  - {from: 阳光电源, relation: buys_from, to: 欣旺达, anchors: [f9]}\n",
                        SCHEMA, ENTITIES)
    v = verify([claims])  # reported with the ledger's other errors, in one run
    assert not v.ok
    assert [p.message.split(":")[0] for p in v.problems] == ["edge 阳光电源 -buys_from-> 欣旺达"]


def test_a_name_binds_one_entity(tmp_path: Path) -> None:
    claims = ledger_dir(tmp_path, "  - {from: Sungrow, relation: buys_from, to: 欣旺达, anchors: [f8]}\n",
                        SCHEMA, ENTITIES + "  other: {name: SUNGROW, type: Company}\n")
    got = problems(claims)
    assert any("the name 'SUNGROW' of entity 'other' is already a name of entity 'sungrow'" in p
               for p in got), got


def test_report_entity_lists_merge_aliases(tmp_path: Path) -> None:
    claims = ledger_dir(tmp_path, "  - {from: 阳光电源股份有限公司, relation: buys_from, to: 欣旺达, anchors: [f8]}\n",
                        SCHEMA, ENTITIES)
    (claims / "R.yaml").write_text((claims / "R.yaml").read_text(encoding="utf-8") +
                                   "entities:\n  - {name: Sungrow, aliases: [阳光电源股份有限公司]}\n",
                                   encoding="utf-8")
    m = bind_ledger(load_ledger([claims]))
    assert not m.problems, m.problems
    assert "阳光电源股份有限公司" in m.entities["sungrow"].aliases
    assert m.edges[0].source == "sungrow"


def test_vocabulary_files_are_not_report_files(tmp_path: Path) -> None:
    claims = ledger_dir(tmp_path, "  - {from: Sungrow, relation: buys_from, to: 欣旺达, anchors: [f8]}\n",
                        SCHEMA, ENTITIES)
    led = load_ledger([claims])
    assert [r.id for r in led.reports] == ["R"]
    assert all(p.name not in ("schema.yaml", "entities.yaml") for p in led.sources)


def test_dice_of_names() -> None:
    assert dice("Sungrow", "sungrow") == 1.0
    assert dice("阳光电源", "比亚迪") == 0.0
    assert 0 < dice("Sungrow Power", "Sungrow Power Supply") < 1
