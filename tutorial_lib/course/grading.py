"""Grading a class with nbgrader: the learner's kernel records, a clean process judges.

nbgrader scores a hidden-test cell by its outputs: no error output means full marks. The
learner's code runs in that same kernel first, so in plain nbgrader a submission that
replaces ``check_hidden`` (or the reference it compares with, or IPython's traceback
display) gets every point. Under ``tools/instructor.py``'s configuration the verdict is
made somewhere the learner's code never ran:

1. **Record** (in the learner's kernel). The kernel starts with :func:`install_recorder`,
   before any cell: ``check_hidden`` becomes :func:`record_hidden`, which runs each
   generated case against the learner's function (same copies of the arguments, same time
   limit) and publishes what came back, a value or an exception, as a display output
   (:data:`LOG_MIME`). It judges nothing.
2. **Judge** (a fresh ``python -I`` process, :func:`judge_main`). It re-runs the
   notebook's locked setup cells and each hidden-test cell *as written*, with the library
   freshly imported; the learner's function is replaced by a replay of the record. The
   genuine :func:`~tutorial_lib.course.checks.check_hidden` compares the replayed values
   with expected values the judge computes itself, and prints the report it would have
   printed in the kernel.
3. **Score** (:class:`TrustedExecute`, nbgrader's ``Execute`` step). Each hidden-test
   cell's outputs become the judge's report and, on failure, its error; the kernel's
   error and stderr outputs stay (they still cost the points), anything else the kernel
   printed there (a forged "pass", a partial-credit number) is dropped. A cell whose
   record is missing or malformed fails.

So a patched checker, reference or case generator in the kernel changes nothing but the
record, and a forged record must contain the right answers: the same as writing them.
What grading cannot tell apart: a submission that calls the library's reference (it is
public) instead of implementing it. It scores, and the teacher is shown a flag
(:mod:`tutorial_lib.course.submission_flags`).

The kernel also runs in a file sandbox (Linux Landlock, :func:`sandbox_exec`): the course
directory (source notebooks with their solutions, the gradebook, other students' work),
the exchange and the whole repository checkout (every copy of the solutions, in either
edition; only its ``tutorial_lib`` package and a Python environment kept there stay
readable) cannot be read, listed for content or written; only the notebook's own
directory and a private temporary directory can be written. Without Landlock (another
OS, an old kernel) grading still works but without the sandbox, and says so
(``TrustedExecute.require_sandbox`` makes it an error).

A submission whose hidden-test cell was deleted or edited does not stop the class:
:class:`CourseOverwriteCells` (nbgrader's ``OverwriteCells``, which fails with a
``KeyError`` on such a notebook) puts the cell back from the source and it is run and
scored; the cell's metadata says so, and so does the grades CSV.
"""

from __future__ import annotations

import ast
import base64
import builtins
import collections
import contextlib
import copy
import dataclasses
import decimal
import enum
import fractions
import io
import json
import math
import os
import pathlib
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any, TypeGuard

from tutorial_lib.core.contracts import TutorialLibError
from tutorial_lib.course import checks
from tutorial_lib.course.time_limit import TimeLimit
from tutorial_lib.language import Text, source_text, tr

__all__ = [
    "LOG_MIME",
    "NO_RECORD",
    "RESTORED_KEY",
    "Verdict",
    "decode_value",
    "encode_value",
    "hidden_test_problems",
    "install_recorder",
    "judge_cells",
    "judge_main",
    "landlock_abi",
    "protected_paths",
    "record_hidden",
    "runtime_paths",
    "recording_to",
    "sandbox_exec",
    "trusted_autograde_preprocessors",
    "uses_check_hidden",
]

#: The MIME type of a record in a hidden-test cell's outputs.
LOG_MIME = "application/vnd.tutorial-lib.hidden-calls+json"
_LOG_FORMAT = 1
_NO_RECORD = Text(
    zh="这个隐藏测试单元在学习者的内核里没有留下完整的记录（单元出错、超时被中断，"
    "或者 check_hidden 被换掉了），无法评分",
    en="this hidden-test cell left no complete record in the learner's kernel (the cell"
    " raised an error, was interrupted by a time-out, or check_hidden was replaced), so it"
    " cannot be graded",
)
#: The error of a hidden-test cell that left no usable record in the kernel, in the
#: current language (a plain ``str``: the module's ``__getattr__`` renders it when read).
NO_RECORD: str

# --------------------------------------------------------------------------- values


_MAX_DEPTH = 64
_MAX_NODES = 200_000
_MAX_REPR = 2_000
_STD_MAPPINGS: dict[str, type] = {
    "OrderedDict": collections.OrderedDict,
    "defaultdict": collections.defaultdict,
    "Counter": collections.Counter,
}
_PATH_TYPES: dict[str, type] = {
    cls.__name__: cls
    for cls in (pathlib.PurePath, pathlib.PurePosixPath, pathlib.PureWindowsPath, pathlib.Path)
}
_PATH_TYPES[type(pathlib.Path()).__name__] = type(pathlib.Path())


def encode_value(value: Any) -> Any:
    """``value`` as JSON that keeps its exact types (``1`` / ``1.0`` / ``True``, tuple / list).

    Plain ``None``, ``bool``, ``int``, finite ``float`` and ``str`` stay as they are; every
    other value is a tagged object (``{"t": "tuple", "v": [...]}``). Dataclasses and enums
    of ``tutorial_lib`` keep their class; anything else is ``opaque``: its type name and
    its (shortened) repr, which the judge shows but which never equals an expected value.
    """
    budget = [_MAX_NODES]
    return _encode(value, 0, budget)


def _opaque(value: Any, note: str = "") -> dict[str, Any]:
    text = note or checks.describe(value)
    return {"t": "opaque", "type": type(value).__name__, "repr": text[:_MAX_REPR]}


