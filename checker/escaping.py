"""One escaping for every name and value any output shows (issue 33).

Folder and file names come from the file system as `os.fsdecode` gives them: a byte that is
not UTF-8 is a lone surrogate (U+DC80-U+DCFF) that no UTF-8 file can hold. Names, JSON values
and log text may also hold newlines, carriage returns, terminal escape sequences, the
bidirectional overrides, and U+FFFE/U+FFFF (which XML 1.0 cannot hold, even as a reference).
Each format takes its text from here, and from nowhere else:

- data (JSON, SARIF): `printable`, each byte that was not UTF-8 as `\\xNN`; the format's own
  quoting (json.dumps) does the rest;
- text for people (every text view, the stderr messages): `visible`, control characters as
  `\\n`, `\\r`, `\\x1b`, `\\u202e`, so no name makes a line of its own or moves the cursor; a
  render that lists lines ends with `text_lines(...)`: one line per record, whatever a name holds;
- CSV (`csv_text`): every cell `visible`, so one record is one line;
- XML 1.0 (JUnit): `visible`, and `not_xml` counts what XML could not have held, which the
  writer says;
- GitHub workflow commands: `annotation_data`, `annotation_property`;
- Markdown (the job summary, claims): `markdown_text` and `markdown_code`, literal in a
  paragraph and in a table cell;
- HTML (the audit page, compare's page): `html_value` is the templates' finalize, before
  Jinja2's autoescaping.

`visible` is idempotent: text it wrote holds no character it escapes, so a writer may pass
text through it twice (the `as_text` writer does, as a net under the renders)."""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterable, Sequence
from typing import Any

_SURROGATE = re.compile("[\ud800-\udfff]")
# C0 and C1 controls, DEL, the bidirectional overrides and isolates, the line and paragraph
# separators (which some viewers break lines at), surrogates, and the noncharacters U+FFFE
# and U+FFFF (which XML 1.0 cannot hold either).
_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff\ufffe\uffff]")
# What XML 1.0 cannot hold (outside its Char production: #x9 | #xA | #xD | [#x20-#xD7FF] |
# [#xE000-#xFFFD] | [#x10000-#x10FFFF]), even as a character reference: that class's
# complement, spelt out (compiling the negated class took 8 ms of every command's start).
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")
_NAMED = {"\t": "\\t", "\n": "\\n", "\r": "\\r"}


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    code = ord(char)
    if 0xDC80 <= code <= 0xDCFF:  # a byte os.fsdecode could not decode
        return f"\\x{code - 0xDC00:02x}"
    if code < 0x100:
        return _NAMED.get(char, f"\\x{code:02x}")
    return f"\\u{code:04x}"


def printable(text: str) -> str:
    """`text` with every byte that was not UTF-8 written as `\\xNN` (and any other lone
    surrogate as `\\uNNNN`): what a UTF-8 file or a strict JSON parser accepts."""
    return _SURROGATE.sub(_escape, text) if isinstance(text, str) else text


def visible(text: str, keep: str = "") -> str:
    """`printable(text)`, with control characters (except those in `keep`) made visible too:
    what people read on a terminal, in XML or in a job summary."""
    return (
        _UNSAFE.sub(lambda m: m.group() if m.group() in keep else _escape(m), text) if isinstance(text, str) else text
    )


def not_xml(text: str) -> int:
    """How many characters of `text` XML 1.0 cannot hold (`visible` writes them as `\\uNNNN`
    or `\\xNN`; the JUnit writer says how many it replaced)."""
    return len(_NOT_XML.findall(text)) if isinstance(text, str) else 0


def visible_lines(text: str) -> str:
    """`visible` for each line of a multi-line text: its line breaks stay. A net only: a
    newline inside a name cannot be told from a line break once the text is joined, so a
    render escapes its records itself (`lines`)."""
    return "\n".join(visible(line) for line in text.split("\n"))


def text_lines(records: Iterable[str]) -> str:
    """Text of one line per record, each `visible`: a name that holds a newline stays on its
    record's line (as `\\n`), so no name makes a line that is not ours."""
    return "".join(visible(record) + "\n" for record in records)


def one_line(message: object) -> str:
    """A message on one line: its own lines joined by spaces, every control character visible."""
    return visible(" ".join(part.strip() for part in str(message).splitlines() if part.strip()))


def csv_text(rows: Iterable[dict[str, Any]], columns: Sequence[str]) -> str:
    """Rows as CSV with a header of `columns`, one record per line: every text cell `visible`
    (a newline in a name is `\\n`, never a quoted line break), a missing or None cell empty,
    keys outside `columns` left out. The one CSV writer of every command."""
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=list(columns), lineterminator="\n", extrasaction="ignore")
    writer.writeheader()
    for row in rows:
        writer.writerow({key: _cell(row.get(key)) for key in columns})
    return buffer.getvalue()


def _cell(value: Any) -> Any:
    if value is None:
        return ""
    if isinstance(value, (bool, int, float)):
        return value
    return visible(value if isinstance(value, str) else str(value))


# --- GitHub workflow commands ---------------------------------------------------------------
def annotation_data(text: str) -> str:
    """The message of a workflow command (`::error ...::MESSAGE`): `visible` but for its line
    breaks, which GitHub reads as `%0A`; `%` and a carriage return encoded as the runner
    decodes them."""
    return visible(text, keep="\n").replace("%", "%25").replace("\n", "%0A")


def annotation_property(text: str) -> str:
    """A property of a workflow command (`file=`, `title=`): as its data, and `:` and `,`,
    which end a property, encoded."""
    return annotation_data(text).replace(":", "%3A").replace(",", "%2C")


# --- Markdown -------------------------------------------------------------------------------
_MARKDOWN = re.compile(r"[\\`*_\[\]<>|#!~&]")


def markdown_text(text: str) -> str:
    """`text` as literal Markdown: `visible`, and every character Markdown or HTML would read
    (`|` `` ` `` `*` `_` `[` `<` `&` ...) backslash-escaped: in a table cell too, where GitHub
    ends a cell at an unescaped `|`."""
    return _MARKDOWN.sub(lambda m: "\\" + m.group(), visible(text))


def markdown_code(text: str, cell: bool = False) -> str:
    """`text` as a code span: fenced with one backtick more than its longest run (padded when
    it starts or ends with one), so no backtick closes it and no HTML in it is read; in a
    table cell (`cell`) a `|` escaped, as GitHub reads it there even in code."""
    shown = visible(text)
    runs = re.findall(r"`+", shown)
    fence = "`" * (max(map(len, runs), default=0) + 1)
    pad = " " if shown.startswith("`") or shown.endswith("`") else ""
    span = f"{fence}{pad}{shown}{pad}{fence}"
    return span.replace("|", "\\|") if cell else span


# --- HTML -----------------------------------------------------------------------------------
def markup_text(text: Any) -> str:
    """Text for markup written without a template (the SVG plots): `visible`, then
    markupsafe's escaping of &, <, >, and both quotes, as a page's autoescaping writes a value
    html_value gave it."""
    from markupsafe import escape

    return str(escape(visible(str(text))))


def html_value(value: Any) -> Any:
    """Jinja2's finalize for every page: a printed value before autoescaping. Text is
    `visible`; markup the template made (markupsafe.Markup) stays; None prints nothing.
    Autoescaping then writes `<`, `>`, `&` and both quotes as references, in text and in
    attributes alike."""
    from markupsafe import Markup

    if isinstance(value, Markup):
        return value
    if isinstance(value, str):
        return visible(value)
    return "" if value is None else value
