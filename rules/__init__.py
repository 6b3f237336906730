"""Rule families, one module each. Importing this package registers every rule."""

from . import (accuracy, compliance, endpoints, files, measurements, performance, power, provenance, seeds,  # noqa: F401
               structure, system)  # noqa: F401
