"""Submissions and systems: the `<division>/<submitter>` folders and their systems, named as
the round's layout names them."""

from __future__ import annotations

import difflib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..findings import Finding
from ..reader import Reader
from ..rounds import Round
from ..strays import classify
from ..suggest import closest
from ..tree import Kind, Tree, join
from .once import cached

if TYPE_CHECKING:
    from ..provenance import Source


@dataclass(frozen=True)
class Context:
    """What a check was given besides the tree and the round, for the rules that use it."""

    provenance: Source | None = None  # the Source the PRV rules judge loadgen builds by (checker/provenance.py)


@dataclass
class Submission:
    """One `<division>/<submitter>` folder."""

    tree: Tree
    round: Round
    division: str
    submitter: str
    context: Context = field(default_factory=Context)
    findings: list[Finding] = field(default_factory=list)
    cache: dict[str, Any] = field(default_factory=dict)  # values several rules derive once

    @cached
    def rel(self) -> str:
        return join(self.division, self.submitter)

    @cached
    def reader(self) -> Reader:
        return Reader(self.tree, "", self.findings, subject=self.rel)

    @cached
    def model_mapping(self) -> dict[str, str]:
        """The submitter's benchmark-name mapping, in the divisions where the round reads it
        (the open division), when present and readable."""
        spec = self.round.submitter_model_mapping
        if spec is None or self.division not in spec.divisions:
            return {}
        data = self.reader.json(join(self.rel, spec.file), required=False, what=spec.file)
        if not isinstance(data, dict):
            return {}
        return {str(k): v for k, v in data.items() if isinstance(v, str)}

    def path(self, name: str, **parts: str) -> str | None:
        inner = self.round.layout_path(name, **parts)
        return join(self.rel, inner) if inner is not None else None

    @cached
    def systems_with_results(self) -> frozenset[str]:
        """The names of the systems with a folder under results/ (of folders whose names
        differ only in case, the one the round names: `entered`)."""
        return frozenset(entered(self.tree.subdirs(join(self.rel, self.round.results_root)), self.names_system))

    @cached
    def described_systems(self) -> frozenset[str]:
        """The systems with a description, as its file name spells them (systems/<name>.json)."""
        folder, _, _ = self.round.layout.system_json.rpartition("/")
        files = {
            entry.rel.rpartition("/")[2]
            for entry in self.tree.listdir(join(self.rel, folder))
            if entry.kind is Kind.FILE
        }
        return frozenset(
            name
            for file in files
            if not _copy_beside(file, files)
            for name in [self._described(join(folder, file))]
            if name
        )

    @cached
    def renamed(self) -> dict[str, tuple[str, ...]]:
        """{system with results but no description: the descriptions with no results that may be
        its (renamed) one}: the closest name among those descriptions (every one as close as the
        closest: which is the system's only its submitter knows), or the only one when one
        system lacks a description and one description lacks results (a description a tool
        wrote under its own name, such as mlperf-sysinfo's system_desc.json)."""
        missing = sorted(self.systems_with_results - self.described_systems)
        spare = sorted(self.described_systems - self.systems_with_results)
        found: dict[str, tuple[str, ...]] = {}
        for name in missing:
            taken = {s for names in found.values() for s in names}
            free = [s for s in spare if s not in taken]
            close = closest(name, free)
            if close is not None:
                best = _likeness(name, close)
                found[name] = tuple(s for s in free if _likeness(name, s) == best)
            elif len(missing) == len(spare) == 1:
                found[name] = (spare[0],)
        return found

    def _described(self, inner: str) -> str | None:
        """The system whose description is at `inner` (relative to the submitter's folder), by
        the layout's `system_json` (systems/{system}.json); None for another path."""
        head, _, tail = self.round.layout.system_json.partition("{system}")
        name = inner[len(head) : len(inner) - len(tail)] if inner.startswith(head) and inner.endswith(tail) else ""
        return name if name and "/" not in name else None

    # --- names as the round spells them (folders that differ only in case) -------------
    def names_system(self, name: str) -> bool:
        """Whether the layout names a system folder so: its description has that very name."""
        return name in self.described_systems

    def names_benchmark(self, name: str) -> bool:
        """Whether the round names a benchmark folder so: a model, or a name it maps to one."""
        return self.benchmark_named(name) is not None

    def benchmark_named(self, name: str) -> str | None:
        """The round's model a folder named `name` stands for: the one spelling rule of every
        folder that names a benchmark (results/, src/, v5.1's compliance/ and measurements/,
        the open division's model_mapping.json): the round's model, its mapping, the
        submitter's mapping, then the round's guesses (Round.canonical_model)."""
        return self.round.canonical_model(name, self.model_mapping)

    def spells_benchmark(self, name: str, benchmark: str) -> bool:
        """Whether a folder named `name` names the benchmark of the folder `benchmark` spelled
        otherwise: in another case, or as another name for the same model (`benchmark_named`)."""
        if name == benchmark:
            return False
        model = self.benchmark_named(benchmark)
        return name.casefold() == benchmark.casefold() or (model is not None and self.benchmark_named(name) == model)

    def names_scenario(self, name: str) -> bool:
        return name in self.round.scenarios

    def names_fixed(self, name: str) -> bool:
        return name in self.round.layout_names

    def level_of(self, folder: str) -> str | None:
        """What the folders inside `folder` (a folder of this submission) are, by the round's
        layout: "system", "benchmark" or "scenario" folders of a tree of results (results/,
        and v5.1's compliance/ and measurements/), "fixed" ones (the submitter's own folder
        and the inside of a result: performance, run_1, accuracy, TEST01, ...), or None for
        folders the layout does not name (code, documentation)."""
        if folder == self.rel:
            return "fixed"
        if not folder.startswith(self.rel + "/"):
            return None
        inner = folder[len(self.rel) + 1 :]
        for tree in self.round.result_trees:
            if inner == tree or inner.startswith(tree + "/"):
                depth = inner.count("/") - tree.count("/")
                return ("system", "benchmark", "scenario")[depth] if depth < 3 else "fixed"
        return None

    def names(self, level: str) -> Callable[[str], bool]:
        """Whether the round names a folder so, at a `level_of`."""
        return {
            "system": self.names_system,
            "benchmark": self.names_benchmark,
            "scenario": self.names_scenario,
            "fixed": self.names_fixed,
        }[level]

    def results_folder_of(self, rel: str) -> str | None:
        """The folder of results a path of this submission belongs to: the path itself under
        results/; its counterpart there for a path in another tree of results (v5.1's
        compliance/<system>/<benchmark>/<scenario>/...); results/<system> for the system's
        description; None for any other path (code, documentation)."""
        inner = rel[len(self.rel) + 1 :] if rel.startswith(self.rel + "/") else None
        if inner is None:
            return None
        results = self.round.results_root
        for tree in self.round.result_trees:
            if inner == tree or inner.startswith(tree + "/"):
                return join(self.rel, results, inner[len(tree) + 1 :])
        system = self._described(inner)
        return join(self.rel, results, system) if system else None

    @property
    def calibration_places(self) -> list[str]:
        """Where the round looks for the calibration document, in order."""
        return [join(self.rel, rel) for rel in self.round.layout.calibration]

    def walk(self) -> Iterator[tuple[str, list[tuple[str, str, int, Kind | None]]]]:
        """Every folder of the submission, links not followed (Tree.walk)."""
        folders: Iterator[tuple[str, list[tuple[str, str, int, Kind | None]]]] = self.tree.walk(self.rel)
        return folders


