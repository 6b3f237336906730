"""SARIF's URIs are URIs (attack24 F1, F4): every artifact location a relative reference with
each path segment percent-encoded (RFC 3986, SARIF 2.1.0 §3.10), that decodes back to the
file's name; helpUri only when absolute; the document valid with `format: uri` and
`uri-reference` checked (rfc3987, declared in the test extra)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from urllib.parse import unquote_to_bytes

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from checker.findings import Finding, Report, Severity
from checker.reporters import sarif_report
from checker.rounds import load_round
from helpers import ROOT

SCHEMA = json.loads((ROOT / "tests" / "data" / "sarif-schema-2.1.0.json").read_text())
CHECKER = jsonschema.FormatChecker()
# Name characters a file system allows: anything but `/` and NUL, a byte that was not UTF-8
# (os.fsdecode's surrogate) included.
SEGMENT = st.text(
    st.characters(blacklist_characters="/\x00", blacklist_categories=("Cs",)) | st.sampled_from(["\udcff", "\udc80"]),
    min_size=1,
    max_size=12,
)


def test_the_checker_checks_uri_formats() -> None:
    """The format checker is real: a test that cannot fail is a bug."""
    assert "uri" in CHECKER.checkers and "uri-reference" in CHECKER.checkers
    assert not CHECKER.conforms("docs/rules/ACC001.md", "uri")
    assert not CHECKER.conforms("a b.json", "uri-reference")


@settings(max_examples=300, deadline=None)
@given(segments=st.lists(SEGMENT, min_size=1, max_size=4))
def test_every_path_is_a_uri_reference_that_decodes_to_its_name(segments: list[str]) -> None:
    path = "/".join(segments)
    uri = sarif_report.uri_of(path)
    assert CHECKER.conforms(uri, "uri-reference"), uri
    assert ":" not in uri.split("/")[0] and "#" not in uri and "?" not in uri
    assert [unquote_to_bytes(part) for part in uri.split("/")] == [os.fsencode(s) for s in segments]


def _document(path: str) -> dict:
    finding = Finding("SYS001", Severity.ERROR, path, "m", line=1, column=2)
    report = Report(round=load_round("demo-v6.1"), root=str(ROOT), results=[], findings=[finding])
    return sarif_report.document(report)


@pytest.mark.parametrize(
    ("path", "uri"),
    [
        ("closed/Krai/systems/h2,00:x%0Ay.json", "closed/Krai/systems/h2%2C00%3Ax%250Ay.json"),
        ("closed/A B/s#1?.json", "closed/A%20B/s%231%3F.json"),
        ("closed/cpu-\udcff/日本.json", "closed/cpu-%FF/%E6%97%A5%E6%9C%AC.json"),
    ],
)
def test_a_name_with_percent_space_or_hash_is_encoded(path: str, uri: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """attack24 F1: the literal `%0A` of a file name was written as is, read as a newline."""
    monkeypatch.setenv("GITHUB_WORKSPACE", str(ROOT))
    document = _document(path)
    jsonschema.Draft7Validator(SCHEMA, format_checker=CHECKER).validate(document)
    location = document["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]
    assert location == {"uri": uri, "uriBaseId": "SRCROOT"}


def test_help_uri_is_absolute_or_absent(monkeypatch: pytest.MonkeyPatch) -> None:
    """attack24 F4: `docs/rules/ACC001.md` was written as helpUri (`format: uri`, absolute)."""
    from checker.reporters import common

    rules = _document("a.json")["runs"][0]["tool"]["driver"]["rules"]
    assert all("helpUri" not in rule for rule in rules)
    assert all(rule["help"]["text"].endswith(f"Documentation: docs/rules/{rule['id']}.md") for rule in rules)
    monkeypatch.setattr(common, "_repository_url", lambda: "https://example.org/mlperf-check")
    rules = _document("a.json")["runs"][0]["tool"]["driver"]["rules"]
    assert rules[0]["helpUri"] == f"https://example.org/mlperf-check/blob/HEAD/docs/rules/{rules[0]['id']}.md"
    assert all(CHECKER.conforms(rule["helpUri"], "uri") for rule in rules)


def test_the_real_tree_validates_with_formats(tmp_path: Path) -> None:
    """A whole check's SARIF, formats checked (the other SARIF tests use the same checker)."""
    from helpers import EXAMPLE, run

    document = sarif_report.document(run(EXAMPLE))
    jsonschema.Draft7Validator(SCHEMA, format_checker=CHECKER).validate(document)
