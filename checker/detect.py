"""Which round a tree was made for, when `--round` is not given.

Evidence, each fact per round from the round files (rules/<round>.yaml):

- **Seeds** (`seeds`). Each round's loadgen RNG seeds are announced shortly before its
  deadline, so the seeds a run used name the round it was made for. They are read from the
  head of each result's main performance detail log (compliance and accuracy runs are not
  read: a compliance run may legitimately carry other seeds), or, for MLPerf Endpoints
  results, from `config.yaml` (the keys the round file's `endpoints.seed_keys` names).
- **Layout** (`layout`). The folders beside `results/` that a round's layout names (v5.x:
  `code/`, `compliance/`, `measurements/`; v6.x: `src/`), and Endpoints results, which only
  rounds whose layout sets `endpoints` have.
- **Loadgen builds** (`loadgen_versions`): the versions of the builds a round's results ran,
  from `loadgen_version` in the same log heads. Published v5.1 results ran 4.1, 5.0 and 5.1
  builds with the v5.1 seeds, so a build alone never decides.

The seeds decide when the layout fits their round. When it does not (the v5.1 seeds in a v6.x
tree: an old loadgen), the round that the layout and the builds both fit is chosen and the
seeds are the finding (RNG001). Seeds of no known round (a v4.1 tree, a round newer than this
version), evidence that fits no round or several, and results carrying the seeds of several
rounds, are usage errors: a tree is never checked against a round it does not fit.

Profiles (`demo-v6.1`) carry their real round's seeds and relax its rules, so they are never
detected; they are used only when asked for with `--round`.

`gather` reads the evidence and never writes; `decide` is a pure function of the evidence and
the round files. The head of every main log is read, not a sample: the seeds lie within the
first 22 KiB (after the git log and file hashes), one read of HEAD_CHUNK bytes, so reading all
of them stays cheap, and a tree that mixes rounds is always caught.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from .model import discover, results_of, systems_of
from .parsers.endpoints import parse_endpoints_config
from .parsers.mllog import KEY_HEAD, PREFIXES
from .rounds import Round, available_rounds, load_round, version_numbers
from .tree import FileChanged, Kind, Tree, join
from .workspace import WorkspaceError, locate, locate_result, other_format

# Loadgen logs its effective settings, the seeds among them, in its first ~60 lines (at most
# 22 KiB into the real v5.1 and v6.0 logs); a log is read in chunks until the seeds are found,
# and never past HEAD_BYTES.
HEAD_CHUNK = 32 * 1024
HEAD_BYTES = 256 * 1024
MAX_CONFIG_BYTES = 1024 * 1024
LOADGEN_VERSION = "loadgen_version"


@dataclass(frozen=True)
class ResultEvidence:
    """What one result says about its round. `source` is "loadgen" (the main performance
    detail log), "endpoints" (config.yaml) or "" (neither could be read); `seeds` maps the
    log key or config.yaml key to the integer read there."""

    location: str
    benchmark: str
    source: str = ""
    seeds: dict[str, int] = field(default_factory=dict)
    loadgen: str | None = None  # "5.1.x"
    version: tuple[int, ...] = ()  # loadgen_version's numbers: (5, 1, 0)


@dataclass(frozen=True)
class Evidence:
    results: list[ResultEvidence] = field(default_factory=list)
    folders: dict[str, frozenset[str]] = field(default_factory=dict)  # submitter folder -> its subfolders


@dataclass(frozen=True)
class Detection:
    """The round chosen and why; `round` is None when the tree mixes rounds (a usage error,
    `reason` names them)."""

    round: str | None
    reason: str

    @property
    def line(self) -> str:
        return f"round {self.round} ({self.reason})" if self.round else self.reason


# --- reading -----------------------------------------------------------------------------
def read_head(path: str | int, keys: frozenset[str]) -> dict[str, Any]:
    """The first value of each of `keys` in the head of a detail log (a path, or a descriptor
    `Tree.open` gave): read HEAD_CHUNK bytes at a time, no further once all are found, never
    past HEAD_BYTES. A record that cannot be decoded, or a file that cannot be read, gives
    nothing."""
    found: dict[str, Any] = {}
    marks = {key: KEY_HEAD + key.encode() + b'"' for key in keys}
    try:
        with open(path, "rb") as handle:
            head = b""
            while marks and len(head) < HEAD_BYTES:
                chunk = handle.read(HEAD_CHUNK)
                head += chunk
                for key, mark in list(marks.items()):
                    value = _first_value(head, mark, at_end=not chunk)
                    if value is not _PENDING:
                        del marks[key]
                        if value is not _NOTHING:
                            found[key] = value
                if not chunk:
                    break
    except OSError:
        pass
    return found


_PENDING, _NOTHING = object(), object()
_DECODER = json.JSONDecoder()


def _first_value(head: bytes, mark: bytes, at_end: bool) -> Any:
    """The value of the first record in `head` whose key is `mark`; _PENDING while it may
    still come (or its line is not complete yet), _NOTHING when it cannot be decoded."""
    at = head.find(mark)
    while at >= 0:
        start = head.rfind(b"\n", 0, at) + 1
        end = head.find(b"\n", at)
        if end < 0 and not at_end:
            return _PENDING
        line = head[start : end if end >= 0 else len(head)]
        if line.startswith(PREFIXES) and line.find(b"{") == at - start:
            try:
                text = line[at - start :].decode("utf-8")
                value_at = text.find('"value": ')
                if value_at < 0:
                    return _NOTHING
                return _DECODER.raw_decode(text, value_at + len('"value": '))[0]
            except (ValueError, RecursionError):
                return _NOTHING
        at = head.find(mark, at + 1)
    return _NOTHING if at_end else _PENDING


def _integers(values: dict[str, Any]) -> dict[str, int]:
    return {k: v for k, v in values.items() if type(v) is int}  # not bool, not a quoted number


def _loadgen_series(version: Any) -> str | None:
    match = re.match(r"\s*(\d+)\.(\d+)", version) if isinstance(version, str) else None
    return f"{match[1]}.{match[2]}.x" if match else None


def _read_result(
    tree: Tree, location: str, benchmark: str, logs: list[str], log_keys: frozenset[str], config_keys: frozenset[str]
) -> ResultEvidence:
    for rel in logs:
        entry = tree.entry(rel)
        if entry.kind is Kind.FILE:
            try:  # the one safe open: no symlink followed, no FIFO waited on
                values = read_head(tree.open(entry), log_keys | {LOADGEN_VERSION})
            except (OSError, FileChanged):
                values = {}
            version = values.get(LOADGEN_VERSION)
            return ResultEvidence(
                location,
                benchmark,
                "loadgen",
                _integers(values),
                _loadgen_series(version),
                version_numbers(version) if isinstance(version, str) else (),
            )
    config = join(location, "config.yaml")
    entry = tree.entry(config)
    if config_keys and entry.kind is Kind.FILE and entry.size <= MAX_CONFIG_BYTES:
        try:
            with open(tree.open(entry), "rb") as handle:
                text = handle.read(MAX_CONFIG_BYTES + 1).decode("utf-8")
        except (OSError, FileChanged, UnicodeDecodeError):
            return ResultEvidence(location, benchmark)
        parsed, _ = parse_endpoints_config(text)
        return ResultEvidence(
            location, benchmark, "endpoints", _integers({key: parsed.get(key) for key in config_keys})
        )
    return ResultEvidence(location, benchmark)


def gather(root: str, rounds: list[Round], only: frozenset[str] | None = None) -> Evidence:
    """The evidence of every result under `root` (a tree `discover` accepts), or of the
    results in `only`, found with each round's layout."""
    tree = Tree(root)
    logs: dict[str, tuple[str, list[str]]] = {}  # location -> (benchmark, main performance logs)
    folders: dict[str, frozenset[str]] = {}
    layouts = set()
    try:
        where = locate(root)
        top, part = where.root, where.part
    except WorkspaceError:  # no such folder: no evidence
        top, part = root, ()
    for round in rounds:
        signature = (tuple(round.divisions), round.layout.result, round.layout.performance)
        if signature in layouts:
            continue
        layouts.add(signature)
        tree = Tree(top)
        for submission in discover(tree, round, part):
            if only is not None and not any(location.startswith(submission.rel + "/") for location in only):
                continue
            folders.setdefault(submission.rel, frozenset(tree.subdirs(submission.rel)))
            for system in systems_of(submission):
                for result in results_of(system):
                    if only is not None and result.location not in only:
                        continue
                    benchmark, paths = logs.setdefault(result.location, (result.benchmark, []))
                    path = result.file("performance", "detail_log")
                    if path is not None and path not in paths:
                        paths.append(path)
    log_keys = frozenset(f"effective_{name}" for round in rounds for name in round.seeds.named())
    config_keys = frozenset(key for round in rounds if round.endpoints for key in round.endpoints.seed_keys.values())
    results = [
        _read_result(tree, location, benchmark, paths, log_keys, config_keys)
        for location, (benchmark, paths) in sorted(logs.items())
    ]
    return Evidence(results, folders)


