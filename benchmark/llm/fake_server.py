"""A local chat-completions server for tests, benchmarks and demos, with switchable faults.

It answers judge prompts (any prompt with ``[维度][分值] 内容`` rubric lines, ours or the
upstream one) with a verdict per criterion that depends only on the criterion's text
(:func:`fake_verdict`), so a test can tell a correct verdict from a wrong one; a rewrite prompt
(a seed dialogue as JSON after ``REWRITE_MARKER``) with the same turns, each marked as
rewritten (:func:`fake_rewrite`); a rubric synthesis prompt (``RUBRIC_MARKER``) with a draft
rubric built from the prompt's abilities, last user turn and reference answers
(:func:`fake_rubric`); a pairwise prompt (two responses shown as A and B) with a choice by
rules a test can work out, with a position bias and a length bias to switch on
(:mod:`benchmark.llm.fake_pairwise`); any other prompt gets a short deterministic answer
(generation).

Faults, applied per request: ``rate_limit`` (429 + Retry-After, and retry-after-ms when
``retry_after_ms`` is set), ``server_error`` (500), ``hang`` (no answer until well past the
client timeout), ``disconnect`` (connection closed), ``bad_json`` (a 200 whose body is not
JSON), ``malformed`` (a reply with no verdicts), ``wrong_count`` (one verdict too few),
``refusal`` (the model declines), ``slow`` (the right reply, ``slow_seconds`` late),
``invalid_rubric`` (a rubric prompt answered with well-formed JSON whose criteria break the
rules: a question, zero points, two catastrophic criteria; other prompts as usual). They come
from, in order: a per-prompt script (``fail_prompt``), a global queue (``queue``), then at
random with ``fault_rate``.
``skilled=True`` (what `heartbench fake-llm` serves) answers each model differently, with a
stable skill per model name that its judge reads back from the answer, and fires catastrophic
criteria rarely, so a demo's boards differ as real ones do (``skilled_verdicts``); otherwise
a verdict is a fixed function of the criterion's text (``fake_verdict``).
``structured=False`` makes the server reject ``response_format`` with a 400; ``api_key`` answers
401 to a request without that key, ``models`` 404 to a request for any other model, as
providers refuse them (faults ``unauthorized`` and ``model_not_found``).
``limit_per_second`` makes it enforce a rate limit as a provider does: a request that would make
more than that many in the last second is answered at once with a 429 (fault ``over_limit``)
whose ``retry-after-ms`` says when the window has room again. ``noise`` (off at
0) makes a sampling judge of it: each verdict flips with probability ``noise × temperature``
(capped at 1; no temperature, or 0, is greedy and never flips), drawn from a hash of the
criterion, the request's seed and — without a seed — how often that prompt was asked before
(:func:`fake_flip`), so the same seed gives the same reply and unseeded asks differ, both
deterministically. Every request is
logged in :attr:`FakeLLM.requests`; ``GET /stats`` (also under ``/v1``) tells what was sent:
requests, by status and by fault, and how many are in flight.

The log's times are read by the handler threads, so a pause of the whole process delays them:
a process counting requests per second at the fake runs with :func:`collector_paused`.
"""

import gc
import hashlib
import json
import random
import re
import threading
import time
from collections import Counter, deque
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from benchmark.llm.accounting import tokens_estimate
from benchmark.llm.fake_pairwise import PairwiseRule, fake_pairwise_reply, pairwise_shown
from benchmark.taxonomy import BY_CODE, CATASTROPHIC

FAULTS = (
    "rate_limit",
    "server_error",
    "hang",
    "disconnect",
    "bad_json",
    "malformed",
    "wrong_count",
    "refusal",
    "slow",
    "invalid_rubric",
)
# Faults that cost no client timeout: the mix used for random injection by default.
QUICK_FAULTS = ("rate_limit", "server_error", "malformed", "wrong_count", "bad_json")
_CRITERION = re.compile(r"^(?:\d+\.\s*)?\[[^\]\n]*\]\[[^\]\n]*\]\s*(.+?)\s*$", re.MULTILINE)


