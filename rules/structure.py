"""STR: the tree's names and shape: names the round knows, required scenarios, systems and
results that match, code and calibration, and the hygiene of every file and folder."""

from __future__ import annotations

import re
from collections.abc import Iterator

from checker.facts import ScenarioRule
from checker.findings import Cause, Severity
from checker.formats import formats
from checker.model import Result, Submission, System, clashes, results_of, systems_of
from checker.model.discovery import result_holding
from checker.model.views import Categorised
from checker.registry import Problem, of_code, rule
from checker.rounds import Round
from checker.strays import AccuracyLogs, RunFolders, read_head, strays_in
from checker.suggest import closest, did_you_mean
from checker.tree import Kind, join
from checker.wording import counted


@rule("STR001", "unknown-benchmark", scope="result")
def unknown_benchmark(result: Result, round: Round) -> Iterator[Problem]:
    """The benchmark folder names a model of the round.

    Why: a result under a name the round does not know (say `llama2-70b-98`) cannot be held
    to any accuracy target or latency limit, so none of its numbers can be checked.
    Fix: rename the folder to the round's model name; in the open division, map your name to
    the round's model in `model_mapping.json`.
    Policy: submission_rules.adoc, "Directory structure" (<benchmark>); the round's model list.
    Example: `results/sys/llama2-70b-99.9/Offline` passes in v5.1; `results/sys/llama2-70b-98/Offline`
    fails, asking "did you mean `llama2-70b-99`?"; a name close to none lists the round's models.
    """
    if result.model is not None:
        return
    names = list(dict.fromkeys([*round.models, *round.model_mapping]))
    close = closest(result.benchmark, names)
    hint = did_you_mean(
        result.benchmark, list(round.models) if close is None else names, f"`mlperf-check rounds show {round.name}`"
    )
    where = "model_mapping.json or the round's models" if result.division == "open" else "the round's models"
    yield Problem(
        path=result.location.rsplit("/", 1)[0],
        message=f"benchmark `{result.benchmark}` is not in {where} ({round.name}); {hint}",
        observed=result.benchmark,
        expected=close,
        hint=hint if close else None,
    )


@rule("STR002", "unknown-scenario", scope="result")
def unknown_scenario(result: Result, round: Round) -> Iterator[Problem]:
    """The scenario folder names a scenario the round defines for the benchmark.

    Why: the scenario decides the metric, the latency limits and the run length; a result in
    a scenario the round does not know, or does not define for the benchmark on any system
    type (pointpainting Offline in v5.1), cannot be judged, and the round's results table
    shows no such row. The round's file says which spellings it read (`scenario_folders`):
    in v5.1 the name or its lower-case form (`offline`), from v6.0 any case.
    Fix: rename the folder to one of the benchmark's scenarios (Offline, Server, Interactive,
    SingleStream or MultiStream, as the round lists them for it), or drop the result.
    Policy: submission_rules.adoc, "Directory structure" (<scenario>); inference_rules.adoc,
    "Benchmarks" (the scenarios of each benchmark); the round checker's SCENARIO_MAPPING and
    scenario tables, and its results table's scenario filter.
    Example: `.../resnet/Offline` passes; `.../resnet/Batch` fails; in v5.1 `.../resnet/OFFLINE`
    and an open pointpainting `Offline` fail.
    """
    if result.scenario is None:
        spelled = result.scenario_folder.lower() in map(str.lower, round.scenarios)
        close = None if spelled else closest(result.scenario_folder, round.scenarios)
        yield Problem(
            path=result.location,
            message=f"scenario folder `{result.scenario_folder}` is not one of {', '.join(round.scenarios)}"
            + (f" as {round.name} spells them" if spelled else "")
            + (f"; did you mean `{close}`?" if close else "")
            + _laid_out_as(result),
            observed=result.scenario_folder,
            expected=list(round.scenarios),
        )
        return
    defined = round.model_scenarios(result.model) if result.model else None
    if defined is not None and result.scenario not in defined:
        yield Problem(
            path=result.location,
            message=f"{result.model} has no {result.scenario} scenario in {round.name} "
            f"(it has {', '.join(s for s in round.scenarios if s in defined)}); this is no result of the round",
            observed=result.scenario,
            expected=[s for s in round.scenarios if s in defined],
        )


