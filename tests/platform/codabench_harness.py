"""The real Codabench, run on this machine for the platform suite (`make test-platform`).

Everything Codabench is made of runs as it is, imported from ../shared/peers/codabench at run time (never copied
into this repository): the Django site (its apps, REST API, permissions, leaderboards, competition unpacker and
phase status tasks) on PostgreSQL and Redis from Debian's packages, served over HTTP and websockets by its own
gunicorn launcher with uvicorn workers, and the compute worker's own `run_wrapper`. Three pieces of infrastructure cannot exist on a machine without Docker,
RabbitMQ or cloud storage; each is replaced by the smallest stand-in, named here and nowhere else:

* OBJECT STORAGE (MinIO/S3): the public and the private bucket are two local folders (Django's FileSystemStorage,
  codabench_settings.py), and `StorageServer` is the service behind them: it serves and accepts the signed URLs that
  `make_url_sassy` (standing in for `utils.data.make_url_sassy`) hands out, GET for 'r' and PUT for 'w', each
  checked against its HMAC and expiry as S3 checks a presigned URL.
* MESSAGE QUEUE (RabbitMQ): the site's own tasks (unpacking, starting a submission) run in the request that queues
  them (CELERY_TASK_ALWAYS_EAGER, codabench_settings.py); a compute-worker job the site sends (`Celery.send_task`)
  is written to a spool folder, and `Platform.drain` hands each job to the worker code in a process of its own
  (`work`), as a compute worker takes it off the queue.
* DOCKER ENGINE: `DockerEngine` answers the docker-py calls compute_worker.py makes. A container is its command run
  as a local process in a private mount namespace (`unshare -m`) where every bind the worker asks for is mounted at
  `<container>/app/...` (`/app/program`, `/app/input`, `/app/output`, `/app/shared`, and `/app/data` read-only, so
  that no process can write there, root included), the command's `/app/` paths point there, `python3` is the
  repository's .venv (Python 3.9 with the scoring image's pins: codalab/codalab-legacy:py39 is the only image this
  engine has) and every capability is dropped, as the worker's `cap_drop` leaves none of Docker's defaults.

Roles, run as `python codabench_harness.py ROLE`: `requirements DIR` (Codabench's pins, for pip), `serve` (the site),
`manage ARGS` (Codabench's manage.py commands), `work JOB` (one compute-worker job).
"""
import hashlib
import hmac
import http.server
import importlib.util
import json
import os
import re
import secrets
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import types
import urllib.parse
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SHARED = os.path.abspath(os.environ.get("RUNSCORE_SHARED") or os.path.join(os.path.dirname(ROOT), "shared"))
CODABENCH = os.path.join(SHARED, "peers", "codabench")
SCORING_PYTHON = os.path.join(ROOT, ".venv", "bin")       # `python3` inside a scoring container
SCORING_IMAGE = "codalab/codalab-legacy:py39"             # the only image the Docker stand-in has
CONFIG_VARIABLE = "RUNSCORE_PLATFORM"                     # JSON: where this session's services and folders are


def codabench_commit():
    """The commit of the Codabench sources in ../shared, as their PEER_README.md names it."""
    try:
        with open(os.path.join(CODABENCH, "PEER_README.md"), encoding="utf-8") as handle:
            found = re.search(r"\bcommit ([0-9a-f]{40})\b", handle.read())
    except OSError:
        return None
    return found.group(1) if found else None


def postgres_bin():
    """The folder of PostgreSQL's `postgres` and `initdb` (Debian keeps them in /usr/lib/postgresql/N/bin, off
    PATH), or None."""
    found = shutil.which("postgres")
    folders = [os.path.dirname(os.path.realpath(found))] if found else []
    if os.path.isdir("/usr/lib/postgresql"):
        versions = sorted((d for d in os.listdir("/usr/lib/postgresql") if d.isdigit()), key=int, reverse=True)
        folders += [os.path.join("/usr/lib/postgresql", version, "bin") for version in versions]
    return next((folder for folder in folders if all(os.path.isfile(os.path.join(folder, program))
                                                     for program in ("postgres", "initdb"))), None)