def _encode(value: Any, depth: int, budget: list[int]) -> Any:
    budget[0] -= 1
    if budget[0] < 0 or depth > _MAX_DEPTH:
        type_name = type(value).__name__
        return _opaque(
            value,
            tr(
                f"<{type_name}：太大或嵌套太深，无法记录>",
                f"<{type_name}: too large or nested too deeply to record>",
            ),
        )
    kind = type(value)
    if value is None or kind is bool or kind is int:
        return value
    if kind is str:
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:  # lone surrogates cannot cross the wire as JSON text
            return {"t": "str", "v": value.encode("utf-8", "surrogatepass").hex()}
        return value
    if kind is float:
        return value if math.isfinite(value) else {"t": "float", "v": repr(value)}
    if value is checks.MISSING:
        return {"t": "missing"}

    def each(items: Iterable[Any]) -> list[Any]:
        return [_encode(item, depth + 1, budget) for item in items]

    def pairs(mapping: Any) -> list[list[Any]]:
        return [
            [_encode(k, depth + 1, budget), _encode(v, depth + 1, budget)]
            for k, v in mapping.items()
        ]

    if kind is list:
        return {"t": "list", "v": each(value)}
    if kind is tuple:
        return {"t": "tuple", "v": each(value)}
    if kind is dict:
        return {"t": "dict", "v": pairs(value)}
    if kind is set or kind is frozenset:
        return {"t": kind.__name__, "v": each(value)}
    if kind is bytes or kind is bytearray:
        return {"t": kind.__name__, "v": base64.b64encode(value).decode("ascii")}
    if kind is complex:
        return {
            "t": "complex",
            "v": [_encode(value.real, depth, budget), _encode(value.imag, depth, budget)],
        }
    if kind is fractions.Fraction:
        return {"t": "fraction", "v": [value.numerator, value.denominator]}
    if kind is decimal.Decimal:
        return {"t": "decimal", "v": str(value)}
    if _STD_MAPPINGS.get(kind.__name__) is kind:
        return {"t": "mapping", "cls": kind.__name__, "v": pairs(value)}
    if _PATH_TYPES.get(kind.__name__) is kind:
        return {"t": "path", "cls": kind.__name__, "v": str(value)}
    home = f"{kind.__module__}:{kind.__qualname__}"
    if kind.__module__.startswith("tutorial_lib."):
        if isinstance(value, enum.Enum):
            return {"t": "enum", "cls": home, "v": value.name}
        if dataclasses.is_dataclass(value):
            fields = [
                [f.name, _encode(getattr(value, f.name), depth + 1, budget)]
                for f in dataclasses.fields(value)
            ]
            return {"t": "dataclass", "cls": home, "v": fields}
    return _opaque(value)


class _OpaqueBase:
    """A value the learner returned that only its type name and repr can describe."""

    __slots__ = ("_text",)

    def __init__(self, text: str) -> None:
        self._text = text

    def __repr__(self) -> str:
        return self._text


_OPAQUE_CLASSES: dict[str, type[_OpaqueBase]] = {}


def _opaque_class(name: str) -> type[_OpaqueBase]:
    """A class named like the learner's type: reports say "期望 dict，实际 MyDict"."""
    name = name if name.isidentifier() else "object"
    if name not in _OPAQUE_CLASSES:
        _OPAQUE_CLASSES[name] = type(name, (_OpaqueBase,), {"__slots__": ()})
    return _OPAQUE_CLASSES[name]


def decode_value(data: Any) -> Any:
    """The inverse of :func:`encode_value`, in the judge. Malformed data raises ``ValueError``."""
    if data is None or type(data) in (bool, int, float, str):
        return data
    if type(data) is not dict or not isinstance(data.get("t"), str):
        raise ValueError(f"not an encoded value: {checks.describe(data)}")
    tag: str = data["t"]
    inner: Any = data.get("v")
    if tag == "list":
        return [decode_value(item) for item in inner]
    if tag == "tuple":
        return tuple(decode_value(item) for item in inner)
    if tag == "dict":
        return {decode_value(k): decode_value(v) for k, v in inner}
    if tag in ("set", "frozenset"):
        items = [decode_value(item) for item in inner]
        return set(items) if tag == "set" else frozenset(items)
    if tag in ("bytes", "bytearray"):
        raw = base64.b64decode(inner)
        return raw if tag == "bytes" else bytearray(raw)
    if tag == "str":
        return bytes.fromhex(inner).decode("utf-8", "surrogatepass")
    if tag == "float":
        return float(inner)
    if tag == "complex":
        return complex(decode_value(inner[0]), decode_value(inner[1]))
    if tag == "fraction":
        return fractions.Fraction(int(inner[0]), int(inner[1]))
    if tag == "decimal":
        return decimal.Decimal(inner)
    if tag == "missing":
        return checks.MISSING
    if tag == "mapping":
        mapping_class = _STD_MAPPINGS[data["cls"]]
        mapping = mapping_class()
        for k, v in inner:
            mapping[decode_value(k)] = decode_value(v)
        return mapping
    if tag == "path":
        return _PATH_TYPES[data["cls"]](inner)
    if tag in ("enum", "dataclass"):
        cls = _library_class(data["cls"])
        if cls is not None and tag == "enum" and issubclass(cls, enum.Enum):
            return cls[inner]
        if cls is not None and tag == "dataclass" and dataclasses.is_dataclass(cls):
            return _rebuild(cls, {name: decode_value(v) for name, v in inner})
        return _opaque_class(str(data["cls"]).rpartition(".")[2])(f"<{data['cls']}>")
    if tag == "opaque":
        return _opaque_class(str(data.get("type", "object")))(str(data.get("repr", ""))[:_MAX_REPR])
    raise ValueError(f"unknown tag {tag!r}")


def _library_class(home: str) -> type | None:
    """A tutorial_lib class by ``module:qualname``, from modules already imported (no import)."""
    module_name, _, qualname = home.partition(":")
    module = sys.modules.get(module_name) if module_name.startswith("tutorial_lib.") else None
    value: Any = module
    for part in qualname.split("."):
        value = getattr(value, part, None)
    return value if isinstance(value, type) else None


def _rebuild(cls: type, values: dict[str, Any]) -> Any:
    fields = dataclasses.fields(cls)
    init = {f.name: values[f.name] for f in fields if f.init and f.name in values}
    try:
        instance = cls(**init)
        for f in fields:
            if not f.init and f.name in values:
                object.__setattr__(instance, f.name, values[f.name])
    except Exception:  # noqa: BLE001 - what the learner built may not pass the constructor
        return _opaque_class(cls.__name__)(f"<{cls.__name__} that its constructor rejects>")
    return instance


