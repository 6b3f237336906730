"""SYS: the system description `systems/<system>.json`, validated against the round's JSON
Schema (schemas/system_desc.schema.json) and the folder it sits in; AVL: its availability."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import Any

from checker.findings import Severity
from checker.model.views import Described
from checker.parsers.counts import MAX_DIGITS, absurd, per_part, whole
from checker.parsers.typed import shown
from checker.registry import Problem, of_code, rule
from checker.rounds import Round
from checker.suggest import did_you_mean
from checker.wording import counted, said

NOT_APPLICABLE = re.compile(r"^\s*(N/?A|-)\s*$", re.IGNORECASE)


def _pointer(path: Iterable[object]) -> str:
    return "/" + "/".join(str(p).replace("~", "~0").replace("/", "~1") for p in path)


def schema_problems(system: Described, round: Round) -> list[tuple[str, Problem]]:
    """Every schema violation of the description as (code, problem); computed once per system.
    The schema's `x-code` names the code; required fields missing are SYS001."""
    if "schema" in system.cache:
        cached: list[tuple[str, Problem]] = system.cache["schema"]
        return cached
    found: list[tuple[str, Problem]] = []
    description = system.description
    if round.system_description.schema and isinstance(description, dict):
        validator = round.system_validator
        schema = validator.schema
        properties = schema.get("properties", {}) if isinstance(schema, dict) else {}
        seen: set[tuple[str, str]] = set()
        for error in sorted(validator.iter_errors(description), key=lambda e: (list(e.absolute_path), e.message)):
            code = error.schema.get("x-code", "SYS001") if isinstance(error.schema, dict) else "SYS001"
            if error.validator == "required":
                for field in error.validator_value:
                    if field not in error.instance and (code, field) not in seen:
                        seen.add((code, field))
                        why = " (is_network is true)" if code == "SYS009" else ""
                        found.append(
                            (
                                code,
                                Problem(
                                    path=system.json_path,
                                    pointer=f"/{field}",
                                    expected=field,
                                    message=f"required field `{field}` is missing{why}",
                                ),
                            )
                        )
                continue
            field = str(error.absolute_path[0]) if error.absolute_path else ""
            code = properties.get(field, {}).get("x-code", code)
            value = error.instance
            if code == "SYS005" and isinstance(value, str) and not value.strip():
                code = "SYS002"
            elif code == "SYS005" and isinstance(value, str) and NOT_APPLICABLE.match(value):
                code = "SYS006"
            if (code, field) in seen:
                continue
            seen.add((code, field))
            severity, note = _as_applied(code, field, value, round)
            if note is None:
                continue
            expected = properties.get(field, {}).get("description")
            hint = _suggestion(field, value, round) or _not_applicable(code, field, value, round)
            found.append(
                (
                    code,
                    Problem(
                        path=system.json_path,
                        pointer=_pointer(error.absolute_path),
                        observed=value,
                        expected=expected,
                        severity=severity,
                        message=_with_suggestion(_message(code, field, value, expected) + note, hint),
                        hint=hint if hint and hint.startswith(("did you mean", "where it does not apply")) else None,
                    ),
                )
            )
    system.cache["schema"] = found
    return found


def _as_applied(code: str, field: str, value: Any, round: Round) -> tuple[Severity | None, str | None]:
    """(severity, note) of a schema violation in the round, or (None, None) to drop it.

    The schema states the written rules; the round's checker applied less. It accepts any
    non-empty text as a meaningful value, and it computes only with the counts the round file
    lists under `integer` (nodes x accelerators per node, processors per node). Another count
    written as text warns, unless it reads as one count per part of a mixed system. A count
    that is no count at all stays an error: a number that is negative, fractional, NaN or
    infinite, null, a boolean, a list or an object, and a whole number of more digits than
    any count has (the schema's declared range)."""
    if code == "SYS002" and isinstance(value, str) and value:
        return Severity.WARNING, "; the round's checker accepts any non-empty text here"
    if code == "SYS005" and absurd(value):
        return None, f"; no count has more than {MAX_DIGITS} digits"
    if code == "SYS005" and field not in round.system_description.integer and isinstance(value, str):
        if per_part(value):
            return None, None
        return Severity.WARNING, (
            f"; the round requires whole numbers only in {', '.join(round.system_description.integer) or 'no field'}"
        )
    return None, ""


