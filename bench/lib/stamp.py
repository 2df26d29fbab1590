"""Who, where and what a run measured: commit, server, settings, machine.

Every CSV row carries these stamps so a file read on its own still says what
it is.  Machine facts are the client's; with the project's local cluster
that is also the server's machine.
"""
import os
import platform
import subprocess

from .conn import REPO_ROOT

SERVER_SETTINGS = ("shared_buffers", "work_mem", "maintenance_work_mem", "effective_cache_size",
                   "max_worker_processes", "max_parallel_workers",
                   "max_parallel_workers_per_gather", "jit", "shared_preload_libraries",
                   "huge_pages", "huge_pages_status")


def _git(*args) -> str:
    """Read-only git: GIT_OPTIONAL_LOCKS=0 keeps `git status` from refreshing
    (writing) the index while someone else may be committing."""
    env = {**os.environ, "GIT_OPTIONAL_LOCKS": "0"}
    try:
        return subprocess.run(["git", "-C", str(REPO_ROOT), *args], capture_output=True,
                              text=True, timeout=20, check=True, env=env).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return ""


def commit() -> str:
    """Commit hash (short) with +dirty when the work tree has changes; read-only git."""
    head = _git("rev-parse", "--short=12", "HEAD") or "no-commit"
    dirty = _git("status", "--porcelain", "--untracked-files=no")
    return head + ("+dirty" if dirty else "")


def machine() -> dict:
    mem_kb = 0
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemTotal:"):
                    mem_kb = int(line.split()[1])
    except OSError:
        pass
    cpu = platform.processor()
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return {"cores": os.cpu_count() or 1, "memory_gib": round(mem_kb / 1048576, 1),
            "cpu": cpu, "os": f"{platform.system()} {platform.release()}",
            "python": platform.python_version()}


def server(conn) -> dict:
    info = {"server_version": conn.execute("SHOW server_version").fetchone()[0],
            "version": conn.execute("SELECT version()").fetchone()[0],
            "jit_available": conn.execute("SELECT pg_jit_available()").fetchone()[0]}
    for name in SERVER_SETTINGS:
        row = conn.execute("SELECT current_setting(%s, true)", (name,)).fetchone()
        info[name] = row[0] if row else None
    return info
