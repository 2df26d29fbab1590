"""`python -m bench` entry point (bench/run execs this)."""
import sys

from bench.lib.cli import main

sys.exit(main())
