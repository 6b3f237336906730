"""The HTML pages of the commands (the audit page, compare --format html): the Jinja2
templates in checker/commands/templates/, autoescaped, with every printed value `visible` first
(checker.escaping.html_value)."""

from __future__ import annotations

import contextlib
import functools
from typing import Any

from .. import __version__
from ..escaping import html_value


@functools.cache
def _environment() -> Any:
    import jinja2

    environment = jinja2.Environment(
        loader=jinja2.PackageLoader("checker.commands", "templates"),
        autoescape=True,
        finalize=html_value,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    return environment


def render(template: str, **context: Any) -> str:
    """A template of checker/commands/templates/ filled in; every page shows the version."""
    return str(_environment().get_template(template).render(version=__version__, **context))


def prepare() -> None:
    """Every template compiled now (Jinja2 keeps them), so that `render` only fills one in:
    for a process that has time to spare before it renders (report, while its child computes
    the variance). A warm-up only: a file of the folder that is no template (an editor's
    swap file, one that does not compile) is left to `render`, which reads only the
    templates a page uses, and says what is wrong with one of those."""
    import jinja2

    environment = _environment()
    for name in environment.list_templates(extensions=["j2"]):
        with contextlib.suppress(jinja2.TemplateError, OSError, UnicodeDecodeError):
            environment.get_template(name)
