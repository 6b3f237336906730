from typing import Any

def listed(
    path: str,
    base: str,
    prefix: str,
    entries: dict[str, Any],
    entry_type: Any,
    file_kind: Any,
    dir_kind: Any,
    stack: list[str],
    real_dirs: dict[str, Any],
    sigs: dict[str, Any] | None,
    /,
) -> tuple[list[Any], list[int], tuple[dict[str, tuple[int, ...]], int] | None]: ...

HELD: int