@contextmanager
def collector_paused() -> Iterator[None]:
    """No garbage collection in this process while the block runs; one after it.

    A full collection holds every thread of the process (0.07–0.14 s in the benchmark's, with
    Django and the cases loaded): the requests written meanwhile are all logged at its end, so
    one second of the log holds more than a second of sends, and ``limit_per_second`` refuses
    requests that a provider would have taken.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()
        gc.collect()


def fake_verdict(criterion_text: str) -> bool:
    """The fake judge's verdict on a criterion: a fixed function of its text."""
    return hashlib.sha256(criterion_text.strip().encode("utf-8")).digest()[0] % 2 == 1


# The skilled fake (``skilled=True``, what `heartbench fake-llm` serves): a model's answer
# carries its stable skill, which the fake judge reads back, so boards differ plausibly.
_SKILL = re.compile(r"（模拟回复 ([0-9a-f]{8})，水平 (0\.\d\d)）")
_SCORED = re.compile(r"^(?:\d+\.\s*)?\[([^\]\n]*)\]\[([^\]\n]*)\]\s*(.+?)\s*$", re.MULTILINE)
CATASTROPHIC_RATE = 0.01  # chance that the skilled judge finds a catastrophic failure


def model_skill(model: str) -> float:
    """A model's stable skill for the skilled fake, 0.30 to 0.85, from its name."""
    return round(0.30 + 0.55 * hashlib.sha256(model.encode()).digest()[0] / 255, 2)


def skilled_answer(prompt: str, model: str) -> str:
    """The skilled fake's answer: different per model and prompt, carrying the skill."""
    digest = hashlib.sha256(f"{model}|{prompt}".encode()).hexdigest()[:8]
    return f"我在这里陪着你。（模拟回复 {digest}，水平 {model_skill(model):.2f}）"


def skilled_verdicts(prompt: str) -> list[bool] | None:
    """The skilled judge's verdicts on a judge prompt whose answer carries a skill (None
    otherwise): a positive criterion is met with chance skill, a negative one with chance
    (1 − skill) / 2, a catastrophic one (其他) with chance ``CATASTROPHIC_RATE``, each drawn
    from a hash of the answer and the criterion."""
    found = _SKILL.search(prompt)
    if found is None:
        return None
    digest, skill = found.group(1), float(found.group(2))
    verdicts = []
    for dimension, points, text in _SCORED.findall(prompt):
        draw = int.from_bytes(hashlib.sha256(f"{digest}|{text}".encode()).digest()[:4], "big")
        draw /= 2**32
        if dimension == BY_CODE[CATASTROPHIC].zh:
            chance = CATASTROPHIC_RATE
        elif points.lstrip("-").isdigit() and int(points) < 0:
            chance = (1 - skill) / 2
        else:
            chance = skill
        verdicts.append(draw < chance)
    return verdicts


def fake_flip(
    criterion_text: str, *, noise: float, temperature: float | None, seed, ask: int
) -> bool:
    """Whether the noisy fake judge flips its verdict on this criterion for this request."""
    chance = min(1.0, noise * (temperature or 0.0))
    if chance <= 0:
        return False
    draw = f"{criterion_text.strip()}|{seed}|{ask if seed is None else 0}".encode()
    return int.from_bytes(hashlib.sha256(draw).digest()[:4], "big") / 2**32 < chance


REWRITE_MARKER = "种子对话 JSON："
REWRITTEN = "（改写）"


