"""Everything a suite needs from the command line and the setup, in one place."""
import argparse
from dataclasses import dataclass, field
from pathlib import Path

from . import conn as pgconn
from .kinds import Kind
from .results import Results
from .runner import Mode


@dataclass
class Context:
    args: argparse.Namespace
    dbname: str
    admin: object                    # autocommit connection to the bench database
    extension_reason: str | None     # why storage_engine is missing, or None
    kinds: list[Kind]                # kinds asked for (heap first); availability is per suite
    modes: list[Mode]
    work_dir: Path                   # scratch files (CSV export, DuckDB files); removed at the end
    duckdb_reason: str | None        # why DuckDB cannot run, or None
    results: Results = field(default_factory=Results)

    def connect(self):
        return pgconn.connect(self.dbname)

    @property
    def pg_kinds(self) -> list[Kind]:
        return [k for k in self.kinds if k.am is not None]

    @property
    def want_duckdb(self) -> bool:
        return any(k.am is None for k in self.kinds)
