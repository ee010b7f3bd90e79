"""DyNet configuration: memory, seed, autobatching, weight decay and GPU, set in one call.

DyNet reads its settings once, when ``dynet`` is first imported, so they have to be
in place before any model module is imported.  Nothing is set as a side effect of
importing :mod:`lstmparse`: each command of the CLI calls :func:`configure` with its
settings (GPU ones included) before it imports a model module, and the API's entry
points (``lstmparse.load``, ``lstmparse.Parser`` ...) call
:func:`configure_defaults`, which applies the toolkit's defaults (small memory pools
instead of DyNet's, ``LSTMPARSE_SEED``/``LSTMPARSE_MEMORY_MB`` from the environment)
unless the user called :func:`configure` first.  So does importing a model family's
package or :mod:`lstmparse.layers` (their modules import DyNet): a user who imports
``lstmparse.pipeline.api`` directly would otherwise start DyNet with its own settings
(a 512 MB pool, more than doubling a pipeline's memory, and a random seed).
"""

from __future__ import annotations

import ctypes
import importlib.util
import os
import random
import sys
from pathlib import Path
from typing import Literal

import dynet_config
import numpy as np

from lstmparse.errors import ConfigurationError

# The size of DyNet's memory pools at start (``memory_pools``); they grow on demand (except with autobatching).
# 8 MB: with the default pipeline the pools start at 10 MB in all (was 64) and it peaks at 191 MiB on EWT test.
DEFAULT_MEMORY_MB = 8
PARAMETERS_START_MB = 4  # the parameter pool's start when parsing; it grows 16 MB at a time (``memory_pools``)
# Autobatched graphs (TreeLSTM scoring) cannot grow the pools: they get this much up front.
AUTOBATCH_MEMORY_MB = 512


GPU_HELP = (
    "this DyNet has no GPU support (pip's dyNET38 wheel is CPU-only); build the CUDA backend with "
    "`make dynet-gpu` (see docs/gpu.md)"
)


def configure(  # noqa: PLR0913  (one keyword per DyNet setting)
    seed: int | None = None,
    memory_mb: int = DEFAULT_MEMORY_MB,
    autobatch: bool = False,
    weight_decay: float = 0.0,
    gpus: int = 0,
    devices: str | None = None,
    *,
    training: bool = False,
    if_loaded: Literal["raise", "keep"] = "raise",
) -> None:
    """Set DyNet's global options and seed Python's and NumPy's generators too.

    ``memory_mb`` sets how DyNet's memory pools start (:func:`memory_pools`); ``training``
    gives the backward pool its share from the start, as training needs it.

    A ``seed`` of None leaves all three generators unseeded.  ``gpus``/``devices``
    are DyNet's --dynet-gpus/--dynet-devices (``GPU:0,GPU:1``).  DyNet reads its
    settings once, when ``dynet`` is imported; asking for other settings afterwards
    raises :class:`ConfigurationError` (silently running with other settings than
    asked would make results irreproducible).  ``if_loaded="keep"`` (the command
    line's commands, which tests run one after another in one process) seeds Python
    and NumPy, keeps DyNet as it is and says so on stderr.  When a GPU is asked
    for, DyNet is imported here and a CPU-only build stops with :data:`GPU_HELP`.
    """
    loaded = "dynet" in sys.modules
    if loaded:
        _check_loaded_settings(_settings(seed, memory_mb, autobatch, weight_decay, training), if_loaded)
    if seed is not None:
        random.seed(seed)
        np.random.seed(seed)
    if loaded:
        return
    dynet_config.set(
        mem=memory_pools(memory_mb, autobatch or training),
        random_seed=_dynet_seed(seed),
        autobatch=int(autobatch),
        weight_decay=weight_decay,
        requested_gpus=gpus if not devices else 0,
        gpu_mask=_gpu_mask(devices),
    )
    if gpus or devices:
        dynet_config.set_gpu()
        _require_gpu()