def _laid_out_as(result: Result) -> str:
    """What a folder that is no scenario says when a file in it is laid out as another format's
    (rules/formats.yaml: an Endpoints v1.0 point folder `r1/` holding point.yaml), else ""."""
    parts = [*result.tree.root.split("/"), *result.location.split("/")]
    for entry in result.tree.listdir(result.location):
        name = entry.rel.rpartition("/")[2]
        for other in formats():
            if other.matches([*parts, name]) is not None:
                tool = other.checker.format(root="<its folder>")
                return f"; it holds {name}, as {other.name} does ({other.layout}), which `{tool}` checks"
    return ""


def _gated(division: str, round: Round) -> bool:
    return division in round.compliance_divisions  # closed and network: the full rules


def _scenarios_by_model(system: System) -> dict[str, set[str]]:
    if "scenarios_by_model" not in system.cache:
        present: dict[str, set[str]] = {}
        for result in results_of(system):
            if result.model is not None and result.scenario is not None:
                present.setdefault(result.model, set()).add(result.scenario)
        system.cache["scenarios_by_model"] = present
    found: dict[str, set[str]] = system.cache["scenarios_by_model"]
    return found


@rule("STR003", "required-scenarios")
def required_scenarios(result: Categorised, round: Round) -> Iterator[Problem]:
    """Each benchmark of a closed or network system has the scenarios its system type requires, and no other.

    Why: a benchmark's result set is only comparable when every required scenario is
    there; where a model allows either of two (Server or Interactive), one is enough. A
    "datacenter,edge" system needs both sets. Every result of the incomplete benchmark is
    reported, since none of them can be published alone. A scenario the round neither
    requires nor allows fails too: that result in v5.1, the whole benchmark from v6.0 (the
    round file's `unknown_scenarios`).
    A system type the round does not know (SYS008) leaves the scenarios unknown: the finding
    then follows from SYS008 and has no fix of its own.
    Fix: add the missing scenario's results, or drop the benchmark.
    Policy: inference_rules.adoc, "Benchmarks" (required scenarios per category); the
    official checker's required-scenarios tables.
    Example: a datacenter llama3.1-8b with Offline and Interactive passes; with Offline only it fails.
    """
    system = result.system
    if not _gated(result.division, round) or not system.system_type or result.scenario is None:
        return
    scenarios = _scenarios_by_model(system).get(result.model, set())
    folder = result.location.rsplit("/", 1)[0]
    rules = round.scenario_rules(result.model, system.system_type)
    known = {value.replace(" ", "").lower() for value in round.system_types.values}
    if rules is None and system.system_type.lower() not in known:
        yield Problem(  # SYS008 says what the type should be; this result set waits for it
            path=folder,
            observed=system.system_type,
            message=f"the scenarios {result.model} needs cannot be known: system type `{system.system_type}` "
            f"is not a system type of {round.name}",
            cause=Cause("SYS008", system.json_path, "/system_type"),
        )
        return
    if rules is None:
        yield Problem(
            path=folder,
            observed=system.system_type,
            message=f"{result.model} is not a {system.system_type} benchmark in {round.name}",
        )
        return
    offered = rules.offered
    unknown = sorted(s for s in scenarios if s not in offered)
    whole = round.run.unknown_scenarios == "benchmark"
    if unknown and (whole or result.scenario in unknown):
        unnamed = _unnamed_scenario(result, round) if whole else None  # no scenario of the model: STR002's
        yield Problem(
            cause=Cause("STR002", unnamed) if unnamed else None,
            path=folder if whole else result.location,
            observed=unknown,
            expected=sorted(offered),
            message=f"{result.model} on system type {system.system_type} offers no {', '.join(unknown)} "
            f"scenario ({round.name}: {', '.join(sorted(offered))})"
            + ("; the round's checker fails the whole benchmark" if whole else ""),
        )
    missing = _missing_scenarios(rules, scenarios)
    if missing:
        unnamed = _unnamed_scenario(result, round)  # a misnamed scenario folder, STR002's finding
        yield Problem(
            path=folder,
            observed=sorted(scenarios),
            expected=missing,
            message=f"{result.model} on system type {system.system_type} lacks {', '.join(missing)} "
            f"(has {', '.join(sorted(scenarios))})"
            + (f", while {unnamed.rpartition('/')[2]} beside them is no scenario of it" if unnamed else ""),
            cause=Cause("STR002", unnamed) if unnamed else None,
        )
        return
    policy = round.models[result.model].policy
    stricter = policy.scenarios.get(system.system_type) if policy else None
    missing = _missing_scenarios(stricter, scenarios) if stricter else []
    if policy and missing:
        yield Problem(
            path=folder,
            observed=sorted(scenarios),
            expected=missing,
            severity=Severity.WARNING,
            message=f"{result.model} on system type {system.system_type} lacks {', '.join(missing)}, which "
            f"the written policy requires ({policy.source}); the round's checker required "
            f"less, and it has {', '.join(sorted(scenarios))} ({round.name})",
        )


