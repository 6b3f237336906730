"""Failing results removed or moved to open, and results inferred, as the round's
preprocess_submission.py does (`prepare.failed`, `prepare.infer`).

A result fails when this tool's check finds it invalid. What failed decides what happens,
as the round's preprocess decides it from its accuracy, performance, compliance and power
checks: each cause is put in one of those parts by the file it is about (a PWR, ACC or CMP
code by its family). A result invalid only because of its system description or its
submitter folder is kept: removing results does not mend those. Every folder name, which
scenarios go alone, and which folders a moved or inferred result takes are the round's facts.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

from ..facts import Prepare
from ..findings import Finding, Report, ResultRecord
from ..model import discover, results_of, systems_of
from ..rounds import Round
from ..tree import Tree, join
from .prepare_tree import Change, Stage

FAMILIES = {"PWR": "power", "ACC": "accuracy", "CMP": "compliance"}
SCENARIO = "\0"  # stands for the scenario folder in a layout path, to cut it off


def preparation(round: Round) -> Prepare:
    """The round's `prepare:` facts (prepare refuses a round without them before it starts)."""
    if round.prepare is None:
        raise ValueError(f"round {round.name} says nothing of what its tools do before upload (`prepare:`)")
    return round.prepare


def folder(round: Round, key: str, division: str, submitter: str, **parts: str) -> str | None:
    """A layout folder (or file) of the round, from the division root."""
    inner = round.layout_path(key, **parts)
    return join(division, submitter, inner) if inner is not None else None


def benchmark_folder(round: Round, key: str, division: str, submitter: str, system: str, benchmark: str) -> str | None:
    """The folder of a whole benchmark under a layout key: its scenario folder's parent (the
    code folder as it is)."""
    path = folder(round, key, division, submitter, system=system, benchmark=benchmark, scenario=SCENARIO)
    if path is None or key == "code":
        return path
    return path.rpartition("/")[0] if path.endswith("/" + SCENARIO) else None


@dataclass(frozen=True)
class Where:
    """A result's place: division, submitter, system, benchmark and scenario folders."""

    division: str
    submitter: str
    system: str
    benchmark: str
    scenario: str

    @classmethod
    def of(cls, location: str) -> Where:
        division, submitter, _, system, benchmark, scenario = location.split("/")
        return cls(division, submitter, system, benchmark, scenario)

    @property
    def parts(self) -> dict[str, str]:
        return {"system": self.system, "benchmark": self.benchmark, "scenario": self.scenario}

    def folder(self, round: Round, key: str) -> str | None:
        return folder(round, key, self.division, self.submitter, **self.parts)

    def folders(self, round: Round, keys: Iterable[str]) -> list[str]:
        """The distinct folders of the result under these layout keys."""
        return list(dict.fromkeys(p for key in keys if (p := self.folder(round, key))))

    def benchmark_folders(self, round: Round, keys: Iterable[str], division: str | None = None) -> list[str]:
        found = (
            benchmark_folder(round, key, division or self.division, self.submitter, self.system, self.benchmark)
            for key in keys
        )
        return list(dict.fromkeys(p for p in found if p))


def _under(path: str, folder: str | None) -> bool:
    return folder is not None and (path == folder or path.startswith(folder + "/"))


def part_of(finding: Finding, where: Where, round: Round) -> str:
    """Which part of the result a cause is about: power, accuracy, compliance, performance,
    or other (the result folder itself, its measurements, a missing scenario)."""
    family = FAMILIES.get(finding.code[:3])
    if family:
        return family
    path = finding.path
    performance = where.folder(round, "performance")
    samples = join(performance, round.layout.files.power_samples) if performance else None
    if any(_under(path, where.folder(round, key)) for key in ("power", "ranging")) or path == samples:
        return "power"
    if _under(path, where.folder(round, "accuracy")):
        return "accuracy"
    compliance = where.folder(round, "compliance")
    if compliance is not None and _under(path, compliance) and path[len(compliance) + 1 :].startswith("TEST"):
        return "compliance"
    if performance and _under(path, performance.rpartition("/")[0]):
        return "performance"
    return "other"


@dataclass
class Failing:
    """A result this tool's check finds invalid because of itself: `causes` are the errors
    on the result, `parts` what they are about."""

    record: ResultRecord
    causes: list[Finding]
    parts: set[str] = field(default_factory=set)

    @property
    def where(self) -> Where:
        return Where.of(self.record.location)

    @property
    def reason(self) -> str:
        return because(self.causes)


