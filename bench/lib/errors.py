"""Exceptions that decide the process exit code (see cli.main).

SetupError is anything that stops the benchmark before it can measure
(server unreachable, extension missing, generator not installed): exit 2.
Correctness failures are not exceptions: they are collected so a run reports
every mismatch at once, then exits 1.
"""


class SetupError(Exception):
    """The benchmark cannot run; the message says what to do."""


class ServerLost(Exception):
    """The server closed a connection in the middle of a query: it crashed or
    was restarted.  Counted as a correctness failure of the kind running the
    query (exit 1); the run stops, since every connection is gone."""