def _not_applicable(code: str, field: str, value: Any, round: Round) -> str | None:
    """For an empty field the round's published descriptions fill with a fixed value where it
    does not apply (a CPU-only system's accelerator fields, `not_applicable`): that value."""
    facts = round.system_description.not_applicable
    written = facts.values.get(field) if facts is not None and code == "SYS002" and value == "" else None
    if written is None:
        return None
    return f"where it does not apply, the round's published descriptions write `{written}` (as on its CPU-only systems)"


def _with_suggestion(message: str, hint: str | None) -> str:
    return message.rstrip(".") + f"; {hint}" if hint else message


def _suggestion(field: str, value: Any, round: Round) -> str | None:
    """For a field whose values the round enumerates (`status`, `system_type`): the close
    value ("did you mean `available`?"), or the values to choose from."""
    choices = {"status": round.availability.values, "system_type": round.system_types.values}.get(field)
    if not choices or not isinstance(value, str):
        return None
    return did_you_mean(value.strip(), choices)


def _message(code: str, field: str, value: Any, expected: str | None) -> str:
    if code == "SYS002" and isinstance(value, str) and value:
        return f"`{field}` holds only whitespace; it needs a meaningful value"
    if code == "SYS002":
        return f"`{field}` needs a meaningful value, and it is empty"
    if code == "SYS006":
        return f"`{field}` is {said(value)}, not a count; the published table leaves it blank"
    wanted = expected[0].lower() + expected[1:] if expected else "not allowed by the schema"
    return f"`{field}` is {_quoted(value)}: {wanted}"


def _quoted(value: Any) -> str:
    """A value as the message quotes it: repr, or for a long one (a 5,000-digit count) what
    parsers.typed.shown says of it."""
    text = said(value)
    return text if len(text) <= 80 else shown(value)


@rule("SYS001", "required-field-missing", scope="system")
def required_field_missing(system: Described, round: Round) -> Iterator[Problem]:
    """The system description has every field the round requires.

    Why: the results table and reviewers read these fields; a missing one is a blank in the
    published row and a system that cannot be identified.
    Fix: add the field the finding names to systems/<system>.json (an empty string where it
    truly does not apply and the field is not one that needs a meaningful value).
    Policy: submission_rules.adoc, "<system_desc_id>.json metadata"; official checker
    SYSTEM_DESC_REQUIRED_FIELDS.
    Example: a description without `host_storage_type` fails, pointing at /host_storage_type.
    """
    yield from of_code("SYS001", schema_problems(system, round))


@rule("SYS002", "field-needs-meaningful-value", scope="system")
def field_needs_meaningful_value(system: Described, round: Round) -> Iterator[Problem]:
    """Fields that need a meaningful response are not empty.

    Why: the policy marks these fields (processor, memory, accelerator, framework, ...) as
    needing a real answer; an empty string publishes a row nobody can compare.
    A description made by a tool that leaves what it cannot see blank (mlperf-sysinfo on a
    CPU-only system) gets, for each such field, what the round's published descriptions write
    where it does not apply (`N/A`, `0`).
    Fix: fill in the field the finding points at.
    Policy: submission_rules.adoc, "<system_desc_id>.json metadata" (meaningful response
    required); official checker SYSTEM_DESC_MEANINGFUL_RESPONSE_REQUIRED_FIELDS.
    Example: `"framework": ""` fails; `"framework": "TensorRT 10.9"` passes.
    """
    yield from of_code("SYS002", schema_problems(system, round))


@rule("SYS005", "numeric-field", scope="system")
def numeric_field(system: Described, round: Round) -> Iterator[Problem]:
    """Node, accelerator, processor and core counts are whole numbers.

    Why: the results table and comparisons compute with these counts (accelerators per node
    times nodes); "8 (per node)" cannot be read as a number.
    Fix: write the count alone, as a number or a string of digits, and move any comment to hw_notes.
    Policy: submission_rules.adoc, "<system_desc_id>.json metadata"; the published results
    table (numbers in a#, p#, Nodes).
    Example: `"accelerators_per_node": "8"` and `8` pass; `"8 (per node)"` fails.
    """
    yield from of_code("SYS005", schema_problems(system, round))


@rule("SYS006", "numeric-field-not-applicable", scope="system", severity=Severity.WARNING)
def numeric_field_not_applicable(system: Described, round: Round) -> Iterator[Problem]:
    """A count field says N/A instead of a number.

    Why: N/A is an answer, but it leaves the published row without a count (one published
    v5.1 system gives `host_processor_core_count` "N/A"), so it is a warning.
    Fix: give the count; for a preview processor, fill it in when the product is public.
    Policy: submission_rules.adoc, "<system_desc_id>.json metadata" (footnote 1: core counts
    may wait for preview).
    Example: `"host_processor_core_count": "N/A"` gets a warning.
    """
    yield from of_code("SYS006", schema_problems(system, round))