def because(causes: list[Finding], most: int = 3) -> str:
    """`FIL001 performance detail log is missing; ACC002 ...` (the first few, then how many more)."""
    shown = "; ".join(f"{f.code} {f.message}" for f in causes[:most])
    return shown + (f"; and {len(causes) - most} more" if len(causes) > most else "")


@dataclass
class Verdicts:
    """The results of one check, as the round's preprocess sees them. `failing`: a file of the
    result itself failed (or could not be copied); `waiting`: only the set of the benchmark's
    results fails (a required scenario missing), which inference may mend, so they go only
    once nothing is left to infer; `sound`: the results inference may copy (valid, or waiting)."""

    failing: list[Failing] = field(default_factory=list)
    waiting: list[Failing] = field(default_factory=list)
    sound: set[str] = field(default_factory=set)


def sort_results(report: Report, round: Round, broken: dict[str, Finding]) -> Verdicts:
    """Sort the results of a check (and those not copied whole, in `broken`) into Verdicts."""
    keys = preparation(round).failed.result_folders
    verdicts = Verdicts()
    for record in report.results:
        causes = report.causes(record)
        own = [f for f in causes if f.location == record.location]
        if record.location in broken:  # what was not copied fails it; what the check says follows from that
            own = [broken[record.location]]
        where = Where.of(record.location)
        folders = where.folders(round, keys)
        local = [f for f in own if any(_under(f.path, path) for path in folders)]
        if local or record.location in broken:
            verdicts.failing.append(Failing(record, own, {part_of(f, where, round) for f in own}))
        elif own:
            verdicts.waiting.append(Failing(record, own, {part_of(f, where, round) for f in own}))
        if not local and len(own) == len(causes) and record.location not in broken:
            verdicts.sound.add(record.location)
    return verdicts