# --------------------------------------------------------------------------- recording


class _RecordTimeout(BaseException):
    """Raised in the learner's function when its time is up (``except Exception`` misses it)."""


_SINK: list[dict[str, Any]] | None = None


@contextlib.contextmanager
def recording_to(sink: list[dict[str, Any]]) -> Any:
    """Collect records in ``sink`` instead of publishing them (tests, and runs outside a kernel)."""
    global _SINK
    previous, _SINK = _SINK, sink
    try:
        yield sink
    finally:
        _SINK = previous


def _exception_text(exc: BaseException) -> str:
    try:
        return str(exc)[:_MAX_REPR]
    except Exception:  # noqa: BLE001 - a learner's broken __str__
        return ""


def record_hidden(
    function: Callable[..., Any],
    cases: Sequence[checks.Case],
    *,
    key: Callable[[Any], Any] | None = None,
    time_limit_s: float = 1.0,
    stop_after: int = 3,
) -> None:
    """``check_hidden`` in a kernel being autograded: run the cases, record, judge nothing.

    Same checks of the arguments and same calls as
    :func:`~tutorial_lib.course.checks.check_hidden` (deep-copied arguments, ``via``,
    ``time_limit_s`` per case). It stops at the first ``NotImplementedError`` and after
    ``stop_after`` time-outs, where ``check_hidden`` would stop too; ``key`` is applied
    by the judge. The record is published as one display output of type :data:`LOG_MIME`.
    """
    if not callable(function):
        raise TypeError(f"check_hidden() needs a function, got {checks.describe(function)}")
    cases = tuple(cases)
    if not cases:
        raise ValueError("check_hidden() needs at least one Case")
    del key  # the judge applies it, to the replayed value
    name = getattr(function, "__name__", type(function).__name__)
    entries: list[list[Any]] = []
    timeouts = 0
    for case in cases:
        name_id = source_text(case.name)  # the same record in either language
        args = copy.deepcopy(case.args)
        kwargs = copy.deepcopy(dict(case.kwargs))
        try:
            with TimeLimit(time_limit_s, _RecordTimeout, refire_s=0.05, other_threads="inject"):
                if case.via is not None:
                    value = case.via(function, *args, **kwargs)
                else:
                    value = function(*args, **kwargs)
        except _RecordTimeout:
            entries.append([name_id, "timeout"])
            timeouts += 1
            if timeouts >= stop_after:
                break
            continue
        except NotImplementedError:
            entries.append([name_id, "not_implemented"])
            break
        except KeyboardInterrupt:
            raise  # nbgrader's per-cell timeout interrupts the kernel: no record
        except BaseException as exc:  # noqa: BLE001 - a learner's bug is a recorded outcome
            entries.append([name_id, "raise", type(exc).__name__, _exception_text(exc)])
            continue
        entries.append([name_id, "return", encode_value(value)])
    _publish({"format": _LOG_FORMAT, "function": str(name)[:200], "cases": entries})


def _publish(record: dict[str, Any]) -> None:
    if _SINK is not None:
        _SINK.append(json.loads(json.dumps(record)))
        return
    from IPython import get_ipython
    from IPython.display import display

    if get_ipython() is not None:
        display({LOG_MIME: record}, raw=True)
    else:  # a plain Python process: the record on stdout, one line of JSON
        print(json.dumps({LOG_MIME: record}, ensure_ascii=False))


def install_recorder() -> None:
    """Make ``check_hidden`` record instead of judge: once, when an autograding kernel starts."""
    checks.check_hidden = record_hidden


# --------------------------------------------------------------------------- judging


def uses_check_hidden(source: str) -> bool:
    """Whether a cell's code calls ``check_hidden`` (the cells this module grades)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return False
    return any(_is_check_hidden(node) for node in ast.walk(tree))


def _is_check_hidden(node: ast.AST) -> TypeGuard[ast.Call]:
    if not isinstance(node, ast.Call):
        return False
    func = node.func
    return (isinstance(func, ast.Name) and func.id == "check_hidden") or (
        isinstance(func, ast.Attribute) and func.attr == "check_hidden"
    )


def _names(tree: ast.AST) -> tuple[set[str], set[str]]:
    """(names read, names bound) anywhere in ``tree``: a conservative, scope-blind reading."""
    loaded: set[str] = set()
    bound: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            (loaded if isinstance(node.ctx, ast.Load) else bound).add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(node.name)
        elif isinstance(node, ast.alias):
            bound.add((node.asname or node.name).split(".")[0])
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            bound.add(node.name)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            bound.update(node.names)
        elif isinstance(node, (ast.MatchAs, ast.MatchStar)) and node.name:
            bound.add(node.name)
    return loaded, bound


_BUILTINS = frozenset(dir(builtins))


def _free_names(tree: ast.AST) -> set[str]:
    loaded, bound = _names(tree)
    return loaded - bound - _BUILTINS


def _runs_in_judge(cell: dict[str, Any]) -> bool:
    """A locked setup cell: code, locked, neither a solution nor graded."""
    return (
        cell.get("cell_type") == "code"
        and bool(cell.get("locked"))
        and not cell.get("solution")
        and not cell.get("grade")
    )


def hidden_test_problems(cells: Sequence[dict[str, Any]]) -> list[str]:
    """Why the judge could not grade these cells fairly (``[]``: it can).

    ``cells`` are nbgrader's view of a notebook: dicts with ``cell_type``, ``source``,
    ``locked``, ``solution``, ``grade``, ``grade_id``. A graded code cell must call
    ``check_hidden``, and may use the learner's names (what no earlier locked setup cell
    or its own imports define) only inside the arguments of a ``check_hidden`` call: the
    judge has a record of those calls and of nothing else.
    """
    problems: list[str] = []
    available: set[str] = set()
    for cell in cells:
        if cell.get("cell_type") != "code":
            continue
        try:
            tree = ast.parse(cell.get("source", ""))
        except SyntaxError as exc:
            if cell.get("grade"):
                problems.append(
                    tr(
                        f"{cell.get('grade_id')}: 不是合法的 Python（{exc.msg}）",
                        f"{cell.get('grade_id')}: not valid Python ({exc.msg})",
                    )
                )
            continue
        if cell.get("grade"):
            where = cell.get("grade_id")
            if not any(_is_check_hidden(node) for node in ast.walk(tree)):
                problems.append(
                    tr(
                        f"{where}: 评分单元必须通过 check_hidden 检查学习者的函数",
                        f"{where}: a graded cell must check the learner's function through"
                        " check_hidden",
                    )
                )
                continue
            learner = _free_names(tree) - available
            inside: set[int] = set()
            for node in ast.walk(tree):
                if _is_check_hidden(node):
                    for part in [*node.args, *(k.value for k in node.keywords)]:
                        inside.update(id(n) for n in ast.walk(part))
            for node in ast.walk(tree):
                if isinstance(node, ast.Name) and node.id in learner and id(node) not in inside:
                    problems.append(
                        tr(
                            f"{where}: 第 {node.lineno} 行在 check_hidden 之外用到了学习者的"
                            f" {node.id}（评分进程只有 check_hidden 调用的记录）",
                            f"{where}: line {node.lineno} uses the learner's {node.id} outside"
                            " check_hidden (the judge has a record of check_hidden calls only)",
                        )
                    )
        elif _runs_in_judge(cell) and not (_free_names(tree) - available):
            available |= _names(tree)[1]
    return problems


@dataclasses.dataclass(frozen=True)
class Verdict:
    """The judge's output for one hidden-test cell: what it printed, and its error if any."""

    stdout: str
    ename: str | None = None
    evalue: str = ""

    @property
    def passed(self) -> bool:
        return self.ename is None

    def to_json(self) -> dict[str, Any]:
        return {"stdout": self.stdout, "ename": self.ename, "evalue": self.evalue}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Verdict:
        ename = data.get("ename")
        return cls(
            str(data.get("stdout", "")),
            None if ename is None else str(ename),
            str(data.get("evalue", "")),
        )


