"""Regenerate the checked-in hostile corpus (tests/hostile/<task-id>/<case>/..., tests/hostile/archives/) and the
table of what each must get (tests/hostile/expected.tsv).

Usage: .venv/bin/python tests/hostile/make_corpus.py [--write-expected]

Each case is a small named variant of a task's sample run (or a crafted zip), made by a fixed rule so it can be
rebuilt when a sample changes. With --write-expected the table is refilled from the program's real output
(exit code and the first error line, path stripped); review the diff of expected.tsv before committing it:
every message must be clear and name the line. Without it, only the files are rewritten and the table is kept.
"""
import io
import os
import random
import re
import shutil
import stat
import struct
import sys
import zipfile
from contextlib import redirect_stderr, redirect_stdout

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "scoring_program"))
SAMPLES = os.path.join(ROOT, "starting_kit", "sample_submission")
REFERENCES = os.path.join(ROOT, "reference_data")
TABLE = os.path.join(HERE, "expected.tsv")
BOM = b"\xef\xbb\xbf"
# Messages that quote Python's own exception text, whose wording changes between Python versions.
VERSION_DEPENDENT = ("Exceeds the limit",)


# ------------------------------------------------------------------------------------ run-file cases ---
def _line_cases(clean: bytes):
    """(case name, bytes) for a line-based format; line 2 is the one damaged, so messages name line 2."""
    lines = clean.split(b"\n")
    second = lines[1] if len(lines) > 1 else lines[0]

    def with_second(new: bytes) -> bytes:
        out = list(lines)
        out[1 if len(out) > 1 else 0] = new
        return b"\n".join(out)

    fields = b";".join(second.split(b";")[:3])   # for ';' formats, a number of the leading fields, not the text
    numbers = [m for m in re.finditer(rb"(?<![^\t ;])[-+]?\d+(\.\d+)?(?![^\t ;\n])", fields)]
    last_number = numbers[-1] if numbers else None

    def number(value: bytes) -> bytes:
        if last_number is None:
            return with_second(second + b"\t" + value)
        return with_second(second[:last_number.start()] + value + second[last_number.end():])

    rng = random.Random(8)
    return [
        ("empty", b""),
        ("blank_lines_only", b"\n \n\t\n\n"),
        ("random_binary", bytes(rng.randrange(256) for _ in range(300))),
        ("nul_byte", with_second(second[:3] + b"\x00" + second[3:])),
        ("invalid_utf8", with_second(second[:3] + b"\xff" + second[3:])),
        ("utf16", b"\xff\xfe" + clean.decode("utf-8").encode("utf-16-le")),
        ("truncated_mid_line", clean[:len(clean) * 3 // 5]),
        ("truncated_mid_character", _cut_inside_character(clean)),
        ("huge_line", with_second(second + b"x" * 40000)),
        ("score_nan", number(b"NaN")),
        ("score_infinity", number(b"Infinity")),
        ("score_1e400", number(b"1e400")),
        ("negative_number", number(b"-1")),
        ("huge_integer", number(b"9" * 30)),
        ("spaces_for_tabs", with_second(second.replace(b"\t", b"   ").replace(b";", b" ; "))),
        ("duplicated_line", with_second(second + b"\n" + second)),
        ("bom_tolerated", BOM + clean),
        ("crlf_tolerated", clean.replace(b"\n", b"\r\n")),
        ("cr_line_ends", clean.replace(b"\n", b"\r")),
        ("trailing_blank_lines", clean + b"\n\n  \n"),
    ]


def _cut_inside_character(clean: bytes) -> bytes:
    multi = re.search(rb"[\xc0-\xff]", clean)
    return clean[:multi.start() + 1] if multi else clean[:len(clean) // 2] + b"\xe3\x81"


def _json_cases(clean: bytes):
    cases = [(name, data) for name, data in _line_cases(clean)
             if name not in ("spaces_for_tabs", "duplicated_line", "negative_number")]
    text = clean
    rank = re.search(rb'"rank":\s*\d+', text)
    score = re.search(rb'"score":\s*[-\d.eE+]+', text)
    first_key = re.search(rb'"[^"]+":\s*\[', text)
    cases += [
        ("json_deep_nesting", b"[" * 100000 + b"]" * 100000),
        ("json_deep_value", text[:score.start()] + b'"score": ' + b"[" * 5000 + b"]" * 5000 + text[score.end():]),
        ("json_duplicate_key", text[:rank.end()] + b', "rank": 2' + text[rank.end():]),
        ("json_duplicate_question", text[:first_key.start()] + text[first_key.start():first_key.end()] + b"], "
         + text[first_key.start():]),
        ("json_rank_negative", text[:rank.start()] + b'"rank": -3' + text[rank.end():]),
        ("json_rank_huge", text[:rank.start()] + b'"rank": ' + b"9" * 5000 + text[rank.end():]),
        ("json_score_nan", text[:score.start()] + b'"score": NaN' + text[score.end():]),
        ("json_score_infinity", text[:score.start()] + b'"score": -Infinity' + text[score.end():]),
        ("json_score_1e400", text[:score.start()] + b'"score": 1e400' + text[score.end():]),
        ("json_not_an_object", b"[1, 2, 3]\n"),
        ("json_trailing_garbage", text + b"\n}\n"),
    ]
    return cases


def _extra_cases(task_id: str, clean: bytes):
    """Cases that reproduce defects the fuzzing found in one task (kept so they stay fixed)."""
    lines = clean.split(b"\n")
    if task_id == "datasearch-qa":   # a long run of spaces in the <SYSDESC> line (was quadratic)
        return [("sysdesc_long_whitespace", b"\n".join([b"<SYSDESC>" + b" " * 40000 + b"x"] + lines[1:]))]
    if task_id == "r2c2-ac":         # numbers too long for int() or float
        answer = next(i for i, l in enumerate(lines) if l.startswith(b"<D"))
        text, _, _ = lines[answer].rpartition(b";")
        nugget = answer + 1
        fields = lines[nugget].split(b";", 3)
        return [("confidence_400_digits", b"\n".join(lines[:answer] + [text + b";" + b"9" * 400] + lines[answer + 1:])),
                ("passage_rank_5000_digits", b"\n".join(lines[:nugget] + [b";".join(fields[:2] + [b"9" * 5000]
                                                                                      + fields[3:])] + lines[nugget + 1:]))]
    if task_id == "qqa23-mrc":       # a duplicate key inside a nested object (was a crash building the message);
        answer = re.search(rb'"answer":\s*"', clean)     # half a surrogate pair (was a crash writing the page)
        return [("json_nested_duplicate_key", b'{"901:1-3_001": {"a": 1, "a": 2}}\n'),
                ("json_lone_surrogate", clean[:answer.end()] + b"\\ud800" + clean[answer.end():])]
    return []


def run_cases(task_id: str):
    """{file name: clean bytes} of the sample, the name of the file to damage, and the cases."""
    folder = os.path.join(SAMPLES, task_id)
    files = {}
    for name in sorted(os.listdir(folder)):
        with open(os.path.join(folder, name), "rb") as handle:
            files[name] = handle.read()
    target = _primary_file(task_id, files)
    clean = files[target]
    cases = _json_cases(clean) if clean.lstrip()[:1] in (b"{", b"[") else _line_cases(clean)
    return files, target, cases + _extra_cases(task_id, clean)


def _primary_file(task_id: str, files) -> str:
    from runscore.tasks import get_task

    task = get_task(task_id)
    claimed = [n for n in files if task.claims_name(n)]
    return claimed[0] if len(claimed) == 1 else sorted(files)[0]


# ------------------------------------------------------------------------------------ archive cases ---
def _zip(members, compression=zipfile.ZIP_DEFLATED) -> bytes:
    """members: (name or ZipInfo, bytes)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression) as archive:
        for name, data in members:
            if isinstance(name, str):   # a fixed date, so a rebuilt corpus is byte-identical
                name = zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0))
                name.compress_type = compression
            archive.writestr(name, data)
    return buffer.getvalue()


def _symlink_zip() -> bytes:
    info = zipfile.ZipInfo("link_to_passwd", date_time=(2020, 1, 1, 0, 0, 0))
    info.external_attr = (stat.S_IFLNK | 0o777) << 16
    return _zip([(info, b"/etc/passwd")])


def _encrypted_zip(run: bytes) -> bytes:
    """The encryption flag set on an entry (zipfile cannot write encrypted zips; the flag is what is read)."""
    data = bytearray(_zip([("ntc1", run)], zipfile.ZIP_STORED))
    for signature, offset in ((b"PK\x03\x04", 6), (b"PK\x01\x02", 8)):
        at = data.find(signature)
        flags = struct.unpack_from("<H", data, at + offset)[0]
        struct.pack_into("<H", data, at + offset, flags | 0x1)
    return bytes(data)


def _overlapping_zip() -> bytes:
    """Two central-directory entries pointing at the same packed data (Fifield's non-recursive zip bomb)."""
    noise = random.Random(8)
    data = _zip([("aaaa", bytes(noise.randrange(256) for _ in range(20000)))], zipfile.ZIP_STORED)
    cd_start = data.find(b"PK\x01\x02")
    eocd = data.find(b"PK\x05\x06")
    entry = data[cd_start:eocd]
    twin = entry.replace(b"aaaa", b"bbbb")
    count = 2
    new_eocd = bytearray(data[eocd:])
    struct.pack_into("<HHII", new_eocd, 8, count, count, len(entry) * 2, cd_start)
    return data[:eocd] + twin + bytes(new_eocd)


def _corrupt_member_zip(run: bytes) -> bytes:
    data = bytearray(_zip([("ntc1", run * 3)]))
    start = data.find(b"PK\x03\x04") + 30 + len(b"ntc1")
    for i in range(start + 10, start + 40):
        data[i] ^= 0x5A
    return bytes(data)


def archive_cases(run: bytes):
    """(case name, file name inside res/, bytes): each a submission whose only file is this archive."""
    bomb = _zip([("zeros", b"\0" * (8 * 1024 * 1024))])
    nested = _zip([("ntc1", run)])
    for level in range(3):
        nested = _zip([("level%d.zip" % level, nested)])
    return [
        ("zip_slip_dotdot", "sub.zip", _zip([("../evil_runscore.txt", b"pwned\n")])),
        ("zip_slip_deep_dotdot", "sub.zip", _zip([("runs/../../../evil_runscore.txt", b"pwned\n")])),
        ("zip_slip_absolute", "sub.zip", _zip([("/tmp/evil_runscore.txt", b"pwned\n")])),
        ("zip_slip_drive_letter", "sub.zip", _zip([("C:/evil_runscore.txt", b"pwned\n")])),
        ("zip_slip_backslash", "sub.zip", _zip([("..\\..\\evil_runscore.txt", b"pwned\n")])),
        ("zip_symlink_member", "sub.zip", _symlink_zip()),
        ("zip_bomb_ratio", "sub.zip", bomb),
        ("zip_bomb_overlapping_entries", "sub.zip", _overlapping_zip()),
        ("zip_nested_too_deep", "sub.zip", nested),
        ("zip_folders_too_deep", "sub.zip", _zip([("/".join(["d"] * 40) + "/ntc1", run)])),
        ("zip_duplicate_names", "sub.zip", _duplicate_zip(run)),
        ("zip_encrypted_member", "sub.zip", _encrypted_zip(run)),
        ("zip_control_character_name", "sub.zip", _zip([("nt\x01c1", run)])),
        ("zip_corrupt_member", "sub.zip", _corrupt_member_zip(run)),
        ("zip_truncated", "sub.zip", _zip([("ntc1", run)])[:-30]),
        ("zip_not_a_zip", "sub.zip", b"this is not a zip\n"),
        ("tar_gz_not_unpacked", "sub.tar.gz", b"\x1f\x8b\x08\x00" + bytes(60)),
        ("zip_valid_nested_run", "sub.zip", _zip([("runs/ntc1", run)])),
    ]


def _duplicate_zip(run: bytes) -> bytes:
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return _zip([("ntc1", run), ("ntc1", run)])


# ------------------------------------------------------------------------------------ running a case ---
def run_file_case(task_id: str, path: str):
    """(exit code, output) of `runscore validate --task T --ref reference_data/T FILE`, run in process."""
    from runscore import cli

    return _capture(cli.main, ["validate", "--task", task_id, "--ref", os.path.join(REFERENCES, task_id), path])


def archive_case(path: str, workdir: str):
    """(exit code, output) of score.py on a submission holding only this archive (reference: ntcir1-adhoc)."""
    from runscore.codabench import entry as codabench

    input_dir = os.path.join(workdir, "input")
    shutil.rmtree(input_dir, ignore_errors=True)
    os.makedirs(os.path.join(input_dir, "res"))
    shutil.copytree(os.path.join(REFERENCES, "ntcir1-adhoc"), os.path.join(input_dir, "ref", "ntcir1-adhoc"))
    shutil.copy(path, os.path.join(input_dir, "res", os.path.basename(path).split("__", 1)[-1]))
    return _capture(codabench.main, ["score.py", input_dir, os.path.join(workdir, "output")])


def _capture(function, argv):
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = function(argv)
    return code, out.getvalue() + err.getvalue()


def first_finding(output: str, shown_path: str) -> str:
    """The first error line (else the first line) with the file's path cut off: ':2: error: ...'."""
    lines = [l for l in output.splitlines() if ": error:" in l] or \
        [l for l in output.splitlines() if l.strip() and not l.startswith("runscore ")]
    line = lines[0] if lines else ""
    if shown_path and line.startswith(shown_path):
        line = line[len(shown_path):]
    line = line.replace("\t", " ")[:300]
    for phrase in VERSION_DEPENDENT:
        if phrase in line:   # Python's own words after it differ between versions: the table keeps a prefix
            line = line[:line.index(phrase) + len(phrase)] + "..."
    return line


# ------------------------------------------------------------------------------------ writing ---
def case_rows():
    """Every case: (kind, task id, relative path of the hostile file, its bytes, sibling files)."""
    from runscore.tasks import all_tasks

    rows = []
    for task in all_tasks():
        if not (os.path.isdir(os.path.join(SAMPLES, task.id)) and os.path.isdir(os.path.join(REFERENCES, task.id))):
            continue
        files, target, cases = run_cases(task.id)
        siblings = {n: d for n, d in files.items() if n != target}
        for name, data in cases:
            rows.append(("run", task.id, "%s/%s/%s" % (task.id, name, target), data, siblings))
    with open(os.path.join(SAMPLES, "ntcir1-adhoc", "ntc1"), "rb") as handle:
        run = handle.read()
    for name, inner, data in archive_cases(run):
        rows.append(("archive", "ntcir1-adhoc", "archives/%s__%s" % (name, inner), data, {}))
    return rows


def write_files(rows) -> None:
    for folder in [os.path.join(HERE, d) for d in os.listdir(HERE)]:
        if os.path.isdir(folder) and not folder.endswith("__pycache__"):
            shutil.rmtree(folder)
    for _, _, rel, data, siblings in rows:
        path = os.path.join(HERE, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as handle:
            handle.write(data)
        for name, sibling in siblings.items():
            with open(os.path.join(os.path.dirname(path), name), "wb") as handle:
                handle.write(sibling)


def outcome(kind: str, task_id: str, rel: str, workdir: str):
    """(exit code, first finding) of one case, as the table records it."""
    path = os.path.join(HERE, rel)
    if kind == "run":
        code, output = run_file_case(task_id, path)
        return code, first_finding(output, path), output
    code, output = archive_case(path, workdir)
    return code, first_finding(output, os.path.basename(path).split("__", 1)[-1]), output


def main(argv) -> int:
    import tempfile

    rows = case_rows()
    write_files(rows)
    if "--write-expected" in argv:
        workdir = tempfile.mkdtemp(prefix="runscore-corpus-")
        lines = ["# kind\ttask\tcase file (under tests/hostile)\texit code\tfirst error line, path cut off "
                 "(written by make_corpus.py --write-expected; reviewed)"]
        for kind, task_id, rel, _, _ in rows:
            code, finding, _ = outcome(kind, task_id, rel, workdir)
            lines.append("\t".join((kind, task_id, rel, str(code), finding)))
        shutil.rmtree(workdir, ignore_errors=True)
        with open(TABLE, "w", encoding="utf-8", newline="\n") as handle:
            handle.write("\n".join(lines) + "\n")
    print("%d hostile cases written under %s" % (len(rows), HERE))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
