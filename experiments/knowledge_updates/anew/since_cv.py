"""Issue 31, "A value named first since the best-ranked statement" (README): leave one conversation out between the
product (``PRODUCT_PREFIX``) and the variant (``VARIANT_PREFIX``), runs ``{prefix}_{train1,dev1,train10,dev10}`` with
``--keep-text``, ``anew_cv.py``'s objective (lines added counted against the product); a tie to the product.

    python3 experiments/knowledge_updates/anew/since_cv.py PRODUCT_PREFIX VARIANT_PREFIX
"""

import sys

from anew_cv import KEYS, objective, outcome, rows


def main(product: str, variant: str) -> None:
    base = {k: rows(f"{product}_{k}") for k in KEYS}
    got = {}
    for name, prefix in (("product", product), ("variant", variant)):
        for k in KEYS:
            got[name, k] = outcome(rows(f"{prefix}_{k}"), base[k])
    convs = sorted(got["product", "train1"])
    chose = []
    for c in convs:
        rest = [x for x in convs if x != c]
        best = max(("product", "variant"), key=lambda g: (round(objective(got, g, rest), 9), g == "product"))
        chose.append(best)
        print(f"fold {c}: chose {best}")
    for g in ("product", "variant"):
        per = {k: [sum(got[g, k][c][i] for c in convs) for i in range(6)] for k in KEYS}
        print(g, round(objective(got, g, convs), 4),
              "  ".join(f"{k} {p[0]:.0f}/{p[1]:.0f},{p[3]:.0f} +{p[5] / (p[2] + p[4]):.2f}l" for k, p in per.items()))
    print("most folds:", max(set(chose), key=chose.count))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