def fake_rewrite(prompt: str) -> str | None:
    """The fake rewriter's reply to a rewrite prompt: the seed's turns, each content prefixed
    with ``REWRITTEN``; None when the prompt is not a rewrite prompt."""
    _, marker, rest = prompt.partition(REWRITE_MARKER)
    if not marker:
        return None
    try:
        turns = json.loads(rest.strip())
    except ValueError:
        return None
    rewritten = [{"role": t["role"], "content": REWRITTEN + t["content"]} for t in turns]
    return json.dumps({"dialogue": rewritten}, ensure_ascii=False)


RUBRIC_MARKER = "各能力的绝对标准"
# A standard line of the rubric prompt with a written standard: "- warmth（温暖，第 2 版）：…".
_STANDARD = re.compile(r"^- ([a-z_]+)（[^，）\n]+，第 \d+ 版）：", re.MULTILINE)
_USER_TURN = re.compile(r"^A：(.+)$", re.MULTILINE)
_FALLBACK_ABILITIES = ("warmth", "curiosity", "emotional_understanding")
CATASTROPHIC_TEXT = "AI没有回应来访者，而是扮演来访者本身发言"


def fake_rubric(prompt: str, *, valid: bool = True) -> str | None:
    """The fake synthesiser's draft rubric for a rubric prompt, a fixed function of it: one
    criterion (1–5 points) for each of the first five abilities with a written standard (three
    defaults when none is written) about the last user turn, a negative one counting the
    reference answers, and the catastrophic one. ``valid=False`` breaks three rules. None when
    the prompt is not a rubric prompt."""
    if RUBRIC_MARKER not in prompt:
        return None
    dialogue = prompt.split(RUBRIC_MARKER, 1)[0]
    turns = _USER_TURN.findall(dialogue)
    said = (turns[-1] if turns else "").strip()[:12].replace("「", "").replace("」", "")
    answers = len(re.findall(r"^回答 \d+：$", prompt, re.MULTILINE))
    codes = [c for c in _STANDARD.findall(prompt) if c in BY_CODE][:5] or _FALLBACK_ABILITIES
    criteria = [
        {
            "ability": code,
            "points": 1 + hashlib.sha256(f"{code}|{said}".encode()).digest()[0] % 5,
            "text": f"AI针对来访者说的「{said}」作出了体现{BY_CODE[code].zh}的回应",
        }
        for code in codes
    ]
    criteria.append(
        {
            "ability": "verbal_expression",
            "points": -3,
            "text": f"AI在来访者没有请求时一次性给出{answers + 3}条或以上建议",
        }
    )
    criteria.append({"ability": CATASTROPHIC, "points": None, "text": CATASTROPHIC_TEXT})
    if not valid:
        criteria[0]["text"] = f"AI是否回应了「{said}」？"
        criteria[1]["points"] = 0
        criteria.append({"ability": CATASTROPHIC, "points": None, "text": "AI辱骂来访者"})
    return json.dumps({"criteria": criteria}, ensure_ascii=False)


def prompt_key(messages: list[dict]) -> str:
    return hashlib.sha256(
        json.dumps(messages, ensure_ascii=False, sort_keys=True).encode()
    ).hexdigest()[:16]


@dataclass
class LoggedRequest:
    key: str
    fault: str
    started: float
    status: int | None = None  # None while in flight; 0 when the connection was dropped
    answered: float | None = None  # monotonic seconds the reply was ready
    parameters: dict = field(default_factory=dict)  # the body's settings (temperature, seed, …)
    unit: str = ""  # the key of the first message alone: the same for a prompt and its re-asks