class _Learner:
    """Stands for a learner's name in the judge, which has only the record of its calls."""

    def __init__(self, name: str) -> None:
        self.__name__ = name

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise AssertionError(
            tr(
                f"评分进程里不能直接调用 {self.__name__}：它只能经过 check_hidden",
                f"the judge cannot call {self.__name__} directly: only through check_hidden",
            )
        )

    def __repr__(self) -> str:
        return self.__name__


class RecordMissing(TutorialLibError):
    """A case the kernel's record has no outcome for."""


_LEARNER_EXCEPTIONS: dict[str, type[Exception]] = {}


def _learner_exception(name: str, message: str) -> Exception:
    """An exception that reports like the learner's (``KeyError: 'x'``) without being it."""
    name = name if name.isidentifier() else "Exception"
    if name not in _LEARNER_EXCEPTIONS:
        _LEARNER_EXCEPTIONS[name] = type(name, (Exception,), {"__module__": "learner"})
    exc = _LEARNER_EXCEPTIONS[name]()
    exc.args = (message,) if message else ()
    return exc


class _Replay:
    """The learner's function in the judge: each call gives back the next recorded outcome."""

    def __init__(self, record: Any, cases: Sequence[checks.Case], name: str) -> None:
        self.__name__ = name
        by_name: dict[str, list[list[Any]]] = {}
        entries = record.get("cases") if isinstance(record, dict) else None
        for entry in entries if isinstance(entries, list) else []:
            if isinstance(entry, list) and entry and isinstance(entry[0], str):
                by_name.setdefault(entry[0], []).append(entry)
        # Recorded by the case name's Chinese source, whatever language the kernel spoke.
        queues = [by_name.get(source_text(c.name)) for c in cases]
        self._plan = [queue.pop(0) if queue else None for queue in queues]
        self._next = 0

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        entry = self._plan[self._next] if self._next < len(self._plan) else None
        self._next += 1
        outcome = entry[1] if entry is not None and len(entry) > 1 else None
        if outcome == "return" and len(entry) == 3:  # type: ignore[arg-type]
            try:
                return decode_value(entry[2])  # type: ignore[index]
            except (ValueError, KeyError, TypeError, AttributeError) as exc:
                raise RecordMissing(
                    tr(
                        f"记录里的返回值无法还原（{exc}）",
                        f"the recorded return value cannot be restored ({exc})",
                    )
                ) from None
        if outcome == "raise" and len(entry) == 4:  # type: ignore[arg-type]
            raise _learner_exception(str(entry[2]), str(entry[3]))  # type: ignore[index]
        if outcome == "not_implemented":
            raise NotImplementedError()
        if outcome == "timeout":
            _time_is_up()
        raise RecordMissing(
            tr(
                "学习者的内核没有记录这个输入的结果",
                "the learner's kernel recorded no outcome for this input",
            )
        )


def _time_is_up() -> None:
    """Make the running ``check_hidden`` time limit fire now: the case took all its time."""
    handler = signal.getsignal(signal.SIGALRM)
    if isinstance(getattr(handler, "__self__", None), TimeLimit):
        signal.raise_signal(signal.SIGALRM)  # the limit's handler raises its exception here
    deadline = time.monotonic() + 30  # no signal (another thread): wait for the watchdog
    while time.monotonic() < deadline:
        time.sleep(0.01)
    raise RecordMissing(tr("超时的用例无法重放", "a case that timed out cannot be replayed"))


def _exec_quietly(code: Any, namespace: dict[str, Any]) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        exec(code, namespace)
    return out.getvalue()


