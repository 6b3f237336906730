"""The reviewer's audit page: one self-contained HTML file per checked round.

`audit` turns a Report (and optionally the JSON of an earlier `check`, the baseline) into a
page that needs no server and no network: styles and the small filter script are inline, the
compare plot is a data: URI, and without JavaScript everything is shown. The page holds:

- the round, when it was checked, the counts, and a table per submitter folder;
- the changes since the baseline: results that became valid or invalid, results new or gone,
  and findings new, gone or unchanged (a finding is its code, path, pointer and message; a
  result is its location);
- one entry per invalid result with every finding that invalidates it (on the result, its
  system description or its submitter folder, as findings.Applying decides) and the rule's Fix,
  its warnings and notes collapsed under it;
- loadgen provenance (checker/provenance.py's verdicts from the bundled table, and the PRV
  findings), and the cross-partner variance of the comparable groups (checker/analysis/compare.py on
  the valid rows, computed in a child process: `Aside`) with the compare plot and, for the
  token benchmarks, throughput against interactivity;
- every finding.

Detection makes data; this module gathers it into plain dicts, and the Jinja2 templates in
checker/commands/templates/ make the words. Autoescaping is on, and every value a template prints
passes through reporters.common.visible first: a folder name with a control character or a
byte that is not UTF-8 is shown as an escape, never raw. `compare --format html` renders its
groups with the same templates and style sheet (checker/commands/html.py).
"""

from __future__ import annotations

import datetime
import secrets
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from markupsafe import Markup

from ..analysis import plots
from ..baseline import check_baseline_round, load_baseline
from ..engine import load_all
from ..findings import Finding, Report, ResultRecord, Severity, invalidates
from ..registry import RULES
from ..reporters import EXTENSIONS, Formats, as_data
from ..reporters.common import printable
from ..rounds import Round
from ..settings import Invocation, output_format
from . import common
from .html import prepare, render

if TYPE_CHECKING:
    from ..model import Result

SCOPES = {"result": "the result", "system": "its system description", "submission": "its submitter folder"}


# --- what the page shows --------------------------------------------------------------------
def _owner(path: str, divisions: Iterable[str]) -> tuple[str, str]:
    """(division, submitter) of a path relative to the checked root; "" where it has none."""
    parts = path.split("/")
    if parts[0] not in divisions:
        return "", ""
    return parts[0], parts[1] if len(parts) > 1 else ""


def _fix(code: str) -> str:
    rule = RULES.get(code)
    return rule.sections.get("Fix", "").strip() if rule else ""


def _finding(finding: Finding | dict[str, Any], divisions: Iterable[str], scope: str = "result") -> dict[str, Any]:
    """A finding as the page shows it: a Finding of this check, or one of the baseline's JSON."""
    data: dict[str, Any]
    if isinstance(finding, Finding):
        data = {
            "code": finding.code,
            "name": finding.name,
            "severity": finding.severity.value,
            "message": finding.message,
            "path": finding.path,
            "pointer": finding.pointer,
            "location": finding.location,
            "waived": finding.waived,
        }
    else:
        data = finding
    division, submitter = _owner(data["path"], divisions)
    return {
        "code": data["code"],
        "name": data.get("name", ""),
        "severity": data["severity"],
        "message": data["message"],
        "path": data["path"],
        "pointer": data.get("pointer") or "",
        "location": data.get("location", ""),
        "waived": data.get("waived") or "",
        "fix": _fix(data["code"]),
        "division": division,
        "submitter": submitter,
        "scope": SCOPES.get(scope, scope),
    }


def _identity(finding: Finding | dict[str, Any]) -> tuple[str, str, str, str]:
    """What identifies a finding across checks: code, path, pointer and message, as the JSON
    writes them (printable)."""
    if isinstance(finding, Finding):
        return (finding.code, printable(finding.path), printable(finding.pointer or ""), printable(finding.message))
    return (finding["code"], finding["path"], finding.get("pointer") or "", finding["message"])


