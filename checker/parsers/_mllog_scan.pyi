from typing import Any

def scan(
    data: bytes,
    at: int,
    end: int,
    heads: dict[bytes, tuple[str, bool]],
    number: int,
    kept: int,
    budget: int,
    values: dict[str, Any],
    last: dict[str, Any],
    lines: dict[str, int],
    columns: dict[str, int | None],
    last_cost: dict[str, int],
    /,
) -> tuple[int, int, int, int, str | None, int, int]: ...
def flat(value: Any, /) -> bool: ...
def suspects(values: dict[str, Any], tests: dict[str, Any], /) -> list[str]: ...