def _unnamed_scenario(result: Categorised, round: Round) -> str | None:
    """The first scenario folder beside the result whose name the round does not know, or does
    not define for the model (STR002's finding), or None."""
    for other in results_of(result.system):
        if other.benchmark != result.benchmark:
            continue
        defined = round.model_scenarios(other.model) if other.model else None
        if other.scenario is None or (defined is not None and other.scenario not in defined):
            return other.location
    return None


def _missing_scenarios(rules: ScenarioRule, scenarios: set[str]) -> list[str]:
    missing = [s for s in rules.required if s not in scenarios]
    either = rules.one_of
    if either and not scenarios.intersection(either):
        missing.append(" or ".join(either))
    return missing


@rule("STR004", "system-without-results", scope="submission", severity=Severity.WARNING)
def system_without_results(submission: Submission, round: Round) -> Iterator[Problem]:
    """Every system description has results.

    Why: a description without results is left over from another submission or names a
    system whose results were forgotten.
    A description that looks like the one a system with results lacks (a renamed system, or
    mlperf-sysinfo's systems/system_desc.json beside one system without a description) is
    not reported here: that system's FIL001 names it and says to rename it.
    A submitter folder without the results folder (a misspelled `result/`) is one warning on
    it, not one on each description.
    Fix: add the system's results, or delete systems/<system>.json.
    Policy: the official checker's all-systems-have-results check (old checker, dropped in the package).
    Example: systems/spare.json with no results/spare/ gets a warning.
    """
    results_root = join(submission.rel, round.results_root)
    folders = submission.tree.subdirs(submission.rel)
    if "/" not in round.results_root and round.results_root not in folders:
        close = closest(round.results_root, [f for f in folders if f != "systems"])
        described = len(submission.described_systems)
        yield Problem(
            path=results_root,
            concerns=(),
            expected=results_root,
            message=f"{submission.rel} has no {round.results_root}/ folder, so "
            + (
                f"none of its {counted(described, 'system description')} has results"
                if described
                else "it holds no result"
            )
            + (f"; did you mean `{close}/`?" if close else ""),
            hint=f"rename {close}/ to {round.results_root}/" if close else None,
        )
        return
    renamed = {spare for spares in submission.renamed.values() for spare in spares}  # FIL001 names each
    for system in systems_of(submission):
        if system.name not in submission.systems_with_results and system.name not in renamed:
            yield Problem(
                path=system.json_path, message=f"system {system.name} has no results under {results_root}", concerns=()
            )


@rule("STR005", "code-for-benchmark")
def code_for_benchmark(result: Result, round: Round) -> Iterator[Problem]:
    """The implementation folder the round's checker requires is there (v5.1 `code/<benchmark>`, from v6.0 `src/`).

    Why: others must be able to see and rerun the implementation that produced a result.
    Every result that depends on the folder is reported, since none can be reproduced
    without it. In v5.1 a file `code/<benchmark>` may name the folder that holds the code.
    Fix: add the implementation (or a README pointing at a public commit) under the folder named.
    Policy: submission_rules.adoc, "Source code requirements for replication"; the round
    checker's code-folder check (v5.1 check_measurement_dir; v6.x directory_exist_check).
    Example: v5.1 results for llama2-70b-99 without code/llama2-70b-99 fail; v6.0 results
    pass with any src/ folder.
    """
    spec = round.implementation
    if spec is None:
        return
    folder = join(result.submission.rel, spec.required.format(benchmark=result.benchmark))
    if result.reader.is_dir(folder):
        return
    if result.reader.exists(folder) and spec.redirect_file:
        text = result.reader.text(folder, what="code redirect file")
        target = join(folder.rsplit("/", 1)[0], text.strip()) if text and text.strip() else None
        if target and result.reader.is_dir(target):
            return
        yield Problem(
            path=folder,
            observed=(text or "").strip()[:200],
            message=f"{folder} is a file that should name the folder holding the code, and "
            f"{target or 'its content'} is not a folder",
        )
        return
    yield Problem(
        path=folder, expected=folder, message=f"no implementation folder {folder} for {result.benchmark} ({round.name})"
    )


