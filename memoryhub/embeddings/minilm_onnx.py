"""all-MiniLM-L6-v2 as an ONNX graph built from the safetensors weights, run on onnxruntime.

The graph is written with `onnx.helper` from the same weights `minilm.NumpyBert` uses, so no exported model is
downloaded. It computes NumpyBert's forward pass (plus mean pooling and L2 normalisation as a second output)
and is optionally dynamically quantized to int8: on an AVX2 CPU ~1.6x faster for single queries and ~1.3x for
batches, with a cosine above 0.99 to the fp32 sentence embeddings.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

# Bump when the graph or the quantization recipe changes, and put it in cached model file names.
BUILD_VERSION = 2
HIDDEN = 384
_LAYERS = 6
_HEADS = 12
_HEAD_DIM = HIDDEN // _HEADS
_EPS = 1e-12
_OPSET = 17
_MASK_BIAS = -1e9  # added to the attention scores of padding keys, as in NumpyBert
_SMOOTH_ALPHA = 0.75  # share of the activation outliers moved into the weights (SmoothQuant's alpha)
# The FFN down-projections of the first layers see GELU outputs with outliers that per-tensor int8 cannot
# hold (the cosine of short texts drops to ~0.988); keeping them fp32 costs ~5% of the throughput.
_FP32_FFN_LAYERS = (0, 1, 2)


class _GraphBuilder:
    """Collects nodes and initializers; every helper returns the name of the tensor it produced."""

    def __init__(self, weights: dict[str, np.ndarray], smooth: dict[str, np.ndarray]):
        self.weights = weights
        self.smooth = smooth
        self.nodes: list[onnx.NodeProto] = []
        self.inits: dict[str, onnx.TensorProto] = {}
        self.taps: dict[str, str] = {}  # smoothing group -> the activation feeding its MatMuls
        self._count = 0

    def const(self, name: str, value: np.ndarray) -> str:
        if name not in self.inits:
            self.inits[name] = numpy_helper.from_array(np.ascontiguousarray(value), name)
        return name

    def op(self, op_type: str, *inputs: str, **attrs: object) -> str:
        self._count += 1
        out = f"{op_type.lower()}_{self._count}"
        self.nodes.append(helper.make_node(op_type, list(inputs), [out], name=f"{op_type}_{self._count}", **attrs))
        return out

    def param(self, name: str) -> str:
        return self.const(name, self.weights[name].astype(np.float32))

    def smoothed(self, x: str, group: str) -> str:
        """Divide `x` per channel by the group's smoothing scale; `linear` multiplies the weight rows back."""
        self.taps[group] = x
        if group not in self.smooth:
            return x
        return self.op("Mul", x, self.const(group + ".inv_scale", (1.0 / self.smooth[group]).astype(np.float32)))

    def linear(self, x: str, prefix: str, group: str = "") -> str:
        # torch Linear stores [out, in]; MatMul wants [in, out]. MatMul + Add is what ORT fuses and quantizes.
        w = self.weights[prefix + ".weight"].astype(np.float32).T
        if group in self.smooth:
            w = w * self.smooth[group][:, None]
        y = self.op("MatMul", x, self.const(prefix + ".weight", w))
        return self.op("Add", y, self.param(prefix + ".bias"))

    def layer_norm(self, x: str, prefix: str) -> str:
        scale, bias = self.param(prefix + ".weight"), self.param(prefix + ".bias")
        return self.op("LayerNormalization", x, scale, bias, axis=-1, epsilon=_EPS)


def _layer_count(weights: dict[str, np.ndarray]) -> int:
    return sum(1 for name in weights if name.endswith(".attention.self.query.weight")) or _LAYERS


def _words(g: _GraphBuilder) -> str:
    """The word embeddings of `input_ids`. A table given as 4-bit blocks (`.q4`, `.scales`: e5's 250k rows, 48 MB
    where fp32 takes 384 MB) is gathered and unpacked by onnxruntime's GatherBlockQuantized, exactly."""
    if "embeddings.word_embeddings.q4" not in g.weights:
        return g.op("Gather", g.param("embeddings.word_embeddings.weight"), "input_ids", axis=0)
    table = g.const("embeddings.word_embeddings.q4", g.weights["embeddings.word_embeddings.q4"])
    scales = g.const("embeddings.word_embeddings.scales", g.weights["embeddings.word_embeddings.scales"])
    return g.op("GatherBlockQuantized", table, "input_ids", scales, domain="com.microsoft",
                gather_axis=0, quantize_axis=1, block_size=32, bits=4)  # fmt: skip


