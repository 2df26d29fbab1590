"""Modules of the benchmark kit, one concern each (see bench/README.md, "Layout")."""
