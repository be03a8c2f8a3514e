#!/usr/bin/env python3
"""Writes two llama-architecture GGUF models with random weights, for the real-engine tests.

    python3 make-models.py OUT_DIR      -> OUT_DIR/target.gguf (312 MB), OUT_DIR/draft.gguf (20 MB)

Needs the `gguf` and `numpy` modules (Debian: python3-gguf, python3-numpy). The weights come from a
fixed seed, so every run writes the same models. setup.sh regenerates them when this file changes.

Tokenizer (both): SentencePiece ("llama") vocabulary of 32,000 tokens: <unk> <s> </s>, the 256 byte
tokens <0x00>..<0xFF> (type 6, byte fallback), then made-up syllable pieces ("▁ba", "ba", ...).

target.gguf: 8 blocks x 1024 wide, 16 query heads, 4 KV heads (head size 64), feed-forward 2816,
f16, 156 M parameters. About 50-85 generated tokens/s for one request with llama-server -t 1 on
this project's 2-core machines, fewer per request when 4 slots decode together.

draft.gguf: one block, 128 wide, and a true cut-down of the target, so that speculative decoding
(`-md draft.gguf --spec-type draft-simple`) accepts most drafted tokens at temperature 0:
  - The target's token_embd and output are rank 128: E·P and O·P, with P (128 x 1024) having
    orthonormal rows. The draft's token_embd and output are the factors E and O themselves, and
    its norm gains are sqrt(1024/128), so its logits equal the target's whenever the target's
    blocks add nothing.
  - The draft's block is the target's block 0 seen through P (attn_q = Wq·Pᵀ, attn_output =
    P·Wo, ffn_down = P·Wdown, ...; key/value length 64 as in the target), exact while the
    residual stream stays in P's span.
  - Block weights are small (LAYER_SCALE), so target blocks 1-7 only nudge the prediction: at
    0.007 about 75% of drafted tokens are accepted at temperature 0 (about 30% at 0.8). Larger
    scales accept fewer (0.012: about 34%); smaller ones make greedy output loop.
Sharing the full 1024-wide token_embd and output tensors instead (a draft of one 1024-wide block)
accepts about as much but costs a third of the target per token, which made the speculative server
2.5x slower than the plain one; the rank-128 draft costs about 4% of the target.
"""
import os
import sys

import gguf
import numpy as np

SEED = 20261201
VOCAB = 32000
WIDTH = 1024
BLOCKS = 8
HEADS = 16
KV_HEADS = 4
HEAD = WIDTH // HEADS
FF = 2816
RANK = 128  # width of the draft, rank of the target's token_embd and output
CONTEXT = 32768
OUT_SCALE = 0.2  # logits have a standard deviation of about OUT_SCALE * sqrt(WIDTH) = 6.4
LAYER_SCALE = 0.007