def missing_reason():
    """Why the platform suite cannot run here (it then skips), or None."""
    if not os.path.isfile(os.path.join(CODABENCH, "manage.py")):
        return ("needs Codabench's sources at ../shared/peers/codabench beside the repository (codalab/codabench, "
                "https://github.com/codalab/codabench), which are absent")
    if not postgres_bin():
        return "needs PostgreSQL's server (Debian package postgresql: apt-get install postgresql)"
    if not shutil.which("redis-server"):
        return "needs Redis (Debian package redis-server: apt-get install redis-server)"
    if not (shutil.which("unshare") and shutil.which("setpriv")):
        return "needs unshare and setpriv (util-linux) for the Docker stand-in's read-only /app/data"
    if not os.path.isfile(os.path.join(SCORING_PYTHON, "python3")):
        return "needs the repository's .venv (make setup): the scoring container's python3"
    if importlib.util.find_spec("django") is None:       # the suite runs in .venv-codabench (make test-platform)
        return "needs Codabench's Python dependencies: run it through `make test-platform` (.venv-codabench)"
    return None


# ------------------------------------------------------------------------------ Codabench's pins ---

def write_requirements(folder):
    """requirements.txt (Codabench's direct dependencies, site and worker, at their locked versions) and
    constraints.txt (every locked version) from its pyproject.toml and uv.lock files, for `pip install -r -c`."""
    import tomllib

    def locked(path):
        with open(path, "rb") as handle:
            return {p["name"]: p["version"] for p in tomllib.load(handle)["package"]
                    if "registry" in p.get("source", {})}

    def direct(path):
        with open(path, "rb") as handle:
            return tomllib.load(handle)["project"]["dependencies"]

    pins = locked(os.path.join(CODABENCH, "compute_worker", "uv.lock"))
    pins.update(locked(os.path.join(CODABENCH, "uv.lock")))      # the site's lock wins where both pin a package
    wanted = {}
    for spec in (direct(os.path.join(CODABENCH, "pyproject.toml"))
                 + direct(os.path.join(CODABENCH, "compute_worker", "pyproject.toml"))):
        name, extras = re.match(r"([A-Za-z0-9_.\-]+)(\[[^\]]*\])?", spec).groups()
        wanted[name.lower()] = extras or ""
    wanted["pytest"] = ""                                  # the suite's runner, at Codabench's own dev pin
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "constraints.txt"), "w") as handle:
        handle.writelines("%s==%s\n" % item for item in sorted(pins.items()))
    with open(os.path.join(folder, "requirements.txt"), "w") as handle:
        handle.writelines("%s%s==%s\n" % (name, extras, pins[name]) for name, extras in sorted(wanted.items()))


# ------------------------------------------------------------------------ stand-in: object storage ---

def _config():
    return json.loads(os.environ[CONFIG_VARIABLE])


def _signature(key, permission, name, expires):
    message = "%s\n%s\n%d" % (permission, name, expires)
    return hmac.new(key.encode(), message.encode(), hashlib.sha256).hexdigest()


def make_url_sassy(path, permission="r", duration=60 * 60 * 24 * 5, content_type="application/zip"):
    """`utils.data.make_url_sassy` for the storage stand-in: a URL of the private bucket signed for reading ('r')
    or writing ('w') until it expires. Like the S3 branch, it takes a file name or a full URL of the bucket."""
    if permission not in ("r", "w"):
        raise ValueError("SASSY urls only support read and write ('r' or 'w' permission)")
    storage = _config()["storage"]
    name = path.split("/private/", 1)[1] if "/private/" in path else path.lstrip("/")
    expires = int(time.time()) + duration
    query = urllib.parse.urlencode({"op": permission, "expires": expires,
                                    "signature": _signature(storage["key"], permission, name, expires)})
    return "%s/private/%s?%s" % (storage["url"], urllib.parse.quote(name), query)


def install_storage_standin():
    """Point Codabench's storage objects at the two bucket folders and its URL signer at ours. Must run before
    django.setup(): the models take `BundleStorage` and `make_url_sassy` by name when they are imported."""
    from django.core.files.storage import storages
    import utils.storage
    import utils.data
    utils.storage.BundleStorage = utils.data.BundleStorage = storages["bundle"]
    utils.storage.PublicStorage = storages["default"]
    utils.data.make_url_sassy = make_url_sassy