class _Applying:
    """The findings that apply to each result (findings.Applying, the rule that judged it), each
    with what it is on: the result, its system or its submission."""

    def __init__(self, report: Report) -> None:
        self.applying = report.applying()

    def of(self, result: ResultRecord) -> list[tuple[Finding, str]]:
        found = self.applying.of(result)
        return (
            [(f, "result") for f in found if f.location]
            + [(f, "system") for f in found if not f.location and f.subject == result.system_key]
            + [(f, "submission") for f in found if not f.location and f.subject == result.submission_key]
        )


def _tokens(values: Iterable[str]) -> str:
    return " ".join(sorted(set(values)))


def _result(
    result: ResultRecord, anchor: str, applying: list[tuple[Finding, str]], divisions: Iterable[str]
) -> dict[str, Any]:
    errors = [_finding(f, divisions, scope) for f, scope in applying if invalidates(f)]
    others = [_finding(f, divisions, scope) for f, scope in applying if not invalidates(f)]
    metric = result.metric or {}
    return {
        "anchor": anchor,
        "location": result.location,
        "division": result.division,
        "submitter": result.submitter,
        "system": result.system,
        "benchmark": result.benchmark,
        "scenario": result.scenario,
        "valid": result.valid,
        "metric": f"{metric['value']:.6g} {metric.get('units', '')}".strip()
        if isinstance(metric.get("value"), (int, float))
        else "",
        "errors": errors,
        "others": others,
        "others_label": _label(others),
        "codes": _tokens(f.code for f, _ in applying),
        "severities": _tokens(f.severity.value for f, _ in applying),
    }


def _label(findings: list[dict[str, Any]]) -> str:
    """ "2 warnings, 1 note, 1 waived": what a collapsed list holds."""
    waived = sum(1 for f in findings if f["waived"])
    parts = []
    for severity in Severity:
        n = sum(1 for f in findings if f["severity"] == severity.value and not f["waived"])
        if n:
            parts.append(f"{n} {severity.value}{'' if n == 1 else 's'}")
    return ", ".join(parts + ([f"{waived} waived"] if waived else []))


def _submitters(report: Report) -> list[dict[str, Any]]:
    divisions = report.round.divisions
    rows: dict[tuple[str, str], dict[str, Any]] = {}

    def row(division: str, submitter: str) -> dict[str, Any]:
        return rows.setdefault(
            (division, submitter),
            {
                "division": division,
                "submitter": submitter,
                "results": 0,
                "valid": 0,
                "invalid": 0,
                "error": 0,
                "warning": 0,
                "note": 0,
                "codes": set(),
                "severities": set(),
            },
        )

    for result in report.results:
        entry = row(result.division, result.submitter)
        entry["results"] += 1
        entry["valid" if result.valid else "invalid"] += 1
    for finding in report.findings:
        entry = row(*_owner(finding.path, divisions))
        if not finding.waived:
            entry[finding.severity.value] += 1
        entry["codes"].add(finding.code)
        entry["severities"].add(finding.severity.value)
    for entry in rows.values():
        entry["codes"], entry["severities"] = _tokens(entry["codes"]), _tokens(entry["severities"])
    return [rows[key] for key in sorted(rows)]