@rule("SYS008", "system-type", scope="system")
def system_type(system: Described, round: Round) -> Iterator[Problem]:
    """`system_type` is datacenter, edge, or both.

    Why: the system type decides which scenarios are required for each benchmark.
    Fix: set `system_type` to "datacenter", "edge" or "datacenter,edge".
    Policy: inference_rules.adoc, "Constraints for the Closed division" (categories);
    submission_rules.adoc (system_type).
    Example: "datacenter" passes; "server" fails.
    """
    yield from of_code("SYS008", schema_problems(system, round))


@rule("SYS009", "network-fields", scope="system")
def network_fields(system: Described, round: Round) -> Iterator[Problem]:
    """A description with `is_network` true has every network-division field.

    Why: network-division results are judged by how the load generator reaches the SUT; the
    fields must describe OSI layers 1 to 4. The string "false" counts as false.
    Fix: add the network fields the finding names, or set `is_network` to false.
    Policy: submission_rules.adoc, "<system_desc_id>.json metadata" (network fields);
    inference_rules.adoc, "Network Division"; official checker SYSTEM_DESC_IS_NETWORK_MODE.
    Example: `"is_network": true` without `network_type` fails; `"is_network": "false"` needs none.
    """
    yield from of_code("SYS009", schema_problems(system, round))


@rule("AVL001", "availability-category", scope="system")
def availability_category(system: Described, round: Round) -> Iterator[Problem]:
    """`status` is one of the round's availability categories: available, preview or rdi.

    Why: the category decides what must be public and when (preview systems must become
    available within the next rounds); results without one cannot be published.
    Fix: set `status` to "available", "preview" or "rdi".
    Policy: submission_rules.adoc, "Results categories"; official checker VALID_AVAILABILITIES.
    Example: "available" passes; "coming soon" fails.
    """
    yield from of_code("AVL001", schema_problems(system, round))


SOFTWARE_IDENTIFIER = re.compile(
    r"\b[0-9a-f]{7,40}\b|\bv?\d+\.\d+(?:\.\d+)?\b|\b(?:commit|tag|CL|build)\s*[:#]?\s*\w+", re.IGNORECASE
)


@rule("AVL002", "preview-software-identified", scope="system", severity=Severity.WARNING)
def preview_software_identified(system: Described, round: Round) -> Iterator[Problem]:
    """Preview and RDI systems identify their software by hash or version in sw_notes or other_software_stack.

    Why: private or redacted software is allowed for preview and RDI only when a unique
    identifier (hash, version, CL) pins it, so it can be matched when it becomes available.
    Fix: list each private component with its commit hash, version or CL in `sw_notes` or
    `other_software_stack`.
    Policy: submission_rules.adoc, "Source code requirements for replication" (preview/RDI
    identifiers).
    Example: a preview system with "TensorRT 10.11, driver 575.57" passes; "internal build" gets a warning.
    """
    status = str(system.description.get("status", "")).strip().lower()
    if status not in ("preview", "rdi"):
        return
    text = " ".join(str(system.description.get(f, "")) for f in ("sw_notes", "other_software_stack"))
    if not SOFTWARE_IDENTIFIER.search(text):
        yield Problem(
            path=system.json_path,
            pointer="/sw_notes",
            message=f"{status} system without a version or hash in sw_notes or other_software_stack",
        )


# The accelerator counts a system name can hold, read from its tokens: a token (split at `_`,
# `-` and spaces) that begins with a count (`8xH100`, `94xMI355X`), or a token (split at `_`
# and spaces: `B300-SXM-270GBx8` is one) that is one (`x8`) or ends with one (`180GBx8`,
# `aarch64x72`); never an instruction-set name (`x86`, `x64`), a model number (`XE9780L`) or
# an instance type inside a token (`gx3-48x240x2l40s`).
COUNT_IN_NAME = (
    (re.compile(r"[_\-\s]+"), re.compile(r"(?P<count>\d+)x(?P<what>[A-Za-z].*)")),
    (re.compile(r"[_\s]+"), re.compile(r"(?!x(?:86|64|32)$)(?P<what>.*[A-Za-z0-9])?x(?P<count>\d+)")),
)
_WORD = re.compile(r"[A-Za-z]+\d*[A-Za-z]*|\d+[A-Za-z]*")


def _words(text: str) -> set[str]:
    return {word.casefold() for word in _WORD.findall(text) if len(word) >= 3}


