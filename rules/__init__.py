"""Rule families, one module each. Importing this package registers every rule."""

from . import files, seeds, structure, system  # noqa: F401
