"""Compound computations as [Soldado 2016] composes them, run over the OpenCL devices present.

A computation is a tree: :class:`Kernel` leaves (OpenCL C source, arguments declared as
vectors or scalars) combined by :class:`Pipeline` (stages in order), :class:`Loop` (a body
repeated, with a host update between iterations and, with ``global_sync``, a barrier across
every device that gathers the partitioned results and re-sends the copied vectors) and
:class:`MapReduce` (the tree, then a merge of the per-execution partial results: ``"add"``,
``"sub"``, ``"mul"``, ``"div"`` or a host function). Vectors are ``partitioned`` (cut at the
same unit boundaries in every vector: each execution keeps its slice on its device from the
first kernel to the last) or ``copy`` (every device receives the whole vector). Scalars may be
values or the partition traits :data:`SIZE` (work items of the partition) and :data:`OFFSET`
(its first unit). :func:`run` splits the units with :func:`wpart.multikernel.split` over the
executions of a :class:`~wpart.multikernel.opencl.Runtime` and runs the whole tree
on each partition, kernels in depth-first order.

Examples
--------
>>> import numpy as np
>>> from wpart.multikernel import opencl as O, skeletons as S
>>> src = '''__kernel void twice(__global const float *x, __global float *y, const uint n)
... { uint i = get_global_id(0); if (i < n) y[i] = 2.0f * x[i]; }'''
>>> tree = S.Kernel(src, "twice", [S.Vec("x", np.float32), S.Vec("y", np.float32, out=True),
...                                S.SIZE])
>>> if O.unavailable_reason() is None:
...     out = S.run(O.Runtime(), tree, 1000, {"x": np.ones(1000, np.float32)})
...     bool((out["y"] == 2).all())
... else:
...     True
True
"""

from __future__ import annotations

from dataclasses import KW_ONLY, dataclass
import threading
from typing import Any, Callable, Sequence

import numpy as np

from .._errors import WpartRuntimeError, WpartTypeError, WpartValueError
from .._validate import as_bool, as_int, choice
from ._decide import quantum, split

__all__ = ["Vec", "Scalar", "Local", "SIZE", "OFFSET", "halo_lo", "Kernel", "Pipeline", "Loop",
           "Map", "MapReduce", "run", "run_async"]


@dataclass(frozen=True)
class Vec:
    """A vector argument: `name` (the key of its host array), dtype, transfer `mode`
    (``"partitioned"`` or ``"copy"``), `elems_per_unit` (elements per unit of the partition
    index space), `out` (written by the computation: downloaded at the end), `halo` (a
    partitioned vector's units on each side of the partition that the device also gets, for
    stencils: the buffer holds units ``[off - lo, off + n + hi)`` with ``lo, hi <= halo``
    clipped at the domain's ends; :func:`halo_lo` passes ``lo`` to the kernel; a Loop with
    ``global_sync`` sends the halos again after every update)."""

    name: str
    dtype: Any
    _: KW_ONLY
    mode: str = "partitioned"
    elems_per_unit: int = 1
    out: bool = False
    halo: int = 0

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name:
            raise WpartTypeError(f"`name` must be a non-empty str, got {self.name!r}")
        object.__setattr__(self, "dtype", np.dtype(self.dtype))
        object.__setattr__(self, "mode", choice(self.mode, "mode", ("partitioned", "copy")))
        object.__setattr__(self, "elems_per_unit", as_int(self.elems_per_unit, "elems_per_unit",
                                                          minimum=1))
        object.__setattr__(self, "out", as_bool(self.out, "out"))
        object.__setattr__(self, "halo", as_int(self.halo, "halo", minimum=0))
        if self.halo and self.mode != "partitioned":
            raise WpartValueError(f"vector {self.name!r}: `halo` needs mode 'partitioned'")


@dataclass(frozen=True)
class Scalar:
    """A scalar argument: a fixed `value` of `dtype`, or a partition trait (:data:`SIZE`,
    :data:`OFFSET`) given as uint32."""

    value: Any = None
    _: KW_ONLY
    dtype: Any = np.float32
    trait: str | None = None