def name_counts(name: str, host: str = "", accelerator: str = "") -> list[list[int]]:
    """The counts a system name states, by COUNT_IN_NAME, each form's in order; a token that
    counts the host processor (`2xEPYC`, `Xeon6980Px2`: it holds a word of `host`, the
    description's host_processor_model_name, that `accelerator`, its accelerator_model_name,
    does not hold) is left out."""
    cpu = _words(host) - _words(accelerator)
    found = []
    for split, pattern in COUNT_IN_NAME:
        counts = []
        for token in split.split(name):
            match = pattern.fullmatch(token)
            if match is not None and not any(word in (match["what"] or "").casefold() for word in cpu):
                counts.append(int(match["count"]))
        if counts:
            found.append(counts)
    return found


@rule("SYS010", "name-contradicts-description", scope="system", severity=Severity.WARNING)
def name_contradicts_description(system: Described, round: Round) -> Iterator[Problem]:
    """The system folder name's accelerator count (`x8`, `8x`) agrees with the description.

    Why: readers take `B200x8` to mean eight accelerators; a description with another count
    means the name or the description is wrong. A count is read from a token of the name
    only (`8xH100`, `x8`, `180GBx8`), never from an architecture (`x86`, `x86_64`) or a model
    number: `XE9780L_x86_B300-SXM-270GBx8_TRT` says 8. A token that counts the host processor
    (it names a word of host_processor_model_name that accelerator_model_name lacks:
    `2xEPYC_8xMI300X`, `Xeon6980Px2_H100x8`) says 8 too; a mixed system's counts add up
    (`16xMI325X_8xMI300X` on 3 nodes of 8).
    Fix: correct accelerators_per_node / number_of_nodes, or rename the system.
    Policy: submission_rules.adoc, "<system_desc_id>.json metadata"; inference_rules.adoc,
    "Audit" (a submission is submitter + platform).
    Example: `B200-SXM-180GBx8_TRT` with 8 accelerators per node passes; with 4 it gets a warning.
    """
    per_node = whole(system.description.get("accelerators_per_node"))
    nodes = whole(system.description.get("number_of_nodes")) or 1
    if per_node is None or per_node == 0:
        return
    described = system.description
    for counts in name_counts(
        system.name,
        str(described.get("host_processor_model_name", "")),
        str(described.get("accelerator_model_name", "")),
    ):
        count = counts[0]
        if count:
            if count not in (per_node, per_node * nodes) and sum(counts) not in (per_node, per_node * nodes):
                yield Problem(
                    path=system.json_path,
                    pointer="/accelerators_per_node",
                    observed=per_node,
                    expected=count,
                    message=f"the name `{system.name}` says {counted(count, 'accelerator')}; the description has "
                    f"{per_node} per node on {counted(nodes, 'node')}, {per_node * nodes} in all",
                )
            return


def _matches_folder(system: Described, field: str, folder: str) -> Iterator[Problem]:
    """A description field that must name its folder (case does not matter). A field that is
    missing is SYS001's, not a mismatch."""
    if field not in system.description:
        return
    value = system.description.get(field)
    if not isinstance(value, str) or value.strip().lower() != folder.lower():
        yield Problem(
            path=system.json_path,
            pointer=f"/{field}",
            message=f"`{field}` is {said(value)}, but the folder is `{folder}`",
            observed=value,
            expected=folder,
        )


@rule("SYS003", "submitter-matches-folder", scope="system")
def submitter_matches_folder(system: Described, round: Round) -> Iterator[Problem]:
    """The description's `submitter` is the submitter folder's name (case does not matter).

    Why: results are published under the folder's name; a description that names another
    submitter was copied from elsewhere or belongs to a partner's submission.
    Fix: set `submitter` to the folder name, or move the system to the right folder.
    Policy: submission_rules.adoc, "<system_desc_id>.json metadata" (submitter).
    Example: `"submitter": "AMD"` under closed/AMD passes; `"submitter": "Acme"` fails.
    """
    yield from _matches_folder(system, "submitter", system.submission.submitter)


@rule("SYS004", "division-matches-folder", scope="system")
def division_matches_folder(system: Described, round: Round) -> Iterator[Problem]:
    """The description's `division` is the division folder's name (case does not matter).

    Why: the division decides which rules apply (closed results meet accuracy targets, open
    ones need not); a description that names another division contradicts its results.
    Fix: set `division` to the folder name, or move the submission to the right division.
    Policy: submission_rules.adoc, "<system_desc_id>.json metadata" (division).
    Example: `"division": "closed"` under closed/ passes; `"division": "open"` fails.
    """
    yield from _matches_folder(system, "division", system.submission.division)
