"""A result folder: what it is (system, benchmark, scenario, model) and where each of its
files is, by the round's layout. Reading the files is checker/model/result.py's."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, overload

from ..facts import FileRole
from ..findings import Finding
from ..reader import Reader
from ..rounds import Round
from ..tree import Tree, join
from .once import cached
from .submission import Context, Submission, System

_UNSET: Any = object()  # a path not yet filled in

# The layout's folders of a result: those every round has, and those it may not have.
Folder = Literal["result", "performance", "accuracy", "compliance", "measurements", "code"]
OptionalFolder = Literal["power", "ranging"]


@dataclass
class ResultLayout:
    """One `results/<system>/<benchmark>/<scenario>` folder."""

    system: System
    benchmark: str
    scenario_folder: str
    findings: list[Finding] = field(default_factory=list)
    cache: dict[str, Any] = field(default_factory=dict)  # values several rules derive once
    # The paths `path`, `file` and `compliance_file` filled in, by what was asked.
    _paths: dict[tuple[str, ...], Any] = field(default_factory=dict, init=False, repr=False, compare=False)

    @property
    def submission(self) -> Submission:
        return self.system.submission

    @property
    def round(self) -> Round:
        return self.submission.round

    @property
    def tree(self) -> Tree:
        return self.submission.tree

    @property
    def context(self) -> Context:
        return self.submission.context

    @property
    def parts(self) -> dict[str, str]:
        return {"system": self.system.name, "benchmark": self.benchmark, "scenario": self.scenario_folder}

    @cached
    def location(self) -> str:
        return self.path("result")

    @property
    def division(self) -> str:
        return self.submission.division

    @cached
    def scenario(self) -> str | None:
        """The round's spelling of the folder's scenario, or None when unknown."""
        return self.round.scenario_name(self.scenario_folder)

    @cached
    def model(self) -> str | None:
        """The round's model this benchmark folder maps to, or None."""
        return self.round.canonical_model(self.benchmark, self.submission.model_mapping)

    @property
    def logged_scenario(self) -> str | None:
        """The scenario loadgen logs for the folder's scenario (the round's `run: logged_as`: an
        Interactive run is a Server run)."""
        scenario = self.scenario
        return self.round.run.logged_as.get(scenario, scenario) if scenario is not None else None

    @cached
    def reader(self) -> Reader:
        return Reader(self.tree, self.location, self.findings)

    @overload
    def path(self, name: Folder, *more: str) -> str: ...
    @overload
    def path(self, name: OptionalFolder, *more: str) -> str | None: ...
    @overload
    def path(self, name: str, *more: str) -> str | None: ...
    def path(self, name: str, *more: str) -> str | None:
        """A layout folder of the result, and a path inside it (each filled in once per result:
        the rules ask for the same few some 40,000 times a round)."""
        key = (name, *more)
        found = self._paths.get(key, _UNSET)
        if found is _UNSET:
            base = self._paths.get((name,), _UNSET) if more else _UNSET
            if base is _UNSET:
                base = self._paths[(name,)] = self.submission.path(name, **self.parts)
            found = self._paths[key] = join(base, *more) if base is not None and more else base
        filled: str | None = found
        return filled

    def file(self, folder: Folder, role: FileRole) -> str:
        """The round's `role` file (layout `files`: detail_log, summary_log, accuracy_log,
        accuracy_report, power_samples, user_conf) in the result's layout folder `folder`."""
        key = ("\0file", folder, role)
        found = self._paths.get(key)
        if found is None:
            found = self._paths[key] = self.path(folder, self.round.layout.files.named(role))
        return found

    def compliance_dir(self, test: str) -> str:
        return self.path("compliance", test)

    def compliance_file(self, test: str, role: FileRole) -> str:
        """The round's `role` file of a compliance test's own run (compliance/<test>/<compliance_run>)."""
        key = ("\0compliance", test, role)
        found = self._paths.get(key)
        if found is None:
            layout = self.round.layout
            found = join(self.compliance_dir(test), layout.compliance_run, layout.files.named(role))
            self._paths[key] = found
        return found

    def endpoints_file(self, role: Literal["config", "accuracy", "audit"], **parts: str) -> str | None:
        """An Endpoints result's file (layout `endpoints`: config, accuracy, audit), or None
        in a round without Endpoints results."""
        spec = self.round.layout.endpoints
        if not spec:
            return None
        return join(
            self.location, {"config": spec.config, "accuracy": spec.accuracy, "audit": spec.audit}[role].format(**parts)
        )

    @property
    def endpoints_summary_paths(self) -> list[str]:
        """Where the round's layout puts an Endpoints summary, the agreed place first."""
        spec = self.round.layout.endpoints
        return [join(self.location, rel) for rel in spec.summary] if spec else []

    @cached
    def measurements_dir(self) -> str:
        return self.path("measurements")

    @property
    def implementation_names(self) -> list[str]:
        """The round's names of the implementation description, for this result."""
        return [
            name.format(system=self.system.name, scenario=self.scenario_folder)
            for name in self.round.layout.implementation_description
        ]