def _variant(name: str, pattern: str | None) -> str:
    return re.sub(pattern, "", name) if pattern else name


@rule("STR010", "implementation-folder-per-benchmark", scope="submission", severity=Severity.WARNING)
def implementation_folder_per_benchmark(submission: Submission, round: Round) -> Iterator[Problem]:
    """Each benchmark with results has the implementation folder the written rules ask for, where the round's checker asked less.

    Why: from v6.0 the rules ask for src/<benchmark>/<implementation>, but the round's checker
    only requires src/, and it accepted results without a per-benchmark folder; so this warns,
    once per benchmark. A folder for the other accuracy tier of the same model, or for the
    model's official name, serves it (src/llama2-70b-99 for llama2-70b-99.9), and so does a
    folder spelled as the round accepts a results folder's name (src/llama3_1-8b for
    llama3.1-8b).
    Fix: put each benchmark's code under src/<benchmark>, or a README there that points at it.
    Policy: submission_rules.adoc, "Directory structure" (src/<benchmark_name per reference>);
    the round checker's directory_exist_check (src/ only).
    Example: results for whisper with only src/SE455i_V3 get a warning; src/whisper passes.
    """
    spec = round.implementation
    if spec is None or not spec.policy:
        return
    policy, reader, suffix = spec.policy, submission.reader, spec.variant_suffix
    base = join(submission.rel, policy.split("{")[0].rstrip("/"))
    if not reader.is_dir(base):
        return  # STR005: the folder the round requires is missing
    folders_there = reader.subdirs(base)
    present = {_variant(name, suffix) for name in folders_there} | set(folders_there)
    # a folder spelled as the results folder may spell the benchmark (round.canonical_model,
    # the one spelling rule of every folder that names a benchmark: src/llama3_1-8b serves
    # llama3.1-8b as results/<system>/llama3_1-8b does)
    spelled = {model for name in folders_there if (model := submission.benchmark_named(name))}
    present |= spelled | {_variant(model, suffix) for model in spelled}
    benchmarks: dict[str, str | None] = {}
    folders: dict[str, list[str]] = {}  # the benchmark's folders of results, one per system
    for system in systems_of(submission):
        for result in results_of(system):
            benchmarks.setdefault(result.benchmark, result.model)
            folders.setdefault(result.benchmark, []).append(result.location.rsplit("/", 1)[0])
    for benchmark, model in sorted(benchmarks.items()):
        names = {benchmark, _variant(benchmark, suffix)} | ({model, _variant(model, suffix)} if model else set())
        if not names & present:
            folder = join(submission.rel, policy.format(benchmark=benchmark))
            yield Problem(
                path=folder,
                expected=folder,
                message=f"no {folder} for the results of {benchmark}; the round's checker requires only "
                f"{spec.required}/, the written rules ask for one folder per benchmark",
                concerns=tuple(dict.fromkeys(folders[benchmark])),
            )


