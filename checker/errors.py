"""The one user error, at the bottom of every layer: the rounds, the configuration, the
waivers, the workspace, the analysis, the engine and the commands raise it (or an error of
theirs made from it: RoundError, ConfigError, WaiverError, WorkspaceError, TableError, ...);
the command line maps it once to exit 2 (commands.common.call), and the API lets it through
as the ValueError it is (a WrongType is also a TypeError). Nothing translates it by hand."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator


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
