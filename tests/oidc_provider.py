"""A tiny OpenID Connect provider for the single sign-on tests: real HTTP on 127.0.0.1, no UI.

It implements the authorization-code flow the way `st.login` (Authlib) drives it: discovery,
/authorize (approves at once, as `identity`), /token (client secret, PKCE S256, one-time codes,
an RS256-signed id_token echoing the nonce), /jwks and /userinfo. The signing key is generated
at start, so nothing secret lives in the repository.
"""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlencode, urlparse

from joserfc import jwt
from joserfc.jwk import RSAKey


class OidcProvider:
    """Serve on a free 127.0.0.1 port until `close()`; `issuer` is its base URL. Set `identity`
    (claims: email, name, …) before a sign-in to choose who the provider says signs in.
    `requests` lists the paths served, in order."""

    def __init__(self, client_id: str, client_secret: str, identity: dict):
        self.client_id, self.client_secret = client_id, client_secret
        self.identity = dict(identity)
        self.key = RSAKey.generate_key(2048, parameters={"kid": "test-key", "use": "sig", "alg": "RS256"})
        self.requests: list[str] = []
        self._codes: dict[str, dict] = {}
        self._tokens: dict[str, dict] = {}
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        self.issuer = f"http://127.0.0.1:{self._server.server_address[1]}"
        self._thread = threading.Thread(target=self._server.serve_forever, name="oidc-provider", daemon=True)
        self._thread.start()

    @property
    def metadata_url(self) -> str:
        return f"{self.issuer}/.well-known/openid-configuration"

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self) -> OidcProvider:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # -- the endpoints (each returns (status, headers, body)) ------------------------------------
    def discovery(self) -> dict:
        return {
            "issuer": self.issuer,
            "authorization_endpoint": f"{self.issuer}/authorize",
            "token_endpoint": f"{self.issuer}/token",
            "jwks_uri": f"{self.issuer}/jwks",
            "userinfo_endpoint": f"{self.issuer}/userinfo",
            "response_types_supported": ["code"],
            "subject_types_supported": ["public"],
            "id_token_signing_alg_values_supported": ["RS256"],
            "scopes_supported": ["openid", "email", "profile"],
            "token_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post"],
            "code_challenge_methods_supported": ["S256"],
            "claims_supported": ["sub", "email", "email_verified", "name"],
        }

    def authorize(self, query: dict[str, str]) -> tuple[int, dict, bytes]:
        redirect_uri = query.get("redirect_uri", "")
        if query.get("client_id") != self.client_id:
            return _error(400, "unauthorized_client", f"unknown client_id {query.get('client_id')!r}")
        if query.get("response_type") != "code" or not redirect_uri.startswith("http://127.0.0.1:"):
            return _error(400, "invalid_request", "needs response_type=code and a 127.0.0.1 redirect_uri")
        if "openid" not in query.get("scope", "").split():
            return _error(400, "invalid_scope", "the openid scope is required")
        code = secrets.token_urlsafe(24)
        with self._lock:
            self._codes[code] = {
                "redirect_uri": redirect_uri,
                "nonce": query.get("nonce"),
                "challenge": query.get("code_challenge"),
                "challenge_method": query.get("code_challenge_method"),
                "identity": dict(self.identity),
            }
        params = {"code": code}
        if "state" in query:
            params["state"] = query["state"]
        return 302, {"Location": f"{redirect_uri}?{urlencode(params)}"}, b""

    def token(self, form: dict[str, str], authorization: str | None) -> tuple[int, dict, bytes]:
        client_id, client_secret = form.get("client_id"), form.get("client_secret")
        if authorization and authorization.startswith("Basic "):
            decoded = base64.b64decode(authorization[6:]).decode()
            client_id, _, client_secret = decoded.partition(":")
        if client_id != self.client_id or client_secret != self.client_secret:
            return _error(401, "invalid_client", "wrong client id or secret")
        if form.get("grant_type") != "authorization_code":
            return _error(400, "unsupported_grant_type", "only authorization_code")
        with self._lock:
            grant = self._codes.pop(form.get("code", ""), None)  # codes are single-use
        if grant is None:
            return _error(400, "invalid_grant", "unknown or used code")
        if form.get("redirect_uri") != grant["redirect_uri"]:
            return _error(400, "invalid_grant", "redirect_uri differs from the one authorized")
        if grant["challenge"]:
            verifier = form.get("code_verifier", "")
            digest = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=")
            expected = grant["challenge"] if grant["challenge_method"] == "S256" else None
            if expected is None or digest.decode() != expected:
                return _error(400, "invalid_grant", "PKCE code_verifier does not match")
        identity = grant["identity"]
        now = int(time.time())
        claims = {
            "iss": self.issuer,
            "sub": identity.get("sub", identity.get("email", "someone")),
            "aud": self.client_id,
            "iat": now,
            "exp": now + 300,
            **identity,
        }
        if grant["nonce"]:
            claims["nonce"] = grant["nonce"]
        id_token = jwt.encode({"alg": "RS256", "kid": self.key.kid}, claims, self.key)
        access_token = secrets.token_urlsafe(24)
        with self._lock:
            self._tokens[access_token] = identity
        return _json(
            200,
            {
                "access_token": access_token,
                "token_type": "Bearer",
                "expires_in": 300,
                "id_token": id_token,
                "scope": "openid email profile",
            },
        )

    def userinfo(self, authorization: str | None) -> tuple[int, dict, bytes]:
        token = (authorization or "").removeprefix("Bearer ")
        with self._lock:
            identity = self._tokens.get(token)
        if identity is None:
            return _error(401, "invalid_token", "unknown access token")
        return _json(200, {"sub": identity.get("sub", identity.get("email", "someone")), **identity})


def _json(status: int, body: dict) -> tuple[int, dict, bytes]:
    return (
        status,
        {"Content-Type": "application/json", "Cache-Control": "no-store"},
        json.dumps(body).encode(),
    )


def _error(status: int, code: str, description: str) -> tuple[int, dict, bytes]:
    return _json(status, {"error": code, "error_description": description})


def _handler_for(provider: OidcProvider) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            url = urlparse(self.path)
            query = {k: v[-1] for k, v in parse_qs(url.query).items()}
            provider.requests.append(url.path)
            if url.path == "/.well-known/openid-configuration":
                self._send(*_json(200, provider.discovery()))
            elif url.path == "/authorize":
                self._send(*provider.authorize(query))
            elif url.path == "/jwks":
                self._send(*_json(200, {"keys": [provider.key.as_dict(private=False)]}))
            elif url.path == "/userinfo":
                self._send(*provider.userinfo(self.headers.get("Authorization")))
            else:
                self._send(*_error(404, "not_found", url.path))

        def do_POST(self) -> None:
            url = urlparse(self.path)
            provider.requests.append(url.path)
            length = int(self.headers.get("Content-Length") or 0)
            form = {k: v[-1] for k, v in parse_qs(self.rfile.read(length).decode()).items()}
            if url.path == "/token":
                self._send(*provider.token(form, self.headers.get("Authorization")))
            elif url.path == "/userinfo":
                self._send(*provider.userinfo(self.headers.get("Authorization")))
            else:
                self._send(*_error(404, "not_found", url.path))

        def _send(self, status: int, headers: dict, body: bytes) -> None:
            self.send_response(status)
            for name, value in headers.items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format, *args) -> None:  # noqa: A002 (the base class's name)
            pass  # the tests read `provider.requests`; stderr stays quiet

    return Handler
