"""A Megatron-style dataset over midpack's packed bins, with midpack's loss mask and
document boundaries.

midpack writes three aligned Megatron-LM indexed datasets into OUT/megatron, one sequence
(and one document) per packed bin:

    NAME_text_document.bin/.idx        int32, exactly L tokens per bin (padding at the end)
    NAME_loss_mask_document.bin/.idx   uint8, exactly L per bin: 1 = the token is trained on
    NAME_doc_lens_document.bin/.idx    int32, the lengths of the documents in the bin

Megatron's own GPTDataset reads NAME_text_document alone: with seq_length = L and
GPTDatasetConfig(add_extra_token_to_sequence=False) its sample k is bin k, but it has no
per-token loss mask from data and finds document boundaries only from EOD tokens. This
class gives each sample what a packed-sequence training step needs:

    tokens        int64[L]  the bin
    labels        int64[L]  tokens shifted left by one; the last label is pad_id
    loss_mask     float32[L] loss_mask[t] = midpack_mask[t+1] (the label is trained on),
                            0 at the last token of each document (its label would be the
                            next document's first token) and at the last position
    position_ids  int64[L]  0, 1, ... restarting at every document (and for the padding)
    cu_seqlens    int32[D+1] document boundaries 0, len0, len0+len1, ..., L (the padding is
                            the last segment), for PackedSeqParams(qkv_format="thd") or
                            flash-attention varlen: no attention across documents

Document boundaries come from the doc_lens sidecar. Without it (an older output, or a
text dataset from elsewhere) pass eod_id and they are found from the EOD tokens instead,
as Megatron's reset_position_ids does; that is exact only when every document ends with
EOD and no EOD appears inside a document.

Only numpy is needed. torch is optional: with it, MidpackGPTDataset is a
torch.utils.data.Dataset and samples are tensors. Megatron-LM itself is not imported: the
index reader below follows the byte layout of megatron/core/datasets/indexed_dataset.py.

Use in Megatron-LM (sketch): return MidpackGPTDataset objects from the
train_valid_test_datasets_provider of pretrain_gpt.py, and in forward_step build
    PackedSeqParams(qkv_format="thd", cu_seqlens_q=cu, cu_seqlens_kv=cu,
                    max_seqlen_q=max_len, max_seqlen_kv=max_len)
from the batch's cu_seqlens (batch size 1 per micro-batch, or concatenate with offsets).

Command line: python midpack_dataset.py OUT/megatron NAME [INDEX]  prints one sample.
"""

from __future__ import annotations

import json
import os
import struct
import sys
from typing import Dict, Optional

import numpy as np

try:  # optional
    import torch
    from torch.utils.data import Dataset as _TorchDataset
except ImportError:  # pragma: no cover - depends on the machine
    torch = None
    _TorchDataset = object

INDEX_HEADER = b"MMIDIDX\x00\x00"
DTYPES = {1: np.uint8, 2: np.int8, 3: np.int16, 4: np.int32, 5: np.int64, 6: np.float64, 7: np.float32, 8: np.uint16}


class IndexedDataset:
    """Reads PREFIX.idx/.bin in Megatron-LM's layout (memory-mapped, as Megatron does)."""

    def __init__(self, prefix: str) -> None:
        self.prefix = prefix
        with open(prefix + ".idx", "rb") as f:
            if f.read(9) != INDEX_HEADER:
                raise ValueError(f"{prefix}.idx: not a Megatron index (bad header)")
            (version,) = struct.unpack("<Q", f.read(8))
            if version != 1:
                raise ValueError(f"{prefix}.idx: index version {version}, expected 1")
            (code,) = struct.unpack("<B", f.read(1))
            self.dtype = DTYPES[code]
            (self.sequence_count,) = struct.unpack("<Q", f.read(8))
            (self.document_count,) = struct.unpack("<Q", f.read(8))
            offset = f.tell()
        index = np.memmap(prefix + ".idx", mode="r", order="C")
        n, d = self.sequence_count, self.document_count
        self.sequence_lengths = np.frombuffer(index, dtype=np.int32, count=n, offset=offset)
        self.sequence_pointers = np.frombuffer(index, dtype=np.int64, count=n, offset=offset + 4 * n)
        self.document_indices = np.frombuffer(index, dtype=np.int64, count=d, offset=offset + 12 * n)
        size = os.path.getsize(prefix + ".bin")
        self._data = np.memmap(prefix + ".bin", mode="r", order="C") if size else np.zeros(0, np.uint8)

    def __len__(self) -> int:
        return self.sequence_count

    def __getitem__(self, i: int) -> np.ndarray:
        if not 0 <= i < self.sequence_count:
            raise IndexError(f"{self.prefix}: sequence {i} of {self.sequence_count}")
        return np.frombuffer(self._data, dtype=self.dtype, count=int(self.sequence_lengths[i]), offset=int(self.sequence_pointers[i]))


def doc_lens_from_eod(tokens: np.ndarray, eod_id: int) -> np.ndarray:
    """Document lengths from EOD tokens (each document ends with one); the rest is padding."""
    ends = np.flatnonzero(tokens == eod_id) + 1
    return np.diff(np.concatenate([[0], ends])).astype(np.int32)


