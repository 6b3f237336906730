"""`functools.cached_property` without its lock: a model object's derived values are made once
and kept in its `__dict__`, as cached_property keeps them, but Python 3.11's takes a lock on
every first read (some 29,000 a round), which 3.12 dropped as useless. A model object is
used by one thread. Type checkers see cached_property itself."""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from functools import cached_property as cached
else:

    class cached(functools.cached_property):  # noqa: N801 - a decorator, named as cached_property is
        """A cached_property (isinstance says so) whose first read takes no lock."""

        def __get__(self, instance: Any, owner: type[Any] | None = None) -> Any:
            if instance is None:
                return self
            if self.attrname is None:
                raise TypeError("Cannot use cached instance without calling __set_name__ on it.")
            value = instance.__dict__[self.attrname] = self.func(instance)
            return value


__all__ = ["cached"]
