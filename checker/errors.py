"""The one user error, at the bottom of every layer: the rounds, the configuration, the
waivers, the workspace, the analysis, the engine and the commands raise it (or an error of
theirs made from it: RoundError, ConfigError, WaiverError, WorkspaceError, TableError, ...);
the command line maps it once to exit 2 (commands.common.call), and the API lets it through
as the ValueError it is (a WrongType is also a TypeError). Nothing translates it by hand."""

from __future__ import annotations

import contextlib
import contextvars
import functools
import re
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

F = TypeVar("F", bound=Callable[..., Any])


class UsageError(ValueError):
    """The one user error: a command line, configuration, API call or input that cannot be run
    as given. The message names the parameter (or option, or column) and what was given;
    `parameter` keeps the name."""

    def __init__(self, message: str, parameter: str | None = None) -> None:
        super().__init__(message)
        self.parameter = parameter


class WrongType(UsageError, TypeError):
    """A parameter of the wrong type (an API call's `round=5`, `strict="no"`): a UsageError,
    and a TypeError for the Python API."""


_API: contextvars.ContextVar[bool] = contextvars.ContextVar("api", default=False)
_NAME = re.compile(r"[a-z][a-z0-9_]*")


def option(parameter: str) -> str:
    """How the door a call came through names a parameter, the one place that decides it: the
    command line's option (`--min-submitters`) by default, the API's keyword
    (`min_submitters`) within a function of `api_door`. Anything else (`-o`, `--format json:`,
    `tables['v6.0']`) is left as it is."""
    if not _NAME.fullmatch(parameter):
        return parameter
    return parameter if _API.get() else "--" + parameter.replace("_", "-")


def api_door(function: F) -> F:
    """`function` (of the Python API) naming every parameter in its messages as a keyword."""

    @functools.wraps(function)
    def called(*args: Any, **kwargs: Any) -> Any:
        token = _API.set(True)
        try:
            return function(*args, **kwargs)
        finally:
            _API.reset(token)

    return called  # type: ignore[return-value]


@contextlib.contextmanager
def naming(option: str, *kinds: type[UsageError], parameter: str | None = None) -> Iterator[None]:
    """A user error (of `kinds`, by default any) raised within, of the same class, its message
    led by `option` (what was given: `--inference-repo PATH`) when it does not name it already."""
    caught: tuple[type[UsageError], ...] = kinds or (UsageError,)
    try:
        yield
    except caught as error:
        message = str(error)
        if message.startswith(option):
            raise
        kind = type(error) if type(error).__init__ is UsageError.__init__ else UsageError
        raise kind(f"{option}: {message}", parameter or error.parameter) from None
