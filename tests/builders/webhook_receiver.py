"""A real local webhook receiver: an http.server in a thread that records each request,
checks its signature, and answers scripted statuses (then 200), optionally slowly."""

import json
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from webhooks.protocol import SIGNATURE_HEADER, signature_valid


def free_port() -> int:
    """A port nothing listens on (a receiver that is down)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Receiver:
    def __init__(self, *, secret: str, statuses=(), delay: float = 0.0, port: int = 0) -> None:
        self.secret, self.statuses, self.delay = secret, list(statuses), delay
        self.requests: list[dict] = []
        self.port = port
        self.server: ThreadingHTTPServer | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/hook"

    def start(self) -> "Receiver":
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers["Content-Length"]))
                header = self.headers.get(SIGNATURE_HEADER, "")
                receiver.requests.append(
                    {
                        "headers": dict(self.headers),
                        "payload": json.loads(body),
                        "signed": signature_valid(secret=receiver.secret, header=header, body=body),
                    }
                )
                time.sleep(receiver.delay)
                status = receiver.statuses.pop(0) if receiver.statuses else 200
                self.send_response(status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        if self.server is not None:
            self.server.shutdown()
            self.server.server_close()
