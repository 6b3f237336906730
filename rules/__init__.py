"""Rule families, one module each. Importing this package registers every rule."""

from . import accuracy, compliance, endpoints, files, measurements, performance, power, seeds, structure, system  # noqa: F401
