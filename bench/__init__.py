"""storage_engine benchmark kit: the seed's events benchmark and TPC-H, see bench/README.md."""
