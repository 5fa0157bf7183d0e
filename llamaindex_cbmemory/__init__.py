"""LlamaIndex adapter for cbmemory (retriever, chat-memory adapter, memory block, embeddings). Imports LlamaIndex."""