def memory_pools(memory_mb: int, backward: bool = False) -> str:
    """DyNet's memory setting for ``memory_mb``: the sizes its forward, backward, parameter and scratch pools start at.

    DyNet zeroes each pool's starting size when it starts, so all of it is resident at
    once, and grows a pool 16 MB at a time when a graph (or a model's parameters) needs
    more.  Parsing computes no gradients and needs little scratch space: the forward
    pool starts at half of ``memory_mb``, the parameters' at no more than
    ``PARAMETERS_START_MB``, the backward and scratch pools at 1 MB.  With ``backward``
    (training, or autobatching, whose backward pass cannot grow a pool) each pool gets
    a quarter, DyNet's own split.
    """
    if backward:
        return str(memory_mb)
    half = max(1, memory_mb // 2)
    return f"{half},1,{min(half, PARAMETERS_START_MB)},1"


def _check_loaded_settings(wanted: dict, if_loaded: str) -> None:
    """Refuse (or with ``keep``, report) settings that differ from those DyNet was loaded with."""
    if dynet_config.get() == wanted:
        return
    message = (
        "DyNet was already imported with other settings; call lstmparse.configure() before the first "
        "model is loaded (or set LSTMPARSE_SEED / LSTMPARSE_MEMORY_MB)"
    )
    if if_loaded != "keep":
        raise ConfigurationError(message)
    print(f"lstmparse: {message}; its settings stay as they were", file=sys.stderr)


def _gpu_mask(devices: str | None) -> list[int]:
    """DyNet's device mask from a list such as ``GPU:0,GPU:2``."""
    if not devices:
        return []
    ids = []
    for name in devices.split(","):
        kind, _, number = name.strip().partition(":")
        if kind.upper() != "GPU" or not number.isdigit():
            raise ConfigurationError(f"--dynet-devices: {name!r} is not of the form GPU:N")
        ids.append(int(number))
    return [int(i in ids) for i in range(max(ids) + 1)]


def _require_gpu() -> None:
    """Stop with one line where DyNet cannot run on a GPU, before DyNet starts.

    A CUDA build of DyNet that finds no GPU at start-up throws a C++ exception that
    nothing catches: the process aborts.  So the driver is asked first (``gpu_count``),
    and DyNet is started only where it answers with a GPU.
    """
    if _cuda_build() and gpu_count() == 0:
        raise ConfigurationError(NO_GPU)
    import dynet

    if not any(device.decode().startswith("GPU") for device in dynet.available_devices()):
        raise ConfigurationError(GPU_HELP)


NO_GPU = "DyNet is built with CUDA, but the NVIDIA driver reports no GPU on this machine"


def _cuda_build() -> bool:
    """Whether the installed DyNet is a CUDA build (``make dynet-gpu``), read from its module without starting it."""
    spec = importlib.util.find_spec("dynet")
    if spec is None or spec.origin is None or not spec.origin.endswith(".py"):
        return False
    return "HAVE_CUDA = True" in Path(spec.origin).read_text(encoding="utf-8", errors="replace")


def gpu_count() -> int | None:
    """GPUs the NVIDIA driver reports (0: no driver, or none); None where the driver answers unexpectedly."""
    try:
        driver = ctypes.CDLL("libcuda.so.1")
    except OSError:
        return 0
    try:
        if driver.cuInit(0) != 0:  # CUDA_ERROR_NO_DEVICE and its kin
            return 0
        count = ctypes.c_int(0)
        if driver.cuDeviceGetCount(ctypes.byref(count)) != 0:
            return None
        return count.value
    except AttributeError:
        return None


def _dynet_seed(seed: int | None) -> int:
    # DyNet treats seed 0 as "pick one at random"; map a user's 0 to a fixed value.
    if seed is None:
        return 0
    return seed if seed != 0 else 2**31 - 1


def _settings(seed: int | None, memory_mb: int, autobatch: bool, weight_decay: float, training: bool) -> dict:
    current = dict(dynet_config.get() or {})
    current.update(
        mem=memory_pools(memory_mb, autobatch or training),
        seed=_dynet_seed(seed),
        autobatch=int(autobatch),
        weight_decay=weight_decay,
    )
    return current


def configure_defaults() -> None:
    """The toolkit's settings for library users, unless DyNet is configured (or loaded) already.

    ``LSTMPARSE_SEED`` and ``LSTMPARSE_MEMORY_MB`` in the environment override the defaults.
    """
    if "dynet" in sys.modules or dynet_config.get() is not None:
        return
    seed = os.environ.get("LSTMPARSE_SEED")
    configure(
        seed=int(seed) if seed else None,
        memory_mb=int(os.environ.get("LSTMPARSE_MEMORY_MB", DEFAULT_MEMORY_MB)),
    )
