"""A tiny, real reference harness: mlcommons-loadgen driving a small numpy model on CPU.

It produces genuine loadgen logs in seconds, with no weights to download. The bundled example
submission (fixtures/examples) is made with it, and `rerun --builtin` uses it. The model is a
two-layer MLP with fixed seeded weights; the "reference" runs it in float64 and the
"submission" with int8-quantised weights, so the accuracy gate compares a real quantised model
with its reference, as in MLPerf.

Needs the `harness` extra: `pip install -e '.[harness]'` in a checkout.
"""

from __future__ import annotations

import array
import hashlib
import json
import os
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..output import write_file

MODEL = "demo-mlp-99"
DATASET_SIZE = 128
FEATURES, HIDDEN, CLASSES = 16, 32, 4
DATA_SEED, WEIGHT_SEED, NOISE = 20260729, 3, 0.6


@dataclass(frozen=True)
class Model:
    w1: object
    w2: object


def dataset() -> tuple[Any, Any]:
    """Inputs and labels: labels come from a teacher model applied to noisy inputs, so that
    no model reaches 100%."""
    import numpy as np

    rng = np.random.default_rng(DATA_SEED)
    inputs = rng.normal(size=(DATASET_SIZE, FEATURES))
    teacher = reference_model()
    noisy = inputs + rng.normal(scale=NOISE, size=inputs.shape)
    labels = predict(teacher, noisy)
    return inputs, labels


def reference_model() -> Model:
    import numpy as np

    rng = np.random.default_rng(WEIGHT_SEED)
    return Model(rng.normal(size=(FEATURES, HIDDEN)), rng.normal(size=(HIDDEN, CLASSES)))


def quantised_model() -> Model:
    """Symmetric per-column int8 weights, de-quantised for the matrix product."""
    import numpy as np

    def int8(weights: Any) -> Any:
        scale = np.abs(weights).max(axis=0) / 127.0
        return np.round(weights / scale).clip(-127, 127) * scale

    ref = reference_model()
    return Model(int8(ref.w1), int8(ref.w2))


def predict(model: Model, inputs: Any) -> Any:
    import numpy as np

    hidden = np.maximum(inputs @ model.w1, 0.0)
    return np.argmax(hidden @ model.w2, axis=-1)


def accuracy_percent(model: Model) -> float:
    inputs, labels = dataset()
    return float((predict(model, inputs) == labels).mean() * 100.0)


# --- loadgen runs -------------------------------------------------------------------------
@dataclass(frozen=True)
class RunSpec:
    scenario: str  # Offline or SingleStream
    mode: str  # performance or accuracy
    min_duration_ms: int = 1000
    min_query_count: int = 100
    offline_expected_qps: float = 500.0
    single_stream_latency_s: float = 0.002
    audit_config: str | None = None


def run(spec: RunSpec, out_dir: str | os.PathLike[str], model: Model | None = None) -> None:
    """One loadgen run of the demo model, logging into `out_dir`."""
    import mlperf_loadgen as lg
    import numpy as np

    model = model or quantised_model()
    inputs, _ = dataset()
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)

    settings = lg.TestSettings()
    settings.FromConfig("", MODEL, spec.scenario, 0)  # the embedded mlperf.conf: the round's seeds
    settings.scenario = getattr(lg.TestScenario, spec.scenario)
    settings.mode = lg.TestMode.AccuracyOnly if spec.mode == "accuracy" else lg.TestMode.PerformanceOnly
    settings.min_duration_ms = spec.min_duration_ms
    settings.min_query_count = spec.min_query_count
    settings.performance_sample_count_override = DATASET_SIZE
    settings.offline_expected_qps = spec.offline_expected_qps
    settings.single_stream_expected_latency_ns = int(spec.single_stream_latency_s * 1e9)

    keep: list[array.array[int]] = []
    pending: list[threading.Thread] = []

    def respond(samples: list[Any], delay: float) -> None:
        time.sleep(delay)
        batch = np.stack([inputs[s.index] for s in samples])
        classes = predict(model, batch).astype(np.int32)
        responses = []
        for sample, value in zip(samples, classes, strict=True):
            buffer = array.array("B", int(value).to_bytes(4, "little"))
            keep.append(buffer)
            address, length = buffer.buffer_info()
            responses.append(lg.QuerySampleResponse(sample.id, address, length))
        lg.QuerySamplesComplete(responses)

    def issue(samples: list[Any]) -> None:
        if spec.scenario == "Offline":
            delay = 0.0 if spec.mode == "accuracy" else spec.min_duration_ms / 1000.0 * 1.05
        else:
            delay = spec.single_stream_latency_s
        thread = threading.Thread(target=respond, args=(list(samples), delay))
        thread.start()
        pending.append(thread)

    def flush() -> None:
        pass

    sut = lg.ConstructSUT(issue, flush)
    qsl = lg.ConstructQSL(DATASET_SIZE, DATASET_SIZE, lambda _: None, lambda _: None)
    log_settings = lg.LogSettings()
    log_settings.log_output.outdir = str(out)
    log_settings.log_output.copy_summary_to_stdout = False
    audit = spec.audit_config or str(out / "no-audit.config")
    try:
        lg.StartTestWithLogSettings(sut, qsl, settings, log_settings, audit)
    finally:
        for thread in pending:
            thread.join()
        lg.DestroyQSL(qsl)
        lg.DestroySUT(sut)
    # The trace is optional in a submission and large; the demo does not keep it.
    (out / "mlperf_log_trace.json").unlink(missing_ok=True)


def accuracy_outputs(log_path: str | os.PathLike[str]) -> dict[int, int]:
    """qsl_idx -> predicted class, from a loadgen mlperf_log_accuracy.json."""
    entries = json.loads(Path(log_path).read_text() or "[]")
    return {e["qsl_idx"]: int.from_bytes(bytes.fromhex(e["data"]), "little") for e in entries}


def write_accuracy_txt(log_path: str | os.PathLike[str], out_path: str | os.PathLike[str]) -> float:
    """The reference accuracy script of the demo benchmark: accuracy=..%, good=, total=, and
    the hash of the accuracy log."""
    _, labels = dataset()
    outputs = accuracy_outputs(log_path)
    good = sum(1 for index, value in outputs.items() if labels[index] == value)
    percent = 100.0 * good / len(labels)
    digest = hashlib.sha256(Path(log_path).read_bytes()).hexdigest()
    write_file(str(out_path), f"accuracy={percent:.3f}%, good={good}, total={len(labels)}\nhash={digest}\n")
    return percent