@dataclass
class System:
    submission: Submission
    name: str
    findings: list[Finding] = field(default_factory=list)
    cache: dict[str, Any] = field(default_factory=dict)  # values several rules derive once

    @property
    def key(self) -> str:
        return join(self.submission.rel, "systems", self.name)

    @property
    def json_path(self) -> str:
        return join(self.submission.rel, self.submission.round.layout.system_json.format(system=self.name))

    @cached
    def reader(self) -> Reader:
        return Reader(self.submission.tree, "", self.findings, subject=self.key)

    @cached
    def description(self) -> dict[str, Any] | None:
        data = self.reader.json(self.json_path, what="system description")
        if data is None:
            self._renamed()
            return None
        if not isinstance(data, dict):
            self.reader.report("FIL007", self.json_path, "system description is JSON but not an object", pointer="")
            return None
        return data

    def _renamed(self) -> None:
        """A missing description whose system was renamed (Submission.renamed): its FIL001 says
        which description it is and how to fix it; STR004 then says nothing of that one."""
        spares = self.submission.renamed.get(self.name)
        last = self.findings[-1] if self.findings else None
        if not spares or last is None or last.code != "FIL001" or last.path != self.json_path:
            return
        layout = self.submission.round.layout.system_json
        old = [layout.format(system=spare) for spare in spares]
        new = layout.format(system=self.name)
        if len(old) == 1:
            message, hint = f"{old[0]} has no results: rename it to {new}", f"rename {old[0]} to {new}"
        else:
            listed = f"{', '.join(old[:-1])} and {old[-1]}"
            message = f"{listed} have no results: rename the one that describes this system to {new}"
            hint = f"rename the one of {listed} that describes this system to {new}"
        self.findings[-1] = last.with_(message=f"{last.message}; {message}", hint=hint)

    @property
    def system_type(self) -> str | None:
        desc = self.description or {}
        value = desc.get("system_type")
        return value.strip().replace(" ", "") if isinstance(value, str) else None


