"""Adapters: one request to one judge endpoint → the answer text and token counts.

- `OpenAICompatibleAdapter`: chat completions over HTTP (stdlib urllib) for OpenAI, vLLM /
  vllm-omni (Qwen3-Omni) and Ollama; media as image_url / video_url / audio_url (or
  input_audio) parts, base64 data URLs or file:// URLs.
- `GeminiAdapter`: Google Gemini through `google-genai`, imported only when used.

An adapter makes exactly one attempt; it raises `CallError` saying whether a retry may help
(429, 5xx, timeouts, connection errors, a garbled body) or not (other 4xx). Retrying is the
runner's job. The API key is held only by the adapter object and sent only in the request
header; no message an adapter produces contains it.
"""

from __future__ import annotations

import base64
import http.client
import importlib
import itertools
import json
import threading
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from calibration.judges.judges_file import JudgeConfig
from calibration.judges.prompts import SCHEMAS

_MIME_BY_SUFFIX = {
    ".mp4": "video/mp4",
    ".webm": "video/webm",
    ".mov": "video/quicktime",
    ".wav": "audio/wav",
    ".m4a": "audio/mp4",
    ".mp3": "audio/mpeg",
    ".ogg": "audio/ogg",
    ".flac": "audio/flac",
    ".jpg": "image/jpeg",
    ".jpeg": "image/jpeg",
    ".png": "image/png",
}


class CallError(Exception):
    """One failed attempt. `retryable` says whether the same request may succeed later."""

    def __init__(
        self, message: str, *, retryable: bool, status: int | None = None, retry_after_s: float | None = None
    ):
        super().__init__(message)
        self.retryable = retryable
        self.status = status
        self.retry_after_s = retry_after_s


@dataclass(frozen=True)
class MediaPart:
    """A cut media file ready to send: `kind` is 'video' (no sound), 'audio' or 'frame'."""

    path: Path
    kind: str

    @property
    def mime(self) -> str:
        return _MIME_BY_SUFFIX.get(self.path.suffix.lower(), "application/octet-stream")


@dataclass(frozen=True)
class Reply:
    text: str
    tokens_in: int | None = None
    tokens_out: int | None = None


def _retry_after(value: str | None) -> float | None:
    try:
        return max(0.0, float(value)) if value else None
    except ValueError:
        return None  # an HTTP date: ignore, our backoff applies


class OpenAICompatibleAdapter:
    """POST {base_url}/chat/completions, base URLs used round-robin across calls."""

    def __init__(self, judge: JudgeConfig, api_key: str | None):
        if not judge.base_urls:
            raise judge.problem("base_urls", f"judge '{judge.name}' has no base_urls")
        self.judge = judge
        self._api_key = api_key
        self._next = itertools.count()
        self._lock = threading.Lock()

    def __repr__(self) -> str:  # never show the key
        return f"OpenAICompatibleAdapter({self.judge.name!r}, {self.judge.model!r})"

    def _base_url(self) -> str:
        with self._lock:
            index = next(self._next)
        return self.judge.base_urls[index % len(self.judge.base_urls)]

    def _url_for(self, part: MediaPart) -> str:
        if self.judge.media_transport == "file":
            return part.path.resolve().as_uri()
        return f"data:{part.mime};base64,{base64.b64encode(part.path.read_bytes()).decode('ascii')}"

    def _content_part(self, part: MediaPart) -> dict:
        if part.kind == "frame":
            return {"type": "image_url", "image_url": {"url": self._url_for(part)}}
        if part.kind == "video":
            return {"type": "video_url", "video_url": {"url": self._url_for(part)}}
        if self.judge.audio_part == "input_audio":  # OpenAI's format: base64 only, wav or mp3
            fmt = "mp3" if part.path.suffix.lower() == ".mp3" else "wav"
            data = base64.b64encode(part.path.read_bytes()).decode("ascii")
            return {"type": "input_audio", "input_audio": {"data": data, "format": fmt}}
        return {"type": "audio_url", "audio_url": {"url": self._url_for(part)}}

    def body(self, prompt: str, parts: list[MediaPart], stage: str) -> dict:
        """The request body: media parts first (in order), then the prompt text."""
        content: str | list = (
            prompt
            if not parts
            else ([self._content_part(p) for p in parts] + [{"type": "text", "text": prompt}])
        )
        body: dict = {
            "model": self.judge.model,
            "messages": [{"role": "user", "content": content}],
            "temperature": self.judge.temperature,
        }
        if self.judge.max_tokens is not None:
            body["max_tokens"] = self.judge.max_tokens
        if self.judge.response_format:
            body["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": stage, "schema": SCHEMAS[stage], "strict": True},
            }
        body.update(self.judge.extra_body)
        return body

    def complete(self, prompt: str, parts: list[MediaPart], stage: str) -> Reply:
        """One attempt. Raises CallError (retryable or not), never another exception for
        network or server trouble."""
        url = self._base_url() + "/chat/completions"
        headers = {"Content-Type": "application/json"}
        if self._api_key:
            headers["Authorization"] = f"Bearer {self._api_key}"
        data = json.dumps(self.body(prompt, parts, stage)).encode("utf-8")
        request = urllib.request.Request(url, data=data, headers=headers, method="POST")
        try:
            with urllib.request.urlopen(request, timeout=self.judge.timeout_s) as answer:
                raw = answer.read()
        except urllib.error.HTTPError as exc:
            detail = exc.read()[:300].decode("utf-8", "replace")
            retryable = exc.code in (408, 409, 429) or exc.code >= 500
            raise CallError(
                f"HTTP {exc.code} from {url}: {detail}",
                retryable=retryable,
                status=exc.code,
                retry_after_s=_retry_after(exc.headers.get("Retry-After")),
            ) from None
        except TimeoutError:
            raise CallError(f"timed out after {self.judge.timeout_s:g} s: {url}", retryable=True) from None
        except (urllib.error.URLError, ConnectionError, http.client.HTTPException, OSError) as exc:
            raise CallError(f"connection failed: {url}: {exc}", retryable=True) from None
        return _reply_from_body(raw, url)