@rule("STR013", "benchmark-folder-spelled-otherwise", scope="result")
def benchmark_folder_spelled_otherwise(result: Result, round: Round) -> Iterator[Problem]:
    """A result's compliance and measurements folders, where the round keeps them apart from results/, spell its benchmark as its results folder does.

    Why: v5.1 keeps a result's compliance runs and measurements in compliance/ and
    measurements/, at <system>/<benchmark>/<scenario>, and the round's checker fills those
    paths with the results folder's name. A folder there that names the same benchmark
    otherwise (`llama3_1-8b` for `llama3.1-8b`, which the round maps to one model, or
    another case) is one the round's checker never finds: the result's compliance runs and
    measurements are missing to it, and each finding on them follows from this one. The
    spelling rule is the one that accepts the results folder's name (src/ folders too).
    Fix: rename the folder to the results folder's spelling.
    Policy: submission_rules.adoc, "Directory structure" (compliance/ and measurements/
    mirror results/); the round checker's path templates (one <model> for every tree).
    Example: results/sys/llama3.1-8b/Offline with measurements/sys/llama3_1-8b/Offline
    fails, "rename measurements/sys/llama3_1-8b to measurements/sys/llama3.1-8b"; with
    measurements/sys/llama3.1-8b it passes.
    """
    submission, results_root = result.submission, round.results_root
    for tree in round.result_trees:
        if tree == results_root:
            continue
        system = join(submission.rel, tree, result.system.name)
        wanted = join(system, result.benchmark)
        if submission.reader.is_dir(wanted):
            continue
        for name in submission.reader.subdirs(system):
            if submission.spells_benchmark(name, result.benchmark):
                folder = join(system, name)
                yield Problem(
                    path=folder,
                    message=f"`{name}` spells {result.benchmark} otherwise than its results folder "
                    f"({result.location.rsplit('/', 1)[0]}): the round's checker looks for {wanted}, so the "
                    f"{tree} of its results are not found",
                    observed=name,
                    expected=wanted,
                    hint=f"rename {folder} to {wanted}",
                )
                break


@rule("STR006", "calibration-document", scope="submission")
def calibration_document(submission: Submission, round: Round) -> Iterator[Problem]:
    """A closed or network submission documents its calibration (documentation/calibration.md).

    Why: quantised closed results must say how they were calibrated, on the allowed
    calibration set.
    Fix: write documentation/calibration.md (or calibration.md at the submitter root;
    `mlperf-check rounds show ROUND` lists the places the round accepts).
    Policy: submission_rules.adoc, "Directory structure" (documentation/calibration);
    inference_rules.adoc, "Weight Definition and Quantization".
    Example: closed/Acme/documentation/calibration.md passes; none fails.
    """
    if not _gated(submission.division, round):
        return
    candidates = submission.calibration_places
    if not any(submission.reader.exists(c) for c in candidates):
        yield Problem(path=candidates[0], expected=candidates[0], message="no calibration document")


def _concerning(submission: Submission, rel: str) -> tuple[str, ...]:
    """What a finding on a file or an empty folder concerns: the one result it is part of
    (through v5.1's compliance/ and measurements/ too), or none."""
    result = result_holding(submission, rel)
    return (result,) if result else ()


def _hygiene(submission: Submission, round: Round) -> list[tuple[str, Problem]]:
    """One walk of the submission: empty folders, oversized files, links leaving the tree or
    pointing nowhere, folders whose names differ only in case, and files that look like
    mistakes (checker/strays.py; nothing inside a stray folder is reported again). Links
    inside results/ and systems/ are reported when read (FIL006)."""
    if "hygiene" in submission.cache:
        cached: list[tuple[str, Problem]] = submission.cache["hygiene"]
        return cached
    found: list[tuple[str, Problem]] = list(_submitter_clash(submission))
    limit = round.layout.max_file_bytes
    read_by_results = (join(submission.rel, round.results_root) + "/", join(submission.rel, "systems") + "/")
    runs, astray = RunFolders.of(round.layout.performance), list[str]()
    logs, head = AccuracyLogs.of(round), read_head(submission.tree)
    for folder, items in submission.walk():
        if astray and any(folder.startswith(top + "/") or folder == top for top in astray):
            continue
        for kind, stray in strays_in(folder, items, runs, logs, head):
            astray += [stray.rel] if kind == "dir" else []
            problem = Problem(
                path=stray.rel,
                message=stray.message,
                observed=stray.rel.rpartition("/")[2],
                expected=stray.copy_of,
                hint=stray.fix,
                concerns=_concerning(submission, stray.rel),
            )
            found.append(("STR012", problem))
        if not items and folder != submission.rel:
            found.append(
                ("STR007", Problem(path=folder, message="empty folder", concerns=_concerning(submission, folder)))
            )
        found += [("STR011", problem) for problem in _clashes(submission, folder, items)]
        found += _large_or_linked(submission, folder, items, limit, read_by_results)
    submission.cache["hygiene"] = found
    return found


