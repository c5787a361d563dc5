"""The emulator's carriers: HTTP/1.1 on a socket, and the same handling without one.

- :class:`Server`: ``http.server.ThreadingHTTPServer`` on a free port of 127.0.0.1, one
  daemon thread per connection, tracked so that :meth:`Server.stop` can cut them, drain the
  requests still running and cancel the writes of any left;
- the request handler: HTTP framing (``Content-Length`` or chunked bodies, a deadline for
  each whole request, a lingering close after a refused framing), GitHub-shaped JSON for
  every malformed request (a broken ``Content-Length`` or chunked framing 400, a body over
  1 MiB 413, a body cut short 408, http.server's own refusals), and the fault steps that
  act on the connection (``commit_then_reset``: a TCP reset and no answer;
  ``commit_then_timeout``: the answer held back);
- :class:`InProcessServer` and :class:`InProcessTransport`: the same handler run on bytes
  in memory, reached through an ``httpx`` transport; see the transport's docstring.

What a request means is not decided here: each one read in full goes to
:meth:`tutorial_lib.emulator.app.Emulator.answer`, and its answer is written out with the
emulator's headers. Start a server with :func:`tutorial_lib.emulator.service.serve` (or
:func:`~tutorial_lib.emulator.service.serve_in_process`), not from here.
"""

from __future__ import annotations

import io
import json
import re
import socket
import struct
import sys
import threading
import time
import traceback
from collections.abc import Callable
from contextlib import suppress
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from socketserver import BaseServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx

from tutorial_lib.emulator.app import Emulator
from tutorial_lib.emulator.protocol import DOCS, Answer, ApiError, Request, bad_request

__all__ = [
    "DEFAULT_DRAIN_TIMEOUT_S",
    "DEFAULT_IDLE_TIMEOUT_S",
    "LATE_REQUEST_TIMEOUT_S",
    "MAX_BODY_BYTES",
    "InProcessServer",
    "InProcessTransport",
    "Server",
]

#: The largest request body read, in bytes (413 above it): a comment of MAX_COMMENT_CHARS
#: fits even with every character JSON-escaped as ``\\uXXXX``.
MAX_BODY_BYTES = 1 << 20
#: The longest chunk-size line and the most trailer lines of a chunked body.
_MAX_CHUNK_LINE = 1024
_MAX_TRAILERS = 100
#: The listen backlog. socketserver's default of 5 overflows when a few dozen clients
#: connect at once: the kernel drops (or resets) the connection attempts it cannot queue.
_LISTEN_BACKLOG = 1024
#: How long a connection may take to send a whole request (from the end of the previous
#: answer, so idle keep-alive time counts), and how long the end of serve() waits for
#: requests still running before it cancels their writes.
DEFAULT_IDLE_TIMEOUT_S = 30.0
DEFAULT_DRAIN_TIMEOUT_S = 30.0
#: How long a connection refused for its framing is read (and the bytes dropped) after the
#: answer, so that closing it with unread input does not reset it before the client reads.
_LINGER_S = 1.0
#: How long the end of serve_in_process() waits for slow commits still running.
LATE_REQUEST_TIMEOUT_S = 30.0


class _DeadlineReader(io.RawIOBase):
    """A connection's input under a deadline for the whole request: one read at a time
    cannot time out for a client that sends a byte every second, the deadline does.

    :meth:`restart` starts the clock for the next request (after an answer, so idle
    keep-alive time counts against it)."""

    def __init__(self, sock: socket.socket, timeout_s: float) -> None:
        super().__init__()
        self._sock = sock
        self._timeout_s = timeout_s
        self._deadline = time.monotonic() + timeout_s

    def restart(self) -> None:
        """The next request has ``timeout_s`` from now to arrive in full."""
        self._deadline = time.monotonic() + self._timeout_s

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        remaining = self._deadline - time.monotonic()
        if remaining <= 0:
            raise TimeoutError("the request did not arrive within the idle timeout")
        self._sock.settimeout(remaining)
        try:
            return self._sock.recv_into(buffer)
        finally:
            self._sock.settimeout(self._timeout_s)  # writes keep the full timeout


