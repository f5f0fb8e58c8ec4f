"""Runs the suites like `python -m unittest discover`, then lists the slowest tests (3.11 has no --durations)."""

import sys
import time
import unittest


class Timed(unittest.TextTestResult):
    durations: list = []

    def startTest(self, test):  # noqa: N802
        self._t = time.monotonic()
        super().startTest(test)

    def stopTest(self, test):  # noqa: N802
        Timed.durations.append((time.monotonic() - self._t, test.id()))
        super().stopTest(test)


if __name__ == "__main__":
    pattern = sys.argv[1] if len(sys.argv) > 1 else "test*.py"
    suite = unittest.defaultTestLoader.discover("tests", pattern=pattern)
    result = unittest.TextTestRunner(resultclass=Timed, verbosity=1).run(suite)
    for seconds, name in sorted(Timed.durations, reverse=True)[:12]:
        print(f"{seconds:6.2f} s  {name}")
    sys.exit(0 if result.wasSuccessful() else 1)
