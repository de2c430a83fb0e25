"""The stand-ins hold what they replace to its word: a signed URL opens one file for one use until it expires, and
a container sees /app/data read-only whoever runs in it (test_codabench_probe.py runs the same through Codabench's
own worker)."""
import os
import urllib.parse

import requests

import codabench_harness as harness

def test_a_signed_url_opens_one_file_for_one_use_until_it_expires(platform):
    from utils.data import make_url_sassy
    name = "dataset/probe/signed.txt"
    path = os.path.join(platform.root, "storage", "private", name)
    os.makedirs(os.path.dirname(path))
    with open(path, "w") as handle:
        handle.write("private")
    read = make_url_sassy(name)
    assert requests.get(read).content == b"private"
    assert requests.put(read, data=b"changed").status_code == 403                # a read URL cannot write
    assert requests.get(read.split("?")[0]).status_code == 403                     # unsigned
    other = read.replace(urllib.parse.quote(name), urllib.parse.quote("dataset/probe/other.txt"))
    assert requests.get(other).status_code == 403                                  # signed for another file
    stale = make_url_sassy(name, duration=-1)
    assert requests.get(stale).status_code == 403                                  # expired
    assert requests.put(make_url_sassy(name, "w"), data=b"changed").status_code == 200
    with open(path) as handle:
        assert handle.read() == "changed"


def run_container(platform, data_mode):
    engine = harness.DockerEngine()
    base = os.path.join(platform.root, "worker", "probe-" + data_mode)
    for folder in ("data", "output"):
        os.makedirs(os.path.join(base, folder), exist_ok=True)
    with open(os.path.join(base, "data", "secret.txt"), "w") as handle:
        handle.write("organiser's")
    script = ("import os; print(open('/app/data/secret.txt').read()); open('/app/output/ok', 'w').write('1'); "
              "open('/app/data/x', 'w').write('2')")
    binds = {os.path.join(base, "data"): {"bind": "/app/data", "mode": data_mode},
             os.path.join(base, "output"): {"bind": "/app/output", "mode": "z"}}
    container = engine.create_container(harness.SCORING_IMAGE, name="probe-" + data_mode,
                                        host_config=engine.create_host_config(binds=binds),
                                        command='python3 -c "%s"' % script, working_dir="/app/output")
    engine.start(container)
    out, err = engine.attach(container, logs=True, demux=True)
    code = engine.wait(container)["StatusCode"]
    engine.remove_container(container, force=True)
    return code, out or b"", err or b"", base


def test_app_data_is_read_only_in_a_container_even_for_root(platform):
    code, out, err, base = run_container(platform, "ro")
    assert out == b"organiser's\n" and os.path.exists(os.path.join(base, "output", "ok"))
    assert code == 1 and b"Read-only file system" in err, err
    assert not os.path.exists(os.path.join(base, "data", "x"))
    # The same container with a writable bind writes there: the refusal above is the mount's.
    code, _, err, base = run_container(platform, "rw")
    assert code == 0 and os.path.exists(os.path.join(base, "data", "x")), err