class Server(ThreadingHTTPServer):
    """One thread per connection; tracks its connections so that :meth:`stop` can cut
    them and wait for the requests still running."""

    daemon_threads = True
    allow_reuse_address = False
    request_queue_size = _LISTEN_BACKLOG

    def __init__(self, make: Callable[[str], Emulator], idle_timeout_s: float) -> None:
        self.idle_timeout_s = idle_timeout_s
        super().__init__(("127.0.0.1", 0), _Handler)
        self.emulator = make(f"http://127.0.0.1:{self.server_address[1]}")
        self.sockets_lock = threading.Lock()
        self.open_sockets: set[socket.socket] = set()
        self.connection_threads: set[threading.Thread] = set()
        self.stopping = threading.Event()  # set by stop(): held answers are let go

    def process_request(self, request: Any, client_address: Any) -> None:
        """What ThreadingMixIn does, with the thread registered before it starts (so stop()
        cannot miss a connection accepted just before it)."""
        thread = threading.Thread(
            target=self._serve_connection, args=(request, client_address), daemon=True
        )
        with self.sockets_lock:
            self.open_sockets.add(request)
            self.connection_threads.add(thread)
        thread.start()

    def _serve_connection(self, request: Any, client_address: Any) -> None:
        try:
            self.process_request_thread(request, client_address)
        finally:
            with self.sockets_lock:
                self.connection_threads.discard(threading.current_thread())

    def stop(self, drain_timeout_s: float) -> None:
        """Stop accepting, cut every connection, wait up to ``drain_timeout_s`` for the
        requests still running (a slow commit lands), then cancel the writes of any still
        running: after this returns, nothing is ever stored."""
        self.shutdown()
        self.stopping.set()
        self.close_open_connections()
        deadline = time.monotonic() + drain_timeout_s
        with self.sockets_lock:
            threads = list(self.connection_threads)
        for thread in threads:
            thread.join(max(0.0, deadline - time.monotonic()))
        self.emulator.commits.close()
        self.server_close()

    def shutdown_request(self, request: Any) -> None:
        with self.sockets_lock:
            self.open_sockets.discard(request)
        super().shutdown_request(request)

    def handle_error(self, request: Any, client_address: Any) -> None:
        """Quiet about clients that hung up (timeouts, resets): that is their right."""
        if isinstance(sys.exc_info()[1], ConnectionError):
            return
        super().handle_error(request, client_address)

    def close_open_connections(self) -> None:
        with self.sockets_lock:
            sockets = list(self.open_sockets)
        for sock in sockets:
            with suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)


