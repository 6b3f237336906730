"""The compiled modules (checker/_listing.c, checker/parsers/_mllog_scan.c) given any arguments
return or raise, and never crash: each entry point is called with thousands of argument tuples
drawn from hostile values (wrong types and counts, huge and negative numbers, types that are
no tuple or tuples of another layout, specs of any shape and depth, dicts whose keys' `__eq__`
or `__hash__` change or empty them, values whose `__del__` empties the dicts being filled,
predicates that raise or grow what is walked), mixed with the arguments the readers pass, in a
process of its own, as a crash would end it. The class the single cases of test_listing.py and
test_mllog_scan.py are instances of."""

from __future__ import annotations

import subprocess
import sys

import pytest

try:
    from checker import _listing  # noqa: F401
    from checker.parsers import _mllog_scan  # noqa: F401
except ImportError:  # pragma: no cover - an install without a C compiler
    pytest.skip("the compiled modules are not built", allow_module_level=True)

FUZZ = r"""
import os, random, sys, tempfile, time
from checker._listing import listed
from checker.parsers._mllog_scan import flat, scan, suspects
from checker.tree import Entry, Kind

rng = random.Random(int(sys.argv[1]))
root = tempfile.mkdtemp()
os.makedirs(os.path.join(root, "sub", "deeper"))
for name in ("a.txt", "sub/b.txt", "sub/deeper/c.txt"):
    with open(os.path.join(root, name), "w") as handle:
        handle.write("x" * rng.randrange(100))
os.symlink("sub", os.path.join(root, "link"))
shared = {}  # what hostile objects empty

class Emptying(str):
    def __eq__(self, other):
        for held in shared.values():
            held.clear()
        return str.__eq__(self, other)
    __hash__ = str.__hash__

class BadHash:
    def __hash__(self):
        raise ValueError("no hash")

class Deleting:
    def __del__(self):
        for held in shared.values():
            held.clear()

def raising(value):
    raise RuntimeError("predicate")

def growing(value):
    for held in shared.values():
        held[str(rng.random())] = 1
    return True

def spec(depth=0):
    code = rng.randrange(8)
    if code == 4 and depth < 50:
        return (4, rng.choice([None, 0, 3, -1, "x"]), spec(depth + 1))
    return rng.choice([(0,), (1, 0, 10), (2, -1.5, 1e300), (3, 5), (5, None), (5, 2), (1, "a", None), (9,), (), (4,), raising, growing, len, None, "spec"])

def deep(n):
    made = spec_v = (5, None)
    for _ in range(n):
        made = (4, None, made)
    return made

line = b':::MLLOG {"key": "result_x", "value": 2, "metadata": {"is_error": false}}\n'
other = b':::MLLOG {"key": "noise", "value": [1, {"a": 2}], "metadata": {"is_error": false}}\n'
heads = {line[: line.index(b'"', 19)]: ("result_x", True), other[: other.index(b'"', 19)]: ("noise", False)}

def value():
    pick = rng.randrange(24)
    return [
        None, True, 0, -1, 2**63, -(2**70), 1e308, float("nan"), "", "x" * 300, Emptying("k"), BadHash(),
        Deleting(), b"", bytearray(b"ab\n"), memoryview(b"}\n"), [1, [2]], {"a": Deleting()}, (1, 2), int,
        tuple, Entry, os.stat_result, {Emptying("a"): 1, "b": [Deleting()]},
    ][pick]

def dict_of(values):
    made = {}
    for _ in range(rng.randrange(5)):
        made[rng.choice(["a", "b", "result_x", Emptying("a"), 7])] = values()
    return made

calls = 0
def call(function, *args):
    global calls
    calls += 1
    shared.clear()
    for arg in args:
        if isinstance(arg, dict):
            shared[id(arg)] = arg
    try:
        function(*args)
    except Exception:
        pass

for _ in range(int(sys.argv[2])):
    # listed: the readers' arguments, each one replaced by a hostile value now and then
    good = [root, root + "/", "", {}, Entry, Kind.FILE, Kind.DIR, [], {}, rng.choice([None, {}])]
    for at in rng.sample(range(10), rng.randrange(3)):
        good[at] = value()
    call(listed, *good[: rng.choice([10, 10, 10, 9, 11])])
    # suspects: values and tests of any shape, specs nested to any depth
    tests = {key: (deep(rng.randrange(3000)) if rng.random() < 0.05 else spec()) for key in ("a", "b", "result_x")}
    call(suspects, dict_of(value), rng.choice([tests, dict_of(spec), value()]))
    call(flat, rng.choice([value(), dict_of(value), [value() for _ in range(3)]]))
    # scan: a log of known heads, with hostile dicts to fill and hostile positions
    data = b"".join(rng.choice([line, other, b"junk\n", line[:-2] + b"\n"]) for _ in range(rng.randrange(8)))
    dicts = [rng.choice([{}, {}, dict_of(value)]) for _ in range(5)]
    at, end = rng.choice([(0, len(data)), (rng.randrange(-2, len(data) + 2), len(data)), (0, rng.randrange(-1, len(data) + 3))])
    call(scan, rng.choice([data, value()]), at, end, rng.choice([heads, dict_of(value)]), 0, 0, rng.choice([10**6, 0, -5]), *dicts)
print(calls)
"""


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_compiled_modules_never_crash_on_any_arguments(seed: int) -> None:
    done = subprocess.run(
        [sys.executable, "-c", FUZZ, str(seed), "1500"], capture_output=True, text=True, timeout=240, check=False
    )
    assert (done.returncode, done.stderr[-2000:]) == (0, "")
    assert int(done.stdout) == 1500 * 4
