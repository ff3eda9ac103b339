"""Load midpack's Arrow shards with Hugging Face datasets (pip install datasets).

    python hf_load.py [OUT/shards]      (default: out/demo/shards, what `npm run demo` writes)

Every row is one packed bin: input_ids (exactly L tokens), loss_mask (1 = trained on,
0 on masked and padding tokens), doc_lens, doc_ids, doc_kinds, doc_sources and doc_offsets (the token
start of each unit in its source document: non-zero means the unit is a later chunk of a
longer document).
"""

import os
import sys

from datasets import Dataset, load_from_disk

# The demo's output, found from this file so it works from any folder.
DEMO_SHARDS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "out", "demo", "shards")
shards = sys.argv[1] if len(sys.argv) > 1 else DEMO_SHARDS

ds = load_from_disk(shards)  # reads state.json and dataset_info.json, memory-maps the shards
print(ds)
print(ds.features)

row = ds[0]
tokens = sum(row["doc_lens"])
print(f"bin 0: {len(row['input_ids'])} tokens, {tokens} of them documents, {sum(row['loss_mask'])} trained on")
for doc_id, kind, length, offset in zip(row["doc_ids"], row["doc_kinds"], row["doc_lens"], row["doc_offsets"]):
    print(f"  {doc_id} {kind} {length} tokens{' (continues a document)' if offset else ''}")

# For a training loop: numpy (or torch) columns without Python lists.
ds_np = ds.with_format("numpy", columns=["input_ids", "loss_mask"])
batch = ds_np[:2]
print("input_ids batch shape:", batch["input_ids"].shape)

# One shard alone opens too (features come from the shard's schema metadata).
one = Dataset.from_file(ds.cache_files[0]["filename"])
print("first shard rows:", one.num_rows)
