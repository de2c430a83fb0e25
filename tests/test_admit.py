"""`runscore admit` (codabench/admission.py, site_api.py, commands/admit.py) against a small stand-in of Codabench's
REST API that answers the calls admit makes as codabench c7dbc756 answers them (api/views/submissions.py: the list
filtered by status, download_many's signed URL on the storage host, run_submission, cancel_submission). The real
site is exercised by tests/platform/test_codabench_admit.py; here: every decision, hostile zips, the site down, the
token, exit codes."""
import contextlib
import http.server
import io
import json
import os
import struct
import threading
import time
import urllib.parse
import zipfile

import pytest

from runscore import cli
from runscore.codabench.admission import program_reason
from runscore.commands import admit

TOKEN = "0123456789abcdef"


def zip_of(members):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, body in members.items():
            archive.writestr(name, body)
    return buffer.getvalue()


RESULTS = zip_of({"ntc1-run1": "0031 0 gakkai-0000000001 1 1.0 r\n"})


class FakeCodabench:
    """The API (one port) and the object storage (another: another host for the token's purposes)."""

    def __init__(self, auto_run=False):
        self.submissions = {}          # id -> row (status, owner, ...) and its zip bytes
        self.calls = []
        self.auto_run = auto_run
        self.down = 0                  # answer 502 to this many API calls
        self.storage_saw_token = False
        self.drip = {}                 # submission -> bytes sent slowly before the storage hangs up
        self.api = self._server(self._api_handler())
        self.storage = self._server(self._storage_handler())
        self.url = "http://127.0.0.1:%d" % self.api.server_address[1]

    def _server(self, handler):
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True).start()
        return server

    def close(self):
        for server in (self.api, self.storage):
            server.shutdown()
            server.server_close()

    def add(self, body, owner="alice", status="Submitting", name="submission.zip"):
        number = len(self.submissions) + 1
        self.submissions[number] = {"row": {"id": number, "owner": owner, "phase_name": "Formal run",
                                            "filename": name, "status": status, "parent": None}, "zip": body}
        return number

    def status(self, number):
        return self.submissions[number]["row"]["status"]

    def _api_handler(self):
        fake = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def _answer(self, code, body):
                data = json.dumps(body).encode()
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _handle(self, method):
                url = urllib.parse.urlsplit(self.path)
                fake.calls.append((method, url.path))
                if fake.down:
                    fake.down -= 1
                    return self._answer(502, {"detail": "Bad Gateway"})
                if self.headers.get("Authorization") != "Token " + TOKEN:
                    return self._answer(401, {"detail": "Invalid token."})
                length = int(self.headers.get("Content-Length") or 0)
                body = json.loads(self.rfile.read(length)) if length else None
                parts = url.path.strip("/").split("/")
                if parts[:2] == ["api", "competitions"] and method == "GET":
                    if parts[2] != "7":
                        return self._answer(404, {"detail": "Not found."})
                    return self._answer(200, {"id": 7, "title": "Toy", "auto_run_submissions": fake.auto_run})
                if url.path == "/api/submissions/" and method == "GET":
                    query = dict(urllib.parse.parse_qsl(url.query))
                    rows = [s["row"] for s in fake.submissions.values()
                            if s["row"]["status"] == query.get("status", s["row"]["status"])]
                    return self._answer(200, rows)
                if url.path == "/api/submissions/download_many/" and method == "POST":
                    number = body["pks"][0]
                    if fake.submissions[number]["zip"] is None:     # sub.data is None: AttributeError
                        return self._answer(500, {"detail": "Server Error (500)"})
                    return self._answer(200, [{"name": "x", "url": "http://127.0.0.1:%d/private/%d.zip?signature=s"
                                                                  % (fake.storage.server_address[1], number)}])
                number = int(parts[2])
                row = fake.submissions[number]["row"]
                if parts[3] == "run_submission" and method == "POST":
                    if row["status"] != "Submitting":
                        return self._answer(403, {"detail": "Cannot run a submission which is not in submitting "
                                                            "status"})
                    row["status"] = "Submitted"
                    return self._answer(200, {"id": number})
                if parts[3] == "cancel_submission" and method == "GET":
                    done = row["status"] not in ("Cancelled", "Failed", "Finished")
                    row["status"] = "Cancelled" if done else row["status"]
                    return self._answer(200, {"canceled": done})
                return self._answer(404, {"detail": "Not found."})

            def do_GET(self):
                self._handle("GET")

            def do_POST(self):
                self._handle("POST")

        return Handler

    def _storage_handler(self):
        fake = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):
                if self.headers.get("Authorization"):
                    fake.storage_saw_token = True
                number = int(urllib.parse.urlsplit(self.path).path.rsplit("/", 1)[1][:-4])
                body = fake.submissions[number]["zip"]
                self.send_response(200)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                if number in fake.drip:             # a byte at a time, each well within the read timeout
                    for byte in body[:fake.drip[number]]:
                        self.wfile.write(bytes([byte]))
                        self.wfile.flush()
                        time.sleep(0.05)
                    return
                self.wfile.write(body)

        return Handler


