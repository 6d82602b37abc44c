"""Small real servers on 127.0.0.1 for what the fake GitHub cannot be: a TLS endpoint in front
of it, a TLS-terminating CONNECT proxy, a certificate authority to trust them with, and a raw
HTTP server that answers whatever bytes a test hands it (a body that never ends, a length that
lies, JSON nested a hundred thousand deep)."""

from __future__ import annotations

import contextlib
import select
import socket
import ssl
import subprocess
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from changelog_tools import config as config_mod
from changelog_tools.github.adapter import GitHub, RetryPolicy, make_github
from tests.fakegithub_fixtures import REPO, TOKEN

Answer = Callable[[bytes, socket.socket], None]  # (request head, connection) -> writes an answer


@dataclass(frozen=True)
class Certificates:
    """A test CA and a server certificate it signed for 127.0.0.1 and localhost."""

    ca: Path
    cert: Path
    key: Path

    def server_context(self) -> ssl.SSLContext:
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.load_cert_chain(self.cert, self.key)
        return context


def make_certificates(root: Path) -> Certificates:
    def openssl(*args: str) -> None:
        subprocess.run(["openssl", *args], cwd=root, check=True, capture_output=True)

    openssl(
        "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=test CA",
        "-keyout", "ca.key", "-out", "ca.pem",
        "-addext", "basicConstraints=critical,CA:TRUE",
        "-addext", "keyUsage=critical,keyCertSign,cRLSign",
    )  # fmt: skip
    openssl(
        "req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=127.0.0.1",
        "-keyout", "server.key", "-out", "server.csr",
    )  # fmt: skip
    (root / "server.ext").write_text(
        "subjectAltName=IP:127.0.0.1,DNS:localhost\n"
        "basicConstraints=CA:FALSE\n"
        "keyUsage=critical,digitalSignature,keyEncipherment\n"
        "extendedKeyUsage=serverAuth\n"
    )
    openssl(
        "x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key",
        "-set_serial", "2", "-days", "2", "-extfile", "server.ext", "-out", "server.pem",
    )  # fmt: skip
    return Certificates(root / "ca.pem", root / "server.pem", root / "server.key")


def pump(a: socket.socket, b: socket.socket) -> None:
    """Copy bytes both ways until either side closes (TLS sockets may hold decrypted bytes
    that select cannot see: those are read first)."""
    sockets: list[socket.socket] = [a, b]
    while True:
        ready: list[socket.socket] = [
            s for s in sockets if isinstance(s, ssl.SSLSocket) and s.pending()
        ]
        if not ready:
            ready, _, _ = select.select(sockets, [], [], 10)
            if not ready:
                return
        for sock in ready:
            try:
                data = sock.recv(65536)
            except ssl.SSLWantReadError:
                continue
            except OSError:
                return
            if not data:
                return
            try:
                (b if sock is a else a).sendall(data)
            except OSError:
                return


def read_head(sock: socket.socket) -> bytes:
    """The bytes of one request up to its blank line (b"" when the peer closed first)."""
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = sock.recv(1)
        if not chunk:
            return b""
        head += chunk
    return head


class Listener:
    """A TCP listener on 127.0.0.1 that hands each connection to ``serve`` in a thread."""

    def __init__(self, serve: Callable[[socket.socket], None]) -> None:
        self._serve = serve
        self._open: set[socket.socket] = set()
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.port: int = self.sock.getsockname()[1]
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self._open.add(conn)
            threading.Thread(target=self._handle, args=(conn,), daemon=True).start()

    def _handle(self, conn: socket.socket) -> None:
        with contextlib.suppress(OSError), conn:
            self._serve(conn)
        self._open.discard(conn)

    def stop(self) -> None:
        """Stop listening and drop every connection (closing alone would leave a thread blocked
        in accept, and the port listening, until the process ends)."""
        for sock in (self.sock, *list(self._open)):
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
            sock.close()


class TlsFront(Listener):
    """HTTPS in front of a plain HTTP server: decrypts, and passes the bytes on."""

    def __init__(self, upstream_port: int, certs: Certificates) -> None:
        self.context = certs.server_context()
        self.upstream_port = upstream_port
        self.handshakes = 0
        super().__init__(self._front)

    def _front(self, conn: socket.socket) -> None:
        with self.context.wrap_socket(conn, server_side=True) as tls:
            self.handshakes += 1
            with socket.create_connection(("127.0.0.1", self.upstream_port)) as upstream:
                pump(tls, upstream)


class TlsConnectProxy(Listener):
    """An ``https://`` proxy: clients speak TLS to it, ask for a tunnel with CONNECT, and their
    own TLS to the target runs inside. Records the tunnels asked of it."""

    def __init__(self, certs: Certificates) -> None:
        self.context = certs.server_context()
        self.tunnels: list[str] = []
        super().__init__(self._tunnel)

    @property
    def url(self) -> str:
        return f"https://127.0.0.1:{self.port}"

    def _tunnel(self, conn: socket.socket) -> None:
        with self.context.wrap_socket(conn, server_side=True) as tls:
            head = read_head(tls)
            if not head:
                return
            method, target, _ = head.split(b"\r\n", 1)[0].decode().split(" ", 2)
            self.tunnels.append(f"{method} {target}")
            if method != "CONNECT":
                tls.sendall(b"HTTP/1.1 405 Method Not Allowed\r\nContent-Length: 0\r\n\r\n")
                return
            host, port = target.rsplit(":", 1)
            with socket.create_connection((host, int(port))) as upstream:
                tls.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
                pump(tls, upstream)


class RawServer(Listener):
    """Answers every request with ``answer`` (which writes whatever it likes); records the
    request heads and how many bytes each answer got out before the client hung up."""

    def __init__(self, answer: Answer) -> None:
        self.answer = answer
        self.heads: list[bytes] = []
        super().__init__(self._raw)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def _raw(self, conn: socket.socket) -> None:
        while True:
            head = read_head(conn)
            if not head:
                return
            self.heads.append(head)
            self.answer(head, conn)

    def header(self, index: int, name: str) -> str | None:
        """Header ``name`` of request number ``index`` (case-insensitive)."""
        for line in self.heads[index].decode("latin-1").split("\r\n")[1:]:
            key, _, value = line.partition(":")
            if key.strip().lower() == name.lower():
                return value.strip()
        return None


@contextlib.contextmanager
def running(*servers: Listener) -> Iterator[None]:
    try:
        yield
    finally:
        for server in servers:
            server.stop()


# -- one fixed answer to every request, and the adapter pointed at it ---------------------------

HUGE_INT = b"1" * 5000  # json.loads refuses integers of more than 4300 digits (ValueError)


def answering(status: str, body: bytes, headers: dict[str, str] | None = None) -> RawServer:
    """A keep-alive server that gives every request the same answer."""
    fields = {
        "Content-Type": "application/json",
        "Content-Length": str(len(body)),
        **(headers or {}),
    }

    def answer(head: bytes, conn: socket.socket) -> None:
        lines = [f"HTTP/1.1 {status}", *(f"{k}: {v}" for k, v in fields.items())]
        conn.sendall(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + body)

    return RawServer(answer)


def adapter_for(server: RawServer) -> GitHub:
    """The real adapter (through PyGithub) talking to ``server``, without retries."""
    env = {"GH_TOKEN": TOKEN, "GITHUB_API_URL": f"{server.url}/api/v3", "GITHUB_REPOSITORY": REPO}
    return make_github(config_mod.defaults(), env=env, policy=RetryPolicy(retries=0, timeout=5))
