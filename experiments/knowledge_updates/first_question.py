"""The first first-person question of a process: model calls and time, through a LangChain ``Embeddings`` that
takes LATENCY seconds a call (a stand-in for a hosted model's round trip; MiniLM behind it, ``embed_query`` being
``embed_documents`` of one text as ``OpenAIEmbeddings``' is: ``remote``), or with the offline MiniLM itself
(``minilm``). One embedder per process, so that its first question is the process's first.

    PYTHONPATH=shared:. .venv/bin/python experiments/knowledge_updates/first_question.py remote 0.05
    PYTHONPATH=shared:. .venv/bin/python experiments/knowledge_updates/first_question.py minilm
"""

import sys
import tempfile
import time
from pathlib import Path

from langchain_core.embeddings import Embeddings

from cbmemory import AgentMemory, LangChainEmbedder, Message
from cbmemory.embedding import MiniLMEmbedder

MINI = MiniLMEmbedder()


class Remote(Embeddings):
    model = "minilm-remote"

    def __init__(self, latency: float):
        self.latency, self.calls = latency, 0

    def embed_documents(self, texts):
        self.calls += 1
        time.sleep(self.latency)
        return MINI.embed(texts).tolist()

    def embed_query(self, text):
        return self.embed_documents([text])[0]


def main() -> None:
    label = sys.argv[1]
    remote = Remote(float(sys.argv[2]) if len(sys.argv) > 2 else 0.05)
    for emb in ([LangChainEmbedder(remote)] if label == "remote" else [MINI]):
        path = Path(tempfile.mkdtemp()) / "m.db"
        with AgentMemory.open(path, embedder=emb) as mem:
            mem.add_messages("u", "s1", [Message("user", "I moved to Porto last week.", "ana"),
                                         Message("assistant", "Nice!", "bot")], date="2024-03-01")
            mem.add_messages("u", "s2", [Message("user", "My job at the bakery starts Monday.", "ana"),
                                         Message("assistant", "Good luck!", "bot")], date="2024-03-08")
        with AgentMemory.open(path, embedder=emb) as mem:  # a new memory object: the process's caches as first
            remote.calls = 0
            t = time.perf_counter()
            first = mem.recall("Which city do I live in these days?", "u")
            took, calls = time.perf_counter() - t, remote.calls
            t = time.perf_counter()
            mem.recall("Where do I work now?", "u")
            again = time.perf_counter() - t
        counted = label != "minilm"
        print(f"{label}: first first-person recall {took:.2f} s, model calls {calls if counted else '-'}; "
              f"the next {again:.3f} s, calls {remote.calls - calls if counted else '-'}; Porto shown "
              f"{'Porto' in first.text}")


if __name__ == "__main__":
    main()
