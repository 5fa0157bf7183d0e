"""LangChain adapter for cbmemory (middleware, retriever, LangGraph store, chat history). Imports LangChain."""