class _Handler(BaseHTTPRequestHandler):
    server: Server | InProcessServer
    protocol_version = "HTTP/1.1"
    server_version = "GitHubEmulator/1.0"
    timeout = DEFAULT_IDLE_TIMEOUT_S  # the socket's; setup() sets the server's idle timeout
    # Headers and body go out in two writes; with Nagle's algorithm the second waits for
    # the client's delayed ACK (tens of ms per response on loopback).
    disable_nagle_algorithm = True
    #: The socket's input with its per-request deadline (None in process: no socket).
    deadline_reader: _DeadlineReader | None = None
    #: Set when the request's framing was refused: the input left is read and dropped.
    unread_input = False

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        """Quiet: nothing on stderr (notebooks)."""

    def setup(self) -> None:
        """The socket gets the server's idle timeout, its input a per-request deadline."""
        assert isinstance(self.server, Server)
        super().setup()
        self.connection.settimeout(self.server.idle_timeout_s)
        self.rfile.close()  # the makefile reader: replaced by one that keeps the deadline
        self.deadline_reader = _DeadlineReader(self.connection, self.server.idle_timeout_s)
        self.rfile = io.BufferedReader(self.deadline_reader)

    def handle_one_request(self) -> None:
        """One request; it has one idle timeout from now to arrive in full (a timeout closes
        the connection quietly, as http.server does)."""
        if self.deadline_reader is not None:
            self.deadline_reader.restart()
        super().handle_one_request()

    def finish(self) -> None:
        super().finish()
        if self.unread_input:
            self._drain_input()

    def _drain_input(self) -> None:
        """Read and drop what the client still sends for a while (a lingering close):
        closing a socket with unread input resets it, and the reset can destroy the
        answer before the client has read it."""
        sock = self.connection
        deadline = time.monotonic() + _LINGER_S
        with suppress(OSError):
            sock.shutdown(socket.SHUT_WR)
            dropped = 0
            while dropped <= 2 * MAX_BODY_BYTES and time.monotonic() < deadline:
                sock.settimeout(max(0.01, deadline - time.monotonic()))
                chunk = sock.recv(65536)
                if not chunk:
                    break
                dropped += len(chunk)

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        """http.server's own refusals (a request line that is not HTTP, headers too long, an
        unknown method), GitHub-shaped: JSON instead of its HTML page."""
        del explain  # the HTML page's paragraph
        short = self.responses.get(code, ("Error", ""))[0]
        payload = {"message": message or short, "documentation_url": DOCS, "status": str(code)}
        body = json.dumps(payload).encode()
        # a line that is not HTTP leaves http.server assuming HTTP/0.9, whose answers have
        # no status line: this one must have one, or the client cannot read the refusal
        self.request_version = "HTTP/1.1"
        self.send_response(code, short)
        self.send_header("Connection", "close")
        self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def do_GET(self) -> None:  # noqa: N802
        self._dispatch("GET")

    def do_POST(self) -> None:  # noqa: N802
        self._dispatch("POST")

    def do_PUT(self) -> None:  # noqa: N802
        self._dispatch("PUT")

    def do_PATCH(self) -> None:  # noqa: N802
        self._dispatch("PATCH")

    def do_DELETE(self) -> None:  # noqa: N802
        self._dispatch("DELETE")

    # -- plumbing --------------------------------------------------------------------------

    def _dispatch(self, method: str) -> None:
        self.emulator = self.server.emulator
        try:
            split = urlsplit(self.path)
            url_path, query = split.path, parse_qs(split.query)
        except ValueError:  # e.g. "//[x": no URL at all; no route will match it
            url_path, query = self.path, {}
        # used: the count so far, until the emulator counts this request
        self.incoming = Request(method, url_path, query, self.headers, self.emulator.used)
        try:
            # The body first: a refusal must not leave it unread, to be taken for the
            # connection's next request.
            self.incoming.raw_body = self._read_body()
            self._send(self.emulator.answer(self.incoming))
        except ApiError as error:  # the framing was refused
            self._send(error.answer())
        except Exception as exc:  # a bug of the emulator  # noqa: BLE001
            self._answer_bug(exc)

    def _answer_bug(self, exc: Exception) -> None:
        """A bug of the emulator: its traceback on stderr (it must not vanish) and a 500
        answer, so the client is not left with a dropped connection ("outcome unknown")."""
        traceback.print_exception(type(exc), exc, exc.__traceback__, file=sys.stderr)
        payload = {"message": "Server Error", "documentation_url": DOCS, "status": "500"}
        with suppress(OSError):
            self._send(Answer.json(500, payload, {"Connection": "close"}))
        self.close_connection = True

    def _read_body(self) -> bytes:
        """The request body, framed by Content-Length or chunked; anything else, or too
        big, is refused (and the connection closed after the answer)."""
        codings = self.headers.get_all("Transfer-Encoding") or []
        lengths = self.headers.get_all("Content-Length") or []
        try:
            if codings:
                self.unread_input = True  # until the body is read to its end
                if lengths:  # RFC 9112 §6.1: a sign of request smuggling; refused
                    raise bad_request(400, "Transfer-Encoding and Content-Length together")
                if [c.strip().lower() for v in codings for c in v.split(",")] != ["chunked"]:
                    raise bad_request(400, "Only the chunked transfer coding is supported")
                body = self._read_chunked()
            elif lengths:
                self.unread_input = True
                body = self._read_length(lengths)
            else:
                return b""
        except TimeoutError:
            raise bad_request(408, "Timed out reading the request body") from None
        self.unread_input = False
        return body

    def _read_length(self, fields: list[str]) -> bytes:
        # RFC 9112 §6.3: repeated values are one value if they are all the same
        values = {v.strip() for f in fields for v in f.split(",")}
        value = values.pop() if len(values) == 1 else ""
        if not (value.isascii() and value.isdigit()):
            raise bad_request(400, "Content-Length must be one whole number of bytes")
        if len(value) > 10 or int(value) > MAX_BODY_BYTES:
            raise bad_request(413, f"Request bodies are limited to {MAX_BODY_BYTES} bytes")
        length = int(value)
        body = self.rfile.read(length)
        if len(body) < length:
            raise bad_request(400, "The request body ended before its Content-Length")
        return body

    def _read_chunked(self) -> bytes:
        body = bytearray()
        while True:
            line = self.rfile.readline(_MAX_CHUNK_LINE + 1)
            size_text = line.split(b";", 1)[0].strip()
            if not line.endswith(b"\n") or re.fullmatch(rb"[0-9A-Fa-f]{1,8}", size_text) is None:
                raise bad_request(400, "Invalid chunk size line in a chunked request body")
            size = int(size_text, 16)
            if size == 0:
                break
            if len(body) + size > MAX_BODY_BYTES:
                raise bad_request(413, f"Request bodies are limited to {MAX_BODY_BYTES} bytes")
            chunk = self.rfile.read(size)
            if len(chunk) < size or self.rfile.read(2) != b"\r\n":
                raise bad_request(400, "A chunk of the request body is cut short")
            body += chunk
        for _ in range(_MAX_TRAILERS):  # trailer fields (ignored), then an empty line
            line = self.rfile.readline(_MAX_CHUNK_LINE + 1)
            if line in (b"\r\n", b"\n"):
                return bytes(body)
            if not line.endswith(b"\n"):
                break
        raise bad_request(400, "The chunked request body does not end with an empty line")

    def _send(self, answer: Answer) -> None:
        """Write ``answer``, as the request's fault step lets it through (a reset, a held
        answer), and record it."""
        request = self.incoming
        fault = request.fault.kind if request.fault is not None else None
        if fault == "commit_then_reset":
            self.emulator.record(request, None)
            self._reset_connection()
            return
        self.emulator.record(request, answer.status)
        if fault == "commit_then_timeout":
            assert request.fault is not None
            self._hold_answer(request.fault.delay_s)  # the client gives up meanwhile
            with suppress(OSError):
                self._write_response(answer)
            self.close_connection = True
            return
        try:
            self._write_response(answer)
        except (BrokenPipeError, ConnectionResetError):  # the client has given up (its timeout)
            self.close_connection = True

    def _hold_answer(self, delay_s: float) -> None:
        """Keep the (stored) request's answer back for ``delay_s`` seconds, or until the
        server stops: the write is done, so the end of serve() need not wait for it."""
        assert isinstance(self.server, Server)
        self.server.stopping.wait(delay_s)

    def _reset_connection(self) -> None:
        """Close the TCP connection with RST (SO_LINGER 0) and no answer."""
        self.close_connection = True
        sock = self.connection
        with suppress(OSError):
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.rfile.close()  # drops the makefile reference, so close() really closes
        sock.close()

    def _write_response(self, answer: Answer) -> None:
        self.send_response(answer.status)
        headers = {
            **self.emulator.response_headers(self.incoming),
            "Content-Type": answer.content_type,
            "Content-Length": str(len(answer.body)),
            **answer.headers,
        }
        if answer.status == 204:  # RFC 9110 §8.6: no content, and no Content-Length either
            del headers["Content-Type"], headers["Content-Length"]
        for name, value in headers.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(answer.body)


