"""The shipped JSON Schema and the loader's own checks accept and refuse the same files."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pymupdf
import pytest
import yaml
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from reportgen.cli import main
from reportgen.errors import LedgerErrors
from reportgen.ledger import load_ledger
from reportgen.ledger.fields import BY_KIND, CLAIM, report_schema, schema_text

ROOT = Path(__file__).resolve().parents[1]
VALIDATOR = jsonschema.Draft202012Validator(report_schema())

BASE_FACT = {"id": "f0", "kind": "fact", "statement": "Base.", "doc": "d1", "page": 1,
             "quote": "v 1", "values": {"v": 1}}
GOOD = {"id": "c9", "statement": "A statement.", "confidence": 0.5, "note": "A note.",
        "doc": "d1", "page": 1, "quote": "v 1", "values": {"v": 1}, "basis": ["f0"],
        "formula": "f0.v * 2", "result": 2, "tolerance": 0.1, "draft": True}
BAD = {"id": "bad id", "statement": "", "confidence": 1.5, "note": 7, "doc": ["d1"], "page": 0,
       "quote": 3, "values": {"v": "one"}, "basis": [], "formula": 2, "result": "two",
       "tolerance": -1, "draft": "yes"}


def test_cli_prints_the_schema() -> None:
    res = CliRunner().invoke(main, ["schema"])
    assert res.exit_code == 0 and json.loads(res.output) == report_schema()


def test_committed_schema_file_is_current() -> None:
    """Editors point yaml-language-server at this file; it must match the loader's table."""
    assert (ROOT / "reportgen" / "report.schema.json").read_text(encoding="utf-8") == schema_text()


def test_sample_claims_validate() -> None:
    files = sorted(f for f in (ROOT / "claims").glob("*.yaml")
                   if f.name not in ("schema.yaml", "entities.yaml"))  # their own schemas
    if not files:
        pytest.skip("no sample claims yet")
    for f in files:
        VALIDATOR.validate(_yaml12(f.read_text(encoding="utf-8")))


class _NoDates(yaml.SafeLoader):
    """yaml-language-server reads YAML 1.2, where 2025-01-01 is text, not a date."""


_NoDates.yaml_implicit_resolvers = {
    k: [(tag, rx) for tag, rx in v if tag != "tag:yaml.org,2002:timestamp"]
    for k, v in yaml.SafeLoader.yaml_implicit_resolvers.items()}


def _yaml12(text: str) -> object:
    return yaml.load(text, Loader=_NoDates)  # noqa: S506 - a SafeLoader subclass


@pytest.fixture(scope="module")
def ws(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("schema")
    doc = pymupdf.open()
    doc.new_page().insert_text((72, 72), "v 1")
    doc.save(root / "a.pdf")
    (root / "claims").mkdir()
    return root


@st.composite
def claim_files(draw: st.DrawFn) -> dict:
    kind = draw(st.sampled_from(["fact", "calc", "inference"]))
    claim: dict = {"kind": kind}
    for key in list(CLAIM) + list(BY_KIND[kind]):
        if key == "kind":
            continue
        choice = draw(st.sampled_from(["good", "good", "bad", "absent"]))
        if choice != "absent":
            claim[key] = (GOOD if choice == "good" else BAD)[key]
    if kind == "inference" and claim.get("confidence") == 0.5 and draw(st.booleans()):
        claim["confidence"] = 0.99
    if draw(st.integers(0, 9)) == 0:
        claim["colour"] = "red"
    return {"report": {"id": "R", "title": "T"},
            "documents": {"d1": {"file": "../a.pdf"}},
            "claims": [BASE_FACT, claim]}


@settings(max_examples=200, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=claim_files())
def test_schema_and_loader_agree(ws: Path, data: dict) -> None:
    (ws / "claims" / "R.yaml").write_text(yaml.safe_dump(data, allow_unicode=True),
                                          encoding="utf-8")
    schema_ok = VALIDATOR.is_valid(data)
    try:
        load_ledger([ws / "claims"])
        loader_ok = True
    except LedgerErrors:
        loader_ok = False
    assert schema_ok == loader_ok, data


def test_readme_example_is_a_valid_report_file() -> None:
    """The README's one example is what newcomers copy; keep it valid."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    block = text.split("```yaml\n", 1)[1].split("```", 1)[0]
    VALIDATOR.validate(_yaml12(block))