def _reply_from_body(raw: bytes, url: str) -> Reply:
    try:
        payload = json.loads(raw)
        message = payload["choices"][0]["message"]
    except (ValueError, KeyError, IndexError, TypeError):
        raise CallError(f"malformed response body from {url}: {raw[:200]!r}", retryable=True) from None
    content = message.get("content") if isinstance(message, dict) else None
    if isinstance(content, list):  # some servers return content parts
        content = "".join(p.get("text", "") for p in content if isinstance(p, dict))
    usage = payload.get("usage") or {}
    return Reply(
        content if isinstance(content, str) else "",
        usage.get("prompt_tokens"),
        usage.get("completion_tokens"),
    )


def gemini_schema(schema: dict) -> dict:
    """JSON schema → the OpenAPI subset google-genai's `response_schema` takes (upper-case
    types, no additionalProperties)."""
    out: dict = {}
    for key, value in schema.items():
        if key == "additionalProperties":
            continue
        if key == "type":
            out[key] = str(value).upper()
        elif key == "properties":
            out[key] = {name: gemini_schema(sub) for name, sub in value.items()}
        elif key == "items":
            out[key] = gemini_schema(value)
        else:
            out[key] = value
    return out


class GeminiAdapter:
    """`client.models.generate_content` with `types.Part.from_bytes` media parts."""

    def __init__(self, judge: JudgeConfig, api_key: str | None):
        try:
            from google import genai
            from google.genai import errors, types
        except ImportError:
            raise judge.problem(
                "adapter",
                f"judge '{judge.name}' uses the gemini adapter, which needs the optional "
                "package google-genai: pip install google-genai",
            ) from None
        self.judge = judge
        self._types, self._errors = types, errors
        options = {"timeout": int(judge.timeout_s * 1000)}  # milliseconds
        if judge.base_urls:
            options["base_url"] = judge.base_urls[0]
        self._client = genai.Client(api_key=api_key, http_options=types.HttpOptions(**options))
        # google-genai sends through httpx or (from 3.x) its fork httpx2: a dropped connection or
        # a timeout from either must become a retryable CallError, not end the run.
        self._transport_errors: tuple = ()
        for module in ("httpx", "httpx2"):
            try:
                self._transport_errors += (importlib.import_module(module).TransportError,)
            except ImportError:
                pass

    def __repr__(self) -> str:
        return f"GeminiAdapter({self.judge.name!r}, {self.judge.model!r})"

    def complete(self, prompt: str, parts: list[MediaPart], stage: str) -> Reply:
        types = self._types
        contents = [types.Part.from_bytes(data=p.path.read_bytes(), mime_type=p.mime) for p in parts]
        contents.append(prompt)
        config: dict = {"temperature": self.judge.temperature}
        if self.judge.max_tokens is not None:
            config["max_output_tokens"] = self.judge.max_tokens
        if self.judge.response_format:
            config["response_mime_type"] = "application/json"
            config["response_schema"] = gemini_schema(SCHEMAS[stage])
        try:
            response = self._client.models.generate_content(
                model=self.judge.model,
                contents=contents,
                config=types.GenerateContentConfig(**config, **self.judge.extra_body),
            )
        except self._errors.APIError as exc:
            code = getattr(exc, "code", None) or 0
            raise CallError(
                f"Gemini error {code}: {getattr(exc, 'message', exc)}",
                retryable=code in (408, 429) or code >= 500,
                status=code,
            ) from None
        except (TimeoutError, ConnectionError, *self._transport_errors) as exc:
            raise CallError(f"Gemini request failed: {type(exc).__name__}: {exc}", retryable=True) from None
        except ValueError as exc:  # a reply body that is not JSON (cut off, a proxy's error page)
            raise CallError(f"Gemini sent an unreadable reply: {exc}", retryable=True) from None
        usage = getattr(response, "usage_metadata", None)
        return Reply(
            response.text or "",
            getattr(usage, "prompt_token_count", None),
            getattr(usage, "candidates_token_count", None),
        )


def make_adapter(judge: JudgeConfig, api_key: str | None):
    """The adapter for `judge.adapter`. Raises InputError when the gemini package is missing."""
    if judge.adapter == "gemini":
        return GeminiAdapter(judge, api_key)
    return OpenAICompatibleAdapter(judge, api_key)