def _diff(report: Report, baseline: dict[str, Any], anchors: dict[str, str], applying: _Applying) -> dict[str, Any]:
    divisions = report.round.divisions
    before = {r["location"]: r for r in baseline["results"]}
    now = {printable(r.location): r for r in report.results}

    def view(result: ResultRecord) -> dict[str, Any]:
        return _result(result, anchors[result.location], applying.of(result), divisions)

    def gone_view(row: dict[str, Any]) -> dict[str, Any]:
        return {
            "location": row["location"],
            "division": row["division"],
            "submitter": row["submitter"],
            "system": row["system"],
            "benchmark": row["benchmark"],
            "scenario": row["scenario"],
            "valid": row["valid"],
            "errors": [],
            "codes": "",
            "severities": "",
            "anchor": "",
        }

    became_invalid = [view(now[k]) for k in sorted(now) if k in before and before[k]["valid"] and not now[k].valid]
    became_valid = [view(now[k]) for k in sorted(now) if k in before and not before[k]["valid"] and now[k].valid]
    new_results = [view(now[k]) for k in sorted(now) if k not in before]
    gone_results = [gone_view(before[k]) for k in sorted(before) if k not in now]

    current = Counter(_identity(f) for f in report.findings)
    earlier = Counter(_identity(f) for f in baseline["findings"])
    new_budget, gone_budget = current - earlier, earlier - current
    new, unchanged, gone = [], [], []
    for finding in report.findings:
        key = _identity(finding)
        if new_budget[key] > 0:
            new_budget[key] -= 1
            new.append(_finding(finding, divisions))
        else:
            unchanged.append(_finding(finding, divisions))
    for finding in baseline["findings"]:
        key = _identity(finding)
        if gone_budget[key] > 0:
            gone_budget[key] -= 1
            gone.append(_finding(finding, divisions))
    valid = sum(1 for r in baseline["results"] if r["valid"])
    return {
        "round": baseline["round"],
        "version": (baseline.get("tool") or {}).get("version", ""),
        "results": len(baseline["results"]),
        "valid": valid,
        "invalid": len(baseline["results"]) - valid,
        "became_invalid": became_invalid,
        "became_valid": became_valid,
        "new_results": new_results,
        "gone_results": gone_results,
        "new": new,
        "gone": gone,
        "unchanged": unchanged,
    }


def changes(report: Report, baseline: dict[str, Any]) -> dict[str, int]:
    """How many results became invalid and valid since the baseline (for one line on stderr)."""
    before = {r["location"]: r["valid"] for r in baseline["results"]}
    now = [(before.get(printable(r.location)), r.valid) for r in report.results]
    return {
        "became_invalid": sum(1 for then, valid in now if then is True and not valid),
        "became_valid": sum(1 for then, valid in now if then is False and valid),
    }


# --- what the check gathers per result ------------------------------------------------------
def collect(result: Result, record: ResultRecord) -> dict[str, Any]:
    """The check's `collect` hook for the page, run in the worker that checked the result:
    its table row (the variance section) and the loadgen build its performance log names
    (the provenance section), read from the log the check already parsed."""
    from ..provenance import build_of
    from .table import table_row

    log = result.performance_log
    return {"row": table_row(result, record), "build": build_of(log) if log is not None else None}


def _rows(report: Report) -> list[dict[str, Any]]:
    """The table rows `collect` gathered for the valid results."""
    return [r.collected["row"] for r in report.results if r.valid and r.collected]


# --- provenance -----------------------------------------------------------------------------
def provenance(report: Report, the_round: Round) -> dict[str, Any]:
    """Each result's loadgen verdict from the bundled table (checker/provenance.py), as the
    `provenance` command computes it: the counts per verdict, and the results that do not
    descend from the seed release or ran a dirty, modified or late build."""
    from .. import provenance as prv

    source = prv.TableSource()
    verdicts = [
        prv.judge_build(r.location, r.collected["build"], the_round, source)
        for r in report.results
        if r.collected and r.collected["build"] is not None
    ]
    results = len(report.results)
    unjudged = results - len(verdicts)
    counts = Counter(v.verdict for v in verdicts)
    divisions = the_round.divisions
    flagged = []
    for verdict in sorted(verdicts, key=lambda v: (prv.VERDICTS.index(v.verdict) == 0, v.location)):
        if not verdict.exception:  # a build identified as a release at or after the seed release descends
            continue
        division, submitter = _owner(verdict.location, divisions)
        flagged.append(
            {
                "location": verdict.location,
                "division": division,
                "submitter": submitter,
                "version": verdict.loadgen_version or "",
                "rev": verdict.rev or "NA",
                "verdict": verdict.verdict,
                "date": (verdict.commit_date or "")[:10],
                "dirty": verdict.dirty,
                "modified": verdict.modified_files,
                "untracked": len(verdict.untracked_files),
                "after_deadline": verdict.after_deadline,
                "identified_as": verdict.identified_as or verdict.reason,
            }
        )
    return {
        "seed": the_round.seed_release.commit if the_round.seed_release else "",
        "source": source.name,
        "counts": [(name, counts.get(name, 0)) for name in prv.VERDICTS],
        "judged": len(verdicts),
        "unjudged": unjudged,
        "flagged": flagged,
    }