def _large_or_linked(
    submission: Submission,
    folder: str,
    items: list[tuple[str, str, int, Kind | None]],
    limit: int | None,
    read_by_results: tuple[str, ...],
) -> Iterator[tuple[str, Problem]]:
    """STR008 for each file of `folder` over the round's size limit, STR009 for each link of
    it that points nowhere or out of the tree (links under results/ and systems/ are FIL006
    where they are read)."""
    for name, kind, size, target in items:
        if kind == "file":
            if limit and size > limit:
                rel = join(folder, name)
                yield (
                    "STR008",
                    Problem(
                        path=rel,
                        observed=size,
                        expected=limit,
                        message=f"{size / 2**20:.1f} MiB, over the {limit / 2**20:g} MiB limit",
                        # in a result, that result; elsewhere the upload of the whole submission
                        concerns=_concerning(submission, rel) or None,
                    ),
                )
        elif kind == "link" and target is not None:
            rel = join(folder, name)
            if (rel + "/").startswith(read_by_results):
                continue
            if target is Kind.BROKEN:
                yield ("STR009", Problem(path=rel, message="broken symlink"))
            elif target is Kind.OUTSIDE:
                yield ("STR009", Problem(path=rel, message="symlink leaves the checked folder"))


def _clashes(submission: Submission, folder: str, items: list[tuple[str, str, int, Kind | None]]) -> Iterator[Problem]:
    """STR011 for the folders of `folder` whose names differ only in case, where the layout
    names what is in it (model.clashes decides, as discovery does)."""
    names = [name for name, kind, _, _ in items if kind == "dir" or kind == "link"]
    if len(names) < 2 or len({name.casefold() for name in names}) == len(names):
        return
    level = submission.level_of(folder)
    if level is None:
        return
    named = submission.names(level)
    counterpart = submission.results_folder_of(folder)
    if level != "fixed" and counterpart != folder:  # v5.1's compliance/, measurements/: as results/ has it
        named = set(submission.tree.subdirs(counterpart) if counterpart else ()).__contains__
    whose = "its system description has" if level == "system" else "the round gives"
    for clash in clashes(names, named):
        rel = join(folder, clash.name)
        if clash.canonical is not None:
            yield Problem(
                path=rel,
                observed=clash.name,
                expected=clash.canonical,
                concerns=(),
                message=f"`{clash.name}` differs only in case from `{clash.canonical}` beside it, the name "
                f"{whose}; `{clash.name}` is not read"
                + (
                    ", and it is no result"
                    if level != "fixed" and (folder + "/").startswith(_results(submission) + "/")
                    else ""
                ),
            )
        elif level != "fixed":
            others = sorted(n for n in names if n.casefold() == clash.name.casefold() and n != clash.name)
            yield Problem(
                path=rel,
                observed=clash.name,
                concerns=tuple(filter(None, [submission.results_folder_of(rel)])),
                message=f"{level} folder `{clash.name}` differs only in case from `{'`, `'.join(others)}`, and "
                f"the round names neither: on a case-insensitive file system they are one folder, so none "
                f"of their results can stand",
            )


def _results(submission: Submission) -> str:
    return join(submission.rel, submission.round.results_root)


def _submitter_clash(submission: Submission) -> Iterator[tuple[str, Problem]]:
    """STR011 for a submitter folder whose name differs only in case from another in its
    division: the round names no submitter, so none of them can stand."""
    others = [
        name
        for name in submission.tree.subdirs(submission.division)
        if name != submission.submitter and name.casefold() == submission.submitter.casefold()
    ]
    if others:
        yield (
            "STR011",
            Problem(
                path=submission.rel,
                observed=submission.submitter,
                concerns=(submission.rel,),
                message=f"submitter folder `{submission.submitter}` differs only in case from "
                f"`{'`, `'.join(sorted(others))}`: on a case-insensitive file system they are one folder, "
                f"so none of their results can stand",
            ),
        )