# --- deciding ----------------------------------------------------------------------------
def carries_seeds_of(result: ResultEvidence, round: Round) -> bool:
    """Whether every seed the result's source records is there and is the round's."""
    seeds = round.seeds.named()
    if result.source == "loadgen":
        keys = {name: f"effective_{name}" for name in seeds}
    elif result.source == "endpoints" and round.layout.endpoints:
        keys = dict(round.endpoints.seed_keys) if round.endpoints else {}
    else:
        return False
    return bool(keys) and all(result.seeds.get(key) == seeds.get(name) for name, key in keys.items())


def _count(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def _layout_folders(round: Round) -> frozenset[str]:
    """The folders of a submitter folder that the round's layout names (`results`, `src`, ...)."""
    return frozenset(value.split("/")[0] for value in round.layout.paths() if not value.startswith("{"))


def _layout_fit(evidence: Evidence, real: list[Round]) -> tuple[list[Round], str, bool]:
    """(the rounds the layout fits, what in the tree says so, whether submitter folders
    disagree). A submitter folder fits a round when it has a folder only some rounds name,
    and each of its folders that a round names is one this round names."""
    named = {round.name: _layout_folders(round) for round in real}
    if not named:
        return [], "", False
    known = frozenset().union(*named.values())
    common = frozenset.intersection(*named.values())
    fits: dict[str, set[str]] = {}
    telling: set[str] = set()
    for submitter, present in evidence.folders.items():
        used = present & known
        chosen = {name for name, folders in named.items() if used <= folders and used & (folders - common)}
        if chosen:
            fits[submitter] = chosen
            telling |= used - common
    candidates = set.intersection(*fits.values()) if fits else {r.name for r in real}
    said = []
    if fits:
        said.append(
            f"{', '.join(f + '/' for f in sorted(telling))} in {len(fits)} of "
            f"{_count(len(evidence.folders), 'submitter folder', 'submitter folders')}"
        )
    endpoints = sum(1 for r in evidence.results if r.source == "endpoints")
    if endpoints:
        candidates &= {r.name for r in real if r.layout.endpoints}
        said.append(_count(endpoints, "Endpoints result", "Endpoints results"))
    if not fits and not endpoints:
        return [], "", False
    return [r for r in real if r.name in candidates], "; ".join(said), bool(fits) and not candidates


def _seedless(unknown: list[ResultEvidence], unread: list[ResultEvidence]) -> list[str]:
    parts = []
    if unknown:
        parts.append(
            f"{_count(len(unknown), 'carries', 'carry')} seeds of no known round (ignored, e.g. {unknown[0].location})"
        )
    if unread:
        parts.append(f"{len(unread)} {'has' if len(unread) == 1 else 'have'} no readable seeds")
    return parts


def _loadgen_clause(results: list[ResultEvidence]) -> list[str]:
    series: dict[str, int] = {}
    for result in results:
        if result.loadgen:
            series[result.loadgen] = series.get(result.loadgen, 0) + 1
    if not series:
        return []
    ordered = sorted(series.items(), key=lambda item: (-item[1], item[0]))
    return ["loadgen " + ", ".join(f"{name} in {n}" for name, n in ordered)]


def _profile_hints(results: list[ResultEvidence], chosen: Round, rounds: list[Round]) -> list[str]:
    """Benchmarks the chosen round lacks but one of its profiles has: the profile is meant."""
    hints = []
    for profile in rounds:
        if profile.is_profile and profile.extends == chosen.name:
            only = sorted(
                {
                    r.benchmark
                    for r in results
                    if chosen.canonical_model(r.benchmark) is None and profile.canonical_model(r.benchmark)
                }
            )
            if only:
                hints.append(
                    f"{', '.join(only)} {'is a benchmark' if len(only) == 1 else 'are benchmarks'} of the "
                    f"profile {profile.name} only: give --round {profile.name} to use it"
                )
    return hints


def _loadgen_fit(results: list[ResultEvidence], real: list[Round]) -> tuple[list[Round], list[str]]:
    """(the rounds whose results ran every loadgen build read, by the round files'
    `loadgen_versions`; what is said of the builds). No build read says nothing."""
    versions = {r.version for r in results if r.version}
    clause = _loadgen_clause(results)
    if not versions:
        return [], clause
    fits = [r for r in real if all(r.ran_loadgen(v) for v in versions)]
    some = [r for r in real if any(r.ran_loadgen(v) for v in versions)]
    if fits:
        told = f"builds of {', '.join(r.name for r in fits)}"
    elif some:
        told = f"builds of no single round ({', '.join(r.name for r in some)})"
    else:
        told = "builds of no round this version knows"
    return fits, [f"{clause[0]}, {told}"] if clause else []


def _named(rounds: list[Round]) -> str:
    return ", ".join(r.name for r in rounds)


def _unknown_round(parts: list[str], real: list[Round]) -> Detection:
    """The usage error of a tree made for a round this version does not know."""
    return Detection(
        None,
        f"the tree fits no round this version knows ({_named(real)}): {'; '.join(parts)}. Give its round file "
        "with --round path/to/round.yaml (mlperf-check rounds lists the known rounds)",
    )


def decide(evidence: Evidence, rounds: list[Round]) -> Detection:
    """The round of a tree, weighing its seeds, its layout and its loadgen builds:

    - results carrying the seeds of several real rounds: a usage error naming them;
    - the round whose seeds the results carry, when the layout fits it (or says nothing);
    - when the layout does not fit the seeds' round, the one round that the layout and the
      loadgen builds both fit (the seeds are then wrong, and RNG001 says so); a usage error
      when they fit several or none;
    - seeds of no round this version knows, and none of a known round: a usage error;
    - no seeds read: the newest round the layout and the builds fit; a usage error when
      submitter folders are laid out for different rounds; with no evidence at all, the
      newest round.
    """
    real = [r for r in rounds if not r.is_profile]
    by_round: dict[str, list[ResultEvidence]] = {}
    unknown: list[ResultEvidence] = []
    unread: list[ResultEvidence] = []
    for result in evidence.results:
        carried = [r.name for r in real if carries_seeds_of(result, r)]
        if carried:
            by_round.setdefault(carried[-1], []).append(result)  # round files keep their seeds distinct
        elif result.seeds:
            unknown.append(result)
        else:
            unread.append(result)
    total = len(evidence.results)
    if len(by_round) > 1:
        named = [
            f"{name} ({_count(len(by_round[name]), 'result', 'results')}, e.g. {by_round[name][0].location})"
            for name in (r.name for r in real)
            if name in by_round
        ]
        return Detection(None, f"the tree mixes rounds: {', '.join(named)}; give --round")
    layout, said, mixed = _layout_fit(evidence, real)
    builds, loadgen = _loadgen_fit(evidence.results, real)
    others = ([f"the layout ({said}) fits {_named(layout)}"] if layout else []) + loadgen
    both = [r for r in layout if r in builds] or layout if layout else builds
    if by_round:
        ((name, matched),) = by_round.items()
        seeds = f"the seeds of {len(matched)} of {total} results are {name}'s"
        endpoints = sum(1 for r in matched if r.source == "endpoints")
        if endpoints:
            seeds += f" ({endpoints} of them in Endpoints config.yaml)"
        parts = [seeds] + _seedless(unknown, unread) + others
        if not layout or any(r.name == name for r in layout):
            chosen = next(r for r in real if r.name == name)
            return Detection(name, "detected: " + "; ".join(parts + _profile_hints(evidence.results, chosen, rounds)))
        if len(both) != 1:
            return Detection(
                None,
                "the evidence disagrees: " + "; ".join(parts) + f"; give --round ({' or '.join(r.name for r in both)})",
            )
        chosen = both[0]
        by = "the layout and the loadgen builds" if chosen in builds else "the layout"
        wrong = f"{seeds}, which the layout does not fit: RNG001 reports them"
        parts = others + [wrong] + _seedless(unknown, unread) + _profile_hints(evidence.results, chosen, rounds)
        return Detection(chosen.name, f"detected from {by}, over the seeds: " + "; ".join(parts))
    if unknown:
        return _unknown_round(
            [f"{len(unknown)} of {total} results carry seeds of no known round (e.g. {unknown[0].location})"] + others,
            real,
        )
    seeds = (
        f"no result carries a round's seeds: {', '.join(_seedless(unknown, unread))}" if total else "no results found"
    )
    if mixed:  # no seeds decide, and submitter folders are laid out for different rounds
        return Detection(None, f"the layout fits no single round ({said}); {seeds}; give --round")
    if both:
        chosen = both[-1]
        by = " and ".join(["the layout"] * bool(layout) + ["the loadgen builds"] * bool(builds and chosen in builds))
        newest = [f"{chosen.name}, the newest of {_named(both)}, is used"] if len(both) > 1 else []
        parts = others + newest + [seeds] + _profile_hints(evidence.results, chosen, rounds)
        return Detection(chosen.name, f"detected from {by}, weaker evidence than seeds: " + "; ".join(parts))
    return Detection(
        real[-1].name,
        "not detected: " + "; ".join([seeds, "the layout fits no round"] + loadgen + ["the newest round is used"]),
    )


# --- entry points ------------------------------------------------------------------------
def _rounds() -> list[Round]:
    return [load_round(name) for name in available_rounds()]


def detect(root: str) -> Detection:
    """The round of the tree at `root`, from its evidence. A tree with no results that is laid
    out as another format (rules/formats.yaml) has no round: the reason names the format and
    its tool, as `no results` does with --round."""
    rounds = _rounds()
    evidence = gather(root, [r for r in rounds if not r.is_profile])
    if not evidence.results and (other := other_format(root)) is not None:
        return Detection(None, other)
    return decide(evidence, rounds)


def detect_result(path: str) -> Detection:
    """The round of one result folder (for `reproduce` and `rerun`), from its own evidence."""
    rounds = _rounds()
    real = [r for r in rounds if not r.is_profile]
    found = next(filter(None, (locate_result(path, r.divisions, r.results_root) for r in real)), None)
    evidence = gather(found[0], real, only=frozenset({found[1]})) if found else Evidence()
    return decide(evidence, rounds)