# -- without sockets -------------------------------------------------------------------------


class InProcessServer(BaseServer):
    """Stands where the socket server would, for a handler run in process."""

    def __init__(self, emulator: Emulator) -> None:
        # the class is never used to make handlers: InProcessTransport makes them itself
        super().__init__(("in-process", 0), _Handler)
        self.emulator = emulator
        #: Requests still running on a worker thread (slow commits the client gave up on).
        self.running: list[_Exchange] = []
        self.running_lock = threading.Lock()

    def finish_running(self, timeout_s: float) -> None:
        """Wait for requests still on a worker (at most ``timeout_s`` in all); re-raise the
        first one that failed: a late bug of the emulator must not vanish."""
        deadline = time.monotonic() + timeout_s
        with self.running_lock:
            running, self.running = self.running, []
        for exchange in running:
            if not exchange.done.wait(max(0.0, deadline - time.monotonic())):
                raise RuntimeError("a slow request of the in-process emulator did not finish")
        for exchange in running:
            if exchange.error is not None:
                raise exchange.error


class _InProcessHandler(_Handler):
    """The emulator's request handling on bytes in memory: no socket, and the two faults
    that act on a connection become facts the transport turns into httpx's errors."""

    def __init__(self, raw_request: bytes, server: InProcessServer) -> None:
        # What BaseRequestHandler.__init__ does, minus the socket it would be given.
        self.raw_request = raw_request
        self.reset = False  # commit_then_reset: no answer, the connection was cut
        self.held_s = 0.0  # commit_then_timeout: the answer is held back this long
        self.answer = b""
        self.client_address = ("in-process", 0)
        self.server = server
        self.setup()
        try:
            self.handle()
        finally:
            self.finish()

    def setup(self) -> None:
        self.rfile = io.BytesIO(self.raw_request)
        self.wfile = io.BytesIO()

    def finish(self) -> None:
        assert isinstance(self.wfile, io.BytesIO)
        self.answer = self.wfile.getvalue()

    def _hold_answer(self, delay_s: float) -> None:
        self.held_s = delay_s  # the transport decides: the client's timeout may come first

    def _reset_connection(self) -> None:
        self.close_connection = True
        self.reset = True

    def _answer_bug(self, exc: Exception) -> None:
        raise exc  # in process, an emulator bug is raised in the client (see _Exchange)