def _build_graph(
    weights: dict[str, np.ndarray], smooth: dict[str, np.ndarray] | None = None, name: str = "all-MiniLM-L6-v2"
) -> tuple[onnx.ModelProto, dict[str, str]]:
    """The BERT graph (as many layers as `weights` holds), and the activations `_smoothing_scales` calibrates on."""
    g = _GraphBuilder(weights, smooth or {})
    f32 = lambda v: np.asarray(v, dtype=np.float32)  # noqa: E731 - constants
    i64 = lambda v: np.asarray(v, dtype=np.int64)  # noqa: E731

    mask = g.op("Cast", "attention_mask", to=TensorProto.FLOAT)
    mask3 = g.op("Unsqueeze", mask, g.const("axes_2", i64([2])))

    def norm(x: str, prefix: str) -> str:
        # Padding rows never reach real tokens (their keys are masked) but they do widen the per-tensor int8
        # range of every quantized MatMul; zeroing them keeps a padded batch as accurate as a lone text.
        return g.op("Mul", g.layer_norm(x, prefix), mask3)

    # Embeddings: word + position[:seq] + token_type[0] (every input is a single segment).
    words = _words(g)
    seq_len = g.op("Slice", g.op("Shape", "input_ids"), g.const("one", i64([1])), g.const("two", i64([2])))
    positions = g.op("Slice", g.param("embeddings.position_embeddings.weight"), g.const("zero", i64([0])), seq_len)
    token_type = g.const("token_type_0", f32(weights["embeddings.token_type_embeddings.weight"][0]))
    x = norm(g.op("Add", g.op("Add", words, positions), token_type), "embeddings.LayerNorm")

    # Additive attention bias [batch, 1, 1, seq]: 0 for tokens, -1e9 for padding. Unsqueeze, Unsqueeze, Cast,
    # Sub, Mul is the order of the HF export, which onnxruntime.transformers' attention fusion recognises.
    mask4 = g.op("Unsqueeze", g.op("Unsqueeze", "attention_mask", g.const("axes_1", i64([1]))), "axes_2")
    mask4 = g.op("Cast", mask4, to=TensorProto.FLOAT)
    bias = g.op("Mul", g.op("Sub", g.const("f_one", f32(1.0)), mask4), g.const("mask_bias", f32(_MASK_BIAS)))

    split_heads = g.const("split_heads", i64([0, 0, _HEADS, _HEAD_DIM]))
    merge_heads = g.const("merge_heads", i64([0, 0, HIDDEN]))
    scale = g.const("scale", f32(np.sqrt(_HEAD_DIM)))
    for i in range(_layer_count(weights)):
        p = f"encoder.layer.{i}."
        qkv_in = g.smoothed(x, p + "attention.self")

        def heads(name: str, perm: list[int], p: str = p, x: str = qkv_in) -> str:
            y = g.linear(x, p + f"attention.self.{name}", p + "attention.self")
            return g.op("Transpose", g.op("Reshape", y, split_heads), perm=perm)

        q = heads("query", [0, 2, 1, 3])
        k = heads("key", [0, 2, 3, 1])  # already transposed for Q @ K^T
        v = heads("value", [0, 2, 1, 3])
        scores = g.op("Add", g.op("Div", g.op("MatMul", q, k), scale), bias)
        ctx = g.op("MatMul", g.op("Softmax", scores, axis=-1), v)
        ctx = g.op("Reshape", g.op("Transpose", ctx, perm=[0, 2, 1, 3]), merge_heads)
        x = norm(g.op("Add", g.linear(ctx, p + "attention.output.dense"), x), p + "attention.output.LayerNorm")

        # Exact GELU, h * (1 + erf(h / sqrt 2)) * 0.5: opset 17 has no Gelu op; ORT fuses this pattern.
        h = g.linear(g.smoothed(x, p + "intermediate"), p + "intermediate.dense", p + "intermediate")
        erf = g.op("Erf", g.op("Div", h, g.const("sqrt2", f32(np.sqrt(2.0)))))
        h = g.op("Mul", g.op("Mul", h, g.op("Add", erf, "f_one")), g.const("half", f32(0.5)))
        x = norm(g.op("Add", g.linear(h, p + "output.dense"), x), p + "output.LayerNorm")
    g.nodes[-1].output[0] = hidden = "last_hidden_state"

    # Mean over real tokens, then L2 normalise, with minilm.mean_pool_normalise's clipping.
    summed = g.op("ReduceSum", hidden, "axes_1", keepdims=0)  # padding rows are already zero
    count = g.op("Max", g.op("ReduceSum", mask, "axes_1", keepdims=1), g.const("eps_count", f32(1e-9)))
    pooled = g.op("Div", summed, count)
    length = g.op("Max", g.op("ReduceL2", pooled, axes=[1], keepdims=1), g.const("eps_norm", f32(1e-12)))
    g.nodes.append(helper.make_node("Div", [pooled, length], ["sentence_embedding"], name="Div_normalise"))

    graph = helper.make_graph(
        g.nodes,
        name,
        inputs=[
            helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["batch", "seq"]),
            helper.make_tensor_value_info("attention_mask", TensorProto.INT64, ["batch", "seq"]),
        ],
        outputs=[
            helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT, ["batch", "seq", HIDDEN]),
            helper.make_tensor_value_info("sentence_embedding", TensorProto.FLOAT, ["batch", HIDDEN]),
        ],
        initializer=list(g.inits.values()),
    )
    opsets = [helper.make_opsetid("", _OPSET), helper.make_opsetid("com.microsoft", 1)]
    model = helper.make_model(graph, opset_imports=opsets, producer_name="memoryhub")
    model.ir_version = 8  # loadable by any onnxruntime >= 1.10
    onnx.checker.check_model(model)
    return model, g.taps