@dataclass(frozen=True)
class Clash:
    """A folder whose name differs only in case from another beside it. On a case-insensitive
    file system (macOS, Windows) they are one folder, so at most one of them can be the
    round's: `canonical`, the one the round names, when exactly one does; else None, and
    none of them is."""

    name: str
    canonical: str | None


def clashes(names: Iterable[str], named: Callable[[str], bool]) -> list[Clash]:
    """The names among `names` that differ only in case from another of them, except the one
    the round names (`named`) when exactly one does; in name order."""
    groups: dict[str, list[str]] = {}
    for name in names:
        groups.setdefault(name.casefold(), []).append(name)
    found = []
    for group in groups.values():
        if len(group) > 1:
            spelled = [name for name in group if named(name)]
            canonical = spelled[0] if len(spelled) == 1 else None
            found += [Clash(name, canonical) for name in group if name != canonical]
    return sorted(found, key=lambda clash: clash.name)


def _likeness(name: str, other: str) -> float:
    """How alike two names are, as `closest` judges them (difflib's ratio, any case)."""
    return round(difflib.SequenceMatcher(None, name.lower(), other.lower()).ratio(), 6)


def _copy_beside(name: str, names: set[str]) -> bool:
    """Whether `name` is a second copy of a file beside it (`X - Copy.json` beside `X.json`):
    STR012 says so, and it describes no system of its own."""
    stray = classify(name, is_dir=False)
    return stray is not None and stray.copy_of is not None and stray.copy_of in names


def entered(names: list[str], named: Callable[[str], bool]) -> list[str]:
    """The folders discovery enters: `names` without those that differ only in case from the
    one the round names (they are no result; STR011 says so), and without a folder that looks
    like a mistake (a second copy, `Offline (copy)`, or an OS artefact folder: STR012 says so,
    and prepare leaves it out)."""
    strays = {clash.name for clash in clashes(names, named) if clash.canonical is not None}
    strays |= {name for name in names if classify(name, is_dir=True) is not None}
    return [name for name in names if name not in strays] if strays else names