class StorageServer:
    """The storage service: public files to anyone, private ones only through a valid signed URL."""

    def __init__(self, root, key):
        self.root, self.key = root, key
        server = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def _target(self, permission):
                url = urllib.parse.urlsplit(self.path)
                bucket, _, name = urllib.parse.unquote(url.path).lstrip("/").partition("/")
                if bucket not in ("public", "private") or not name or ".." in name.split("/"):
                    return None
                if bucket == "private" or permission == "w":
                    query = dict(urllib.parse.parse_qsl(url.query))
                    try:
                        expires = int(query.get("expires", ""))
                    except ValueError:
                        return None
                    good = _signature(server.key, permission, name, expires)
                    if (bucket != "private" or query.get("op") != permission or expires < time.time()
                            or not hmac.compare_digest(good, query.get("signature", ""))):
                        return None
                return os.path.join(server.root, bucket, name)

            def do_GET(self):
                path = self._target("r")
                if path is None or not os.path.isfile(path):
                    self.send_error(403 if path is None else 404)
                    return
                with open(path, "rb") as handle:
                    body = handle.read()
                self.send_response(200)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_PUT(self):
                path = self._target("w")
                if path is None:
                    self.send_error(403)
                    return
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                os.makedirs(os.path.dirname(path), exist_ok=True)
                with open(path, "wb") as handle:
                    handle.write(body)
                self.send_response(200)
                self.send_header("Content-Length", "0")
                self.end_headers()

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = "http://127.0.0.1:%d" % self.httpd.server_address[1]
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def start(self):
        self.thread.start()

    def stop(self):
        self.httpd.shutdown()
        self.httpd.server_close()


# ------------------------------------------------------------------------- stand-in: message queue ---

def install_queue_standin():
    """A compute-worker job sent by the site goes to the spool folder, for `Platform.drain` to hand to a worker."""
    import celery
    import celery.app.control
    from kombu.utils.json import dumps       # the queue's own JSON (a UUID survives as a UUID)
    spool = _config()["spool"]

    def send_task(app, name, args=None, kwargs=None, **options):
        connection = options.get("connection")
        job = {"task": name, "args": list(args or ()), "kwargs": kwargs or {}, "queue": options.get("queue"),
               "vhost": getattr(connection, "virtual_host", None), "id": str(uuid.uuid4())}
        path = os.path.join(spool, "%.6f-%s.json" % (time.time(), job["id"]))
        with open(path + ".tmp", "w") as handle:
            handle.write(dumps(job))
        os.rename(path + ".tmp", path)
        return types.SimpleNamespace(id=job["id"])

    celery.Celery.send_task = send_task

    def revoke(control, task_id, **options):
        """`Submission.cancel` revokes the submission's job: a job still in the spool is taken out of it (one a
        worker has taken runs on, as a revoke reaching a busy worker late would let it)."""
        for name in os.listdir(spool):
            if name.endswith("-%s.json" % task_id):
                try:
                    os.rename(os.path.join(spool, name), os.path.join(spool, "done", name[:-5] + ".revoked"))
                except OSError:
                    pass

    celery.app.control.Control.revoke = revoke


# -------------------------------------------------------------------------- stand-in: Docker engine ---

