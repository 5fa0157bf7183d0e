"""One bench measurement in a fresh interpreter (``python -m cbmemory_eval.bench.worker TASK JSON``), so each
reading of peak memory is its own and a peer over its time cap can be stopped: the worker prints its typed row
(``bench.rows``) as JSON on its last stdout line, and ``run_worker`` reads it back.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections.abc import Callable, Mapping
from pathlib import Path

from .rows import R

Spec = Mapping[str, object]  # a worker task's argument, passed as JSON


def _env() -> dict[str, str]:
    src = str(Path(__file__).resolve().parents[2])  # the directory holding the cbmemory_eval package
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([src, *filter(None, [env.get("PYTHONPATH")])])
    return env


class WorkerTimeout(Exception):
    pass


def run_worker(task: str, spec: Spec, row: type[R], timeout: float | None = None,
               progress: Callable[[str], None] | None = None) -> R:
    """Run one measurement in a fresh interpreter; its last stdout line is the result, read as a ``row``.
    With ``progress``, the worker's ``[bench]`` stderr lines are passed to it as they come."""
    argv = [sys.executable, "-m", "cbmemory_eval.bench.worker", task, json.dumps(spec)]
    if progress is None:
        try:
            proc = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, env=_env())
        except subprocess.TimeoutExpired as exc:
            raise WorkerTimeout(f"{task} ran past {timeout:.0f} s") from exc
        stdout, stderr, rc = proc.stdout, proc.stderr, proc.returncode
    else:
        with subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=_env()) as p:
            tail: list[str] = []

            def relay() -> None:
                assert p.stderr is not None
                for line in p.stderr:
                    if line.startswith("[bench]"):
                        progress(line.rstrip("\n"))
                    tail.append(line)
                    del tail[:-200]
            reader = threading.Thread(target=relay, daemon=True)
            reader.start()
            timer = threading.Timer(timeout, p.kill) if timeout else None
            if timer:
                timer.start()
            try:
                assert p.stdout is not None
                stdout = p.stdout.read()
                rc = p.wait()
            finally:
                if timer:
                    timer.cancel()
            reader.join()
            stderr = "".join(tail)
            if timer and rc < 0 and timer.finished.is_set():
                raise WorkerTimeout(f"{task} ran past {timeout:.0f} s")
    if rc != 0:
        raise RuntimeError(f"bench worker {task} failed:\n{stderr[-4000:]}")
    return row.from_json(json.loads(stdout.strip().splitlines()[-1]))


__all__ = ["Spec", "WorkerTimeout", "run_worker"]