def _smoothing_scales(
    weights: dict[str, np.ndarray], model: onnx.ModelProto, taps: dict[str, str], specials: tuple[int, int]
) -> dict[str, np.ndarray]:
    """SmoothQuant scales for the LayerNorm outputs feeding the Q/K/V and FFN-up MatMuls.

    BERT's residual stream has a few channels ~20x larger than the rest; with per-tensor activation
    quantization they take the whole int8 range. Dividing channel j by s_j = a_j^alpha / w_j^(1-alpha)
    (a, w: max |activation|, max |weight row|) and multiplying weight row j by s_j moves most of that range
    into the per-channel-quantized weights. Activation maxima come from one fp32 run on random tokens: the
    outlier channels belong to the weights, not to the text, and this keeps the build deterministic.
    """
    import onnxruntime as ort  # loaded with the model: a process that never embeds never pays for it

    probe = onnx.ModelProto()
    probe.CopyFrom(model)
    probe.graph.output.extend(onnx.ValueInfoProto(name=name) for name in taps.values())
    session = ort.InferenceSession(probe.SerializeToString(), providers=["CPUExecutionProvider"])
    table = weights.get("embeddings.word_embeddings.weight", weights.get("embeddings.word_embeddings.q4"))
    ids = np.random.default_rng(0).integers(1000, table.shape[0], (16, 64))
    ids[:, 0], ids[:, -1] = specials  # [CLS] ... [SEP], or <s> ... </s>
    activations = session.run(list(taps.values()), {"input_ids": ids, "attention_mask": np.ones_like(ids)})
    scales = {}
    for group, act in zip(taps, activations, strict=True):
        names = ["query", "key", "value"] if group.endswith("attention.self") else ["dense"]
        w_max = np.max([np.abs(weights[f"{group}.{n}.weight"]).max(0) for n in names], axis=0)
        a_max = np.abs(act).reshape(-1, act.shape[-1]).max(0)
        scale = np.maximum(a_max, 1e-5) ** _SMOOTH_ALPHA / np.maximum(w_max, 1e-5) ** (1 - _SMOOTH_ALPHA)
        scales[group] = scale.astype(np.float32)
    return scales


def has_vnni() -> bool:
    """Whether the CPU multiplies u8 by s8 in int32 without saturating (AVX-VNNI or AVX512-VNNI)."""
    try:
        flags = Path("/proc/cpuinfo").read_text()
    except OSError:
        return False
    return " avx512_vnni" in flags or " avx_vnni" in flags


