"""Runs suites with unittest and writes what happened to each test as JSON, for npm test.

    python3 -m tests.report --list                       # every test id, as JSON
    python3 -m tests.report --json out.json [pattern]    # run test modules matching pattern

The text report goes to stderr as unittest's own does; the JSON has one entry per test
(outcome ok / failure / error / skipped, seconds, the traceback) and the totals.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import unittest
from typing import Any, Iterator

HERE = os.path.dirname(os.path.abspath(__file__))


def flatten(suite: unittest.TestSuite) -> Iterator[unittest.TestCase]:
    for test in suite:
        if isinstance(test, unittest.TestSuite):
            yield from flatten(test)
        else:
            yield test


class Recording(unittest.TextTestResult):
    entries: list[dict[str, Any]] = []

    def startTest(self, test: unittest.TestCase) -> None:  # noqa: N802
        self._started = time.monotonic()
        self._outcome = ("ok", "")
        super().startTest(test)

    def addFailure(self, test: unittest.TestCase, err: Any) -> None:  # noqa: N802
        super().addFailure(test, err)
        self._outcome = ("failure", self._exc_info_to_string(err, test))

    def addError(self, test: unittest.TestCase, err: Any) -> None:  # noqa: N802
        super().addError(test, err)
        self._outcome = ("error", self._exc_info_to_string(err, test))

    def addSkip(self, test: unittest.TestCase, reason: str) -> None:  # noqa: N802
        super().addSkip(test, reason)
        self._outcome = ("skipped", reason)

    def stopTest(self, test: unittest.TestCase) -> None:  # noqa: N802
        outcome, detail = self._outcome
        Recording.entries.append({"id": test.id(), "outcome": outcome, "seconds": round(time.monotonic() - self._started, 3), "detail": detail})
        super().stopTest(test)


def main() -> int:
    if sys.version_info < (3, 10):
        print(f"the idemgate SDK needs Python >= 3.10, this is {sys.version.split()[0]}", file=sys.stderr)
        return 3
    parser = argparse.ArgumentParser()
    parser.add_argument("pattern", nargs="?", default="test*.py")
    parser.add_argument("--list", action="store_true")
    parser.add_argument("--json")
    options = parser.parse_args()
    suite = unittest.defaultTestLoader.discover(HERE, pattern=options.pattern, top_level_dir=HERE)
    if options.list:
        print(json.dumps([test.id() for test in flatten(suite)]))
        return 0
    result = unittest.TextTestRunner(resultclass=Recording, verbosity=1, stream=sys.stderr).run(suite)
    report = {
        "run": result.testsRun,
        "failures": len(result.failures),
        "errors": len(result.errors),
        "skipped": len(result.skipped),
        "tests": Recording.entries,
    }
    if options.json:
        with open(options.json, "w", encoding="utf-8") as out:
            json.dump(report, out)
    return 0 if result.wasSuccessful() and not result.skipped else 1


if __name__ == "__main__":
    sys.exit(main())
