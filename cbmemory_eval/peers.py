"""What a user would otherwise pick, run on the same data, embedder and k as cbmemory's recipes.

- ``langchain_vector``: LangChain ``InMemoryVectorStore`` (cosine), ``as_retriever(k)``.
- ``langchain_ensemble``: that store plus ``BM25Retriever`` (langchain-community, rank_bm25, default
  whitespace preprocessing) in an ``EnsembleRetriever`` (weighted RRF, equal weights), cut to k.
- ``llamaindex_vector``: LlamaIndex ``VectorStoreIndex`` (default in-memory ``SimpleVectorStore``).
- ``llamaindex_fusion``: that index plus ``BM25Retriever`` (llama-index-retrievers-bm25: bm25s and
  PyStemmer) in a ``QueryFusionRetriever`` (reciprocal rerank, ``num_queries=1`` so no LLM is called).

Every peer indexes the same texts as cbmemory's default ingest (the date-anchored ``index_text`` of each
record) with the same MiniLM vectors (document vectors come from cbmemory's content-hash cache; query
vectors are computed per query, so peer latency includes the query embedding). The frameworks are imported
only when a peer is built; a missing one raises ``MissingDependencyError`` naming the package.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, cast

from cbmemory import MemoryRecord, MissingDependencyError

PEERS = ("langchain_vector", "langchain_ensemble", "llamaindex_vector", "llamaindex_fusion")
GROUPS = {"langchain": PEERS[:2], "llamaindex": PEERS[2:], "all": PEERS}
_PACKAGES = {
    "langchain_vector": ("langchain_core",),
    "langchain_ensemble": ("langchain_core", "langchain_community", "langchain_classic", "rank_bm25"),
    "llamaindex_vector": ("llama_index.core",),
    "llamaindex_fusion": ("llama_index.core", "llama_index.retrievers.bm25"),
}
_PIP = {"langchain_community": "langchain-community", "langchain_classic": "langchain-classic",
        "llama_index.retrievers.bm25": "llama-index-retrievers-bm25", "llama_index.core": "llama-index-core",
        "langchain_core": "langchain-core", "rank_bm25": "rank-bm25"}


def expand(names: Sequence[str]) -> tuple[str, ...]:
    """Peer names from a list that may use the groups ``langchain``, ``llamaindex`` and ``all``."""
    out: list[str] = []
    for n in names:
        for p in GROUPS.get(n, (n,)):
            if p not in PEERS:
                raise ValueError(f"unknown peer {p!r}; known: {', '.join(PEERS)} (or {', '.join(GROUPS)})")
            out.append(p)
    return tuple(dict.fromkeys(out))


def missing_packages(name: str) -> list[str]:
    """The pip packages a peer needs that are not installed."""
    import importlib.util

    out = []
    for mod in _PACKAGES[name]:
        try:
            found = importlib.util.find_spec(mod) is not None
        except ModuleNotFoundError:
            found = False
        if not found:
            out.append(_PIP[mod])
    return out


class _Vectors:
    """cbmemory's embedders seen through the frameworks' interfaces (documents cached, queries not)."""

    def __init__(self, documents: Any, queries: Any):
        self.documents, self.queries = documents, queries

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return self.documents.embed(texts).tolist() if texts else []

    def embed_query(self, text: str) -> list[float]:
        return self.queries.embed_query(text).tolist()


def _langchain_embeddings(vectors: _Vectors):
    from langchain_core.embeddings import Embeddings

    class CbMemoryEmbeddings(Embeddings):
        def embed_documents(self, texts: list[str]) -> list[list[float]]:
            return vectors.embed_documents(texts)

        def embed_query(self, text: str) -> list[float]:
            return vectors.embed_query(text)

    return CbMemoryEmbeddings()


def _llamaindex_embedding(vectors: _Vectors):
    from llama_index.core.base.embeddings.base import BaseEmbedding

    class CbMemoryEmbedding(BaseEmbedding):
        def _get_query_embedding(self, query: str) -> list[float]:
            return vectors.embed_query(query)

        async def _aget_query_embedding(self, query: str) -> list[float]:
            return vectors.embed_query(query)

        def _get_text_embedding(self, text: str) -> list[float]:
            return vectors.embed_documents([text])[0]

        def _get_text_embeddings(self, texts: list[str]) -> list[list[float]]:
            return vectors.embed_documents(texts)

    return CbMemoryEmbedding(model_name="cbmemory-minilm", embed_batch_size=256)


Search = Callable[[str, int], list[str]]  # (query, k) -> record ids, best first


def _langchain(name: str, records: Sequence[MemoryRecord], vectors: _Vectors) -> Search:
    from langchain_core.documents import Document
    from langchain_core.vectorstores import InMemoryVectorStore

    docs = [Document(page_content=r.index_text, id=r.record_id, metadata={"record_id": r.record_id})
            for r in records]
    store = InMemoryVectorStore(_langchain_embeddings(vectors))
    store.add_documents(docs)
    vector = store.as_retriever(search_kwargs={"k": 10})
    if name == "langchain_vector":
        def search(query: str, k: int) -> list[str]:
            vector.search_kwargs = {"k": k}
            return [d.metadata["record_id"] for d in vector.invoke(query)]
        return search
    import warnings

    from langchain_classic.retrievers import EnsembleRetriever

    with warnings.catch_warnings():  # langchain-community announces its sunset on import
        warnings.simplefilter("ignore", DeprecationWarning)
        from langchain_community.retrievers import BM25Retriever

    bm25 = BM25Retriever.from_documents(docs, k=10)
    ensemble = EnsembleRetriever(retrievers=[vector, bm25], weights=[0.5, 0.5], id_key="record_id")

    def fused(query: str, k: int) -> list[str]:
        vector.search_kwargs = {"k": k}
        bm25.k = k
        return [d.metadata["record_id"] for d in ensemble.invoke(query)][:k]
    return fused


def _llamaindex(name: str, records: Sequence[MemoryRecord], vectors: _Vectors) -> Search:
    from llama_index.core import VectorStoreIndex
    from llama_index.core.retrievers import VectorIndexRetriever
    from llama_index.core.schema import TextNode

    nodes = [TextNode(text=r.index_text, id_=r.record_id) for r in records]
    index = VectorStoreIndex(nodes, embed_model=_llamaindex_embedding(vectors), show_progress=False)
    # declared as a BaseRetriever; a VectorStoreIndex's retriever is a VectorIndexRetriever (similarity_top_k)
    vector = cast(VectorIndexRetriever, index.as_retriever(similarity_top_k=10))
    if name == "llamaindex_vector":
        def search(query: str, k: int) -> list[str]:
            vector.similarity_top_k = k
            return [n.node.node_id for n in vector.retrieve(query)]
        return search
    from llama_index.core.llms import MockLLM
    from llama_index.core.retrievers import QueryFusionRetriever
    from llama_index.core.retrievers.fusion_retriever import FUSION_MODES
    from llama_index.retrievers.bm25 import BM25Retriever

    bm25 = BM25Retriever.from_defaults(nodes=nodes, similarity_top_k=min(10, len(nodes)))
    fusion = QueryFusionRetriever([vector, bm25], llm=MockLLM(), mode=FUSION_MODES.RECIPROCAL_RANK, num_queries=1,
                                  similarity_top_k=10, use_async=False)

    def fused(query: str, k: int) -> list[str]:
        vector.similarity_top_k = k
        bm25.similarity_top_k = min(k, len(nodes))
        fusion.similarity_top_k = k
        return [n.node.node_id for n in fusion.retrieve(query)][:k]
    return fused


def build_peer(name: str, records: Sequence[MemoryRecord], *, documents: Any, queries: Any) -> Search:
    """A search function of peer ``name`` over ``records``. ``documents`` embeds texts (cbmemory's
    ``CachedEmbedder`` bound to the store, so stored vectors are reused); ``queries`` embeds queries."""
    missing = missing_packages(name)
    if missing:
        raise MissingDependencyError(f"peer {name} needs {', '.join(missing)}: pip install {' '.join(missing)}")
    vectors = _Vectors(documents, queries)
    if name.startswith("langchain"):
        return _langchain(name, records, vectors)
    return _llamaindex(name, records, vectors)