def weight_type_name() -> str:
    """`s8` weights where VNNI does u8 x s8 exactly: 30% less CPU per text than `u8` (2.8 against 4.0 ms per
    short text on a loaded 2-core AVX512-VNNI machine) at the same cosine to fp32 (0.993 lowest on 200 texts).
    Without VNNI, AVX2 adds u8 x s8 pairs in saturating int16 and short texts fall to 0.986: `u8` there."""
    return "s8" if has_vnni() else "u8"


def build_onnx_model(
    weights: dict[str, np.ndarray],
    path: Path,
    quantize: bool = True,
    weight_type: str = "u8",
    name: str = "all-MiniLM-L6-v2",
    specials: tuple[int, int] = (101, 102),
) -> Path:
    """Write the model to `path` (int8 dynamic quantization when `quantize`) and return `path`.

    Everything goes to temporary files in the target directory that are renamed into place, so concurrent
    builders never expose a half-written file; the builds are deterministic, so whichever rename wins is fine.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    model, taps = _build_graph(weights, name=name)
    temps: list[Path] = []

    def temp(suffix: str) -> Path:
        fd, name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=suffix, dir=path.parent)
        os.close(fd)
        temps.append(Path(name))
        return temps[-1]

    try:
        final = temp(".tmp")
        if quantize:
            from onnxruntime.quantization import QuantType, quantize_dynamic  # once, when the int8 graph is built

            model, _ = _build_graph(weights, _smoothing_scales(weights, model, taps, specials), name=name)
            keep_fp32 = {f"encoder.layer.{i}.output.dense.weight" for i in _FP32_FFN_LAYERS}
            exclude = [n.name for n in model.graph.node if n.op_type == "MatMul" and n.input[1] in keep_fp32]
            fp32 = temp(".fp32.tmp")
            onnx.save(model, str(fp32))
            # Per-tensor weight scales cost up to 0.1 cosine, so per channel. `weight_type`: see weight_type_name.
            # onnxruntime.transformers' fusions (SkipLayerNormalization, BiasGelu; attention does not match this
            # graph) were tried before quantizing: no gain measured, the session's own optimizer does as well.
            quantize_dynamic(
                fp32,
                final,
                weight_type=QuantType.QInt8 if weight_type == "s8" else QuantType.QUInt8,
                per_channel=True,
                op_types_to_quantize=["MatMul"],
                nodes_to_exclude=exclude,
                # Shape inference cannot type what follows a com.microsoft op (e5's 4-bit word table): all fp32.
                extra_options={"DefaultTensorType": TensorProto.FLOAT},
            )
        else:
            onnx.save(model, str(final))
        final.chmod(0o644)  # mkstemp creates 0600; the cache may be read by another user (e.g. the web server)
        os.replace(final, path)
    finally:
        for leftover in temps:
            leftover.unlink(missing_ok=True)
    return path


class OnnxBert:
    """Drop-in for `minilm.NumpyBert`: `(ids, mask) -> last_hidden_state`, plus `embed` for pooled vectors.

    Hidden states of padding positions are zero (NumpyBert computes values there that nothing should use).
    """

    def __init__(self, model_path: Path, threads: int | None = None):
        import onnxruntime as ort  # loaded with the model: a process that never embeds never pays for it

        options = ort.SessionOptions()
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        # More threads than cores only adds contention, and past 4 these small matrices stop scaling.
        options.intra_op_num_threads = threads or min(os.cpu_count() or 1, 4)
        options.inter_op_num_threads = 1
        # No busy-waiting between operators. A search embeds its query on a worker thread while its keyword SQL
        # runs on the caller's, and spinning ONNX threads took the core from it: keyword 6.0 -> 2.5 ms, hybrid
        # 17 -> 14.7 ms at 10k memories, for 10% less batch throughput (268 -> 240 texts/s).
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        self.session = ort.InferenceSession(str(model_path), options, providers=["CPUExecutionProvider"])

    def _run(self, output: str, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        feeds = {"input_ids": np.asarray(ids, dtype=np.int64), "attention_mask": np.asarray(mask, dtype=np.int64)}
        return self.session.run([output], feeds)[0]

    def __call__(self, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        return self._run("last_hidden_state", ids, mask)

    def embed(self, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """Mean-pooled, L2-normalised sentence embeddings [batch, 384]."""
        return self._run("sentence_embedding", ids, mask)