class Failed:
    """What the round's preprocess does with failing results, on the stage."""

    def __init__(self, stage: Stage, round: Round, move: bool) -> None:
        self.stage, self.round, self.move = stage, round, move
        self.facts = preparation(round).failed
        self.changes: list[Change] = []

    def apply(self, report: Report, found: list[Failing]) -> list[Change]:
        """Remove, move or strip the power of each failing result; the changes."""
        self.changes = []
        benchmarks: dict[tuple[str, str, str, str], list[ResultRecord]] = defaultdict(list)
        for record in report.results:
            where = Where.of(record.location)
            benchmarks[(where.division, where.submitter, where.system, where.benchmark)].append(record)
        groups: dict[tuple[str, str, str, str], list[Failing]] = defaultdict(list)
        for item in found:
            where = item.where
            groups[(where.division, where.submitter, where.system, where.benchmark)].append(item)
        for key, items in sorted(groups.items()):
            self._benchmark(items, benchmarks[key])
        return self.changes

    def _benchmark(self, items: list[Failing], records: list[ResultRecord]) -> None:
        rest = []
        for item in items:
            if item.parts == {"power"}:
                self._strip_power(item)
            elif self._alone(item):
                self._remove(item.where, item.record.location, item.reason, item.causes)
            else:
                rest.append(item)
        if not rest:
            return
        division = rest[0].where.division
        if division not in self.facts.benchmark_in:
            for item in rest:
                self._remove(item.where, item.record.location, item.reason, item.causes)
        elif self.move:
            self._move_benchmark(rest, records)
        else:
            self._remove_benchmark(rest, records)

    def _alone(self, item: Failing) -> bool:
        """Whether the round's preprocess removes this result by itself."""
        for case in self.facts.alone:
            if case.divisions is not None and item.where.division not in case.divisions:
                continue
            if case.scenarios is not None and item.record.scenario not in case.scenarios:
                continue
            if case.failed is not None and not item.parts & set(case.failed):
                continue
            return True
        return False

    def _remove(self, where: Where, location: str, reason: str, causes: list[Finding]) -> None:
        removed = [p for p in where.folders(self.round, self.facts.result_folders) if self.stage.remove(p)]
        if removed:
            self.changes.append(Change("removed", location, reason, codes=_codes(causes)))

    def _strip_power(self, item: Failing) -> None:
        where = item.where
        paths = where.folders(self.round, self.facts.power_folders)
        performance = where.folder(self.round, "performance")
        if performance:
            paths.append(join(performance, self.round.layout.files.power_samples))
        if any([self.stage.remove(p) for p in paths]):
            self.changes.append(
                Change(
                    "power removed",
                    item.record.location,
                    f"only its power measurement fails: {item.reason}",
                    codes=_codes(item.causes),
                )
            )

    def _remove_benchmark(self, rest: list[Failing], records: list[ResultRecord]) -> None:
        """Every result of the benchmark goes: the others depend on the failing one."""
        first = rest[0]
        for record in records:
            own = next((item for item in rest if item.record.location == record.location), None)
            reason = own.reason if own else f"its benchmark goes with {first.record.location}: {first.reason}"
            self._remove(Where.of(record.location), record.location, reason, own.causes if own else first.causes)
        where = first.where
        for path in where.benchmark_folders(self.round, self.facts.result_folders):
            self.stage.remove(path)

    def _move_benchmark(self, rest: list[Failing], records: list[ResultRecord]) -> None:
        """The benchmark moves to open; a result whose performance failed is removed first."""
        first = rest[0]
        for item in rest:
            if "performance" in item.parts:
                self._remove(item.where, item.record.location, item.reason, item.causes)
        target = self.facts.move_to
        where = first.where
        folders = where.benchmark_folders(self.round, self.facts.moved_folders)
        held = [
            target + p[len(where.division) :]
            for p in folders[:1]
            if self.stage.exists(target + p[len(where.division) :])
        ]
        for source in [] if held else folders:
            moved = target + source[len(where.division) :]
            if self.stage.is_dir(source) and not self.stage.exists(moved):
                self.stage.copy(source, moved)
        if not held:
            self._move_code(where, target)
            self._move_description(where, target)
        for record in records:
            if not self.stage.exists(record.location):
                continue  # removed above
            own = next((item for item in rest if item.record.location == record.location), None)
            reason = own.reason if own else f"its benchmark moves with {first.record.location}: {first.reason}"
            causes = own.causes if own else first.causes
            if held:
                self.changes.append(
                    Change(
                        "removed", record.location, f"{reason}; {target} already holds {held[0]}", codes=_codes(causes)
                    )
                )
            else:
                moved = target + record.location[len(where.division) :]
                self.changes.append(Change("moved", moved, reason, source=record.location, codes=_codes(causes)))
        for path in where.benchmark_folders(self.round, self.facts.result_folders):
            self.stage.remove(path)

    def _move_code(self, where: Where, target: str) -> None:
        """The benchmark's code folder goes along; where it has none, the implementation folder
        the round requires of a submitter does, when the target has none."""
        code = benchmark_folder(self.round, "code", where.division, where.submitter, where.system, where.benchmark)
        required = self.round.implementation.required if self.round.implementation else None
        candidates = [code] + (
            [join(where.division, where.submitter, required.format(benchmark=where.benchmark))] if required else []
        )
        for source in candidates:
            if source and self.stage.exists(source):
                moved = target + source[len(where.division) :]
                if not self.stage.exists(moved):
                    self._copy_any(source, moved)
                return

    def _copy_any(self, source: str, target: str) -> None:
        if self.stage.is_dir(source):
            self.stage.copy(source, target)
        else:
            parent = target.rpartition("/")[0]
            self.stage.mkdir(parent, self.stage.modes.get(source.rpartition("/")[0], 0o755))
            self.stage.write(target, [self.stage.read(source)], self.stage.file_mode(source))

    def _move_description(self, where: Where, target: str) -> None:
        """The system description, copied with its division field naming the new division."""
        source = folder(self.round, "system_json", where.division, where.submitter, system=where.system)
        moved = folder(self.round, "system_json", target, where.submitter, system=where.system)
        if not source or not moved or not self.stage.exists(source) or self.stage.exists(moved):
            return
        text = self.stage.read(source)
        try:
            data = json.loads(text)
        except ValueError:
            data = None
        parent = moved.rpartition("/")[0]
        self.stage.mkdir(parent, self.stage.modes.get(source.rpartition("/")[0], 0o755))
        if isinstance(data, dict):
            data[self.facts.system_field] = target
            text = json.dumps(data, indent=2).encode()
        self.stage.write(moved, [text], self.stage.file_mode(source))


def _codes(causes: list[Finding]) -> list[str]:
    return list(dict.fromkeys(f.code for f in causes))


