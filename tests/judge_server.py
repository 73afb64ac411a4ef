"""A small model server for the judge tests, on 127.0.0.1: OpenAI-compatible chat completions
at `base_url` (…/v1/chat/completions), and Gemini's REST API (…/v1beta/models/M:generateContent)
at `gemini_base_url`, which is what google-genai speaks.

It answers by rule (`scripted_answer`, or a function the test passes), can add latency, and
fails on demand — HTTP 429 and 500, a timeout (it answers only after the client gave up), a
body that is not JSON — either for the next n requests or at a seeded random rate. Every
request is logged (stage, prompt, the kinds of media parts, a hash of the body, the status
sent), so tests can count requests and duplicates. Also here: tiny generated media and a
small project built in code, shared by the judge tests.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
import threading
import time
from collections import Counter
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the server also runs on its own, without the project on the path
    from annotation.protocol.records import EvaluationRecord

FAILURE_KINDS = ("429", "500", "timeout", "malformed")
_AUDIO_WORDS = ("says", "said", "hello", "rings", "sound", "hear", "speaks")


@dataclass
class LoggedRequest:
    stage: str
    prompt: str
    part_kinds: list[str]
    part_urls: list[str]  # the first 40 characters of each part's URL (or input_audio data)
    body_sha256: str
    status: str  # "200", "429", "500", "timeout", "malformed"
    authorization: str | None


_PART_KINDS = {"video_url": "video", "image_url": "frame", "audio_url": "audio", "input_audio": "audio"}


def _prompt_and_parts(body: dict) -> tuple[str, list[str], list[str]]:
    """(prompt text, part kinds, part URL prefixes) of a chat-completions body."""
    content = body["messages"][0]["content"]
    if isinstance(content, str):
        return content, [], []
    prompt = "".join(p.get("text", "") for p in content if p.get("type") == "text")
    parts = [p for p in content if p.get("type") in _PART_KINDS]
    urls = [(p[p["type"]].get("url") or p[p["type"]].get("data") or "")[:40] for p in parts]
    return prompt, [_PART_KINDS[p["type"]] for p in parts], urls


_GEMINI_KINDS = {"video": "video", "image": "frame", "audio": "audio"}


def _gemini_prompt_and_parts(body: dict) -> tuple[str, list[str], list[str]]:
    """(prompt text, part kinds, mime types) of a generateContent body."""
    parts = [part for content in body["contents"] for part in content["parts"]]
    prompt = "".join(part.get("text", "") for part in parts)
    # The REST API takes camelCase or snake_case names; google-genai sends snake_case.
    media = [
        part.get("inlineData") or part["inline_data"]
        for part in parts
        if "inlineData" in part or "inline_data" in part
    ]
    types = [m.get("mimeType") or m["mime_type"] for m in media]
    return prompt, [_GEMINI_KINDS[t.split("/")[0]] for t in types], types


def stage_of(body: dict, prompt: str) -> str:
    schema = (body.get("response_format") or {}).get("json_schema") or {}
    if schema.get("name"):
        return schema["name"]
    if "Sentence to judge:" in prompt:
        return "verifiability"
    return "decompose" if "Its citations:" in prompt else "entailment"


def _section(prompt: str, title: str) -> str:
    """The text between `title` and the next blank line."""
    match = re.search(re.escape(title) + r"\s*\n(.*?)(?:\n\s*\n|$)", prompt, re.DOTALL)
    return match.group(1).strip() if match else ""


def scripted_answer(stage: str, prompt: str, part_kinds: list[str], model: str | None = None) -> str:
    """Deterministic rules standing in for a model (the same for every model).

    verifiability: verifiable iff the sentence carries a citation group.
    decompose: the sentence without citations, split at " and ", each fact citing all.
    entailment: a statement about speech or sound ("says", "rings", …) is entailed iff an
    audio part is attached; any other statement iff a video part or frame is attached.
    """
    if stage == "verifiability":
        sentence = _section(prompt, "Sentence to judge:")
        verifiable = bool(re.search(r"\((visual|audio)\b", sentence))
        return json.dumps({"verifiable": verifiable, "reason": "rule"})
    if stage == "decompose":
        sentence = re.sub(r"\s*\([^)]*\)", "", _section(prompt, "Sentence:")).rstrip(". ")
        n = len(re.findall(r"^\[\d+\]", _section(prompt, "Its citations:"), re.M))
        facts = [
            {"text": part.strip()[0].upper() + part.strip()[1:] + ".", "citations": list(range(n))}
            for part in sentence.split(" and ")
        ]
        return json.dumps({"facts": facts})
    statement = _section(prompt, "Statement:").lower()
    wants_audio = any(word in statement for word in _AUDIO_WORDS)
    entailed = ("audio" in part_kinds) if wants_audio else bool({"video", "frame"} & set(part_kinds))
    return json.dumps({"entailed": entailed, "reason": "rule"})


class JudgeServer:
    """Start with `with JudgeServer(...) as server:`; `server.base_url` ends in /v1.

    `answer(stage, prompt, part_kinds, model) -> str` gives the model's reply text.
    """

    def __init__(
        self,
        answer=scripted_answer,
        *,
        latency_s: float = 0.0,
        failure_rate: float = 0.0,
        failure_kinds: tuple[str, ...] = FAILURE_KINDS,
        seed: int = 0,
        timeout_sleep_s: float = 0.5,
    ):
        self.answer = answer
        self.latency_s = latency_s
        self.failure_rate = failure_rate
        self.failure_kinds = failure_kinds
        self.timeout_sleep_s = timeout_sleep_s
        self.log: list[LoggedRequest] = []
        self._forced: list[str] = []
        self._random = random.Random(seed)
        self._lock = threading.Lock()
        self._httpd: ThreadingHTTPServer | None = None

    # -- control ---------------------------------------------------------------------------------
    def __enter__(self) -> JudgeServer:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802 (http.server's naming)
                server._handle(self)

            def log_message(self, *args):  # keep test output clean
                pass

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self._httpd.block_on_close = False
        threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        ).start()
        return self

    def __exit__(self, *exc) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    @property
    def gemini_base_url(self) -> str:
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/"

    def fail_next(self, kind: str, n: int = 1) -> None:
        with self._lock:
            self._forced.extend([kind] * n)

    # -- what happened ---------------------------------------------------------------------------
    def answered(self) -> Counter:
        """Body hash → number of successful (200) answers to it."""
        with self._lock:
            return Counter(r.body_sha256 for r in self.log if r.status == "200")

    def statuses(self) -> Counter:
        with self._lock:
            return Counter(r.status for r in self.log)

    # -- serving ---------------------------------------------------------------------------------
    def _failure(self) -> str | None:
        with self._lock:
            if self._forced:
                return self._forced.pop(0)
            if self.failure_rate and self._random.random() < self.failure_rate:
                return self._random.choice(self.failure_kinds)
        return None

    def _handle(self, handler: BaseHTTPRequestHandler) -> None:
        raw = handler.rfile.read(int(handler.headers.get("Content-Length") or 0))
        body = json.loads(raw)
        gemini = handler.path.endswith(":generateContent")
        prompt, kinds, urls = (_gemini_prompt_and_parts if gemini else _prompt_and_parts)(body)
        stage = stage_of(body, prompt)
        failure = self._failure()
        entry = LoggedRequest(
            stage,
            prompt,
            kinds,
            urls,
            hashlib.sha256(raw).hexdigest(),
            failure or "200",
            handler.headers.get("x-goog-api-key" if gemini else "Authorization"),
        )
        with self._lock:
            self.log.append(entry)
        if self.latency_s:
            time.sleep(self.latency_s)
        if failure in ("429", "500"):
            payload = json.dumps(
                {
                    "error": {
                        "code": int(failure),
                        "message": f"injected {failure}",
                        "status": "RESOURCE_EXHAUSTED" if failure == "429" else "INTERNAL",
                    }
                }
            ).encode()
            self._send(handler, int(failure), payload, {"Retry-After": "0"} if failure == "429" else {})
            return
        if failure == "timeout":
            time.sleep(self.timeout_sleep_s)  # the client has given up by now
        if failure == "malformed":
            self._send(handler, 200, b'{"choices": [{"message": {"content": "trunc')
            return
        if gemini:
            model = handler.path.split("/models/")[-1].split(":")[0]
            text = self.answer(stage, prompt, kinds, model)
            payload = json.dumps(
                {
                    "candidates": [
                        {
                            "content": {"role": "model", "parts": [{"text": text}]},
                            "finishReason": "STOP",
                            "index": 0,
                        }
                    ],
                    "usageMetadata": {
                        "promptTokenCount": len(prompt) // 4 + 100 * len(kinds),
                        "candidatesTokenCount": max(1, len(text) // 4),
                    },
                    "modelVersion": model,
                }
            ).encode()
            self._send(handler, 200, payload)
            return
        text = self.answer(stage, prompt, kinds, body.get("model"))
        payload = json.dumps(
            {
                "id": "chatcmpl-test",
                "object": "chat.completion",
                "model": body.get("model"),
                "choices": [
                    {"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}
                ],
                "usage": {
                    "prompt_tokens": len(prompt) // 4 + 100 * len(kinds),
                    "completion_tokens": max(1, len(text) // 4),
                },
            }
        ).encode()
        self._send(handler, 200, payload)

    @staticmethod
    def _send(handler, status: int, payload: bytes, headers: dict | None = None) -> None:
        try:
            handler.send_response(status)
            handler.send_header("Content-Type", "application/json")
            handler.send_header("Content-Length", str(len(payload)))
            for name, value in (headers or {}).items():
                handler.send_header(name, value)
            handler.end_headers()
            handler.wfile.write(payload)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client timed out and left


# -- media and a project, built in code ---------------------------------------------------------
# What the runner makes of the project below with scripted answers (computed by hand; see
# tests/calibration/judges/test_judges_run.py for the reasoning).
CALLS_PER_CONFIGURATION = 19

# response → per sentence: (verifiable, [(fact, citations, all, alone, without)])
EXPECTED = {
    "r1": [
        (True, [("The man waves his hand.", [0], True, [True], [False])]),
        (True, [("He says hello.", [0], True, [True], [False])]),
        (False, []),
    ],
    "r2": [
        (
            True,
            [
                ("A red ball rolls.", [0, 1], True, [True, False], [False, True]),
                ("A bell rings.", [0, 1], True, [False, True], [True, False]),
            ],
        ),
        (True, [("The ball stops.", [0, 1], True, [True, False], [False, True])]),
        (False, []),
    ],
}


def summary(record: EvaluationRecord) -> list:
    return [
        (
            s.verifiable,
            [
                (f.text, f.citations, f.entailment.all, f.entailment.alone, f.entailment.without)
                for f in s.facts
            ],
        )
        for s in record.sentences
    ]


def make_video(path: Path, duration_s: float = 6.0) -> Path:
    """A tiny H.264 + AAC mp4 (64×48 10 fps test pattern, 440 Hz tone)."""
    from media_fixtures import make_pattern_video  # here: the server also runs on its own

    return make_pattern_video(path, width=64, height=48, fps=10, duration_s=duration_s)


RESPONSES = {
    "r1": (
        "The man waves his hand (visual, 0:01-0:02). He says hello (audio, 0:01-0:03). "
        "Therefore the answer is B.\nAnswer: B"
    ),
    "r2": (
        "A red ball rolls and a bell rings (visual, 0:02; audio, 0:02-0:04). "
        "The ball stops (visual, 0:05; visual, 0:75). So A is wrong.\nAnswer: C"
    ),
}


SUBJECTS = ("man", "woman", "child", "chef", "driver", "teacher", "dancer", "singer", "guard", "painter")


def varied_responses(n: int, *, vary_spans: bool = False) -> dict[str, str]:
    """`n` responses in the shape of RESPONSES, each about its own subjects. With `vary_spans`
    the cited spans move by up to 3 s from one response to the next (needs a ≥ 8 s video);
    without, all cite the same spans, so a benchmark measures calls rather than ffmpeg."""
    out = {}
    for i in range(n):
        o = i % 4 if vary_spans else 0
        who = f"{SUBJECTS[i % len(SUBJECTS)]} number {i}"
        out[f"b{i:03d}"] = (
            f"The {who} waves a hand and nods (visual, 0:0{1 + o}-0:0{2 + o}). The {who} says "
            f"hello (audio, 0:0{1 + o}-0:0{3 + o}). Cup {i} falls and bell {i} rings "
            f"(visual, 0:0{2 + o}; audio, 0:0{2 + o}-0:0{4 + o}). "
            f"Therefore option {'ABC'[i % 3]} fits.\nAnswer: {'ABC'[i % 3]}"
        )
    return out


def make_project(directory: Path, video: Path, responses: dict[str, str] = RESPONSES):
    """A project with `video` registered as clip.mp4 and the responses split into sentences."""
    import shutil

    from annotation.project import register_media
    from annotation.protocol.records import Response
    from annotation.protocol.sentences import sentences_for_response
    from annotation.store.project_store import ProjectStore

    store = ProjectStore.open(directory, create=True)
    (store.media_root).mkdir(parents=True, exist_ok=True)
    shutil.copy(video, store.media_root / "clip.mp4")
    media = register_media(store, "clip.mp4")
    duration = media.duration_s
    store.add_responses(
        [
            (
                Response(
                    rid,
                    text,
                    video="clip.mp4",
                    question="What happens?",
                    options=["A. x", "B. y", "C. z"],
                    answer="B",
                ),
                sentences_for_response(text, duration),
            )
            for rid, text in responses.items()
        ]
    )
    return store


def main() -> None:
    """`python tests/judge_server.py [--latency S]`: serve until killed; prints the base URL.

    Benchmarks run the server in its own process so its work does not share the client's GIL.
    """
    import argparse
    import sys

    parser = argparse.ArgumentParser()
    parser.add_argument("--latency", type=float, default=0.0)
    args = parser.parse_args()
    with JudgeServer(latency_s=args.latency) as server:
        print(server.base_url, flush=True)
        sys.stdin.read()  # until the parent closes our stdin


if __name__ == "__main__":
    main()