@dataclass
class _Exchange:
    """One request handled (in the caller's thread or a worker); ``done`` once it is over."""

    server: InProcessServer
    raw_request: bytes
    done: threading.Event = field(default_factory=threading.Event)
    handler: _InProcessHandler | None = None
    error: BaseException | None = None

    def run(self) -> None:
        try:
            self.handler = _InProcessHandler(self.raw_request, self.server)
        except BaseException as exc:  # a bug of the emulator: re-raised in the client
            self.error = exc
        finally:
            self.done.set()


class InProcessTransport(httpx.BaseTransport):
    """An httpx transport that hands every request to the emulator's request handling
    directly: no socket, no port, no server thread, the fault plan applied as over HTTP.

    What a client sees is what it sees over HTTP, minus the waiting:

    - a ``refuse`` step raises ``httpx.ConnectError`` (nothing reached the server);
    - ``commit_then_reset``: the comment is stored, then ``httpx.ReadError`` (connection
      reset, no answer);
    - ``commit_then_timeout``: the comment is stored and the answer held ``delay_s``; when
      that is longer than the client's read timeout, ``httpx.ReadTimeout`` is raised at
      once (the server has already done all it will do, so waiting out the timeout would
      change nothing but the wall time), else the answer comes after ``delay_s``;
    - ``slow_commit``: while the plan still holds such a step, requests run on a worker
      thread and the client waits no longer than its read timeout (``httpx.ReadTimeout``);
      the slow commit then lands later, and a request meanwhile sees it in flight, exactly
      as over HTTP.

    Every other request runs to its end in the caller's thread, so it never times out.
    """

    def __init__(self, server: InProcessServer) -> None:
        self._server = server

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        """Handle one request in process; see the class docstring."""
        faults = self._server.emulator.faults
        if faults is not None and faults.take_refusal(request.method, request.url.path):
            raise httpx.ConnectError("[Errno 111] Connection refused", request=request)
        exchange = _Exchange(self._server, _raw_request(request))
        timeout_s = request.extensions.get("timeout", {}).get("read")
        if faults is not None and faults.pending("slow_commit"):
            # only a slow commit outlives the client's patience: it needs its own thread
            with self._server.running_lock:
                self._server.running.append(exchange)
            threading.Thread(target=exchange.run, daemon=True).start()
            if not exchange.done.wait(timeout_s):
                raise httpx.ReadTimeout("timed out", request=request)  # it lands later
        else:
            exchange.run()
        if exchange.error is not None:
            raise exchange.error
        handler = exchange.handler
        assert handler is not None
        if handler.reset:
            raise httpx.ReadError("[Errno 104] Connection reset by peer", request=request)
        if handler.held_s:
            if timeout_s is not None and handler.held_s >= timeout_s:
                raise httpx.ReadTimeout("timed out", request=request)
            time.sleep(handler.held_s)
        return _parse_response(handler.answer, request)


def _raw_request(request: httpx.Request) -> bytes:
    """``request`` as the bytes an HTTP/1.1 client would send (a streamed body, which
    httpx sends chunked, is passed read in full, with its Content-Length)."""
    body = request.read()
    target = request.url.raw_path.decode("ascii")
    lines = [f"{request.method} {target} HTTP/1.1"]
    lines += [
        f"{name.decode('latin-1')}: {value.decode('latin-1')}"
        for name, value in request.headers.raw
        if name.lower() != b"transfer-encoding"
    ]
    if body and "content-length" not in request.headers:
        lines.append(f"Content-Length: {len(body)}")
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body


def _parse_response(raw: bytes, request: httpx.Request) -> httpx.Response:
    """The bytes the handler wrote, as an ``httpx.Response``."""
    head, _, body = raw.partition(b"\r\n\r\n")
    status_line, *header_lines = head.decode("latin-1").split("\r\n")
    status = int(status_line.split(" ", 2)[1])
    headers = [(name, value) for name, _, value in (h.partition(": ") for h in header_lines)]
    return httpx.Response(status, headers=headers, content=body, request=request)