@dataclass(frozen=True)
class Local:
    """A ``__local`` buffer argument (per work-group scratch memory, e.g. for a reduction):
    `count` elements of `dtype`, or ``count="wgs"``: one element per work item of the group."""

    dtype: Any
    count: Any = "wgs"

    def __post_init__(self) -> None:
        object.__setattr__(self, "dtype", np.dtype(self.dtype))
        if self.count != "wgs":
            object.__setattr__(self, "count", as_int(self.count, "count", minimum=1))


def halo_lo(name: str) -> Scalar:
    """A uint32 argument: the halo units of vector `name` in front of this partition in its
    device buffer (its ``halo``, fewer at the start of the domain).

    Parameters
    ----------
    name : str
        The vector's name.

    Returns
    -------
    Scalar
    """
    return Scalar(name, dtype=np.uint32, trait="halo")


#: The work items of the kernel in this partition (uint32).
SIZE = Scalar(trait="size")
#: The first unit of this partition in the whole domain (uint32).
OFFSET = Scalar(trait="offset")


class Kernel:
    """A data-parallel kernel: OpenCL C `source`, the kernel's `name`, its arguments in order.

    Parameters
    ----------
    source : str
    name : str
    args : sequence of Vec, Scalar or Local
        Checked against the kernel's signature when it is built (count, and the element or
        scalar type where the driver reports it): a mismatch is a WpartValueError naming the
        kernel and the argument.
    items_per_unit : int, optional
        Work items per unit of the index space (e.g. the pixels of a line).
    wgs : int, optional
        Work-group size pinned by the kernel (None: the runtime's per device).
    """

    def __init__(self, source: str, name: str, args: Sequence[Any], *, items_per_unit: int = 1,
                 wgs: int | None = None) -> None:
        if not isinstance(source, str) or not isinstance(name, str):
            raise WpartTypeError("`source` and `name` must be str")
        self.source, self.name = source, name
        self.args = list(args)
        for a in self.args:
            if not isinstance(a, (Vec, Scalar, Local)):
                raise WpartTypeError(f"`args` must be Vec, Scalar or Local, got "
                                     f"{type(a).__name__}")
        self.items_per_unit = as_int(items_per_unit, "items_per_unit", minimum=1)
        self.wgs = None if wgs is None else as_int(wgs, "wgs", minimum=1)

    def _nodes(self):
        yield self


class Pipeline:
    """Stages run in order; stage i + 1 consumes what stage i produced (on the same device)."""

    def __init__(self, *stages: Any) -> None:
        if not stages:
            raise WpartValueError("a Pipeline needs at least one stage")
        self.stages = list(stages)

    def _nodes(self):
        for s in self.stages:
            yield from s._nodes()


class Map(Pipeline):
    """The tree applied to independent partitions of the input (every tree runs that way;
    Map names it)."""

    def __init__(self, tree: Any) -> None:
        super().__init__(tree)


class Loop:
    """`body` repeated `iterations` times (or while ``cond(state)`` holds, checked on the host
    before each iteration). After each iteration ``update(host, it)`` may change host arrays;
    with `global_sync` every execution stops at a barrier, the partitioned vectors named in
    `gather` come back to the host, and every ``copy`` vector is sent to every device again
    (the N-body case)."""

    def __init__(self, body: Any, *, iterations: int | None = None,
                 cond: Callable[[dict], bool] | None = None,
                 update: Callable[[dict, int], None] | None = None, global_sync: bool = False,
                 gather: Sequence[str] = ()) -> None:
        if (iterations is None) == (cond is None):
            raise WpartValueError("a Loop needs exactly one of `iterations` and `cond`")
        self.body = body
        self.iterations = None if iterations is None else as_int(iterations, "iterations",
                                                                 minimum=0)
        self.cond, self.update = cond, update
        self.global_sync = as_bool(global_sync, "global_sync")
        self.gather = list(gather)

    def _nodes(self):
        yield from self.body._nodes()


class MapReduce:
    """`tree`, then the per-execution partial values of vector `output` merged on the host:
    ``"add"``, ``"sub"``, ``"mul"``, ``"div"`` (element-wise, in execution order) or a
    function of the list of partials."""

    _OPS = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide}

    def __init__(self, tree: Any, *, output: str, reduce: str | Callable = "add") -> None:
        self.tree, self.output = tree, output
        if isinstance(reduce, str):
            reduce = choice(reduce, "reduce", tuple(self._OPS))
        elif not callable(reduce):
            raise WpartTypeError("`reduce` must be a merge name or a callable")
        self.reduce = reduce

    def _nodes(self):
        yield from self.tree._nodes()