def _judge_hidden(tree: ast.Module, namespace: dict[str, Any], records: list[Any]) -> Verdict:
    local = dict(namespace)
    for name in _free_names(tree) - set(local):
        local[name] = _Learner(name)
    queue = list(records)
    genuine = checks.check_hidden

    def replaying(
        function: Callable[..., Any],
        cases: Sequence[checks.Case],
        *,
        key: Callable[[Any], Any] | None = None,
        time_limit_s: float = 1.0,
        stop_after: int = 3,
    ) -> None:
        if not queue:
            raise AssertionError(str(_NO_RECORD))
        record = queue.pop(0)
        cases = tuple(cases)
        name = getattr(function, "__name__", type(function).__name__)
        recorded = record.get("function") if isinstance(record, dict) else None
        if isinstance(function, _Learner) and isinstance(recorded, str) and recorded.isidentifier():
            name = recorded
        if not isinstance(record, dict) or record.get("format") != _LOG_FORMAT:
            raise AssertionError(str(_NO_RECORD))
        plain = tuple(dataclasses.replace(c, via=None) if c.via is not None else c for c in cases)
        genuine(
            _Replay(record, cases, name),
            plain,
            key=key,
            time_limit_s=time_limit_s,
            stop_after=stop_after,
        )

    out = io.StringIO()
    checks.check_hidden = replaying
    try:
        with contextlib.redirect_stdout(out):
            exec(compile(tree, "<hidden tests>", "exec"), local)
        if queue:
            extra = len(queue)
            raise AssertionError(
                tr(
                    f"{_NO_RECORD}（多出 {extra} 份记录）",
                    f"{_NO_RECORD} ({extra} records too many)",
                )
            )
    except BaseException as exc:  # noqa: BLE001 - any failure of the cell is its verdict
        return Verdict(out.getvalue(), type(exc).__name__, _exception_text(exc))
    finally:
        checks.check_hidden = genuine
    return Verdict(out.getvalue())


def judge_cells(cells: Sequence[dict[str, Any]]) -> dict[str, Verdict]:
    """Judge a notebook's hidden-test cells from their records (run in a clean process).

    ``cells`` as for :func:`hidden_test_problems`, each graded cell with ``records``: the
    records its outputs held, in order. Locked setup cells run first, in order, when all
    the names they read are defined (a visible check of the learner's function is not);
    each graded cell that calls ``check_hidden`` gets a :class:`Verdict`.
    """
    namespace: dict[str, Any] = {"__name__": "__main__", "__builtins__": builtins}
    verdicts: dict[str, Verdict] = {}
    for cell in cells:
        if cell.get("cell_type") != "code":
            continue
        source = str(cell.get("source", ""))
        if cell.get("grade") and uses_check_hidden(source):
            records = [r for r in cell.get("records", []) if isinstance(r, dict)]
            verdicts[str(cell.get("grade_id"))] = _judge_hidden(
                ast.parse(source), namespace, records
            )
        elif _runs_in_judge(cell):
            try:
                tree = ast.parse(source)
            except SyntaxError:
                continue  # IPython syntax (a magic): nothing the hidden tests can rely on
            if _free_names(tree) - set(namespace):
                continue  # it reads a learner's name: a visible check
            with contextlib.suppress(Exception):
                _exec_quietly(compile(tree, "<setup cell>", "exec"), namespace)
    return verdicts


def judge_main() -> None:
    """The judge process: notebook cells as JSON on stdin, verdicts as JSON on stdout."""
    cells = json.load(sys.stdin)
    verdicts = judge_cells(cells)
    sys.stdout.write(json.dumps({k: v.to_json() for k, v in verdicts.items()}))


# --------------------------------------------------------------------------- sandbox

# Landlock (Linux >= 5.13): syscall numbers are the same on every architecture.
_CREATE_RULESET, _ADD_RULE, _RESTRICT_SELF = 444, 445, 446
_PR_SET_NO_NEW_PRIVS = 38
_FS_EXECUTE, _FS_WRITE_FILE, _FS_READ_FILE = 1 << 0, 1 << 1, 1 << 2
_FS_TRUNCATE, _FS_IOCTL_DEV, _FS_REFER = 1 << 14, 1 << 15, 1 << 13


def landlock_abi() -> int:
    """The Landlock ABI version this kernel offers (0: none: another OS, or disabled)."""
    if not sys.platform.startswith("linux"):
        return 0
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        version = libc.syscall(_CREATE_RULESET, None, ctypes.c_size_t(0), ctypes.c_uint32(1))
    except (OSError, AttributeError):
        return 0
    return max(int(version), 0)


def _grants(protect: Sequence[str], allow: Sequence[str]) -> list[str]:
    """Every path outside ``protect``, as few as possible: what a Landlock ruleset grants.

    Walk down from ``/`` along the protected paths: an entry that is neither protected nor
    above a protected path is granted whole; an ancestor is entered; a protected path is
    skipped, except the ``allow`` paths inside it (granted whole). Symbolic links are not
    followed: whatever they point at is granted (or not) where it lives.
    """
    protected = [Path(p) for p in protect]
    allowed = [Path(p) for p in allow]
    grants: list[str] = [
        str(a) for a in allowed if not any(a.is_relative_to(p) for p in allowed if p != a)
    ]

    def visit(directory: Path) -> None:
        try:
            entries = sorted(os.scandir(directory), key=lambda e: e.name)
        except OSError:
            return
        for entry in entries:
            path = Path(entry.path)
            if any(path == p for p in protected):
                continue  # allowed paths inside it are already in grants
            if any(p.is_relative_to(path) for p in protected):
                if entry.is_dir(follow_symlinks=False):
                    visit(path)
                continue
            if not any(path.is_relative_to(a) for a in allowed):
                grants.append(str(path))

    visit(Path("/"))
    return grants