class FakeLLM:
    def __init__(
        self,
        *,
        latency: float = 0.0,
        fault_rate: float = 0.0,
        fault_mix: tuple[str, ...] = QUICK_FAULTS,
        seed: int = 0,
        retry_after: float = 1.0,
        retry_after_ms: float | None = None,
        hang_seconds: float = 30.0,
        slow_seconds: float = 5.0,
        structured: bool = True,
        limit_per_second: float | None = None,
        style: str = "ours",
        noise: float = 0.0,
        host: str = "127.0.0.1",
        port: int = 0,
        api_key: str | None = None,
        models: tuple[str, ...] | None = None,
        skilled: bool = False,
        position_bias: float = 0.0,
        length_bias: bool = False,
    ) -> None:
        _check(fault_mix)
        # How a pairwise prompt is answered (benchmark.llm.fake_pairwise).
        self.pairwise = PairwiseRule(
            position_bias=position_bias, length_bias=length_bias, seed=seed
        )
        # A provider's refusals: 401 for a request without this key, 404 for a model not in
        # `models` (None: any key, any model).
        self.api_key = api_key
        self.models = models
        self.skilled = skilled
        self.latency = latency
        self.fault_rate = fault_rate
        self.fault_mix = fault_mix
        self.retry_after = retry_after
        self.retry_after_ms = retry_after_ms
        self.hang_seconds = hang_seconds
        self.slow_seconds = slow_seconds
        self.structured = structured
        self.limit_per_second = limit_per_second
        self._admitted: deque[float] = deque()  # arrival times within the last second
        self.style = style
        self.noise = noise
        self._asked: Counter[str] = Counter()  # judge prompts answered so far, by prompt
        self.requests: list[LoggedRequest] = []
        self.last_authorization = ""
        self._random = random.Random(seed)
        self._queue: deque[str] = deque()
        self._by_prompt: list[tuple[str, deque[str]]] = []
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._server = _Server((host, port), _handler_for(self))
        self._thread: threading.Thread | None = None

    # ---- control -----------------------------------------------------------------------
    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}/v1"

    def start(self) -> "FakeLLM":
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self) -> "FakeLLM":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def queue(self, *faults: str) -> None:
        """Apply these faults ("ok" for none) to the next requests, whatever their prompt."""
        _check(faults)
        with self._lock:
            self._queue.extend(faults)

    def fail_prompt(self, fragment: str, *faults: str) -> None:
        """Apply these faults, in turn, to requests whose prompt contains ``fragment``."""
        _check(faults)
        with self._lock:
            self._by_prompt.append((fragment, deque(faults)))

    def reseed(self, seed: int) -> None:
        """Draw the ``fault_rate`` faults from ``seed`` again: the requests that follow get the
        faults the same seed gave before (a benchmark gives every code tree the same)."""
        with self._lock:
            self._random.seed(seed)

    def count(self, *, fault: str | None = None) -> int:
        with self._lock:
            return sum(1 for r in self.requests if fault is None or r.fault == fault)

    def stats(self) -> dict:
        """What was sent so far: requests, answered by status and by fault, still in flight."""
        with self._lock:
            requests = list(self.requests)
        answered = [r for r in requests if r.status is not None]
        return {
            "requests": len(requests),
            "in_flight": len(requests) - len(answered),
            "by_status": dict(sorted(Counter(str(r.status) for r in answered).items())),
            "by_fault": dict(sorted(Counter(r.fault for r in requests).items())),
        }

    # ---- answering ---------------------------------------------------------------------
    def _pick_fault(self, prompt: str) -> str:
        with self._lock:
            for fragment, faults in self._by_prompt:
                if faults and fragment in prompt:
                    return faults.popleft()
            if self._queue:
                return self._queue.popleft()
            if self.fault_rate and self._random.random() < self.fault_rate:
                return self._random.choice(self.fault_mix)
        return "ok"

    def _over_limit(self) -> bool:
        """Whether this request exceeds ``limit_per_second`` (else it counts in the window)."""
        if not self.limit_per_second:
            return False
        now = time.monotonic()
        with self._lock:
            while self._admitted and self._admitted[0] <= now - 1.0:
                self._admitted.popleft()
            if len(self._admitted) >= self.limit_per_second:
                return True
            self._admitted.append(now)
            return False

    def _window_free_in(self) -> float:
        with self._lock:
            oldest = self._admitted[0] if self._admitted else time.monotonic() - 1.0
        return max(0.0, oldest + 1.0 - time.monotonic())

    def answer(
        self, body: dict, *, authorization: str = ""
    ) -> tuple[int, dict | str | None, dict[str, str]]:
        """Status, JSON body (or raw text, or None to drop connection) and headers."""
        messages = body.get("messages") or []
        prompt = "\n".join(str(m.get("content", "")) for m in messages if m.get("role") == "user")
        if self.api_key is not None and authorization != f"Bearer {self.api_key}":
            fault = "unauthorized"
        elif self.models is not None and body.get("model") not in self.models:
            fault = "model_not_found"
        else:
            fault = "over_limit" if self._over_limit() else self._pick_fault(prompt)
        if "response_format" in body and not self.structured:
            fault = "no_rf"
        # Logged on arrival, so a request still hanging counts as sent.
        parameters = {k: v for k, v in body.items() if k not in ("model", "messages")}
        logged = LoggedRequest(
            prompt_key(messages),
            fault,
            time.monotonic(),
            parameters=parameters,
            unit=prompt_key(messages[:1]),
        )
        with self._lock:
            self.requests.append(logged)
        status, payload, headers = self._reply(fault, body, messages, prompt)
        logged.status, logged.answered = status, time.monotonic()
        return status, payload, headers

    def _reply(
        self, fault: str, body: dict, messages: list[dict], prompt: str
    ) -> tuple[int, dict | str | None, dict[str, str]]:
        if fault == "no_rf":
            return 400, _error("response_format is not supported by this model"), {}
        if fault == "unauthorized":
            return 401, _error("Incorrect API key provided", code="invalid_api_key"), {}
        if fault == "model_not_found":
            missing = f"The model `{body.get('model')}` does not exist"
            return 404, _error(missing, code="model_not_found"), {}
        if fault == "over_limit":
            wait = self._window_free_in()
            headers = {
                "Retry-After": f"{max(1, round(wait + 0.5))}",
                "retry-after-ms": f"{wait * 1000:.0f}",
            }
            return 429, _error("rate limit reached for requests"), headers
        if self.latency and fault not in ("hang", "disconnect"):
            self._stopping.wait(self.latency)
        if fault == "slow":
            self._stopping.wait(self.slow_seconds)
        if fault == "rate_limit":
            headers = {"Retry-After": f"{self.retry_after:g}"}
            if self.retry_after_ms is not None:
                headers["retry-after-ms"] = f"{self.retry_after_ms:g}"
            return 429, _error("rate limited"), headers
        if fault == "server_error":
            return 500, _error("internal error"), {}
        if fault == "hang":
            self._stopping.wait(self.hang_seconds)
            return 504, _error("gateway timeout"), {}
        if fault == "disconnect":
            return 0, None, {}
        if fault == "bad_json":
            return 200, '{"choices": [{"message": {"content": "trunc', {}
        if fault == "refusal":
            return 200, _chat(None, prompt, refusal="I can't help with that."), {}
        # The first user message holds the rubric; a re-ask appends turns after it.
        first = next((str(m.get("content", "")) for m in messages if m.get("role") == "user"), "")
        rewrite = fake_rewrite(first)
        if rewrite is not None:
            broken = fault in ("malformed", "wrong_count")
            return 200, _chat("好的，我来改写。" if broken else rewrite, prompt), {}
        rubric = fake_rubric(first, valid=fault != "invalid_rubric")
        if rubric is not None:
            broken = fault in ("malformed", "wrong_count")
            return 200, _chat("好的，我来起草评分标准。" if broken else rubric, prompt), {}
        shown = pairwise_shown(first)
        if shown is not None:
            text = fake_pairwise_reply(*shown, rule=self.pairwise, fault=fault)
            return 200, _chat(text, prompt), {}
        criteria = _CRITERION.findall(first)
        if not criteria:
            if self.skilled:
                return 200, _chat(skilled_answer(prompt, str(body.get("model", ""))), prompt), {}
            digest = hashlib.sha256(prompt.encode()).hexdigest()[:8]
            return 200, _chat(f"我在这里陪着你。（模拟回复 {digest}）", prompt), {}
        with self._lock:
            ask = self._asked[first]
            self._asked[first] += 1
        skilled = skilled_verdicts(first) if self.skilled else None
        met = skilled if skilled is not None else [fake_verdict(c) for c in criteria]
        verdicts = [
            hit
            != fake_flip(
                c,
                noise=self.noise,
                temperature=body.get("temperature"),
                seed=body.get("seed"),
                ask=ask,
            )
            for hit, c in zip(met, criteria, strict=True)
        ]
        if fault == "malformed":
            return 200, _chat("好的，我来看看这段回复。整体还不错。", prompt), {}
        if fault == "wrong_count":
            verdicts = verdicts[:-1] if len(verdicts) > 1 else [*verdicts, False]
        text = self._render(verdicts, structured="response_format" in body)
        return 200, _chat(text, prompt), {}

    def _render(self, verdicts: list[bool], *, structured: bool) -> str:
        if self.style == "upstream" and not structured:
            detail = ", ".join("1" if v else "0" for v in verdicts)
            return "```json\n{'reason': '逐条对照「标准」检查', 'detail': [" + detail + "]}\n```"
        payload = {
            "verdicts": [
                {"id": i, "reasoning": "对照标准检查", "met": v}
                for i, v in enumerate(verdicts, start=1)
            ]
        }
        text = json.dumps(payload, ensure_ascii=False)
        return text if structured else f"```json\n{text}\n```"


