"""A local Hugging Face tokenizer that counts tokens by the simulator's rule (sim/tokenizer.ts).

The peers need a tokenizer to build prompts of a given length (and some to count output tokens),
and they load it with transformers' AutoTokenizer; no hub is reachable from here, so this writes
one to a folder: a word-level model whose pre-tokenizer is the simulator's rule (the three special
tokens; a run of up to 6 letters/digits with its leading whitespace; one other symbol with its
leading whitespace; trailing whitespace), so a text's token count is the simulator's prompt_tokens.
Its vocabulary is the pieces of the given text files (the peers' own prompt corpora) plus the
simulator's output syllables, so prompts decode to readable text.

    python make-tokenizer.py OUT_DIR [TEXT_FILE ...]
"""

import gzip
import json
import sys
from collections import Counter
from pathlib import Path

import regex
from tokenizers import Regex, Tokenizer, decoders, models, pre_tokenizers

SPECIALS = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]
RULE = r"<\|im_start\|>|<\|im_end\|>|<\|endoftext\|>|\s*[\p{L}\p{N}]{1,6}|\s*[^\s\p{L}\p{N}]|\s+"
SYLLABLES = "ka ri to na me su lo ve di pa ne mo ta ki ru sa le po mi da no fe zu ba ro ti gu la se vo hi".split()
VOCAB_SIZE = 60000


def read_text(path: Path) -> str:
    data = path.read_bytes()
    if path.suffix == ".gz":
        data = gzip.decompress(data)
    return data.decode("utf-8", errors="ignore")


def main() -> None:
    out = Path(sys.argv[1])
    counts: Counter[str] = Counter()
    for name in sys.argv[2:]:
        counts.update(m.group(0) for m in regex.finditer(RULE, read_text(Path(name))))
    # Every printable ASCII character alone and after a space: punctuation the corpora lack still decodes.
    for ch in map(chr, range(33, 127)):
        counts[ch] += 1
        counts[" " + ch] += 1
    for a in SYLLABLES:
        for b in [""] + SYLLABLES:
            counts[" " + a + b] += 1
            counts[a + b] += 1
    vocab = {"<unk>": 0}
    for s in SPECIALS:
        vocab[s] = len(vocab)
    for piece, _ in counts.most_common():
        if len(vocab) >= VOCAB_SIZE:
            break
        vocab.setdefault(piece, len(vocab))
    tok = Tokenizer(models.WordLevel(vocab=vocab, unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.Split(Regex(RULE), behavior="isolated")
    # The pieces carry their own whitespace: decoding joins them as they are.
    tok.decoder = decoders.Fuse()
    tok.add_special_tokens(SPECIALS)
    out.mkdir(parents=True, exist_ok=True)
    tok.save(str(out / "tokenizer.json"))
    config = {
        "tokenizer_class": "PreTrainedTokenizerFast",
        "model_max_length": 32768,
        "unk_token": "<unk>",
        "eos_token": "<|im_end|>",
        "bos_token": None,
        "pad_token": "<|endoftext|>",
        "clean_up_tokenization_spaces": False,
    }
    (out / "tokenizer_config.json").write_text(json.dumps(config, indent=1))
    (out / "special_tokens_map.json").write_text(json.dumps({"eos_token": "<|im_end|>", "unk_token": "<unk>", "pad_token": "<|endoftext|>"}))
    print(f"tokenizer: {len(vocab)} pieces in {out}")


if __name__ == "__main__":
    main()