@pytest.fixture
def site():
    fake = FakeCodabench()
    yield fake
    fake.close()


def run_admit(argv, token=TOKEN, passes=None):
    """`runscore admit ARGV` in-process (CODABENCH_TOKEN=token, sleeps recorded, not slept): (code, out, err,
    sleeps)."""
    out, err, sleeps = io.StringIO(), io.StringIO(), []
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = admit.run([str(a) for a in argv], sleep=sleeps.append,
                             environ={"CODABENCH_TOKEN": token} if token else {}, passes=passes)
        except Exception as exc:          # ConfigError: what cli.main prints and maps to exit 2
            from runscore.errors import ConfigError
            if not isinstance(exc, ConfigError):
                raise
            print("runscore: %s" % exc, file=err)
            code = 2
    return code, out.getvalue(), err.getvalue(), sleeps


def test_result_zips_run_and_programs_are_cancelled_once(site):
    """Each waiting submission gets one decision and one log line naming it, its owner and why; a second pass
    does nothing new (a decided submission is no longer waiting)."""
    results = site.add(RESULTS)
    program = site.add(zip_of({"metadata": "command: python3 /app/program/x.py\n", "x.py": "print(1)\n"}),
                       owner="mallory")
    folder = site.add(zip_of({"sub/metadata.yaml": "command: sh x\n", "sub/run": "x\n"}), owner="mallory")
    dotted = site.add(zip_of({"./METADATA": "command: sh x\n"}), owner="mallory")
    not_zip = site.add(b"command: python3 x.py\n", owner="mallory")
    finished = site.add(RESULTS, status="Finished")
    code, out, err, _ = run_admit([site.url, 7, "--once"])
    assert code == 0, err
    assert site.status(results) == "Submitted" and site.status(finished) == "Finished"
    for number in (program, folder, dotted, not_zip):
        assert site.status(number) == "Cancelled", (number, out)
    lines = [line for line in out.splitlines() if "submission " in line]
    assert len(lines) == 5, out
    assert "submission %d by alice (phase Formal run, submission.zip): run: a result zip" % results in out
    assert "submission %d by mallory (phase Formal run, submission.zip): cancel: it holds 'metadata'" % program \
        in out and "as a program" in out
    assert "'sub/metadata.yaml'" in out and "'METADATA'" in out and "not a zip file" in out
    assert not site.storage_saw_token
    calls = len(site.calls)
    code, out, err, _ = run_admit([site.url, 7, "--once"])
    assert code == 0 and "submission " not in out.replace("holding submissions", "")
    assert [c for c in site.calls[calls:] if c[1].endswith(("run_submission/", "cancel_submission/"))] == []


@pytest.mark.parametrize("members, refused", [
    ({"runs/metadata": "x"}, True),                     # one top-level folder
    ({"a/b/metadata": "x", "a/b/run": "y"}, False),     # deeper than the worker or a zip tool's folder
    ({"metadata.yml": "x", "metadata.txt": "y", "metadata-run1": "z"}, False),
    ({"../metadata": "x"}, True),                       # extractall drops '..': it lands at the top
    ({"/metadata.yaml": "x"}, True),
    ({"dir\\metadata": "x"}, True),
    ({"metadata/": ""}, True),                          # a folder where the worker opens a file: refused too
])
def test_where_the_worker_looks_for_metadata(tmp_path, members, refused):
    path = tmp_path / "s.zip"
    path.write_bytes(zip_of(members))
    assert (program_reason(str(path)) is not None) == refused, members


