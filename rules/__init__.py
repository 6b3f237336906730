"""Rule families, one module each. Importing this package registers every rule."""

from . import (  # noqa: F401
    accuracy,
    compliance,
    endpoints,
    files,
    measurements,
    performance,
    power,
    provenance,
    runs,
    seeds,
    settings,
    structure,  # noqa: F401
    system,
)
