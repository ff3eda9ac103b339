"""BM25 reference scores (step 2 of 2, see scripts/dump-bm25-corpus.ts): bm25s's Lucene BM25
(k1 = 0.9, b = 0.4, Pyserini's defaults, SWE-bench's retrieval baseline) over midpack's own terms,
so only the scoring is compared. Lucene leaves out BM25's constant (k1 + 1) factor; midpack keeps
it, so the expected scores are bm25s's times (k1 + 1).

    python3 scripts/bm25-reference.py /tmp/bm25-corpus.json
"""
import json
import sys

import bm25s

K1, B = 0.9, 0.4
corpus = json.load(open(sys.argv[1]))
docs = [d["terms"] for d in corpus["docs"]]
retriever = bm25s.BM25(k1=K1, b=B, method="lucene", idf_method="lucene")
retriever.index(docs, show_progress=False)
out = {"bm25s": bm25s.__version__, "k1": K1, "b": B, "queries": []}
for q in corpus["queries"]:
    scores = retriever.get_scores(q["terms"])
    ranked = sorted(((float(s) * (K1 + 1), corpus["docs"][i]["path"]) for i, s in enumerate(scores) if s > 0), key=lambda x: (-x[0], x[1]))
    out["queries"].append({"commit": q["commit"], "top": [{"path": p, "score": round(s, 6)} for s, p in ranked[:8]]})
json.dump(out, open("test/fixtures/bm25/expected.json", "w"), indent=1)
print("wrote test/fixtures/bm25/expected.json", file=sys.stderr)