def _landlock_restrict(protect: Sequence[str], allow: Sequence[str]) -> int:
    """Restrict this process (and what it executes) to everything but ``protect``."""
    import ctypes

    abi = landlock_abi()
    if abi < 1:
        raise OSError("Landlock is not available on this system")
    libc = ctypes.CDLL(None, use_errno=True)
    handled = (1 << 13) - 1  # ABI 1: execute ... make_sym
    file_rights = _FS_EXECUTE | _FS_WRITE_FILE | _FS_READ_FILE
    if abi >= 2:
        handled |= _FS_REFER
    if abi >= 3:
        handled |= _FS_TRUNCATE
        file_rights |= _FS_TRUNCATE
    if abi >= 5:
        handled |= _FS_IOCTL_DEV
        file_rights |= _FS_IOCTL_DEV

    class RulesetAttr(ctypes.Structure):
        _fields_ = [
            ("handled_access_fs", ctypes.c_uint64),
            ("handled_access_net", ctypes.c_uint64),
            ("scoped", ctypes.c_uint64),
        ]

    class PathBeneath(ctypes.Structure):
        _pack_ = 1
        _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]

    # ABI 6 scopes signals and abstract unix sockets to the sandbox: it cannot signal out.
    attr = RulesetAttr(handled, 0, 0b11 if abi >= 6 else 0)
    size = 8 if abi < 4 else 16 if abi < 6 else 24
    ruleset = libc.syscall(
        _CREATE_RULESET, ctypes.byref(attr), ctypes.c_size_t(size), ctypes.c_uint32(0)
    )
    if ruleset < 0:
        raise OSError(ctypes.get_errno(), "landlock_create_ruleset failed")
    try:
        for path in _grants(protect, allow):
            try:
                fd = os.open(path, os.O_PATH | os.O_CLOEXEC | os.O_NOFOLLOW)
            except OSError:
                continue
            try:
                mode = os.fstat(fd).st_mode
                if stat.S_ISLNK(mode):
                    continue
                rights = handled if stat.S_ISDIR(mode) else file_rights
                rule = PathBeneath(rights, fd)
                libc.syscall(
                    _ADD_RULE,
                    ctypes.c_int(ruleset),
                    ctypes.c_int(1),
                    ctypes.byref(rule),
                    ctypes.c_uint32(0),
                )
            finally:
                os.close(fd)
        if libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_SET_NO_NEW_PRIVS) failed")
        if libc.syscall(_RESTRICT_SELF, ctypes.c_int(ruleset), ctypes.c_uint32(0)) != 0:
            raise OSError(ctypes.get_errno(), "landlock_restrict_self failed")
    finally:
        os.close(ruleset)
    return abi


def sandbox_exec(argv: Sequence[str] | None = None) -> None:
    """Start a kernel in the file sandbox: ``CONFIG_JSON -- KERNEL_ARGV...`` (never returns).

    ``CONFIG_JSON``: ``{"protect": [...], "allow": [...], "tmpdir": ..., "require": bool}``.
    The restriction is made before the kernel starts any thread, and the kernel inherits it.
    """
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) < 3 or args[1] != "--":
        raise SystemExit("usage: sandbox_exec CONFIG_JSON -- KERNEL_ARGV...")
    config, command = json.loads(args[0]), args[2:]
    env = dict(os.environ)
    if config.get("tmpdir"):
        env["TMPDIR"] = config["tmpdir"]
    try:
        abi = _landlock_restrict(
            config["protect"], [*config["allow"], *filter(None, [config.get("tmpdir")])]
        )
        env["TUTORIAL_LIB_SANDBOX"] = f"landlock-{abi}"
    except OSError as exc:
        if config.get("require"):
            raise SystemExit(
                f"grading sandbox: {exc}; refusing to run the kernel unsandboxed"
            ) from None
        print(f"grading sandbox: {exc}; the kernel runs without a file sandbox", file=sys.stderr)
        env["TUTORIAL_LIB_SANDBOX"] = "none"
    os.execve(command[0], command, env)


def protected_paths(
    course_root: str | os.PathLike[str], *more: str | os.PathLike[str]
) -> list[str]:
    """What an autograding kernel must not read: the course, ``more`` (the exchange, the
    gradebook, the checkout the course was built from), and the whole checkout this
    library runs from, if it is one.

    The whole checkout, not a list of its folders: solutions live in more than one place
    (``solutions/``, the English edition's ``en/solutions/``, the translations, the
    instructor's guide, the tests' mutants, ``.git``'s history), and a list would miss
    the next copy. What the kernel needs inside it, the ``tutorial_lib`` package and a
    Python environment kept there, stays readable (:func:`runtime_paths`)."""
    checkout = Path(__file__).resolve().parents[2]
    candidates = [Path(course_root), *map(Path, more)]
    if (checkout / "pyproject.toml").is_file():
        candidates.append(checkout)
    found = {os.path.realpath(p) for p in candidates if os.path.exists(p)}
    return sorted(found)


def runtime_paths(protect: Sequence[str]) -> list[str]:
    """What a kernel must read to run at all, inside ``protect``: this library's package
    and the Python environment (``sys.prefix`` and its base), each only when it holds no
    protected path itself (granting ``/usr`` whole would undo a protected ``/usr/src/x``)."""
    package = Path(__file__).resolve().parents[1]
    needed = {os.path.realpath(p) for p in (package, sys.prefix, sys.exec_prefix, sys.base_prefix)}
    protected = [Path(p) for p in protect]
    return sorted(
        path
        for path in needed
        if any(Path(path).is_relative_to(p) for p in protected)
        and not any(p.is_relative_to(path) for p in protected)
    )


# --------------------------------------------------------------------------- nbgrader

_RECORDER_LINE = (
    "--IPKernelApp.exec_lines="
    "__import__('tutorial_lib.course.grading', fromlist=['install_recorder']).install_recorder()"
)
_SANDBOX_CODE = "from tutorial_lib.course.grading import sandbox_exec; sandbox_exec()"
_JUDGE_CODE = "from tutorial_lib.course.grading import judge_main; judge_main()"


def _cell_view(cell: Any) -> dict[str, Any]:
    meta = cell.get("metadata", {}).get("nbgrader", {})
    return {
        "cell_type": cell.get("cell_type"),
        "source": cell.get("source", ""),
        "locked": bool(meta.get("locked")),
        "solution": bool(meta.get("solution")),
        "grade": bool(meta.get("grade")),
        "grade_id": meta.get("grade_id"),
    }


def _records(outputs: Sequence[Any]) -> list[Any]:
    return [o["data"][LOG_MIME] for o in outputs if LOG_MIME in o.get("data", {})]


def _scored_outputs(outputs: Sequence[Any], verdict: Verdict) -> list[dict[str, Any]]:
    """A hidden-test cell's outputs after judging: the judge's report, the kernel's errors."""
    new: list[dict[str, Any]] = []
    if verdict.stdout:
        new.append({"output_type": "stream", "name": "stdout", "text": verdict.stdout})
    for output in outputs:
        kind = output.get("output_type")
        if kind == "error" or (kind == "stream" and output.get("name") == "stderr"):
            new.append(dict(output))
    if verdict.ename is not None:
        line = f"{verdict.ename}: {verdict.evalue}" if verdict.evalue else verdict.ename
        new.append(
            {
                "output_type": "error",
                "ename": verdict.ename,
                "evalue": verdict.evalue,
                "traceback": [line],
            }
        )
    return new