class Inference:
    """The results the round's preprocess infers, on the stage; `done` remembers every
    result inferred once, so none is inferred again after it failed."""

    def __init__(self, stage: Stage, round: Round) -> None:
        self.stage, self.round = stage, round
        self.facts = preparation(round).infer
        self.done: set[str] = set()

    def apply(self, sound: set[str]) -> list[Change]:
        """Infer what the round infers from the `sound` results still in the stage."""
        valid = set(sound)
        changes: list[Change] = []
        tree = Tree(self.stage.root)
        for submission in discover(tree, self.round):
            mapping = submission.model_mapping
            for system in systems_of(submission):
                results = results_of(system)
                if not results:
                    continue
                by_benchmark: dict[str, dict[str, str]] = defaultdict(dict)
                for result in results:
                    if result.scenario:
                        by_benchmark[result.benchmark].setdefault(result.scenario, result.location)
                system_type = system.system_type
                if self.round.inference_allowed(system_type):
                    for benchmark, present in sorted(by_benchmark.items()):
                        model = self.round.canonical_model(benchmark, mapping)
                        changes += self._scenarios(present, valid, model, system_type)
                for benchmark in sorted(by_benchmark):
                    changes += self._tiers(Where.of(results[0].location), benchmark, valid, mapping, system_type)
        return changes

    def _scenarios(
        self, present: dict[str, str], valid: set[str], model: str | None, system_type: str | None
    ) -> list[Change]:
        rules = self.round.scenario_rules(model, system_type or "") if model else None
        offered = rules.offered if rules else set()
        changes = []
        for rule in self.facts.scenarios:
            source = present.get(rule.from_)
            if source is None or source not in valid or any(s in present for s in [rule.to, *rule.unless]):
                continue
            if rule.offered and rule.to not in offered:
                continue
            target = join(source.rpartition("/")[0], rule.folder)
            if target in self.done or self.stage.exists(target):
                continue
            self.done.add(target)
            where, into = Where.of(source), Where.of(target)
            if self._copy(where, into, scenario_level=True):
                valid.add(target)  # a tier may copy it along
                changes.append(
                    Change(
                        "inferred",
                        target,
                        f"the round's preprocess infers {rule.to} from a {rule.from_} result "
                        f"where no {' or '.join(rule.unless)} result is",
                        source=source,
                    )
                )
        return changes

    def _tiers(
        self, any_result: Where, benchmark: str, valid: set[str], mapping: dict[str, str], system_type: str | None
    ) -> list[Change]:
        changes = []
        for tier in self.facts.tiers:
            if not benchmark.endswith(tier.from_):
                continue
            lower = benchmark[: -len(tier.from_)] + tier.to
            model = self.round.canonical_model(lower, mapping)
            if model is None or self.round.scenario_rules(model, system_type or "") is None:
                continue
            high = Where(any_result.division, any_result.submitter, any_result.system, benchmark, "")
            low = Where(any_result.division, any_result.submitter, any_result.system, lower, "")
            target = benchmark_folder(self.round, "result", low.division, low.submitter, low.system, lower)
            source = benchmark_folder(self.round, "result", high.division, high.submitter, high.system, benchmark)
            scenarios = self.stage.folders(source) if source else []
            if not target or not source or target in self.done or self.stage.exists(target) or not scenarios:
                continue
            if any(join(source, s) not in valid for s in scenarios):
                continue
            self.done.add(target)
            self._copy(high, low, scenario_level=False)
            for scenario in scenarios:
                changes.append(
                    Change(
                        "inferred",
                        join(target, scenario),
                        f"the round's preprocess copies a {tier.from_} result to {tier.to}: it meets the stricter target",
                        source=join(source, scenario),
                    )
                )
        return changes

    def _copy(self, source: Where, target: Where, scenario_level: bool) -> bool:
        """Copy the round's folders of an inferred result (a scenario's, or a whole benchmark's
        with its code folder); False when there was nothing to copy."""
        copied = False
        keys = [c.folder for c in self.facts.copies if c.divisions is None or source.division in c.divisions]
        if scenario_level:
            pairs = zip(source.folders(self.round, keys), target.folders(self.round, keys), strict=True)
        else:
            keys += ["code"]
            pairs = zip(
                source.benchmark_folders(self.round, keys), target.benchmark_folders(self.round, keys), strict=True
            )
        for origin, copy in pairs:
            if self.stage.is_dir(origin) and not self.stage.exists(copy):
                self.stage.copy(origin, copy)
                copied = True
        return copied
