"""The workspace sandbox: open a file beneath a root directory, with no check-then-open race.

The naive way resolves the path, checks that it is inside the root, then opens it. Between
the check and the open another process can swap a symlink, and the open follows it out.
Here the check IS the open: the kernel resolves the path relative to a directory we hold
open and refuses to leave it.

- Linux 5.6+: ``openat2(root_fd, path, RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS)`` through
  ctypes (Python's ``os`` does not wrap it).
- Elsewhere: a walk, one component at a time, each opened with ``dir_fd`` and
  ``O_NOFOLLOW``; a symlink found on the way is read with ``readlink`` and its target
  resolved by the same walk, so ``..`` can never climb above the root.

Symlinks that stay inside the root are followed (like Go's ``os.Root`` and Rust's
cap-std); symlinks that lead out are refused (``outside_workspace``), and so are links with
an absolute target, even one that names a place inside (as in ``os.Root``: "symbolic links
must not be absolute"; RESOLVE_BENEATH refuses them too). Only regular files
are returned: the file is opened with ``O_NONBLOCK`` (a FIFO would otherwise block the
open forever) and ``fstat`` must say S_ISREG.

Hard links: a hard link is one more name of the same file, so a link inside the root to a
file outside is, to every path check, an ordinary file inside. What the opened descriptor
does tell is how many names the file has (``st_nlink`` from ``fstat``: no second lookup
of the path, so no race). A regular file with more than one name cannot be proved to
belong to the workspace, so :func:`open_beneath` refuses it (``permission_denied``, see
:func:`hard_link_error`) unless the caller passes ``allow_hard_links=True``. ``ln``,
``cp -al`` and package managers that link from a shared store (pnpm, uv) create such
files; a git checkout writes every work-tree file afresh, with one name. The check is as
good as the filesystem's link count.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import functools
import os
import platform
import stat
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Any, Literal

from tutorial_lib.core.contracts import ContractError, oserror_details
from tutorial_lib.workspace.platform_check import require_supported

require_supported()  # on a platform without dir_fd support, stop here with the reason

__all__ = [
    "Method",
    "OpenedFile",
    "check_relative_path",
    "describe_file_type",
    "hard_link_error",
    "is_hard_linked",
    "name_beneath",
    "open_beneath",
    "open_relative",
    "open_root",
    "openat2_available",
    "resolve_name_beneath",
]

#: How a path is resolved beneath the root: the ``openat2`` system call or the ``dir_fd`` walk.
Method = Literal["openat2", "walk"]

_RESOLVE_NO_MAGICLINKS = 0x02
_RESOLVE_BENEATH = 0x08
_SYS_OPENAT2 = {"x86_64": 437, "aarch64": 437, "arm64": 437}.get(platform.machine())
_MAX_SYMLINKS = 40  # the kernel's own limit
_PATH_MAX = 4096  # bytes, the terminating NUL included (Linux)
_EAGAIN_RETRIES = 3
_FILE_FLAGS = os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC | getattr(os, "O_NOFOLLOW", 0)


class _OpenHow(ctypes.Structure):
    _fields_ = [("flags", ctypes.c_uint64), ("mode", ctypes.c_uint64), ("resolve", ctypes.c_uint64)]


@dataclass
class OpenedFile:
    """A regular file opened beneath the root: its descriptor (owned by you) and its size.

    Close it with :meth:`close`, or use it as a context manager (the road closes what a
    business check opened, whatever happens next).
    """

    fd: int
    size_bytes: int
    method: Method
    #: The file's name relative to the root after every symlink was followed (``notes.txt``
    #: opened through a link ``alias -> notes.txt`` says ``notes.txt``); None where the OS
    #: cannot name an open descriptor (Linux can, through ``/proc/self/fd``).
    resolved_name: str | None = None
    closed: bool = field(default=False, compare=False)

    def close(self) -> None:
        """Close the descriptor once: a second call does nothing (the number may already
        belong to another file)."""
        if not self.closed:
            self.closed = True
            with contextlib.suppress(OSError):
                os.close(self.fd)

    def __enter__(self) -> OpenedFile:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


def check_relative_path(path: str) -> PurePosixPath:
    """Lexical checks the kernel cannot make for us; returns the normalized relative path.

    Refuses NUL bytes and text that is not encodable as UTF-8 (``invalid_path``), absolute
    paths (``absolute_path_not_allowed``) and ``..`` that climbs above the root
    (``outside_workspace``). A ``..`` that stays inside (``src/../notes.txt``) is folded
    away here, so neither open method ever sees one. A result longer than the kernel's
    PATH_MAX is ``invalid_path`` here, so both open methods agree on it.
    """
    if "\x00" in path:
        raise ContractError(
            "invalid_path", "'path' contains a NUL byte", field="path", received=path
        )
    try:
        path.encode("utf-8")  # a lone surrogate (JSON allows "\ud800") has no bytes
    except UnicodeEncodeError:
        raise ContractError(
            "invalid_path", "'path' is not valid Unicode text", field="path", received=path
        ) from None
    if path.startswith("/"):
        raise ContractError(
            "absolute_path_not_allowed",
            "'path' must be relative to the workspace root, e.g. 'src/app.py'",
            field="path",
            received=path,
            suggestion="drop the leading '/' and any workspace prefix",
        )
    parts: list[str] = []
    for part in path.split("/"):
        if part in ("", "."):
            continue
        if part == "..":
            if not parts:
                raise _outside(path)
            parts.pop()
        else:
            parts.append(part)
    if not parts:
        raise ContractError(
            "not_a_file", "'path' names the workspace root itself", field="path", received=path
        )
    if len("/".join(parts).encode("utf-8")) >= _PATH_MAX:
        # openat2 would say ENAMETOOLONG, the walk (short parts) might say ENOENT
        raise ContractError("invalid_path", "'path' is too long", field="path", received=path)
    return PurePosixPath(*parts)


def resolve_name_beneath(
    root: str | os.PathLike[str], path: str, *, max_links: int = 40
) -> str | None:
    """The workspace name ``path`` leads to after its symlinks, found by NAME only.

    Each component is looked up with ``lstat`` and each symlink read with ``readlink``;
    nothing is opened, so a FIFO is not touched, and a target's type or size plays no
    part. From the first component that does not exist, the rest is taken as written.
    Returns the normalized relative name, or None when the path or a link leads out of the
    root, is absolute, or loops (more than ``max_links`` links): the open itself refuses
    those, in its own words. An authorization station checks this name BEFORE the business
    check opens anything (the open then re-checks the name of what it really opened).
    """
    try:
        pending = list(check_relative_path(path).parts)
    except ContractError:
        return None
    done: list[str] = []
    links = 0
    while pending:
        part = pending.pop(0)
        if part in ("", "."):
            continue
        if part == "..":
            if not done:
                return None
            done.pop()
            continue
        try:
            info = os.lstat(os.path.join(root, *done, part))
        except (OSError, ValueError):  # missing, or a component is not a directory
            rest = [part, *pending]
            while rest:  # the rest as written, with any '..' folded lexically
                step = rest.pop(0)
                if step == "..":
                    if not done:
                        return None
                    done.pop()
                elif step not in ("", "."):
                    done.append(step)
            break
        if stat.S_ISLNK(info.st_mode):
            links += 1
            if links > max_links:
                return None
            target = os.readlink(os.path.join(root, *done, part))
            if target.startswith("/"):
                return None
            pending = [*target.split("/"), *pending]
            continue
        done.append(part)
    return "/".join(done) if done else "."


def openat2_available() -> bool:
    """Whether this kernel and CPU offer openat2 (Linux 5.6+ on x86_64 or arm64)."""
    return _openat2_probe()


def open_beneath(
    root: str | os.PathLike[str],
    path: str,
    *,
    method: Method | None = None,
    allow_hard_links: bool = False,
) -> OpenedFile:
    """Open the regular file ``path`` beneath ``root`` for reading, or raise ContractError.

    ``method`` forces ``"openat2"`` or ``"walk"`` (tests and the chapter compare them);
    by default openat2 is used where available. A file with several hard links is
    refused (:func:`hard_link_error`) unless ``allow_hard_links``.
    """
    relative = check_relative_path(path)
    chosen = method or ("openat2" if openat2_available() else "walk")
    root_fd = open_root(root)
    try:
        fd = open_relative(root_fd, relative.parts, path, method=chosen)
    finally:
        os.close(root_fd)
    try:
        info = os.fstat(fd)
    except OSError:  # pragma: no cover - fstat of a fresh descriptor cannot fail
        os.close(fd)
        raise
    if not stat.S_ISREG(info.st_mode):
        os.close(fd)
        raise ContractError(
            "not_a_file",
            f"'{path}' is a {describe_file_type(info.st_mode)}, not a regular file",
            field="path",
            received=path,
        )
    # The link count of the descriptor we hold, not of the path: no race.
    if not allow_hard_links and is_hard_linked(info):
        os.close(fd)
        raise hard_link_error(path, info)
    return OpenedFile(fd, info.st_size, chosen, name_beneath(root, fd))


def name_beneath(root: str | os.PathLike[str], fd: int) -> str | None:
    """The path of open ``fd`` relative to ``root`` (resolved; POSIX form), or None."""
    root_path, file_path = os.path.realpath(root), _descriptor_path(fd)
    if file_path is None:
        return None
    if not file_path.startswith(root_path.rstrip("/") + "/"):
        return None  # pragma: no cover - open_relative never leaves the root
    return os.path.relpath(file_path, root_path).replace(os.sep, "/")


def is_hard_linked(info: os.stat_result) -> bool:
    """Whether ``info`` (``fstat`` of an opened descriptor) is a regular file with more than
    one name, so that another name may lie outside the workspace.

    Directories are never hard-linked on Linux (their ``st_nlink`` counts subdirectories),
    and a symlink is a file of its own: neither counts.
    """
    return stat.S_ISREG(info.st_mode) and info.st_nlink > 1


def hard_link_error(path: str, info: os.stat_result) -> ContractError:
    """The refusal of a hard-linked file (see :func:`is_hard_linked`): ``permission_denied``.

    Not ``outside_workspace``: every name may well be inside (``cp -al`` within the
    workspace); the server only cannot prove it. Not the model's input to correct either:
    every name of the file has the same link count. The default advice
    ``after_authorization`` fits: the file becomes readable only if a person replaces the
    link with a copy or the operator allows hard links. The operator's log gets the
    device and inode, to find the other names (``find / -xdev -inum``).
    """
    return ContractError(
        "permission_denied",
        f"'{path}' has {info.st_nlink} hard links (names for the same file); one of them may"
        " lie outside the workspace, so this workspace does not read it",
        field="path",
        received=path,
        suggestion=(
            "another path to the same file is refused too: ask the user to replace the"
            " hard link with a plain copy, or the operator to allow hard links"
        ),
        log={"st_nlink": info.st_nlink, "st_dev": info.st_dev, "st_ino": info.st_ino},
    )


def open_root(root: str | os.PathLike[str]) -> int:
    """Open the workspace directory ``root``; return its descriptor (yours to close).

    Every lookup beneath the root starts from this descriptor, so renaming or replacing
    the root's path afterwards changes nothing. A root that cannot be opened is the
    server's problem, not the model's: ``temporary_unavailable``, with the path and errno
    in the operator's log only.
    """
    try:
        return os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError as exc:
        raise ContractError(
            "temporary_unavailable",
            f"the workspace cannot be opened ({_errno_name(exc.errno)})",
            log={**oserror_details(exc), "resolved_path": os.fspath(root)},
        ) from None


def open_relative(
    root_fd: int, parts: tuple[str, ...], shown: str, *, method: Method | None = None
) -> int:
    """Open ``parts`` (a path from :func:`check_relative_path`) beneath the directory ``root_fd``.

    The lookup never leaves the root and follows only symlinks that stay inside; errors
    are ContractErrors that name ``shown`` (the path as the model sent it). The last step
    opens with ``O_RDONLY | O_NONBLOCK``, so the descriptor may be a regular file, a
    directory or something else: ``fstat`` it (a search walks a directory, a read refuses
    anything but a regular file). ``method`` forces ``"openat2"`` or ``"walk"``; by
    default openat2 where available. The descriptor is yours to close.
    """
    chosen = method or ("openat2" if openat2_available() else "walk")
    if chosen == "openat2":
        return _open_with_openat2(root_fd, "/".join(parts), shown)
    return _open_with_walk(root_fd, parts, shown)


@functools.cache
def _syscall() -> Callable[..., int]:
    return ctypes.CDLL(None, use_errno=True).syscall


def _errno_name(code: int | None) -> str:
    """``ENOENT`` for 2: the symbolic name of an errno (its number if unknown)."""
    return errno.errorcode.get(code or 0, str(code))


def _raw_openat2(dir_fd: int, path: str, flags: int, resolve: int) -> int:
    if _SYS_OPENAT2 is None:  # no syscall number for this CPU: as the kernel would say
        raise OSError(errno.ENOSYS, os.strerror(errno.ENOSYS), path)
    how = _OpenHow(flags=flags, mode=0, resolve=resolve)
    syscall = _syscall()
    fd = syscall(
        ctypes.c_long(_SYS_OPENAT2),
        ctypes.c_int(dir_fd),
        ctypes.c_char_p(os.fsencode(path)),
        ctypes.byref(how),
        ctypes.c_size_t(ctypes.sizeof(how)),
    )
    if fd < 0:
        err = ctypes.get_errno()
        raise OSError(err, os.strerror(err), path)
    return fd


@functools.cache  # probed once per process: the kernel does not change
def _openat2_probe() -> bool:
    if _SYS_OPENAT2 is None or platform.system() != "Linux":
        return False
    try:
        os.close(_raw_openat2(-100, ".", os.O_RDONLY | os.O_CLOEXEC, 0))  # AT_FDCWD
    except OSError:
        return False  # ENOSYS (old kernel) or EPERM (seccomp): use the walk
    return True


def _logs_resolved_path(opener: Callable[[int, Any, str], int]) -> Callable[[int, Any, str], int]:
    """Add the resolved path to the internal log of any ContractError ``opener`` raises.

    Only the operator's log gets it (the model sees the relative path it sent). Known where
    the OS names an open descriptor's directory (``/proc/self/fd`` on Linux), else omitted.
    """

    @functools.wraps(opener)
    def wrapper(root_fd: int, relative: Any, shown: str) -> int:
        try:
            return opener(root_fd, relative, shown)
        except ContractError as exc:
            root_path = _descriptor_path(root_fd)
            if root_path is not None:
                parts = relative if isinstance(relative, tuple) else (relative,)
                exc.log.setdefault("resolved_path", os.path.join(root_path, *parts))
            raise

    return wrapper


def _descriptor_path(fd: int) -> str | None:
    try:
        return os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        return None


@_logs_resolved_path
def _open_with_openat2(root_fd: int, relative: str, shown: str) -> int:
    for _attempt in range(_EAGAIN_RETRIES):
        try:
            return _raw_openat2(
                root_fd, relative, _FILE_FLAGS, _RESOLVE_BENEATH | _RESOLVE_NO_MAGICLINKS
            )
        except OSError as exc:
            if exc.errno != errno.EAGAIN:  # EAGAIN: a rename raced the lookup; try again
                raise _translate(exc, shown) from None
    raise ContractError(
        "temporary_unavailable",
        "the workspace changed while the path was being resolved; retry shortly",
        field="path",
        received=shown,
        log={"errno_name": "EAGAIN", "attempts": _EAGAIN_RETRIES},
    )


@_logs_resolved_path
def _open_with_walk(root_fd: int, parts: tuple[str, ...], shown: str) -> int:
    """Resolve ``parts`` beneath ``root_fd`` by hand, following only symlinks that stay inside."""
    stack = [os.dup(root_fd)]  # directories from the root down to the current one
    pending = list(parts)
    links_followed = 0
    try:
        while pending:
            part = pending.pop(0)
            if part in ("", "."):
                continue
            if part == "..":
                if len(stack) == 1:
                    raise _outside(shown)
                os.close(stack.pop())
                continue
            last = not pending
            flags = (_FILE_FLAGS | getattr(os, "O_NOFOLLOW", 0)) if last else _DIR_FLAGS
            try:
                fd = os.open(part, flags, dir_fd=stack[-1])
            except OSError as exc:
                if exc.errno not in (errno.ELOOP, errno.ENOTDIR, errno.EMLINK):
                    raise _translate(exc, shown) from None
                target = _read_link(part, stack[-1])
                if target is None:  # not a symlink: a genuine ENOTDIR or ELOOP
                    raise _translate(exc, shown) from None
                links_followed += 1
                if links_followed > _MAX_SYMLINKS:
                    raise _translate(OSError(errno.ELOOP, "too many links"), shown) from None
                if target.startswith("/"):
                    raise _outside(shown) from None
                pending = target.split("/") + pending
                continue
            if last:
                return fd
            stack.append(fd)
        # Every part was "." or ".." or a link to a directory: the path names a directory.
        raise ContractError(
            "not_a_file",
            f"'{shown}' is a directory, not a regular file",
            field="path",
            received=shown,
        )
    finally:
        for fd in stack:
            os.close(fd)


def _read_link(name: str, dir_fd: int) -> str | None:
    try:
        return os.readlink(name, dir_fd=dir_fd)
    except OSError:
        return None


def _outside(path: str) -> ContractError:
    return ContractError(
        "outside_workspace",
        f"'{path}' leads outside the workspace; only files inside it can be read",
        field="path",
        received=path,
    )


def _translate(exc: OSError, path: str) -> ContractError:
    error = _translate_errno(exc, path)
    error.log.update(oserror_details(exc))  # the operator's log keeps what the model does not see
    return error


def _translate_errno(exc: OSError, path: str) -> ContractError:
    code = exc.errno
    if code == errno.EXDEV:
        return _outside(path)
    if code in (errno.ENOENT, errno.ENOTDIR):
        return ContractError(
            "not_found",
            f"no file at '{path}' in the workspace",
            field="path",
            received=path,
            suggestion="search for the file name first, then read the path it reports",
        )
    if code in (errno.EACCES, errno.EPERM):
        return ContractError(
            "permission_denied",
            f"the workspace denies reading '{path}'",
            field="path",
            received=path,
        )
    if code == errno.ELOOP:
        return ContractError(
            "invalid_path",
            f"'{path}' runs into a symlink loop or a link that cannot be followed",
            field="path",
            received=path,
        )
    if code == errno.ENAMETOOLONG:
        return ContractError("invalid_path", "'path' is too long", field="path", received=path)
    if code in (errno.ENXIO, errno.EOPNOTSUPP, errno.EISDIR):
        return ContractError(
            "not_a_file", f"'{path}' is not a regular file", field="path", received=path
        )
    return ContractError(
        "temporary_unavailable",
        f"reading '{path}' failed ({_errno_name(code)}); retry shortly",
        field="path",
        received=path,
    )


def describe_file_type(mode: int) -> str:
    """What a file of ``st_mode`` ``mode`` is, in words: ``"directory"``, ``"socket"``...

    For messages such as "'x' is a directory, not a regular file".
    """
    if stat.S_ISDIR(mode):
        return "directory"
    if stat.S_ISFIFO(mode):
        return "FIFO (named pipe)"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "device"
    if stat.S_ISSOCK(mode):
        return "socket"
    return "special file"