def run_judge(cells: Sequence[dict[str, Any]], timeout_s: float = 300) -> dict[str, Verdict]:
    """Run :func:`judge_main` in a fresh ``python -I`` (no cwd on sys.path), in an empty folder."""
    with tempfile.TemporaryDirectory(prefix="tl-judge-") as workdir:
        done = subprocess.run(
            [sys.executable, "-I", "-c", _JUDGE_CODE],
            input=json.dumps(list(cells)),
            capture_output=True,
            text=True,
            timeout=timeout_s,
            cwd=workdir,
            check=False,
        )
    if done.returncode != 0:
        raise RuntimeError(f"the judge failed ({done.returncode}): {done.stderr.strip()[-2000:]}")
    return {k: Verdict.from_json(v) for k, v in json.loads(done.stdout).items()}


_TRUSTED_EXECUTE: type | None = None


def _trusted_execute() -> type:
    """Build :class:`TrustedExecute` on first use: nbgrader is an instructor's extra."""
    global _TRUSTED_EXECUTE
    if _TRUSTED_EXECUTE is not None:
        return _TRUSTED_EXECUTE
    from jupyter_client.manager import AsyncKernelManager
    from nbformat import from_dict
    from nbgrader.coursedir import CourseDirectory  # type: ignore[import-untyped, import-not-found, unused-ignore]
    from nbgrader.exchange.default.exchange import Exchange  # type: ignore[import-untyped, import-not-found, unused-ignore]
    from nbgrader.preprocessors import Execute  # type: ignore[import-untyped, import-not-found, unused-ignore]
    from traitlets import Bool, Float, List, Unicode

    class SandboxedKernelManager(AsyncKernelManager):
        """Starts the kernel through :func:`sandbox_exec` when ``sandbox`` is set."""

        sandbox: dict[str, Any] | None = None

        def format_kernel_cmd(self, extra_arguments: list[str] | None = None) -> list[str]:
            command: list[str] = super().format_kernel_cmd(extra_arguments)
            if self.sandbox is None:
                return command
            launcher = [sys.executable, "-I", "-c", _SANDBOX_CODE, json.dumps(self.sandbox), "--"]
            return [*launcher, *command]

    class TrustedExecute(Execute):
        """nbgrader's Execute, with records in the kernel, a judge outside it, and a sandbox."""

        extra_protected = List(Unicode(), help="More paths the kernel must not read.").tag(
            config=True
        )
        require_sandbox = Bool(False, help="Refuse to grade without the Landlock sandbox.").tag(
            config=True
        )
        judge_timeout = Float(300, help="Seconds the judge may take for one notebook.").tag(
            config=True
        )

        def __init__(self, **kwargs: Any) -> None:
            kwargs.setdefault("kernel_manager_class", SandboxedKernelManager)
            super().__init__(**kwargs)
            self._sandbox: dict[str, Any] | None = None

        def create_kernel_manager(self) -> Any:
            km = super().create_kernel_manager()
            km.sandbox = self._sandbox
            return km

        def _protected(self, resources: dict[str, Any]) -> list[str]:
            coursedir = CourseDirectory(config=self.config)
            exchange = Exchange(config=self.config).root
            db = str(resources.get("nbgrader", {}).get("db_url", ""))
            gradebook = db[len("sqlite:///") :] if db.startswith("sqlite:///") else ""
            extra = [p for p in [gradebook, exchange, *self.extra_protected] if p]
            return protected_paths(coursedir.root, *extra)

        def preprocess(self, nb: Any, resources: Any = None, km: Any = None) -> Any:
            resources = resources if resources is not None else {}
            here = os.path.realpath(resources.get("metadata", {}).get("path") or os.getcwd())
            tmpdir = tempfile.mkdtemp(prefix="tl-grading-")
            protect = self._protected(resources)
            self._sandbox = {
                "protect": protect,
                "allow": [here, *runtime_paths(protect)],
                "tmpdir": tmpdir,
                "require": bool(self.require_sandbox),
            }
            arguments: list[str] = list(self.extra_arguments)  # type: ignore[has-type]
            if _RECORDER_LINE not in arguments:
                self.extra_arguments = [*arguments, _RECORDER_LINE]
            try:
                nb, resources = super().preprocess(nb, resources, km)
            finally:
                shutil.rmtree(tmpdir, ignore_errors=True)
            self._score(nb)
            return nb, resources

        def _score(self, nb: Any) -> None:
            views = []
            for cell in nb.cells:
                view = _cell_view(cell)
                if view["grade"] and cell.cell_type == "code":
                    view["records"] = _records(cell.get("outputs", []))
                views.append(view)
            graded = [c for c in nb.cells if _cell_view(c)["grade"] and uses_check_hidden(c.source)]
            if not graded:
                return
            try:
                verdicts = run_judge(views, self.judge_timeout)
            except (RuntimeError, subprocess.TimeoutExpired, ValueError) as exc:
                self.log.error("Judging failed: %s", exc)
                verdicts = {}
            for cell in graded:
                grade_id = _cell_view(cell)["grade_id"]
                verdict = verdicts.get(grade_id) or Verdict(
                    "", "AssertionError", tr("评分进程没有给出结论", "the judge gave no verdict")
                )
                cell.outputs = [from_dict(o) for o in _scored_outputs(cell.outputs, verdict)]

    _TRUSTED_EXECUTE = TrustedExecute
    return TrustedExecute


#: The cell metadata key where autograding notes a cell it put back from the source:
#: ``"missing"`` (deleted from the submission) or ``"edited"`` (a locked cell changed).
RESTORED_KEY = "tutorial_lib_restored"

_OVERWRITE_CELLS: type | None = None


