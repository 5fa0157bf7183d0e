"""Running a notebook top to bottom in a fresh kernel for the tests (shared by the notebook tests of
the integration and eval tiers; a helper, not a test module).

The kernel talks to the test over unix-domain sockets (ZMQ ipc), so no TCP port is opened and pytest-socket
stays on. A real LLM is never used: the API key and base URL are removed from the kernel's environment. The
kernel runs in notebooks/, as Jupyter runs it, so a notebook imports the modules beside it
(``scripted_chat_model``).
"""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def run_notebook(name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *, timeout: int = 120,
                 env: dict[str, str] | None = None) -> tuple[object, str]:
    """Execute ``notebooks/<name>``; return the executed notebook and the text of all its outputs."""
    nbformat = pytest.importorskip("nbformat", reason="executing notebooks needs nbformat (dev extra)")
    nbclient = pytest.importorskip("nbclient", reason="executing notebooks needs nbclient (dev extra)")
    pytest.importorskip("ipykernel", reason="executing notebooks needs ipykernel (dev extra)")
    from jupyter_client.manager import KernelManager

    for key, value in (env or {}).items():
        monkeypatch.setenv(key, value)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    monkeypatch.setenv("JUPYTER_RUNTIME_DIR", str(tmp_path / "runtime"))
    # the kernel's temporary files (a notebook's mkdtemp: its memory file, an evaluation's stores) go with the test's
    # folder: else each run left three folders of up to 6 MB in the machine's /tmp
    (tmp_path / "tmp").mkdir()
    monkeypatch.setenv("TMPDIR", str(tmp_path / "tmp"))
    folder = ROOT / "notebooks"  # the kernel starts in the notebook's folder, as Jupyter starts it
    nb = nbformat.read(folder / name, as_version=4)
    km = KernelManager(kernel_name="python3", transport="ipc", ip=str(tmp_path / "kernel"))
    resources = {"metadata": {"path": str(folder)}}
    try:
        nbclient.NotebookClient(nb, km=km, timeout=timeout, resources=resources).execute()
    finally:  # a kernel manager passed in is the caller's to stop: else each kernel lives on till pytest exits
        if km.has_kernel:
            km.shutdown_kernel(now=True)
    outputs = "\n".join(o.get("text", "") for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", []))
    return nb, outputs


def cell_outputs(nb) -> list[str]:
    """What each code cell shows, as text: its streams joined (how a stream is cut into chunks varies from
    run to run), its results' plain text, and ``<image/png>`` for an image (its bytes vary with the library)."""
    shown = []
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        parts = []
        for o in cell.get("outputs", []):
            if o.get("output_type") == "stream":
                parts.append(o.get("text", ""))
            elif o.get("output_type") == "error":
                parts.append(f"<error {o.get('ename')}>")
            else:
                data = o.get("data", {})
                parts.append("<image/png>" if "image/png" in data else data.get("text/plain", ""))
        shown.append("".join(parts))
    return shown


def assert_committed_outputs(nb, name: str) -> None:
    """The notebook in the repository shows what this offline run showed (``scripts/run_notebooks.py``
    writes them), with no path of the machine it ran on."""
    nbformat = pytest.importorskip("nbformat")
    committed = nbformat.read(ROOT / "notebooks" / name, as_version=4)
    kept = cell_outputs(committed)
    assert all(cell.get("execution_count") for cell in committed.cells if cell.cell_type == "code"), \
        f"notebooks/{name} is committed unexecuted: run python scripts/run_notebooks.py {name}"
    assert not [text for text in kept if any(p in text for p in ("/work/", "/tmp/", "/home/", "/root/"))]
    # A figure can move with no code changed: the int8 embedder's kernels round differently by CPU (with or without
    # AVX-512 VNNI) and onnxruntime release; the notebook's bm25 recall@10 is 0.849 on some machines, 0.855 on others.
    assert kept == cell_outputs(nb), (f"notebooks/{name}'s committed outputs are not what it shows now: "
                                      f"run python scripts/run_notebooks.py {name} (on the machine CI runs on: "
                                      "the embedder's int8 results differ by CPU and onnxruntime release)")
