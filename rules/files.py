"""FIL, LOG, INT, WVR: files that cannot be read as what they should be, and the engine's own codes.

These codes are emitted by the submission model and the parsers when they read a file, not
by a rule function. A rule that needs a file that failed to read is skipped; the read failure
is the finding.
"""

from checker.findings import Severity
from checker.registry import declare

declare(
    "FIL001",
    "required-file-missing",
    """A file the round's layout requires is missing.

Why: every result needs its logs, and rules cannot judge a file that is not there.
Fix: add the file at the path the finding names; `mlperf-check rounds show ROUND` lists the
required files of each folder.
Policy: submission_rules.adoc, "Directory structure".
""",
)
declare(
    "FIL002",
    "empty-file",
    """A file that must hold data is empty.

Why: an empty log or description usually means a copy or upload failed.
Fix: copy the file again from the run that produced it.
Policy: submission_rules.adoc, "Directory structure".
""",
)
declare(
    "FIL003",
    "not-utf8",
    """A text file is not UTF-8.

Why: logs and descriptions are read as UTF-8 text by every tool in the review.
Fix: re-encode the file as UTF-8, or copy it again if it was corrupted.
Policy: submission_rules.adoc, "Directory structure".
""",
)
declare(
    "FIL004",
    "binary-content",
    """A text file holds binary data (NUL bytes).

Why: binary garbage where a log belongs means the file was corrupted or replaced.
Fix: copy the file again from the run that produced it.
Policy: submission_rules.adoc, "Directory structure".
""",
)
declare(
    "FIL005",
    "folder-instead-of-file",
    """A folder stands where a file belongs.

Why: the layout names a file at that path.
Fix: put the file itself at that path, not a folder holding it.
Policy: submission_rules.adoc, "Directory structure".
""",
)
declare(
    "FIL006",
    "symlink-leaves-tree",
    """A symlink points outside the checked folder.

Why: a submission must be self-contained; a link out of it would publish nothing, and
following it could read files that are not part of the submission. It is never followed.
Fix: replace the link with the file itself.
Policy: submission_rules.adoc, "Directory structure".
""",
)
declare(
    "FIL007",
    "malformed-json",
    """A JSON (or YAML) file cannot be parsed, or is not the object it should be.

Why: system descriptions and measurement files are read by the review tools as JSON.
Fix: correct the syntax at the line and column the finding names.
Policy: submission_rules.adoc, "<system_desc_id>.json metadata".
""",
)
declare(
    "FIL008",
    "file-too-large",
    """A file is larger than the checker reads whole.

Why: such files are read into memory; a text file of this size is almost always a mistake.
Fix: check that the right file was copied; accuracy logs must be truncated.
Policy: submission_rules.adoc, "Directory structure".
""",
)
declare(
    "FIL009",
    "line-too-long",
    """A log line is longer than the checker reads (16 MiB).

Why: loadgen never writes lines this long; the file is corrupted or not a loadgen log.
Fix: copy the log again from the run that produced it.
Policy: loadgen log format (mlcommons/inference loadgen/logging.cc).
""",
)
declare(
    "FIL010",
    "broken-symlink",
    """A symlink points at nothing.

Why: the file it stands for is not in the submission.
Fix: replace the link with the file itself.
Policy: submission_rules.adoc, "Directory structure".
""",
)
declare(
    "FIL011",
    "unreadable-file",
    """A file cannot be opened or is not a regular file.

Why: the checker and the reviewers must be able to read every file.
Fix: check the file's permissions and type.
Policy: submission_rules.adoc, "Directory structure".
""",
)
declare(
    "FIL025",
    "path-too-long",
    """A file or folder lies deeper than a file system opens by name.

Its path is longer than 4,095 bytes (Linux's PATH_MAX), or one of its names longer than 255
bytes.

Why: no tool can open it by its path: the official checker, `prepare`'s copy and the
reviewers' own tools would each miss it or fail on it, so what it holds is never checked.
`check` reports what it cannot read, and `prepare` refuses a DEST where a file it copies
would lie so deep, with the same limit.
Fix: check the tree from a shorter path, or shorten the folder names.
Policy: submission_rules.adoc, "Directory structure" (every file must be readable).
""",
)
declare(
    "FIL012",
    "malformed-value",
    """A value the checker reads from a file is not of the type and range declared for its key.

Why: rules and the results table compute with these values; NaN, text, a list, a negative
count or a 400-digit integer cannot be compared with a limit, and a check that passes over
what it cannot compare judges a result it never read. Each key a rule, a command or a round
file reads has one declaration per kind of file (schemas/loadgen_log, loadgen_summary,
compliance_verify, accuracy_txt, power_samples, endpoints_summary, endpoints_config and
endpoints_accuracy .schema.json): the type and range loadgen, the verify scripts or the
Endpoints harness write. The finding names the key (a JSON pointer or a dotted path in JSON
and YAML files), its line where it has one, the value and what it must be; a rule that
needs the value is skipped, and the result is not valid.
Fix: submit the file the run wrote, unedited; rerun if it was written wrong.
Policy: loadgen log format (mlcommons/inference loadgen/logging.cc, results.cc); the
Endpoints report format (mlcommons/endpoints); RFC 8259 (a JSON number is finite).
""",
)
declare(
    "FIL020",
    "json-key-given-twice",
    """A JSON file of the tree gives one key twice in one object.

Why: JSON leaves a repeated key undefined; Python's json, which the review tools read the
files with, keeps the later value silently, so `"status": "available"` then `"status":
"preview"` is read as preview, where another reader may read available. The finding names
the key, both values and the line of each. A warning: published results that the review
accepted repeat a key (v5.1 and v6.0 measurements files give `weight_transformations` twice).
Fix: keep the one value the file means and delete the other.
Policy: RFC 8259, section 4 ("The names within an object SHOULD be unique").
""",
    severity=Severity.WARNING,
)
declare(
    "LOG001",
    "malformed-loadgen-record",
    """A line of a loadgen detail log is not a complete `:::MLLOG {json}` record.

Why: a truncated or edited log cannot be trusted; the last line is often cut off when a copy
fails.
Fix: copy the log again from the run that produced it.
Policy: loadgen log format (mlcommons/inference loadgen/logging.cc).
""",
)
declare(
    "LOG002",
    "no-loadgen-records",
    """A loadgen detail log holds no loadgen records.

Why: the file is not a loadgen log.
Fix: copy the detail log the run wrote (mlperf_log_detail.txt).
Policy: loadgen log format (mlcommons/inference loadgen/logging.cc).
""",
)
declare(
    "LOG003",
    "summary-unreadable",
    """A loadgen summary holds no `name : value` lines.

Why: the file is not a loadgen summary.
Fix: copy the summary the run wrote (mlperf_log_summary.txt).
Policy: loadgen log format (mlcommons/inference loadgen/results.cc).
""",
)
declare(
    "LOG004",
    "conf-line-malformed",
    """A line of a loadgen `.conf` file is not `key = value` as loadgen reads it.

Why: loadgen (TestSettings::FromConfig) splits a line into words: the key, `=`, then values
that must be numbers (a `#` word before the value ends the line). A word where it wants `=`
(`key: 5`, `key =5`) or a value that is not a number (`"5"`, `5 # tuned`: the comment is read
as a value) makes it refuse the whole file, which then sets nothing; `key=5`, one word to it,
sets nothing silently. Either way the settings the line names did not apply.
Fix: write the line as `model.scenario.key = value`, spaces around `=`, comments on their own line.
Policy: loadgen configuration format (mlcommons/inference loadgen/test_settings_internal.cc,
TestSettings::FromConfig; loadgen/mlperf.conf).
""",
    severity=Severity.WARNING,
)
declare(
    "INT001",
    "internal-error",
    """A rule failed with an exception.

Why: a bug in the checker, or an input no rule foresaw. The other rules and results still ran.
Fix: report it with the message; the finding names the rule and the place it failed.
Policy: none; this is the checker's own failure.
""",
)
declare(
    "WVR001",
    "unused-waiver",
    """A waiver matched no finding.

Why: a waiver that waives nothing is stale and may hide a future problem.
Fix: remove the waiver, or correct its code or path.
Policy: none; waivers are this checker's feature.
""",
    severity=Severity.NOTE,
)