def _course_overwrite_cells() -> type:
    """Build :class:`CourseOverwriteCells` on first use (it needs nbgrader)."""
    global _OVERWRITE_CELLS
    if _OVERWRITE_CELLS is not None:
        return _OVERWRITE_CELLS
    from nbformat import from_dict
    from nbgrader.api import MissingEntry  # type: ignore[import-untyped, import-not-found, unused-ignore]
    from nbgrader.preprocessors import ClearHiddenTests, OverwriteCells  # type: ignore[import-untyped, import-not-found, unused-ignore]

    hidden_tests = ClearHiddenTests()

    def released(source: str) -> str:
        """A locked cell's source as ``generate_assignment`` released it."""
        cell = from_dict({"cell_type": "code", "source": source, "metadata": {}})
        hidden_tests._remove_hidden_test_region(cell)
        return str(cell.source)

    class CourseOverwriteCells(OverwriteCells):
        """nbgrader's ``OverwriteCells`` for a class that does not stop at one notebook.

        - A hidden-test cell as released (its hidden tests removed) is given its source
          back without a warning: that is how hidden tests run, not tampering (nbgrader
          warns "checksum has changed" for every one of them: nbgrader issue 1961);
        - a locked cell whose text was edited is put back from the source, with one
          warning naming the student, and marked ``"edited"``;
        - a grade cell deleted from the submission is put back after the nearest earlier
          cell of the source that the submission still has (nbgrader looks only for the
          cell just before it, and fails with a ``KeyError`` when that one is an ordinary
          locked cell), marked ``"missing"``. A hidden-test cell comes back whole and is
          run and scored like any other; a written answer comes back empty.

        The marks are in each cell's metadata under :data:`RESTORED_KEY`
        (``tools/instructor.py grades`` shows them). Configure as nbgrader's own: e.g.
        ``c.OverwriteCells.add_missing_cells = True``.
        """

        def preprocess_cell(self, cell: Any, resources: Any, cell_index: int) -> Any:
            grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
            if grade_id is not None:
                try:
                    source = self.gradebook.find_source_cell(
                        grade_id, self.notebook_id, self.assignment_id
                    )
                except MissingEntry:
                    source = None
                if source is not None and source.locked and cell.source != source.source:
                    if cell.source != released(source.source):
                        student = resources.get("nbgrader", {}).get("student", "?")
                        self.log.warning(
                            "%s: the locked cell %s was edited in the submission; it is put"
                            " back from the source",
                            student,
                            grade_id,
                        )
                        cell.metadata[RESTORED_KEY] = "edited"
                    cell.source = source.source
            return super().preprocess_cell(cell, resources, cell_index)

        def add_missing_grade_cells(self, nb: Any, resources: Any) -> Any:
            source_nb = self.gradebook.find_notebook(self.notebook_id, self.assignment_id)
            order = [cell.name for cell in source_nb.source_cells]
            sources = {cell.name: cell for cell in source_nb.source_cells}
            solution_ids = {cell.name for cell in source_nb.solution_cells}
            student = resources.get("nbgrader", {}).get("student", "?")
            for grade_cell in sorted(source_nb.grade_cells, key=lambda c: order.index(c.name)):
                grade_id = grade_cell.name
                if any(_grade_id(cell) == grade_id for cell in nb.cells):
                    continue
                source = sources[grade_id]
                if grade_id in solution_ids or source.cell_type != "code":
                    cell = self.missing_cell_transform(
                        source, grade_cell.max_score, is_solution=grade_id in solution_ids
                    )
                else:
                    cell = from_dict(_restored_code_cell(source, grade_cell.max_score))
                cell.metadata[RESTORED_KEY] = "missing"
                earlier = order[: order.index(grade_id)]
                at = next(
                    (
                        index + 1
                        for name in reversed(earlier)
                        for index, kept in enumerate(nb.cells)
                        if _grade_id(kept) == name
                    ),
                    0,
                )
                nb.cells.insert(at, cell)
                self.log.warning(
                    "%s: the grade cell %s was missing from the submission; it is put back"
                    " from the source",
                    student,
                    grade_id,
                )
            return nb, resources

    _OVERWRITE_CELLS = CourseOverwriteCells
    return CourseOverwriteCells


def _grade_id(cell: Any) -> Any:
    return cell.get("metadata", {}).get("nbgrader", {}).get("grade_id")


def _restored_code_cell(source: Any, points: float) -> dict[str, Any]:
    """A deleted code grade cell, whole and runnable, as the source has it."""
    return {
        "cell_type": "code",
        "execution_count": None,
        "outputs": [],
        "source": source.source,
        "metadata": {
            "deletable": False,
            "editable": False,
            "nbgrader": {
                "grade": True,
                "grade_id": source.name,
                "locked": True,
                "checksum": source.checksum,
                "cell_type": "code",
                "points": points,
                "solution": False,
                "task": False,
                "schema_version": 3,
            },
        },
    }


def trusted_autograde_preprocessors() -> list[Any]:
    """nbgrader's autograde steps with :class:`TrustedExecute` in place of ``Execute``.

    For ``nbgrader_config.py``: ``c.Autograde.autograde_preprocessors = ...``.
    """
    from nbgrader.converters import Autograde  # type: ignore[import-untyped, import-not-found, unused-ignore]
    from nbgrader.preprocessors import Execute  # type: ignore[import-untyped, import-not-found, unused-ignore]

    trusted = _trusted_execute()
    steps = Autograde.class_traits()["autograde_preprocessors"].default()
    return [trusted if step is Execute else step for step in steps]


def course_sanitize_preprocessors() -> list[Any]:
    """nbgrader's steps before autograding with :class:`CourseOverwriteCells` in place of
    ``OverwriteCells``.

    For ``nbgrader_config.py``: ``c.Autograde.sanitize_preprocessors = ...``.
    """
    from nbgrader.converters import Autograde  # type: ignore[import-untyped, import-not-found, unused-ignore]
    from nbgrader.preprocessors import OverwriteCells  # type: ignore[import-untyped, import-not-found, unused-ignore]

    course = _course_overwrite_cells()
    steps = Autograde.class_traits()["sanitize_preprocessors"].default()
    return [course if step is OverwriteCells else step for step in steps]


def __getattr__(name: str) -> Any:
    """``TrustedExecute`` and ``CourseOverwriteCells`` are built on first use (they need
    nbgrader); ``NO_RECORD`` is
    rendered in the current language when it is read."""
    if name == "TrustedExecute":
        return _trusted_execute()
    if name == "CourseOverwriteCells":
        return _course_overwrite_cells()
    if name == "NO_RECORD":
        return str(_NO_RECORD)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