# --- cross-partner variance -----------------------------------------------------------------
def variance_of(
    rows: list[dict[str, Any]], round_name: str, has_table: bool = True, with_plot: bool = True
) -> dict[str, Any]:
    """compare (checker/analysis/compare.py, the one analysis core) on the table rows `collect`
    gathered for the valid results (the published rows, with the description fields that
    explain outliers), and its plots as SVG data: URIs: the deviations, and throughput against
    interactivity where a group is a token benchmark. `has_table`: whether the round has a
    results-table format (TableFormat.of its Round: without one there are no rows to compare).
    Plain data: what `Aside`'s child sends back."""
    from ..analysis import compare as cmp  # pandas: in the child that computes the variance (`Aside`)
    from ..analysis.table import INTERACTIVITY
    from .table import publish

    options = cmp.Options()
    found: dict[str, Any] = {
        "definition": options.definition(),
        "groups": [],
        "plots": [],
        "plot_missing": "",
        "interactivity": [],
        "interactivity_missing": "",
        "interactivity_definition": INTERACTIVITY,
        "no_table": "",
    }
    if not has_table:
        found["no_table"] = f"round {round_name} has no results-table format, so no rows to compare"
        return found
    published = publish(rows, None, None, round_name, with_description=True)
    compared = cmp.comparison(published, options)
    found.update(groups=cmp.groups_view(compared), summary=cmp.groups_summary(compared), rows=len(published))
    groups = list(compared.each())
    if with_plot and groups:
        found["plots"] = plots.images(groups, options)
    if with_plot and plots.token_groups(groups):
        found["interactivity"], found["interactivity_missing"] = plots.throughput_images(groups)
    return found


def variance(report: Report, with_plot: bool = True) -> dict[str, Any]:
    """`variance_of` the valid results of a report (checked with `collect`), in this process."""
    return variance_of(*_variance_input(report), with_plot=with_plot)


def _variance_input(report: Report) -> tuple[list[dict[str, Any]], str, bool]:
    """What `variance_of` computes from: the valid rows, the round's name, whether it has a table."""
    from .table import TableFormat

    return _rows(report), report.round.name, TableFormat.of(report.round) is not None


class Aside:
    """The variance section computed in one child process, so that the report's own process
    imports neither pandas nor numpy (issue 34: the page as light as the check; pandas' import
    alone is about 40 MB and 0.4 s of CPU). Started as the command starts (`invocation`),
    while this process is small and one core is idle, the child imports the analysis while
    this process loads the round and checks; `variance` sends it the valid results' rows and
    takes back the section's plain data. The computation is the one of `variance_of`, here
    or there: without a child process (a sandbox without semaphores), or when the child
    breaks, it runs in this process instead. Entering it again keeps the child it has."""

    def __init__(self) -> None:
        self._pool: Any = None
        self._started = False

    def __enter__(self) -> Aside:
        from concurrent.futures import ProcessPoolExecutor

        from ..output import held
        from ..process import worker

        if self._started:
            return self
        self._started = True
        try:
            with held():  # forked with the signals held: the child sets its own (checker.process.worker)
                self._pool = ProcessPoolExecutor(max_workers=1, initializer=worker)
                self._pool.submit(_warm)
        except (OSError, RuntimeError):
            self._pool = None
        return self

    def __exit__(self, *stopped: object) -> None:
        if self._pool is None:
            return
        workers = list((getattr(self._pool, "_processes", None) or {}).values())
        self._pool.shutdown(wait=False, cancel_futures=True)
        for child in workers:
            child.terminate()
        for child in workers:
            child.join(timeout=5)

    def variance(self, report: Report) -> Callable[[], dict[str, Any]]:
        """`variance(report)`, started in the child where there is one: what gives it, once
        this process has done its own share of the page meanwhile."""
        from concurrent.futures.process import BrokenProcessPool

        given = _variance_input(report)
        if self._pool is None:
            return lambda: variance_of(*given)
        try:
            future = self._pool.submit(variance_of, *given)
        except (BrokenProcessPool, OSError, RuntimeError):  # a broken child: computed here instead
            return lambda: variance_of(*given)

        def taken() -> dict[str, Any]:
            try:
                found: dict[str, Any] = future.result()
                return found
            except (BrokenProcessPool, OSError, RuntimeError):
                return variance_of(*given)

        return taken


