"""A raw HTTP/1.1 peer on 127.0.0.1:0 whose every byte is scripted: what a hostile agent, LLM
endpoint or mirror can send that no framework would (broken framing, bombs, resets).

    def answer(request: Request) -> Answer:
        return Answer(b"HTTP/1.1 200 OK\\r\\ncontent-length: 2\\r\\n\\r\\n{}", then="close")

    with raw_server(answer) as base:      # "http://127.0.0.1:PORT"
        ...

Each connection is served by its own thread, requests read in turn (keep-alive). After the
answer, `then` says what the connection does: "keep" (serve the next request), "close",
"reset" (an RST: SO_LINGER 0), "half_close" (FIN on our side, then read until the client
leaves) or "hang" (say nothing more until the server stops).
"""

from __future__ import annotations

import contextlib
import socket
import struct
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Literal

Then = Literal["keep", "close", "reset", "half_close", "hang"]


@dataclass
class Request:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes
    number: int  # 1-based, over the server's life


@dataclass
class Answer:
    data: bytes
    then: Then = "keep"


@dataclass
class _State:
    answer: Callable[[Request], Answer]
    stop: threading.Event = field(default_factory=threading.Event)
    lock: threading.Lock = field(default_factory=threading.Lock)
    conns: list[socket.socket] = field(default_factory=list)
    requests: list[Request] = field(default_factory=list)


def _read_request(conn: socket.socket, buffer: bytearray) -> tuple[bytes, bytes] | None:
    while b"\r\n\r\n" not in buffer:
        data = conn.recv(65536)
        if not data:
            return None
        buffer += data
    end = buffer.index(b"\r\n\r\n") + 4
    head = bytes(buffer[:end])
    del buffer[:end]
    length = next((int(line.split(b":", 1)[1]) for line in head.split(b"\r\n")
                   if line.lower().startswith(b"content-length:")), 0)
    while len(buffer) < length:
        data = conn.recv(65536)
        if not data:
            return None
        buffer += data
    body = bytes(buffer[:length])
    del buffer[:length]
    return head, body


def _parse(head: bytes, body: bytes, number: int) -> Request:
    lines = head.decode("latin-1").split("\r\n")
    method, path = lines[0].split(" ")[:2]
    headers = {}
    for line in lines[1:]:
        if ":" in line:
            name, value = line.split(":", 1)
            headers[name.strip().lower()] = value.strip()
    return Request(method, path, headers, body, number)


def _serve(conn: socket.socket, state: _State) -> None:
    buffer = bytearray()
    try:
        while not state.stop.is_set():
            got = _read_request(conn, buffer)
            if got is None:
                return
            with state.lock:
                request = _parse(*got, len(state.requests) + 1)
                state.requests.append(request)
            answer = state.answer(request)
            conn.sendall(answer.data)
            if answer.then == "keep":
                continue
            if answer.then == "reset":
                conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            elif answer.then == "half_close":
                conn.shutdown(socket.SHUT_WR)
                while conn.recv(65536):
                    pass
            elif answer.then == "hang":
                state.stop.wait()
            return
    except OSError:
        return  # the client went away
    finally:
        conn.close()


class RawServer:
    def __init__(self, state: _State, port: int) -> None:
        self._state = state
        self.base = f"http://127.0.0.1:{port}"

    @property
    def requests(self) -> list[Request]:
        with self._state.lock:
            return list(self._state.requests)


@contextlib.contextmanager
def raw_server(answer: Callable[[Request], Answer]) -> Iterator[RawServer]:
    state = _State(answer)
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(0.05)

    def accept() -> None:
        while not state.stop.is_set():
            try:
                conn, _ = listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            conn.settimeout(None)
            with state.lock:
                state.conns.append(conn)
            threading.Thread(target=_serve, args=(conn, state), daemon=True).start()

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield RawServer(state, listener.getsockname()[1])
    finally:
        state.stop.set()
        thread.join()
        listener.close()
        with state.lock:
            for conn in state.conns:
                with contextlib.suppress(OSError):
                    conn.shutdown(socket.SHUT_RDWR)