def cu_seqlens(doc_lens: np.ndarray, seq_len: int) -> np.ndarray:
    """0, then the cumulative document ends, then seq_len when the bin ends with padding."""
    ends = np.cumsum(doc_lens, dtype=np.int64)
    if ends.size and ends[-1] > seq_len:
        raise ValueError(f"documents of {int(ends[-1])} tokens in a bin of {seq_len}")
    bounds = np.concatenate([[0], ends])
    if bounds[-1] < seq_len:
        bounds = np.concatenate([bounds, [seq_len]])
    return bounds.astype(np.int32)


def position_ids(bounds: np.ndarray, seq_len: int) -> np.ndarray:
    """Positions restarting at every segment start."""
    starts = np.zeros(seq_len, dtype=np.int64)
    segment_starts = bounds[:-1].astype(np.int64)
    starts[segment_starts] = np.diff(np.concatenate([[0], segment_starts]))
    return np.arange(seq_len, dtype=np.int64) - np.cumsum(starts)


def make_sample(tokens: np.ndarray, mask: np.ndarray, doc_lens: np.ndarray, pad_id: int) -> Dict[str, np.ndarray]:
    """One training sample from one bin (the pure part of the dataset; see the module doc)."""
    seq_len = tokens.shape[0]
    if mask.shape[0] != seq_len:
        raise ValueError(f"loss mask of {mask.shape[0]} for {seq_len} tokens")
    tokens = tokens.astype(np.int64)
    labels = np.empty_like(tokens)
    labels[:-1] = tokens[1:]
    labels[-1] = pad_id
    loss = np.zeros(seq_len, dtype=np.float32)
    loss[:-1] = mask[1:]
    ends = np.cumsum(doc_lens, dtype=np.int64)
    loss[ends[(ends >= 1) & (ends <= seq_len)] - 1] = 0.0
    bounds = cu_seqlens(doc_lens, seq_len)
    return {
        "tokens": tokens,
        "labels": labels,
        "loss_mask": loss,
        "position_ids": position_ids(bounds, seq_len),
        "cu_seqlens": bounds,
    }


class MidpackGPTDataset(_TorchDataset):
    """Samples of midpack's bins: sample k is bin k (no shuffling here; Megatron's
    samplers or a DataLoader's shuffle can do it)."""

    def __init__(self, megatron_dir: str, name: str, pad_id: int, eod_id: Optional[int] = None, as_torch: Optional[bool] = None) -> None:
        base = os.path.join(megatron_dir, name)
        self.text = IndexedDataset(base + "_text_document")
        self.mask = IndexedDataset(base + "_loss_mask_document")
        sidecar = base + "_doc_lens_document"
        self.doc_lens = IndexedDataset(sidecar) if os.path.exists(sidecar + ".idx") else None
        if self.doc_lens is None and eod_id is None:
            raise ValueError(f"{sidecar}.idx is missing: pass eod_id to find document boundaries from EOD tokens")
        if len(self.mask) != len(self.text) or (self.doc_lens is not None and len(self.doc_lens) != len(self.text)):
            raise ValueError(f"{base}: the text, loss mask and doc_lens datasets are not aligned")
        self.pad_id = pad_id
        self.eod_id = eod_id
        self.as_torch = (torch is not None) if as_torch is None else as_torch

    def __len__(self) -> int:
        return len(self.text)

    def __getitem__(self, i: int):
        tokens = self.text[i]
        lens = self.doc_lens[i] if self.doc_lens is not None else doc_lens_from_eod(tokens, self.eod_id)
        sample = make_sample(tokens, self.mask[i], lens, self.pad_id)
        if self.as_torch:
            return {k: torch.from_numpy(np.array(v)) for k, v in sample.items()}
        return sample


def manifest_pad_id(megatron_dir: str) -> int:
    """The tokenizer's pad id as the run recorded it: OUT/manifest.json beside OUT/megatron."""
    path = os.path.join(os.path.dirname(os.path.abspath(megatron_dir)), "manifest.json")
    with open(path, encoding="utf-8") as f:
        return int(json.load(f)["tokenizer"]["pad_id"])


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit("usage: python midpack_dataset.py OUT/megatron NAME [INDEX]")
    pad_id = manifest_pad_id(sys.argv[1])
    ds = MidpackGPTDataset(sys.argv[1], sys.argv[2], pad_id=pad_id, as_torch=False)
    k = int(sys.argv[3]) if len(sys.argv) > 3 else 0
    s = ds[k]
    print(f"{len(ds)} samples of {s['tokens'].shape[0]} tokens; pad id {pad_id} (from manifest.json); sample {k}:")
    print(f"  documents: {len(s['cu_seqlens']) - 1} segments, cu_seqlens {s['cu_seqlens'].tolist()}")
    print(f"  trained label positions: {int(s['loss_mask'].sum())}")
    print(f"  last label: {int(s['labels'][-1])}")