def _warm() -> None:
    """The child's first task, while the check runs: import the analysis (pandas with it),
    at a lower priority than the check's workers, so that it takes what they leave of the
    cores rather than a share of them."""
    import contextlib
    import os

    with contextlib.suppress(OSError, AttributeError):  # AttributeError: no os.nice (Windows)
        os.nice(10)
    from ..analysis import compare  # noqa: F401
    from .table import publish  # noqa: F401


# --- rendering ------------------------------------------------------------------------------
def page(
    report: Report,
    baseline: dict[str, Any] | None = None,
    baseline_name: str = "",
    provenance_view: dict[str, Any] | None = None,
    variance_view: dict[str, Any] | None = None,
    checked: datetime.datetime | None = None,
    variance_marker: str | None = None,
) -> str:
    """The audit page of a report, as one HTML document. `baseline` is a load_baseline()
    document; without `provenance_view` or `variance_view` (see `audit`) those sections say
    they were not computed. With `variance_marker` (markup), the variance section holds it
    in place of its body (templates/_variance.html.j2), for `audit` to put the body in."""
    load_all()
    divisions = report.round.divisions
    applying = _Applying(report)
    anchors = {r.location: f"result-{index}" for index, r in enumerate(report.results, 1)}
    by_location = {r.location: r for r in report.results}
    invalid = [_result(r, anchors[r.location], applying.of(r), divisions) for r in report.results if not r.valid]
    counts = report.counts()
    valid = sum(1 for r in report.results if r.valid)
    everything = [_finding(f, divisions) for f in report.findings]
    submitters = _submitters(report)
    if provenance_view is not None:
        for row in provenance_view["flagged"]:  # the filters select results: by the codes that apply to each
            found = applying.of(by_location[row["location"]]) if row["location"] in by_location else []
            row.update(
                anchor=anchors.get(row["location"], ""),
                codes=_tokens(f.code for f, _ in found),
                severities=_tokens(f.severity.value for f, _ in found),
            )
    filters = {
        "submitter": sorted({row["submitter"] for row in submitters if row["submitter"]}),
        "division": [d for d in divisions if any(row["division"] == d for row in submitters)],
        "code": sorted(
            {f.code for f in report.findings} | ({f["code"] for f in baseline["findings"]} if baseline else set())
        ),
        "severity": [s.value for s in Severity],
    }
    checked = checked or report.checked_at or datetime.datetime.now(datetime.UTC)
    return render(
        "report.html.j2",
        title=f"mlperf-check audit, round {report.round.name}",
        round=report.round.name,
        round_title=report.round.title or "",
        root=report.root,
        checked=checked.strftime("%Y-%m-%d %H:%M:%S %Z").strip(),
        counts={
            "results": len(report.results),
            "valid": valid,
            "invalid": len(report.results) - valid,
            "error": counts["error"],
            "warning": counts["warning"],
            "note": counts["note"],
            "waived": sum(1 for f in report.findings if f.waived),
        },
        submitters=submitters,
        invalid=invalid,
        findings=everything,
        filters=filters,
        baseline=_diff(report, baseline, anchors, applying) if baseline is not None else None,
        baseline_name=baseline_name,
        provenance=provenance_view,
        variance=variance_view,
        variance_marker=variance_marker,
        prv=[f for f in everything if f["code"].startswith("PRV")],
    )


