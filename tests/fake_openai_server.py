"""A scripted OpenAI-compatible HTTP server on 127.0.0.1 for testing porter's agent with the real `openai` client.

Each POST /v1/chat/completions consumes the next `Turn` of the script: a reply (text and/or tool calls), an HTTP
error (status + optional Retry-After), a delay, a dropped connection, or the server going away for good.
When the script runs out, `default` (if given) answers every further request; otherwise it is a 500.

For several conversations at once (porter's agent tasks, possibly concurrent), `conversations` maps a key to a
script of its own: a request belongs to the first key found in the first line of its first user message (porter's
task heading), and gets turn number N of that script when it already holds N assistant messages. So answers do not
depend on the order in which concurrent conversations arrive, and a replayed conversation gets the same turns.
`conversation_default` answers a conversation past the end of its script (else a 500); a request matching no key
falls back to the plain script.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

MODEL = "fake-model"


@dataclass
class Turn:
    content: str | None = None
    tool_calls: list[tuple[str, dict | str]] = field(default_factory=list)  # (name, args dict or raw JSON text)
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    delay: float = 0.0
    drop: bool = False  # close the connection without answering
    go_away: bool = False  # drop, then stop listening: every later request is refused
    prompt_tokens: int = 100
    completion_tokens: int = 20


def call(name: str, args: dict | str | None = None) -> tuple[str, dict | str]:
    return name, {} if args is None else args


def reply(*calls: tuple[str, dict | str], content: str | None = None, **kw: object) -> Turn:
    return Turn(content=content, tool_calls=list(calls), **kw)


@dataclass
class Recorded:
    method: str
    path: str
    headers: dict[str, str]
    body: dict | None


class FakeOpenAIServer:
    def __init__(self, script: list[Turn], default: Turn | None = None, models: tuple[str, ...] = (MODEL,), *,
                 conversations: dict[str, list[Turn]] | None = None,
                 conversation_default: dict[str, Turn] | None = None) -> None:
        self.script = list(script)
        self.default = default
        self.conversations = dict(conversations or {})
        self.conversation_default = dict(conversation_default or {})
        self.models = models
        self.requests: list[Recorded] = []
        self._lock = threading.Lock()
        self._served = 0
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, args=(0.02,), daemon=True)
        self._stopped = False

    # --- lifecycle ---

    @property
    def base_url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}/v1"

    def __enter__(self) -> FakeOpenAIServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def stop(self) -> None:
        with self._lock:
            if self._stopped:
                return
            self._stopped = True
        self._httpd.shutdown()
        self._httpd.server_close()

    @property
    def completions(self) -> list[Recorded]:
        return [r for r in self.requests if r.path.endswith("/chat/completions")]

    # --- script ---

    @staticmethod
    def heading(body: dict | None) -> str:
        """The first line of the request's first user message (porter's agent puts its task heading there)."""
        for message in (body or {}).get("messages", []):
            if message.get("role") == "user":
                return (message.get("content") or "").split("\n", 1)[0]
        return ""

    def conversation_of(self, body: dict | None) -> str | None:
        heading = self.heading(body)
        return next((key for key in self.conversations if key in heading), None)

    def by_conversation(self) -> dict[str | None, list[Recorded]]:
        """The completion requests of each conversation key, in arrival order."""
        out: dict[str | None, list[Recorded]] = {}
        for r in self.completions:
            out.setdefault(self.conversation_of(r.body), []).append(r)
        return out

    def _turn_for(self, body: dict) -> Turn:
        key = self.conversation_of(body)
        if key is None:
            return self._next_turn()
        index = sum(1 for m in body.get("messages", []) if m.get("role") == "assistant")
        script = self.conversations[key]
        if index < len(script):
            return script[index]
        return self.conversation_default.get(key) or Turn(status=500, content=f"script of {key!r} exhausted")

    def _next_turn(self) -> Turn:
        with self._lock:
            index = self._served
            self._served += 1
        if index < len(self.script):
            return self.script[index]
        return self.default or Turn(status=500, content="script exhausted")

    def _completion(self, turn: Turn, request: dict, number: int) -> dict:
        tool_calls = [
            {
                "id": f"call_{number}_{i}",
                "type": "function",
                "function": {"name": name, "arguments": args if isinstance(args, str) else json.dumps(args)},
            }
            for i, (name, args) in enumerate(turn.tool_calls)
        ]
        message: dict = {"role": "assistant", "content": turn.content}
        if tool_calls:
            message["tool_calls"] = tool_calls
        return {
            "id": f"chatcmpl-{number}",
            "object": "chat.completion",
            "created": 0,
            "model": request.get("model", MODEL),
            "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls" if tool_calls else "stop"}],
            "usage": {
                "prompt_tokens": turn.prompt_tokens,
                "completion_tokens": turn.completion_tokens,
                "total_tokens": turn.prompt_tokens + turn.completion_tokens,
            },
        }

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: object) -> None:  # keep test output clean
                pass

            def _send(self, status: int, payload: dict, headers: dict[str, str] | None = None) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for key, value in (headers or {}).items():
                    self.send_header(key, value)
                self.end_headers()
                self.wfile.write(data)

            def _record(self, body: dict | None) -> None:
                with server._lock:
                    server.requests.append(Recorded(self.command, self.path, dict(self.headers.items()), body))

            def _gone(self) -> bool:
                # after go_away, kept-alive connections must not be answered either
                if server._stopped:
                    self.close_connection = True
                return server._stopped

            def do_GET(self) -> None:
                if self._gone():
                    return
                self._record(None)
                if self.path.rstrip("/").endswith("/models"):
                    data = [{"id": m, "object": "model", "created": 0, "owned_by": "fake"} for m in server.models]
                    self._send(200, {"object": "list", "data": data})
                else:
                    self._send(404, {"error": {"message": "not found", "type": "invalid_request_error"}})

            def do_POST(self) -> None:
                if self._gone():
                    return
                length = int(self.headers.get("Content-Length", 0))
                body = json.loads(self.rfile.read(length) or b"{}")
                self._record(body)
                if not self.path.rstrip("/").endswith("/chat/completions"):
                    self._send(404, {"error": {"message": "not found", "type": "invalid_request_error"}})
                    return
                number = len(server.completions)
                turn = server._turn_for(body)
                if turn.delay:
                    threading.Event().wait(turn.delay)
                if turn.drop or turn.go_away:
                    self.close_connection = True
                    if turn.go_away:
                        threading.Thread(target=server.stop, daemon=True).start()
                    return  # no status line at all: the client sees a dropped connection
                if turn.status != 200:
                    error = {"message": turn.content or f"status {turn.status}", "type": "server_error"}
                    self._send(turn.status, {"error": error}, turn.headers)
                    return
                self._send(200, server._completion(turn, body, number), turn.headers)

        return Handler