def _vectors(tree) -> dict[str, Vec]:
    vecs: dict[str, Vec] = {}
    for k in tree._nodes():
        for a in k.args:
            if isinstance(a, Vec):
                if a.name in vecs and vecs[a.name] != Vec(a.name, a.dtype, mode=a.mode,
                                                          elems_per_unit=a.elems_per_unit,
                                                          out=vecs[a.name].out,
                                                          halo=vecs[a.name].halo):
                    raise WpartValueError(f"vector {a.name!r} is declared twice differently")
                old = vecs.get(a.name)
                vecs[a.name] = a if old is None or a.out else old
    return vecs


class _Exec:
    def __init__(self, ex, off, n, units=0):
        self.ex, self.off, self.n, self.units = ex, off, n, units
        self.bufs: dict[str, Any] = {}

    def pad(self, v: Vec) -> tuple[int, int]:
        """Halo units (lo, hi) of `v` around this partition."""
        if not v.halo:
            return 0, 0
        return min(v.halo, self.off), min(v.halo, self.units - self.off - self.n)


_CL_TYPES = {"char": "int8", "uchar": "uint8", "short": "int16", "ushort": "uint16",
             "int": "int32", "uint": "uint32", "long": "int64", "ulong": "uint64",
             "float": "float32", "double": "float64", "half": "float16",
             "unsigned char": "uint8", "unsigned short": "uint16", "unsigned int": "uint32",
             "unsigned long": "uint64"}


def _check_signature(cl: Any, kern: Any, k: Kernel) -> None:
    """The arguments of `k` against the built kernel's signature: their count, and each one's
    kind (pointer, __local, scalar) and element type where the driver reports argument info."""
    n = kern.get_info(cl.kernel_info.NUM_ARGS)
    if n != len(k.args):
        raise WpartValueError(f"kernel {k.name!r} takes {n} arguments, {len(k.args)} given")
    for i, a in enumerate(k.args):
        try:
            tname = kern.get_arg_info(i, cl.kernel_arg_info.TYPE_NAME).strip().rstrip("\x00")
            aname = kern.get_arg_info(i, cl.kernel_arg_info.NAME).strip().rstrip("\x00")
            space = kern.get_arg_info(i, cl.kernel_arg_info.ADDRESS_QUALIFIER)
        except (cl.Error, AttributeError):
            return  # no argument info from this driver: the count is all we can check
        pointer = tname.endswith("*")
        base = tname.rstrip("*").replace("const ", "").replace("volatile ", "").strip()
        want = _CL_TYPES.get(base)
        what = f"kernel {k.name!r} argument {i} ({aname}: {tname})"
        if isinstance(a, Local):
            if space != cl.kernel_arg_address_qualifier.LOCAL:
                raise WpartValueError(f"{what} is not __local, a Local was given")
            got = a.dtype
        elif isinstance(a, Vec):
            if not pointer or space == cl.kernel_arg_address_qualifier.LOCAL:
                raise WpartValueError(f"{what} is not a __global pointer, vector {a.name!r} "
                                      "was given")
            got = a.dtype
        else:
            if pointer:
                raise WpartValueError(f"{what} is a pointer, a scalar was given")
            got = np.dtype(np.uint32) if a.trait in ("size", "offset", "halo") else np.dtype(a.dtype)
        if want is not None and np.dtype(want) != got:
            raise WpartValueError(f"{what}: expects {base} ({want}), got {got}")


_ASYNC_LOCK = threading.Lock()


def run_async(rt: Any, tree: Any, units: int, data: dict[str, np.ndarray], *,
              shares: Any = None, s: float | None = None) -> Any:
    """:func:`run` in the background: returns a :class:`concurrent.futures.Future` whose
    ``result()`` is what :func:`run` returns (or raises what it raises).

    Parameters
    ----------
    rt, tree, units, data, shares, s
        As for :func:`run` (the host arrays are copied before the call returns, so the caller
        may change them while the run goes on).

    Returns
    -------
    concurrent.futures.Future
    """
    data = {k: np.array(v, copy=True) for k, v in data.items()}
    return _submit(run, rt, tree, units, data, shares=shares, s=s)