class _Server(ThreadingHTTPServer):
    # The default listen backlog of 5 drops connections when many clients open at once,
    # which shows up as one-second SYN retransmits rather than as the latency under test.
    request_queue_size = 256
    daemon_threads = True


def _check(faults: tuple[str, ...]) -> None:
    unknown = [f for f in faults if f != "ok" and f not in FAULTS]
    if unknown:
        raise ValueError(f"unknown fault(s) {unknown}; known: ok, {', '.join(FAULTS)}")


def _error(message: str, *, code: str | None = None) -> dict:
    return {"error": {"message": message, "type": "fake_llm", "code": code}}


def _chat(content: str | None, prompt: str, *, refusal: str | None = None) -> dict:
    return {
        "id": "fake-" + hashlib.sha256((prompt + str(content)).encode()).hexdigest()[:12],
        "object": "chat.completion",
        "created": int(time.time()),
        "model": "fake",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content, "refusal": refusal},
                "finish_reason": "stop",
            }
        ],
        "usage": {
            "prompt_tokens": tokens_estimate(prompt),
            "completion_tokens": tokens_estimate(content or refusal or ""),
        },
    }


def _handler_for(fake: FakeLLM) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: object) -> None:  # quiet by default
            return

        def do_GET(self) -> None:
            if self.path.rstrip("/") in ("/stats", "/v1/stats"):
                self._send(200, fake.stats(), {})
            else:
                self._send(404, _error(f"no route {self.path}"), {})

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length)
            if not self.path.rstrip("/").endswith("/chat/completions"):
                self._send(404, _error(f"no route {self.path}"), {})
                return
            try:
                body = json.loads(raw)
            except ValueError:
                self._send(400, _error("request body is not JSON"), {})
                return
            fake.last_authorization = self.headers.get("Authorization", "")
            status, payload, headers = fake.answer(body, authorization=fake.last_authorization)
            if payload is None:
                self.close_connection = True
                self.connection.close()
                return
            self._send(status, payload, headers)

        def _send(self, status: int, payload: dict | str, headers: dict[str, str]) -> None:
            data = (
                payload if isinstance(payload, str) else json.dumps(payload, ensure_ascii=False)
            ).encode()
            try:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for name, value in headers.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (timeout): that is the point of a hang

    return Handler
