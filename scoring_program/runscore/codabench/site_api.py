"""Codabench's REST API as the organiser's gate (`runscore admit`) calls it, with the standard library only.

Signed in by an API token (`Authorization: Token ...`, what /api/api-token-auth/ gives), which is sent to the site
only: a download redirects to a signed URL of the object storage, another host, which never sees it. Every failure
is one of two kinds: SiteDown (no answer, a timeout, a 5xx or 429: worth another try later) and SiteRefused (a
4xx: the token, the competition or the request is wrong, and trying again changes nothing). Answers are read to a
bounded size, so a wrong URL that streams forever costs bounded memory.
"""
import http.client
import json
import socket
import time
import urllib.error
import urllib.parse
import urllib.request
from typing import Any, Dict, List, Optional

MAX_ANSWER = 64 * 1024 * 1024       # bytes of one JSON answer (a submission list of 100,000 rows is ~60 MB)
CHUNK = 1024 * 1024


class SiteDown(Exception):
    """The site did not answer, or answered that it cannot now: try again later."""


class SiteRefused(Exception):
    """The site answered no (4xx): the token, the competition or the request is wrong."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.status = status


class TooLarge(Exception):
    """A download went past its limit (it was stopped there)."""


class Site:
    """One Codabench site (its base URL, e.g. https://www.codabench.org) and one user's API token."""

    def __init__(self, url: str, token: str, timeout: float = 60.0) -> None:
        parts = urllib.parse.urlsplit(url.strip())
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise ValueError("SITE must be the site's address, e.g. https://www.codabench.org (got %r)" % url)
        self.url = "%s://%s%s" % (parts.scheme, parts.netloc, parts.path.rstrip("/"))
        self.host = parts.netloc
        self.token = token
        self.timeout = timeout

    # ------------------------------------------------------------------------------------------ calls ---
    def _open(self, method: str, url: str, body: Optional[Dict] = None):
        data = json.dumps(body).encode("utf-8") if body is not None else None
        request = urllib.request.Request(url, data=data, method=method)
        if data is not None:
            request.add_header("Content-Type", "application/json")
        request.add_header("Accept", "application/json")
        if urllib.parse.urlsplit(url).netloc == self.host:
            # unredirected: urllib copies ordinary headers onto a redirect to another host, this one it drops
            request.add_unredirected_header("Authorization", "Token " + self.token)
        try:
            return urllib.request.urlopen(request, timeout=self.timeout)
        except urllib.error.HTTPError as exc:
            detail = _short(exc.read(4096) if exc.fp is not None else b"")
            exc.close()
            what = "%s %s: HTTP %d%s" % (method, _path(url), exc.code, ": " + detail if detail else "")
            if exc.code >= 500 or exc.code == 429:
                raise SiteDown(what)
            raise SiteRefused(what, exc.code)
        except (urllib.error.URLError, socket.timeout, ConnectionError, OSError) as exc:
            reason = getattr(exc, "reason", None) or exc
            raise SiteDown("%s %s: %s" % (method, _path(url), reason))

    def call(self, method: str, path: str, body: Optional[Dict] = None) -> Any:
        """One API call (path under the site, e.g. /api/submissions/1/); its JSON answer (None when empty)."""
        url = self.url + path
        with self._open(method, url, body) as answer:
            try:
                raw = answer.read(MAX_ANSWER + 1)
            except (socket.timeout, OSError) as exc:
                raise SiteDown("%s %s: %s" % (method, path, exc))
        if len(raw) > MAX_ANSWER:
            raise SiteRefused("%s %s: the answer is larger than %d bytes" % (method, path, MAX_ANSWER), 0)
        if not raw.strip():
            return None
        try:
            return json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            # a proxy's error page or a login form: the address is not the site's API
            raise SiteRefused("%s %s: the answer is not JSON (is SITE the Codabench site's address?): %s"
                              % (method, path, _short(raw)), 0)

    def download(self, url: str, path: str, limit: int, seconds: float = 600.0) -> int:
        """The file at `url` into `path`, stopped past `limit` bytes (TooLarge) or when it is not whole after
        `seconds` (SiteDown: a server that sends a byte a minute never trips the per-read timeout); its size."""
        if "://" not in url:
            url = self.url + url
        size = 0
        deadline = time.monotonic() + seconds
        with self._open("GET", url) as answer, open(path, "wb") as out:
            while True:
                if time.monotonic() > deadline:
                    raise SiteDown("GET %s: not whole after %.0f s (%d bytes)" % (_path(url), seconds, size))
                try:
                    chunk = answer.read1(CHUNK)      # what has come: read() would wait for a whole CHUNK
                except (socket.timeout, OSError, http.client.HTTPException) as exc:
                    raise SiteDown("GET %s: %s" % (_path(url), exc))
                if not chunk:
                    missing = getattr(answer, "length", None)      # of the Content-Length announced
                    if missing:
                        # a truncated file is no zip, but says nothing of the participant's upload
                        raise SiteDown("GET %s: the connection closed after %d bytes, %d short"
                                       % (_path(url), size, missing))
                    return size
                size += len(chunk)
                if size > limit:
                    raise TooLarge("larger than %d bytes" % limit)
                out.write(chunk)

    # ------------------------------------------------------------------------------ what admit needs ---
    def competition(self, competition: int) -> Dict:
        return self.call("GET", "/api/competitions/%d/" % competition)

    def waiting(self, competition: int) -> List[Dict]:
        """The competition's submissions in status Submitting (held, never started), oldest first."""
        rows = self.call("GET", "/api/submissions/?phase__competition=%d&status=Submitting" % competition)
        if isinstance(rows, dict) and isinstance(rows.get("results"), list):     # a paginated site
            rows = rows["results"]
        if not isinstance(rows, list):
            raise SiteRefused("GET /api/submissions/: not a list of submissions", 0)
        return sorted((r for r in rows if isinstance(r, dict) and isinstance(r.get("id"), int)),
                      key=lambda r: r["id"])

    def data_url(self, submission: int) -> str:
        """Where the submission's uploaded zip is (the organiser's download_many, a signed URL)."""
        files = self.call("POST", "/api/submissions/download_many/", {"pks": [submission]})
        if not isinstance(files, list) or len(files) != 1 or not isinstance(files[0], dict) \
                or not isinstance(files[0].get("url"), str):
            raise SiteRefused("POST /api/submissions/download_many/: no file listed for submission %d"
                              % submission, 0)
        return files[0]["url"]

    def run(self, submission: int) -> None:
        self.call("POST", "/api/submissions/%d/run_submission/" % submission)

    def cancel(self, submission: int) -> bool:
        answer = self.call("GET", "/api/submissions/%d/cancel_submission/" % submission)
        return bool(isinstance(answer, dict) and answer.get("canceled"))


def _path(url: str) -> str:
    """The URL without its query (a signed URL's signature stays out of the log)."""
    parts = urllib.parse.urlsplit(url)
    return parts.path or "/"


def _short(raw: bytes, limit: int = 200) -> str:
    text = " ".join(raw.decode("utf-8", "replace").split())
    return text[:limit] + ("..." if len(text) > limit else "")