def _submit(fn: Callable, *args: Any, **kwargs: Any) -> Any:
    """Runs fn(*args, **kwargs) on a thread of its own that ends with it and returns its
    :class:`concurrent.futures.Future`; one such run at a time (a lock: one runtime's OpenCL
    queues are driven from one host thread at a time, in call order of acquisition)."""
    import concurrent.futures

    fut: Any = concurrent.futures.Future()

    def work() -> None:
        if not fut.set_running_or_notify_cancel():
            return
        try:
            with _ASYNC_LOCK:
                res = fn(*args, **kwargs)
        except BaseException as exc:  # noqa: BLE001 -- handed to the caller through the Future
            fut.set_exception(exc)
        else:
            fut.set_result(res)

    threading.Thread(target=work, name="wpart-mk-async", daemon=True).start()
    return fut


def run(rt: Any, tree: Any, units: int, data: dict[str, np.ndarray], *,
        shares: Any = None, s: float | None = None) -> dict[str, Any]:
    """Runs `tree` over the executions of `rt` (an OpenCL Runtime) on `units` units.

    Parameters
    ----------
    rt : Runtime
    tree : Kernel, Pipeline, Map, Loop or MapReduce
    units : int
        Units of the partition index space.
    data : dict
        Host arrays by vector name (inputs; outputs not given are allocated). A partitioned
        vector holds ``units * elems_per_unit`` elements, a copied one any number.
    shares, s : optional
        Per-execution shares, or the GPU-type share (see ``Runtime.run``).

    Returns
    -------
    dict
        Every vector by name (outputs filled in), ``"_sizes"`` / ``"_offsets"`` (the
        partitions) and, for a MapReduce, ``"_partials"`` (one value per execution that got a
        partition: its copy of a copied output, or its slice of a partitioned one) and
        ``"_reduced"`` (their merge).
    """
    from .opencl import _buf, _cl, _gs

    cl = _cl()
    units = as_int(units, "units", minimum=1)
    vecs = _vectors(tree)
    host: dict[str, np.ndarray] = {}
    for name, v in vecs.items():
        if name in data:
            a = np.ascontiguousarray(data[name], dtype=v.dtype)
            if v.mode == "partitioned" and a.size != units * v.elems_per_unit:
                raise WpartValueError(f"`data[{name!r}]` must hold {units * v.elems_per_unit} "
                                      f"elements (units x elems_per_unit), got {a.size}")
            host[name] = a.reshape(-1).copy()  # a Loop's update never sees the caller's array
        elif v.mode == "partitioned":       # an output, or an intermediate kept on devices
            host[name] = np.zeros(units * v.elems_per_unit, dtype=v.dtype)
        else:
            raise WpartValueError(f"`data` lacks the copied vector {name!r}")
    phi = np.asarray(shares, dtype=np.float64) if shares is not None else \
        rt.shares(0.5 if s is None else s)
    kernels = list(tree._nodes())
    q = []
    for ex in rt.executions:
        pairs = [(k.items_per_unit, k.wgs or ex.wgs) for k in kernels if (k.wgs or ex.wgs)]
        q.append(quantum(pairs))
    sizes, offs = split(units, phi, np.array(q, dtype=np.int64))
    execs = [_Exec(ex, int(o), int(n), units) for ex, n, o in zip(rt.executions, sizes, offs)
             if n > 0]
    progs: dict[tuple, Any] = {}

    def kernel(e: _Exec, k: Kernel):
        key = (id(e.ex.context), k.source, k.name)
        if key not in progs:
            prog = cl.Program(e.ex.context, k.source)
            try:
                prog = prog.build(options=["-cl-kernel-arg-info"])
            except cl.Error as exc:
                log = ""
                try:
                    log = "\n".join(prog.get_build_info(d, cl.program_build_info.LOG)
                                    for d in e.ex.context.devices)
                except cl.Error:
                    pass
                raise WpartRuntimeError(f"kernel {k.name!r}: the OpenCL build failed on "
                                        f"{e.ex.name}: {str(exc).strip()}\nbuild log:\n"
                                        f"{log.strip()}") from None
            try:
                kern = cl.Kernel(prog, k.name)
            except cl.Error as exc:
                raise WpartValueError(f"kernel {k.name!r}: not in its source "
                                      f"({str(exc).strip()})") from None
            _check_signature(cl, kern, k)
            progs[key] = kern
        return progs[key]

    def upload(e: _Exec, name: str):
        v, a = vecs[name], host[name]
        if v.mode == "copy":
            cl.enqueue_copy(e.ex.queue, e.bufs[name], a, is_blocking=False)
        else:
            epu = v.elems_per_unit
            lo, hi = e.pad(v)
            cl.enqueue_copy(e.ex.queue, e.bufs[name],
                            a[(e.off - lo) * epu:(e.off + e.n + hi) * epu], is_blocking=False)

    def download(e: _Exec, name: str):
        v, a = vecs[name], host[name]
        epu = v.elems_per_unit
        lo, _ = e.pad(v)
        cl.enqueue_copy(e.ex.queue, a[e.off * epu:(e.off + e.n) * epu], e.bufs[name],
                        is_blocking=False, src_offset=lo * epu * v.dtype.itemsize)

    for e in execs:
        for name, v in vecs.items():
            nb = host[name].nbytes if v.mode == "copy" else \
                (e.n + sum(e.pad(v))) * v.elems_per_unit * v.dtype.itemsize
            e.bufs[name] = _buf(cl, e.ex.context, nb)
            if name in data:
                upload(e, name)

    def launch(node) -> None:
        if isinstance(node, Kernel):
            for e in execs:
                items = e.n * node.items_per_unit
                args = []
                for a in node.args:
                    if isinstance(a, Vec):
                        args.append(e.bufs[a.name])
                    elif isinstance(a, Local):
                        lw = node.wgs or e.ex.wgs or 1
                        cnt = lw if a.count == "wgs" else a.count
                        args.append(cl.LocalMemory(int(cnt) * a.dtype.itemsize))
                    elif a.trait == "size":
                        args.append(np.uint32(items))
                    elif a.trait == "offset":
                        args.append(np.uint32(e.off))
                    elif a.trait == "halo":
                        if a.value not in vecs:
                            raise WpartValueError(f"kernel {node.name!r}: halo_lo({a.value!r}) "
                                                  "names no vector of the tree")
                        args.append(np.uint32(e.pad(vecs[a.value])[0]))
                    else:
                        args.append(np.dtype(a.dtype).type(a.value))
                g, l = _gs(items, node.wgs or e.ex.wgs)
                kernel(e, node)(e.ex.queue, g, l, *args)
        elif isinstance(node, (Pipeline, Map)):
            for st in node.stages:
                launch(st)
        elif isinstance(node, MapReduce):
            launch(node.tree)
        elif isinstance(node, Loop):
            it = 0
            while (it < node.iterations) if node.iterations is not None else node.cond(host):
                launch(node.body)
                if node.global_sync:
                    for e in execs:
                        for name in node.gather:
                            download(e, name)
                    for e in execs:
                        e.ex.queue.finish()
                if node.update is not None:
                    node.update(host, it)
                if node.global_sync:
                    for e in execs:
                        for name, v in vecs.items():
                            if v.mode == "copy" or v.halo:
                                upload(e, name)
                it += 1
        else:
            raise WpartTypeError(f"not a skeleton node: {type(node).__name__}")

    launch(tree)
    partials = {}
    for e in execs:
        for name, v in vecs.items():
            if v.out and v.mode == "partitioned":
                download(e, name)
            elif v.out:
                partials.setdefault(name, []).append(np.empty_like(host[name]))
                cl.enqueue_copy(e.ex.queue, partials[name][-1], e.bufs[name], is_blocking=False)
    for e in execs:
        e.ex.queue.finish()
    out: dict[str, Any] = dict(host)
    out["_sizes"], out["_offsets"] = sizes, offs
    if isinstance(tree, MapReduce):
        parts = partials.get(tree.output)
        if parts is None:  # a partitioned output: one slice per execution, in order
            epu = vecs[tree.output].elems_per_unit
            parts = [host[tree.output][e.off * epu:(e.off + e.n) * epu] for e in execs]
        out["_partials"] = parts
        if callable(tree.reduce):
            out["_reduced"] = tree.reduce(parts)
        else:
            op = MapReduce._OPS[tree.reduce]
            acc = parts[0].copy()
            for p in parts[1:]:
                acc = op(acc, p)
            out["_reduced"] = acc
    return out