@rule("STR007", "empty-folder", scope="submission", severity=Severity.WARNING)
def empty_folder(submission: Submission, round: Round) -> Iterator[Problem]:
    """No folder of the submission is empty.

    Why: empty folders are lost by git and usually mark a result or document that was never copied.
    Fix: copy what belongs there, or delete the folder.
    Policy: the official checker's empty-directory check (old checker, dropped in the package).
    Example: an empty results/sys/resnet/Offline/accuracy gets a warning.
    """
    yield from of_code("STR007", _hygiene(submission, round))


@rule("STR008", "file-over-size-limit", scope="submission")
def file_too_large(submission: Submission, round: Round) -> Iterator[Problem]:
    """No file is larger than the round's limit (50 MB).

    Why: the submission repository rejects large files; logs must be truncated and models
    linked, not committed.
    Fix: `mlperf-check prepare SRC -o DEST` writes the submission with its accuracy logs truncated
    (as the round's truncate_accuracy_log.py does); move any other large file out and link to it.
    Policy: the official checker's FILE_SIZE_LIMIT_MB (50), defined but unused by its package.
    Example: a 60 MB mlperf_log_accuracy.json fails.
    """
    yield from of_code("STR008", _hygiene(submission, round))


@rule("STR009", "bad-symlink", scope="submission")
def bad_symlink(submission: Submission, round: Round) -> Iterator[Problem]:
    """No symlink in code/documentation points nowhere or outside the submission.

    Why: links do not survive the upload; a link out of the tree shows files the reviewers
    will never get. (Links under results/ and systems/ are reported where they are read, FIL006.)
    Fix: replace the link with the file it points at.
    Policy: the official checker's broken-symlink check (old checker, dropped in the package).
    Example: code/resnet/model.onnx -> /home/me/model.onnx fails.
    """
    yield from of_code("STR009", _hygiene(submission, round))


@rule("STR011", "folder-names-differ-only-in-case", scope="submission")
def folder_names_differ_only_in_case(submission: Submission, round: Round) -> Iterator[Problem]:
    """No two folders beside each other have names that differ only in case.

    Why: on a case-insensitive file system (macOS, Windows) `Offline/` and `offline/` are one
    folder, so a checkout keeps one of them, and which log a reviewer sees depends on the
    order of the checkout; the round's results table keeps one row for both. Of the two, the
    one spelled as the round names it (its division, scenario and model names, the fixed
    names of its layout such as performance/run_1, accuracy and TEST01, a system's
    description file) is the result and is read; the other is reported and is not read. Where
    the round names neither (two submitter or system folders), every result under them fails.
    A division folder spelled otherwise (`Closed/`) is not checked, as the round's checker
    does not enter it.
    Fix: merge the two folders into the one the round names, or rename one of them.
    Policy: submission_rules.adoc, "Directory structure" (the names of each level); the round
    checker's VALID_DIVISIONS and scenario names.
    Example: `results/sys/resnet/Offline` alone passes; `Offline` and `offline` side by side
    give one result (Offline) and this error on `offline`.
    """
    yield from of_code("STR011", _hygiene(submission, round))


@rule("STR012", "stray-file", scope="submission", severity=Severity.WARNING)
def stray_file(submission: Submission, round: Round) -> Iterator[Problem]:
    """No file or folder looks like a mistake: an OS or editor artefact, a backup or copy, a second run folder.

    Why: a `.DS_Store`, a `mlperf_log_detail.txt.bak`, an `accuracy/mlperf_log_accuracy (1).json`
    or a second `performance/run_2/` is left over from copying the submission together; it is
    published with it (an untruncated copy of an accuracy log can be gigabytes), and a second
    run folder leaves the reviewer to guess which run is the result. Other files the layout
    does not name (README.md, summary.html, calibration documents) are not reported: the
    published results hold them.
    Fix: delete the file or folder (or put the copy in place of the file it copies);
    `mlperf-check prepare` leaves each out of the upload and lists it.
    Policy: submission_rules.adoc, "Directory structure" (the files of each folder);
    performance/run_1 is the round's one performance run (the layout's `performance`).
    Example: `results/sys/resnet/Offline/performance/run_1/mlperf_log_detail.txt.bak` gets a
    warning; `results/sys/resnet/Offline/README.md` passes.
    """
    yield from of_code("STR012", _hygiene(submission, round))