def test_hostile_zips_cost_bounded_time(tmp_path):
    """A bomb is never inflated, a directory of a million entries never parsed (its end record is read first),
    odd names are printed safely; each decided in well under a second."""
    bomb = tmp_path / "bomb.zip"
    with zipfile.ZipFile(str(bomb), "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("run", b"\0" * (64 * 1024 * 1024))
    many = tmp_path / "many.zip"
    eocd = b"PK\x05\x06" + struct.pack("<HHHHIIH", 0, 0, 0xFFFF, 0xFFFF, 0, 0, 0)
    many.write_bytes(b"PK\x03\x04" + b"\0" * 100 + eocd)
    odd = tmp_path / "odd.zip"
    odd.write_bytes(zip_of({"\u202emetadata": "x", "x" * 5000 + "/metadata": "y"}))
    started = time.process_time()
    assert program_reason(str(bomb)) is None
    assert "more than the limit of 10000" in program_reason(str(many))
    reason = program_reason(str(odd))
    assert reason is not None and len(reason) < 400
    assert program_reason(str(tmp_path)) is not None           # unreadable: refused, never a traceback
    assert time.process_time() - started < 2.0


def test_an_upload_past_the_limit_is_cancelled_without_reading_it_all(site):
    big = site.add(zip_of({"run%d" % i: os.urandom(4096).hex() for i in range(64)}))
    code, out, err, _ = run_admit([site.url, 7, "--once", "--max-bytes", 100000])
    assert code == 0 and site.status(big) == "Cancelled" and "limit of a submission" in out, out + err


def test_a_submission_without_a_zip_holds_up_no_one(site):
    """A participant can create a submission with `data: null` (SubmissionCreationSerializer allows it; the row is
    saved before the answer fails): download_many then fails with HTTP 500 for it. Oldest first, it must not stop
    the pass, pass after pass, and hold every later submission back (nor stop admit)."""
    empty = site.add(None, owner="mallory")
    results = site.add(RESULTS)
    code, out, err, sleeps = run_admit([site.url, 7, "--once"])
    assert code == 0, out + err
    assert site.status(results) == "Submitted", out + err
    assert site.status(empty) == "Submitting" and sleeps == []
    assert "submission %d by mallory (phase Formal run, submission.zip): skip: its zip could not be downloaded" \
        % empty in out and "tried again on the next pass" in out


def test_a_download_has_a_bound_on_its_whole_time(site):
    """A store that sends a byte now and then never trips the per-read timeout: the whole download is bounded,
    the submission is left waiting and the ones behind it are decided."""
    slow = site.add(zip_of({"ntc1-run1": os.urandom(2000).hex()}), owner="mallory")
    site.drip[slow] = 40
    results = site.add(RESULTS)
    code, out, err, _ = run_admit([site.url, 7, "--once", "--max-seconds", 0.5])
    assert code == 0, out + err
    assert site.status(results) == "Submitted" and site.status(slow) == "Submitting", out
    assert "skip: its zip could not be downloaded (GET /private/%d.zip: not whole after 0 s" % slow in out, out


def test_a_download_cut_short_is_no_verdict(site):
    """The store hangs up before the Content-Length it announced: the truncated file is no zip, but that says
    nothing of the participant's upload: it is left waiting, never cancelled."""
    cut = site.add(zip_of({"ntc1-run1": os.urandom(2000).hex()}))
    site.drip[cut] = 3
    code, out, err, _ = run_admit([site.url, 7, "--once"])
    assert code == 0, out + err
    assert site.status(cut) == "Submitting", out
    assert "skip: its zip could not be downloaded" in out and ": cancel:" not in out, out


def test_a_competition_that_runs_submissions_itself_is_refused(site):
    site.auto_run = True
    number = site.add(RESULTS)
    code, out, err, _ = run_admit([site.url, 7, "--once"])
    assert code == 2 and "auto_run_submissions is on" in err, err
    assert site.status(number) == "Submitting"


@pytest.mark.parametrize("token, competition, told", [
    ("", 7, "set CODABENCH_TOKEN"),
    ("wrong", 7, "HTTP 401"),
    (TOKEN, 8, "HTTP 404"),
])
def test_token_and_competition_errors_exit_2(site, token, competition, told):
    code, out, err, _ = run_admit([site.url, competition, "--once"], token=token)
    assert code == 2 and told in err and "Traceback" not in err, err


def test_the_site_down_is_waited_for_with_backoff_never_a_traceback(site):
    number = site.add(RESULTS)
    site.down = 100
    code, out, err, sleeps = run_admit([site.url, 7, "--once"])
    assert code == 2 and "did not answer after 5 tries" in err and "Traceback" not in err, err
    assert sleeps == [2.0, 4.0, 8.0, 16.0]
    assert site.status(number) == "Submitting"
    site.down = 3                       # the poller waits it out, then admits
    code, out, err, sleeps = run_admit([site.url, 7, "--interval", 30], passes=2)
    assert code == 0 and site.status(number) == "Submitted", out + err
    assert sleeps == [2.0, 4.0, 8.0, 30.0]


def test_nothing_listens_there():
    code, out, err, _ = run_admit(["http://127.0.0.1:9", 7, "--once"])
    assert code == 2 and "did not answer" in err and "Traceback" not in err


def test_usage_and_help():
    for argv, told in ((["ftp://x", "7", "--once"], "SITE must be"), (["http://x", "seven"], "invalid int"),
                       (["http://x", "7", "--interval", "0"], "at least 1 second")):
        err = io.StringIO()
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            code = cli.main(["admit"] + argv) if argv[1] != "seven" else _exit_code(argv)
        assert code == 2 and told in err.getvalue(), err.getvalue()
    out = io.StringIO()
    with contextlib.redirect_stdout(out), pytest.raises(SystemExit):
        admit.run(["--help"])
    assert "CANCELLED" in out.getvalue() and "CODABENCH_TOKEN" in out.getvalue() and "status Cancelled" in \
        out.getvalue()


def _exit_code(argv):
    return cli.main(["admit"] + argv)


def test_runscore_check_tells_a_participant_before_upload(tmp_path):
    """The participant's side: `runscore check` rejects the zip the platform would run as a program (exit 1),
    before it is uploaded, and accepts the same runs without the file."""
    program = tmp_path / "program.zip"
    program.write_bytes(zip_of({"metadata": "command: python3 x.py\n",
                                "ntc1-run1": "0031 0 gakkai-0000000001 1 1.0 r\n"}))
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        code = cli.main(["check", "--task", "ntcir1-adhoc", str(program)])
    assert code == 1 and "holds metadata at its top" in out.getvalue(), out.getvalue()
