#!/usr/bin/env python3
"""Writes two tiny LoRA adapters for make-models.py's target, for the ADAPTERS real-engine test.

    python3 make-lora.py OUT_DIR   -> OUT_DIR/lora-sql.gguf, OUT_DIR/lora-chat.gguf (about 0.3 MB each)

llama.cpp's adapter format (GGUF, general.type "adapter", adapter.type "lora", adapter.lora.alpha),
architecture "llama" as the target's. Each adapts attn_q and attn_v of every block at rank 4:
`blk.N.attn_q.weight.lora_a` is rank x in (ggml: ne = [in, rank]), `.lora_b` out x rank (ne =
[rank, out]), as llama.cpp checks them against the model's tensor. Random weights from a fixed
seed: they change the logits a little, which is all a load test needs (that the server applies the
adapter the request names, and counts its tokens). Needs `gguf` and `numpy`, as make-models.py.
"""
import os
import sys

import gguf
import numpy as np

SEED = 20261207
WIDTH = 1024
BLOCKS = 8
HEADS = 16
KV_HEADS = 4
HEAD = WIDTH // HEADS
RANK = 4
ALPHA = 8.0
SCALE = 0.01


def write(path, name, rng):
    tmp = path + ".tmp"
    w = gguf.GGUFWriter(tmp, "llama")
    w.add_name(name)
    w.add_type("adapter")
    w.add_string("adapter.type", "lora")
    w.add_float32("adapter.lora.alpha", ALPHA)
    for i in range(BLOCKS):
        for t, out in (("attn_q", HEADS * HEAD), ("attn_v", KV_HEADS * HEAD)):
            a = rng.standard_normal((RANK, WIDTH), dtype=np.float32) * SCALE
            b = rng.standard_normal((out, RANK), dtype=np.float32) * SCALE
            w.add_tensor(f"blk.{i}.{t}.weight.lora_a", a)
            w.add_tensor(f"blk.{i}.{t}.weight.lora_b", b)
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    os.replace(tmp, path)
    print(f"wrote {path}: rank {RANK}, {os.path.getsize(path) / 1e6:.1f} MB", flush=True)


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: make-lora.py OUT_DIR")
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    rng = np.random.default_rng(SEED)
    for name in ("sql", "chat"):
        write(os.path.join(out, f"lora-{name}.gguf"), f"k6-llm-bench lora {name}", rng)


if __name__ == "__main__":
    main()