def vocabulary():
    tokens = [b"<unk>", b"<s>", b"</s>"]
    scores = [0.0, 0.0, 0.0]
    types = [gguf.TokenType.UNKNOWN, gguf.TokenType.CONTROL, gguf.TokenType.CONTROL]
    for b in range(256):
        tokens.append(f"<0x{b:02X}>".encode())
        scores.append(0.0)
        types.append(gguf.TokenType.BYTE)
    pieces = ["\u2581", ".", ",", "!", "?", "'", "-", ":"] + [f"\u2581{d}" for d in "0123456789"]
    syllables = [c + v for c in "bcdfghklmnprstvwz" for v in "aeiou"]
    words = syllables + [a + b for a in syllables for b in syllables]
    n = len(syllables)
    i = 0
    while len(tokens) + len(pieces) < VOCAB:
        if i < len(words):
            w = words[i]
        else:  # three syllables, enough for any vocabulary size used here
            j = i - len(words)
            w = syllables[j % n] + syllables[(j // n) % n] + syllables[j // n**2]
        pieces.append("\u2581" + w)
        if len(tokens) + len(pieces) < VOCAB:
            pieces.append(w)
        i += 1
    for k, p in enumerate(pieces):
        tokens.append(p.encode())
        scores.append(-float(k))
        types.append(gguf.TokenType.NORMAL)
    assert len(tokens) == VOCAB and len(set(tokens)) == VOCAB
    return tokens, scores, types


def random_block(rng):
    def w(rows, cols):
        return rng.standard_normal((rows, cols), dtype=np.float32) * LAYER_SCALE

    return {
        "attn_q.weight": w(HEADS * HEAD, WIDTH),
        "attn_k.weight": w(KV_HEADS * HEAD, WIDTH),
        "attn_v.weight": w(KV_HEADS * HEAD, WIDTH),
        "attn_output.weight": w(WIDTH, HEADS * HEAD),
        "ffn_gate.weight": w(FF, WIDTH),
        "ffn_up.weight": w(FF, WIDTH),
        "ffn_down.weight": w(WIDTH, FF),
    }


def projected_block(b, p):
    """Block b of the 1024-wide target as a block of a RANK-wide model whose stream is x·P."""
    out = {}
    for k, v in b.items():
        # Tensors reading the stream take P's transpose on the right; those writing it, P on the left.
        out[k] = p @ v if k in ("attn_output.weight", "ffn_down.weight") else v @ p.T
    return out


def write(path, name, width, blocks, embd, output, gain, vocab):
    tmp = path + ".tmp"
    w = gguf.GGUFWriter(tmp, "llama")
    w.add_name(name)
    w.add_context_length(CONTEXT)
    w.add_embedding_length(width)
    w.add_block_count(len(blocks))
    w.add_feed_forward_length(FF)
    w.add_head_count(HEADS)
    w.add_head_count_kv(KV_HEADS)
    w.add_key_length(HEAD)
    w.add_value_length(HEAD)
    w.add_rope_dimension_count(HEAD)
    w.add_rope_freq_base(10000.0)
    w.add_layer_norm_rms_eps(1e-5)
    w.add_file_type(gguf.LlamaFileType.MOSTLY_F16)
    tokens, scores, types = vocab
    w.add_tokenizer_model("llama")
    w.add_token_list(tokens)
    w.add_token_scores(scores)
    w.add_token_types(types)
    w.add_bos_token_id(1)
    w.add_eos_token_id(2)
    w.add_unk_token_id(0)
    w.add_add_bos_token(True)
    w.add_add_eos_token(False)
    norm = np.full(width, gain, dtype=np.float32)
    w.add_tensor("token_embd.weight", embd.astype(np.float16))
    for i, b in enumerate(blocks):
        w.add_tensor(f"blk.{i}.attn_norm.weight", norm)
        w.add_tensor(f"blk.{i}.ffn_norm.weight", norm)
        for k, v in b.items():
            w.add_tensor(f"blk.{i}.{k}", v.astype(np.float16))
    w.add_tensor("output_norm.weight", norm)
    w.add_tensor("output.weight", output.astype(np.float16))
    w.write_header_to_file()
    w.write_kv_data_to_file()
    w.write_tensors_to_file()
    w.close()
    os.replace(tmp, path)
    print(f"wrote {path}: {len(blocks)} x {width}, {os.path.getsize(path) / 1e6:.0f} MB", flush=True)


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: make-models.py OUT_DIR")
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    rng = np.random.default_rng(SEED)
    vocab = vocabulary()
    e = rng.standard_normal((VOCAB, RANK), dtype=np.float32)
    o = rng.standard_normal((VOCAB, RANK), dtype=np.float32) * OUT_SCALE
    q, _ = np.linalg.qr(rng.standard_normal((WIDTH, RANK)).astype(np.float32))
    p = q.T  # RANK x WIDTH, orthonormal rows
    blocks = [random_block(rng) for _ in range(BLOCKS)]
    write(os.path.join(out, "target.gguf"), "k6-llm-bench target", WIDTH, blocks, e @ p, o @ p, 1.0, vocab)
    # RMS norm of x in RANK dimensions is sqrt(WIDTH/RANK) times that of x·P in WIDTH dimensions.
    gain = float(np.sqrt(WIDTH / RANK))
    write(os.path.join(out, "draft.gguf"), "k6-llm-bench draft", RANK, [projected_block(blocks[0], p)], e, o, gain, vocab)


if __name__ == "__main__":
    main()