class DockerEngine:
    """The docker-py APIClient calls compute_worker.py makes, answered by local processes (module docstring)."""

    def __init__(self, *args, **kwargs):
        self.containers = {}

    def pull(self, image, stream=False, decode=False):
        if image != SCORING_IMAGE:
            import docker.errors
            raise docker.errors.ImageNotFound("the Docker stand-in has only %s, not %s" % (SCORING_IMAGE, image))
        return iter([{"status": "Status: Image is up to date for %s" % image}])

    def create_host_config(self, **config):
        return config

    def create_container(self, image, name=None, host_config=None, command=None, working_dir=None,
                         environment=None, network_disabled=False, **unused):
        root = tempfile.mkdtemp(prefix="%s__" % name, dir=os.path.join(_config()["worker_root"], "containers"))
        self.containers[name] = {"Id": name, "root": root, "binds": host_config["binds"], "command": command,
                                 "working_dir": working_dir, "environment": list(environment or ()),
                                 "network_disabled": network_disabled, "process": None, "out": [], "err": []}
        return {"Id": name}

    def _get(self, container):
        return self.containers[container["Id"] if isinstance(container, dict) else container]

    @staticmethod
    def _inside(root, text):
        """A path of the container (/app/...) as the local process sees it."""
        return re.sub(r"(?<![\w/.])/app(?=/|$)", root + "/app", text)

    def start(self, container):
        box = self._get(container)
        mounts = []
        for host, bind in box["binds"].items():
            target = self._inside(box["root"], bind["bind"])
            os.makedirs(host, exist_ok=True)                 # docker creates a missing host folder of a bind
            os.makedirs(target, exist_ok=True)
            mounts.append("mount --bind %s %s" % (shlex.quote(host), shlex.quote(target)))
            if bind.get("mode") == "ro":
                mounts.append("mount -o remount,bind,ro %s" % shlex.quote(target))
        workdir = self._inside(box["root"], box["working_dir"] or "/")
        argv = [self._inside(box["root"], word) for word in shlex.split(box["command"])]   # as docker-py splits it
        environment = ["PATH=%s:/usr/local/bin:/usr/bin:/bin" % SCORING_PYTHON, "LANG=C.UTF-8",
                       "HOME=%s" % box["root"]] + box["environment"]
        script = " && ".join(mounts + ["cd %s" % shlex.quote(workdir),
                                       "exec setpriv --no-new-privs --bounding-set -all --inh-caps -all -- "
                                       "env -i \"$@\""])
        box["process"] = subprocess.Popen(
            ["unshare", "-m"] + (["-n"] if box["network_disabled"] else []) + ["--", "sh", "-c", script, "sh"]
            + environment + argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            start_new_session=True)

    def inspect_container(self, container):
        process = self._get(container)["process"]
        running = process is not None and process.poll() is None
        return {"State": {"Status": "running" if running else "exited",
                          "ExitCode": None if running or process is None else process.returncode}}

    def _read_all(self, box):
        if box["process"] is not None and not box.get("drained"):
            out, err = box["process"].communicate()
            box["out"].append(out)
            box["err"].append(err)
            box["drained"] = True

    def attach(self, container, stream=False, logs=False, demux=False):
        box = self._get(container)
        if stream:
            return self._stream(box)
        self._read_all(box)
        out, err = b"".join(box["out"]), b"".join(box["err"])
        return (out or None, err or None)

    def _stream(self, box):
        import selectors
        process = box["process"]
        with selectors.DefaultSelector() as selector:
            selector.register(process.stdout, selectors.EVENT_READ, 0)
            selector.register(process.stderr, selectors.EVENT_READ, 1)
            while selector.get_map():
                for key, _ in selector.select():
                    chunk = os.read(key.fileobj.fileno(), 65536)
                    if not chunk:
                        selector.unregister(key.fileobj)
                        continue
                    (box["out"] if key.data == 0 else box["err"]).append(chunk)
                    yield (chunk, None) if key.data == 0 else (None, chunk)
        process.wait()
        box["drained"] = True

    def wait(self, container):
        box = self._get(container)
        self._read_all(box)
        return {"StatusCode": box["process"].wait()}

    def kill(self, container):
        process = self._get(container)["process"]
        if process is not None and process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)

    def remove_container(self, container, force=False):
        try:
            box = self._get(container)
        except KeyError:
            import docker.errors
            raise docker.errors.NotFound("No such container: %s" % container)
        self.kill(container)
        if box["process"] is not None:
            box["process"].wait()
        shutil.rmtree(box["root"], ignore_errors=True)
        del self.containers[box["Id"]]


def work(job_path):
    """One compute-worker job, run by Codabench's own `run_wrapper` with the Docker stand-in for the engine."""
    from kombu.utils.json import loads
    config = _config()
    with open(job_path) as handle:
        job = loads(handle.read())
    os.environ["HOST_DIRECTORY"] = config["worker_root"]          # the worker's folder on its host
    sys.path[:0] = [os.path.join(CODABENCH, "compute_worker"), os.path.join(CODABENCH, "src", "settings")]
    import docker
    docker.APIClient = DockerEngine
    import compute_worker
    # The worker runs in a container that sees $HOST_DIRECTORY at /codabench/; here both are the same folder.
    compute_worker.BASE_DIR = config["worker_root"].rstrip("/") + "/"
    compute_worker.CACHE_DIR = os.path.join(compute_worker.BASE_DIR, "cache")
    compute_worker.run_wrapper(*job["args"], **job["kwargs"])


REPORT = []   # "what: step in N s", where the logs are: the suite's closing summary (conftest.py)


class Stopwatch:
    def __init__(self, what):
        self.what, self.start = what, time.time()
        self.last = self.start

    def lap(self, step):
        now = time.time()
        REPORT.append("%s: %s in %.1f s (%.1f s in all)" % (self.what, step, now - self.last, now - self.start))
        self.last = now