def audit(
    report: Report,
    path: str,
    baseline: dict[str, Any] | None = None,
    baseline_name: str = "",
    checked: datetime.datetime | None = None,
    aside: Aside | None = None,
) -> str:
    """The whole page: the report (checked with `collect`), its provenance and the variance.
    `path` is the checked tree, as every command's writer is given it. Given an Aside, the
    variance is computed in its child process."""
    if aside is None:
        return page(report, baseline, baseline_name, provenance(report, report.round), variance(report), checked)
    pending = aside.variance(report)  # the child computes it while this process judges the builds
    judged = provenance(report, report.round)
    prepare()  # compiles the page's templates; then all of the page but the variance's body is rendered
    marker = Markup(f"<!-- the variance section, {secrets.token_hex(16)} -->")  # in no text of the tree
    before, found, after = page(report, baseline, baseline_name, judged, None, checked, marker).partition(marker)
    variance_view = pending()
    if not found:  # a template that does not place the marker: the page rendered whole
        return page(report, baseline, baseline_name, judged, variance_view, checked)
    return before + render("_variance.html.j2", variance=variance_view) + after


# The audit page is one HTML file; its templates escape what they print.
FORMATS = Formats({"html": as_data(audit)}, default="html")


# --- the command ---------------------------------------------------------------------------
@dataclass(frozen=True, kw_only=True)
class CommandLine:
    """report's command line."""

    path: str
    round: str | None = None
    baseline: str | None = None
    output: str
    waivers: str | None = None
    jobs: int | None = None
    progress: bool = True
    cache_dir: str | None = None  # checker/cache.py: set for the process by cli._run
    no_cache: bool = False


@dataclass(frozen=True, kw_only=True)
class Invoked(Invocation[CommandLine]):
    previous: dict[str, Any] | None  # --baseline, read
    waived: tuple[Any, ...]  # --waivers (else the configuration's), read
    aside: Aside  # started: its child imports the analysis while the round loads and the check runs


def invocation(options: CommandLine) -> Invoked:
    """The page to write (a path that cannot be written is a usage error before any work),
    the baseline of the same round, the settings and the waivers."""
    aside = Aside().__enter__()
    try:
        return _invocation(options, aside)
    except BaseException:
        aside.__exit__(None, None, None)
        raise


def _invocation(options: CommandLine, aside: Aside) -> Invoked:
    from ..output import resolve

    common.folder(options.path)
    output_format(options.output, ("html",), EXTENSIONS)  # `-o x.yaml` is no page: exit 2, as in every command
    resolve(options.output)
    previous = None
    if options.baseline is not None:
        previous = load_baseline(options.baseline)
    given = {"round": options.round, "waivers": options.waivers, "jobs": options.jobs}
    tree = common.on_tree(options, options.path, given, reads=[options.baseline])
    outputs = (("html", tree.plan.add(options.output)),)
    assert tree.round is not None
    if previous is not None:
        check_baseline_round(previous, tree.round.name, options.baseline or "")
    waived = common.waivers(tree.settings.waivers)
    return tree.extended(Invoked, outputs=outputs, previous=previous, waived=waived, aside=aside)


def run(invocation: Invoked) -> int:
    """Check the tree, write the page, and exit as check does."""
    from ..engine import check
    from .check import exit_code

    options, previous = invocation.options, invocation.previous
    assert invocation.round is not None and invocation.round_name is not None
    with invocation.aside as aside:  # its child imports the analysis (pandas) while the check runs
        with common.progress(options.progress) as tick:
            found = check(
                options.path,
                invocation.round,
                jobs=invocation.settings.jobs or None,
                waivers=list(invocation.waived),
                progress=tick,
                collect=collect,
            )
        if not found.results and not found.has_errors:
            raise common.no_results(options.path, invocation.round)
        found_by = (found, options.path, previous, options.baseline or "", None, aside)
        common.emit(invocation.plan, FORMATS, "html", invocation.target, *found_by)
    invalid = sum(1 for r in found.results if not r.valid)
    changed = changes(found, previous) if previous is not None else None
    since = (
        f"; since {options.baseline}: {changed['became_invalid']} became invalid, {changed['became_valid']} became valid"
        if changed
        else ""
    )
    common.say(f"{options.output}: {len(found.results)} results, {invalid} invalid{since}")
    return exit_code(found)  # as check: an error on no result (a submitter folder) is one too