# ------------------------------------------------------------------------------------- the services ---

def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _wait_for(check, what, timeout=60.0, process=None, log=None):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if check():
            return
        if process is not None and process.poll() is not None:
            break
        time.sleep(0.1)
    tail = ""
    if log and os.path.exists(log):
        with open(log, errors="replace") as handle:
            tail = "\n" + handle.read()[-3000:]
    raise RuntimeError("%s did not start%s" % (what, tail))


def _port_open(port):
    with socket.socket() as probe:
        return probe.connect_ex(("127.0.0.1", port)) == 0


class Platform:
    """PostgreSQL, Redis, the storage server and the Codabench site of one test session, in their own folders on
    free ports; `stop` ends them whatever happened."""

    WORKERS = 6            # compute-worker jobs run at once (each mostly waits: the worker polls every 5 s)

    def __init__(self, root):
        self.root = root
        self.logs = os.path.join(root, "logs")
        self.processes = []
        self.storage = None
        for folder in ("logs", "spool", "spool/done", "storage/public", "storage/private", "tmp",
                       "worker/data", "worker/cache", "worker/containers"):
            os.makedirs(os.path.join(root, folder), exist_ok=True)
        self.pg_port, self.redis_port, self.site_port = free_port(), free_port(), free_port()
        self.site_url = "http://127.0.0.1:%d" % self.site_port
        self.worker_data = os.path.join(root, "worker", "data")

    # ----------------------------------------------------------------------------- environment ---
    def environment(self):
        config = {"storage": {"root": os.path.join(self.root, "storage"), "url": self.storage.url,
                              "key": self.storage.key},
                  "spool": os.path.join(self.root, "spool"), "worker_root": os.path.join(self.root, "worker")}
        env = dict(os.environ)
        env.update({
            CONFIG_VARIABLE: json.dumps(config),
            "RUNSCORE_SHARED": SHARED,
            "RUNSCORE_PLATFORM_STORAGE": json.dumps(config["storage"]),
            "DJANGO_SETTINGS_MODULE": "codabench_settings",
            "PYTHONPATH": os.pathsep.join([os.path.join(CODABENCH, "src"), HERE]),
            "DATABASE_URL": "postgres://postgres@127.0.0.1:%d/postgres" % self.pg_port,
            "REDIS_URL": "redis://127.0.0.1:%d" % self.redis_port,
            "DOMAIN_NAME": "127.0.0.1:%d" % self.site_port,
            "SUBMISSIONS_API_URL": self.site_url + "/api",
            "TEMP_SUBMISSION_STORAGE": os.path.join(self.root, "tmp"),
            "SECRET_KEY": secrets.token_hex(16),
            "DEBUG": "False",
            "LOG_LEVEL": "WARNING",
            "PYTHONUNBUFFERED": "1",
        })
        return env

    def configure_this_process(self):
        """Let this (the test) process use Codabench's models on the same database and storage."""
        env = self.environment()
        for name in (CONFIG_VARIABLE, "RUNSCORE_PLATFORM_STORAGE", "DJANGO_SETTINGS_MODULE", "DATABASE_URL",
                     "REDIS_URL", "DOMAIN_NAME", "SUBMISSIONS_API_URL", "TEMP_SUBMISSION_STORAGE", "SECRET_KEY",
                     "DEBUG", "LOG_LEVEL"):
            os.environ[name] = env[name]
        sys.path[:0] = env["PYTHONPATH"].split(os.pathsep)
        install_storage_standin()
        import django
        django.setup()

    # ---------------------------------------------------------------------------------- start ---
    def _spawn(self, argv, name, stop=signal.SIGTERM, **kwargs):
        """A service process, killed with this one even if this one is killed (setpriv --pdeathsig, set after any
        change of user, which clears it), ended by `stop` otherwise."""
        log = open(os.path.join(self.logs, name + ".log"), "ab")
        switch = argv.index("--") + 1 if argv[0] == "setpriv" else 0
        argv = argv[:switch] + ["setpriv", "--pdeathsig", "KILL", "--"] + argv[switch:]
        process = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                   start_new_session=True, **kwargs)
        log.close()
        process.stop_signal = stop
        self.processes.append(process)
        return process

    @staticmethod
    def _as_postgres(argv):
        """PostgreSQL refuses to run as root: as root, its programs run as the `postgres` account."""
        if os.geteuid() != 0:
            return argv
        return ["setpriv", "--reuid=postgres", "--regid=postgres", "--init-groups", "--"] + argv

    def start_postgres(self):
        folder = os.path.join(self.root, "postgres")
        os.makedirs(folder)
        if os.geteuid() == 0:
            shutil.chown(folder, "postgres", "postgres")
        os.chmod(self.root, 0o755)
        data = os.path.join(folder, "data")
        binaries = postgres_bin()
        subprocess.run(self._as_postgres([os.path.join(binaries, "initdb"), "-D", data, "-U", "postgres",
                                          "--auth=trust", "-E", "UTF8", "--no-sync"]),
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        process = self._spawn(self._as_postgres([
            os.path.join(binaries, "postgres"), "-D", data, "-p", str(self.pg_port), "-k", folder,
            "-c", "listen_addresses=127.0.0.1", "-c", "fsync=off", "-c", "synchronous_commit=off",
            "-c", "full_page_writes=off"]), "postgres", stop=signal.SIGINT)     # SIGINT: fast shutdown
        _wait_for(lambda: _port_open(self.pg_port), "PostgreSQL", process=process,
                  log=os.path.join(self.logs, "postgres.log"))

    def start_redis(self):
        folder = os.path.join(self.root, "redis")
        os.makedirs(folder)
        process = self._spawn(["redis-server", "--port", str(self.redis_port), "--bind", "127.0.0.1",
                               "--dir", folder, "--save", "", "--appendonly", "no"], "redis")
        _wait_for(lambda: _port_open(self.redis_port), "Redis", process=process,
                  log=os.path.join(self.logs, "redis.log"))

    def manage(self, *args):
        result = subprocess.run([sys.executable, __file__, "manage"] + list(args), env=self.environment(),
                                cwd=os.path.join(CODABENCH, "src"), capture_output=True, text=True)
        if result.returncode:
            raise RuntimeError("manage.py %s failed:\n%s%s" % (" ".join(args), result.stdout, result.stderr))
        return result.stdout

    def start_site(self):
        process = self._spawn([sys.executable, __file__, "serve", str(self.site_port)], "site",
                              env=self.environment(), cwd=os.path.join(CODABENCH, "src"))
        _wait_for(lambda: _port_open(self.site_port), "the Codabench site", timeout=120, process=process,
                  log=os.path.join(self.logs, "site.log"))

    def start(self):
        clock = Stopwatch("services")
        self.storage = StorageServer(os.path.join(self.root, "storage"), secrets.token_hex(16))
        self.storage.start()
        self.start_postgres()
        self.start_redis()
        clock.lap("PostgreSQL and Redis started")
        self.manage("migrate", "--no-input")
        clock.lap("Codabench's migrations applied")
        self.start_site()
        clock.lap("site serving at %s" % self.site_url)

    def stop(self):
        for process in reversed(self.processes):          # the site first, the database last
            if process.poll() is None:
                try:
                    os.killpg(process.pid, process.stop_signal)
                    process.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    os.killpg(process.pid, signal.SIGKILL)
                    process.wait()
                except ProcessLookupError:
                    pass
        if self.storage is not None:
            self.storage.stop()

    def user(self, name):
        """A new account of the site (made through Codabench's User model) and its signed-in client."""
        from profiles.models import User
        from rest_framework.authtoken.models import Token
        account = User.objects.create_user(username=name, email=name + "@example.org", password=secrets.token_hex(8))
        return Client(self.site_url, name, Token.objects.create(user=account).key)

    def anonymous(self):
        return Client(self.site_url)

    # --------------------------------------------------------------------- the queue, drained ---
    def drain(self, timeout=600.0):
        """Hand every queued compute-worker job to the worker code, WORKERS at a time, until none is left (a
        finished prediction step queues its scoring step). Returns how many jobs ran."""
        spool = os.path.join(self.root, "spool")
        running, ran, deadline = {}, 0, time.time() + timeout
        env = self.environment()
        while True:
            waiting = sorted(name for name in os.listdir(spool) if name.endswith(".json"))
            while waiting and len(running) < self.WORKERS:
                name = waiting.pop(0)
                path = os.path.join(spool, "done", name)
                os.rename(os.path.join(spool, name), path)
                log = open(os.path.join(self.logs, "worker-%s.log" % name[:-5]), "wb")
                running[name] = subprocess.Popen(["setpriv", "--pdeathsig", "KILL", "--", sys.executable, __file__,
                                                  "work", path], env=env, stdout=log, stderr=subprocess.STDOUT,
                                                 stdin=subprocess.DEVNULL, cwd=os.path.join(self.root, "worker"),
                                                 start_new_session=True)
                log.close()
                ran += 1
            for name, process in list(running.items()):
                if process.poll() is not None:
                    del running[name]
            if not running and not waiting:
                return ran
            if time.time() > deadline:
                for process in running.values():
                    os.killpg(process.pid, signal.SIGKILL)
                raise RuntimeError("compute-worker jobs still running after %d s: %s" % (timeout, sorted(running)))
            time.sleep(0.1)


# ------------------------------------------------------------------------- what runscore brings ---

def runscore(*args):
    """`runscore ARGS` in the repository's .venv (the scoring image's Python); its stdout."""
    result = subprocess.run([os.path.join(SCORING_PYTHON, "python"), "-m", "runscore"] + list(args), cwd=ROOT,
                            capture_output=True, text=True)
    if result.returncode:
        raise RuntimeError("runscore %s: exit %d\n%s%s" % (" ".join(args), result.returncode, result.stdout,
                                                          result.stderr))
    return result.stdout


def admit(site_url, token, competition, *args):
    """`runscore admit SITE COMPETITION --once` as the organiser runs it from cron (the repository's .venv, the
    token in CODABENCH_TOKEN): (exit code, its log)."""
    env = dict(os.environ, CODABENCH_TOKEN=token)
    result = subprocess.run([os.path.join(SCORING_PYTHON, "python"), "-m", "runscore", "admit", site_url,
                             str(competition), "--once"] + list(args), cwd=ROOT, capture_output=True, text=True,
                            env=env, timeout=600)
    return result.returncode, result.stdout + result.stderr


def task_ids():
    """Every task of the registry (`runscore tasks`), or [] where the .venv is absent (the suite then skips);
    RUNSCORE_PLATFORM_TASKS=a,b keeps those."""
    if not os.path.isfile(os.path.join(SCORING_PYTHON, "python")):
        return []
    tasks = [line.split()[0] for line in runscore("tasks").splitlines() if line.strip()]
    chosen = os.environ.get("RUNSCORE_PLATFORM_TASKS")           # a developer's quicker look: some tasks only
    return [task for task in tasks if task in chosen.split(",")] if chosen else tasks


def submission_zip(task, marker=None, broken=False):
    """The task's sample submission (starting_kit/sample_submission/<task>/) as a zip; `marker` adds a dotfile
    holding it (score.py ignores dotfiles), so that wherever the zip or a copy of it is served the marker shows;
    `broken` appends a line that is no run line to the first file (a submission score.py rejects)."""
    import io
    import zipfile
    folder = os.path.join(ROOT, "starting_kit", "sample_submission", task)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for number, name in enumerate(sorted(os.listdir(folder))):
            with open(os.path.join(folder, name), "rb") as handle:
                body = handle.read()
            if broken and number == 0:
                body += b"this line is not a run line\n"
            archive.writestr(name, body)
        if marker:
            archive.writestr(".submitted-by-" + marker, marker + "\n")
    return buffer.getvalue()


def install_worker_data(bundle, worker_data):
    """What the organiser copies to the worker: the contents of `<bundle>.worker-data/` beside the zip (if
    `runscore bundle` wrote one) into the worker's data folder, mounted read-only at /app/data."""
    folder = bundle[:-len(".zip")] + ".worker-data"
    if not os.path.isdir(folder):
        return False
    for base, _, files in os.walk(folder):
        for name in files:
            source = os.path.join(base, name)
            target = os.path.join(worker_data, os.path.relpath(source, folder))
            os.makedirs(os.path.dirname(target), exist_ok=True)
            if os.path.exists(target):
                with open(source, "rb") as one, open(target, "rb") as other:
                    if one.read() != other.read():
                        raise RuntimeError("%s differs from the worker's %s" % (source, target))
            shutil.copyfile(source, target)
    return True


# ----------------------------------------------------------------------------------------- users ---

class Client:
    """One user of the site, calling the REST API as the site's own JavaScript does (static/js/ours/client.js:
    JSON bodies, the dataset upload through a signed URL), signed in by an API token or anonymous."""

    def __init__(self, site_url, name="anonymous", token=None):
        import requests
        self.site, self.name, self.token = site_url, name, token
        self.session = requests.Session()
        if token:
            self.session.headers["Authorization"] = "Token " + token

    def another(self):
        """The same user in a session of its own (one per thread)."""
        return Client(self.site, self.name, self.token)

    def call(self, method, path, body=None):
        return self.session.request(method, self.site + path, json=body, timeout=300)

    def fetch(self, url):
        """A link followed as a browser follows it (a download redirects to a signed URL of the storage)."""
        response = self.session.get(url if "://" in url else self.site + url, timeout=300)
        return response.status_code, response.content

    def upload(self, body, file_name, kind, competition=None):
        """CODALAB.api.create_dataset: the dataset record, the file PUT to its signed URL, then `completed`."""
        import requests
        metadata = {"type": kind, "request_sassy_file_name": file_name, "file_name": file_name,
                    "file_size": len(body)}
        if competition is not None:
            metadata["competition"] = competition
        created = self.call("POST", "/api/datasets/", metadata)
        _expect(created, 201, "creating dataset %s" % file_name)
        stored = requests.put(created.json()["sassy_url"], data=body, headers={"Content-Type": "application/zip"})
        _expect(stored, 200, "storing %s" % file_name)
        completed = self.call("PUT", "/api/datasets/completed/%s/" % created.json()["key"])
        _expect(completed, 200, "completing %s" % file_name)
        return created.json()["key"], completed.json()

    def upload_bundle(self, path):
        """A competition bundle through the upload page's calls; the id of the competition the unpacker made."""
        with open(path, "rb") as handle:
            _, completed = self.upload(handle.read(), os.path.basename(path), "competition_bundle")
        status = self.call("GET", "/api/competitions/%s/creation_status/" % completed["status_id"]).json()
        if status["status"] != "Finished":
            raise RuntimeError("unpacking %s: %s: %s" % (path, status["status"], status["details"]))
        return status["resulting_competition"]

    def join(self, competition, secret_key):
        """Registration through the competition's secret link (how an unpublished competition is joined); the
        participant's status."""
        joined = self.call("POST", "/api/competitions/%d/register/" % competition, {"secret_key": str(secret_key)})
        _expect(joined, 201, "%s joining competition %d" % (self.name, competition))
        return joined.json()["participant_status"]

    def submit(self, competition, phase, body, file_name="submission.zip"):
        """A submission as the submission panel makes it; its id."""
        key, _ = self.upload(body, file_name, "submission", competition)
        created = self.call("POST", "/api/submissions/", {"data": key, "phase": phase, "tasks": [],
                                                          "fact_sheet_answers": None, "organization": None,
                                                          "queue": None})
        _expect(created, 201, "submitting %s to phase %s" % (file_name, phase))
        return created.json()["id"]


def _expect(response, status, what):
    if response.status_code != status:
        raise RuntimeError("%s: HTTP %d %s" % (what, response.status_code, response.text[:2000]))


# ------------------------------------------------------------------------------------------ roles ---

def serve(port):
    """The site as Codabench serves it: its own gunicorn launcher (gunicorn_run.py: asgi.application, Django +
    Channels, in uvicorn workers), here with the storage and queue stand-ins installed before the workers fork."""
    install_storage_standin()
    install_queue_standin()
    import gunicorn_run

    def die_with_the_master(server, worker):        # as the master dies with the session (Platform._spawn)
        import ctypes
        ctypes.CDLL(None).prctl(1, signal.SIGKILL)     # PR_SET_PDEATHSIG

    gunicorn_run.StandaloneApplication(gunicorn_run.app, {
        "bind": ["127.0.0.1:%s" % port], "workers": gunicorn_run.WORKERS, "worker_class": "uvicorn.workers.UvicornWorker",
        "logger_class": gunicorn_run.StubbedGunicornLogger, "post_fork": die_with_the_master}).run()


def manage(args):
    install_storage_standin()
    from django.core.management import execute_from_command_line
    execute_from_command_line(["manage.py"] + args)


if __name__ == "__main__":
    role, arguments = sys.argv[1], sys.argv[2:]
    if role == "requirements":
        write_requirements(arguments[0])
    elif role == "serve":
        serve(arguments[0])
    elif role == "manage":
        manage(arguments)
    elif role == "work":
        work(arguments[0])
    else:
        sys.exit("unknown role %r" % role)
