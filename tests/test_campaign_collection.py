"""The collection reader (campaign/collection.py, campaign/documents.py): every format the campaigns ship, plain,
gzip, bzip2, in folders and tar archives; only the pooled ids kept, in one pass that stops once all are found; an
id not found is listed; encodings told and counted; hostile records cost time in proportion to their size."""
import bz2
import gzip
import io
import json
import os
import tarfile
import time

import pytest

from conftest import cpu_seconds
from runscore.campaign.collection import CollectionOptions, read_collection, sniff_format
from runscore.errors import ConfigError

TREC = """<DOC>
<DOCNO> FT911-1 </DOCNO>
<DOCHDR>http://server/header</DOCHDR>
<DATE>910514</DATE>
<HEADLINE>
Harbour bridge &amp; ferry reopen
</HEADLINE>
<TEXT>
<P>The bridge reopened on Wednesday.</P>
<P>Repairs took <B>three</B> weeks.</P>
</TEXT>
</DOC>
<DOC>
<DOCNO>FT911-2</DOCNO>
<TEXT>Other news.</TEXT>
</DOC>
"""

NACSIS = """<REC>
<ACCN>gakkai-0000012345</ACCN>
<TITL TYPE="kanji">分散索引による検索時間の短縮</TITL>
<TITE>Reducing search time with a distributed index</TITE>
<AUPE>Sato, T.</AUPE>
<ABST TYPE="kanji"><ABST.P>索引を分割し並列に照合する。</ABST.P><ABST.P>応答時間を測定した。</ABST.P></ABST>
<ABSE><ABSE.P>We split the index and match in parallel.</ABSE.P><ABSE.P>Response times were measured.</ABSE.P></ABSE>
<KYWD TYPE="kanji">分散索引//並列処理</KYWD>
<KYWE>distributed index//parallel processing</KYWE>
</REC>
<REC>
<ACCN>gakkai-0000000002</ACCN>
<TITE>Another</TITE>
</REC>
"""

LIVING = """<doc id=lk-20120315101500_17>
<meta-info>
<tag name="host">news.example.org</tag>
<tag name="data">2012-03-15</tag>
<tag name="url">http://news.example.org/bridge.html</tag>
<tag name="title">Harbour bridge reopens after repairs</tag>
</meta-info>
<text>
<SE>The bridge reopened on <T val="2012-03-14">Wednesday</T> after work by <E type="E:ORGANIZATION">Acme</E>.</SE>
<SE>Traffic resumed.</SE>
<text>
<doc id="lk-2"><text>second document</text></doc>
"""


def read(tmp_path, name, data, wanted, **options):
    path = tmp_path / name
    path.write_bytes(data if isinstance(data, bytes) else data.encode("utf-8"))
    return read_collection([str(path)], set(wanted), CollectionOptions(**options))


def test_trec_sgml_fields_and_entities(tmp_path):
    found = read(tmp_path, "ft.txt", TREC, {"FT911-1", "NOT-THERE"})
    doc = found.documents["FT911-1"]
    assert doc.title == "Harbour bridge & ferry reopen"
    assert doc.facts == [("date", "910514")]                      # DOCHDR (a web server's header) left out
    assert doc.sections == [("", "The bridge reopened on Wednesday.\nRepairs took three weeks.")]
    assert set(found.documents) == {"FT911-1"}                     # the other record is not kept
    assert [(f.format, f.records, f.found) for f in found.files] == [("trec", 2, 1)]


def test_nacsis_records_in_euc_jp_with_both_languages(tmp_path):
    found = read(tmp_path, "ntc1-je1", NACSIS.encode("euc_jp"), {"gakkai-0000012345"}, declared_encoding="euc_jp")
    doc = found.documents["gakkai-0000012345"]
    assert doc.title == "分散索引による検索時間の短縮"
    sections = dict(doc.sections)
    assert sections["title (English)"] == "Reducing search time with a distributed index"
    assert sections["abstract (Japanese)"] == "索引を分割し並列に照合する。\n応答時間を測定した。"
    assert sections["abstract (English)"] == "We split the index and match in parallel.\nResponse times were measured."
    assert sections["keywords (English)"] == "distributed index / parallel processing"
    assert doc.facts == [("authors", "Sato, T.")]
    assert found.files[0].encoding == "euc_jp" and found.undecodable == 0


def test_a_utf8_copy_of_an_euc_jp_collection_is_read_as_utf8_and_said_so(tmp_path):
    """NTCIR's collections are EUC-JP, but organisers convert them with iconv: a file whose start is valid UTF-8
    with non-ASCII text is read as UTF-8 whatever the task declares, and the encoding used is reported."""
    found = read(tmp_path, "ntc1-utf8", NACSIS, {"gakkai-0000012345"}, declared_encoding="euc_jp")
    assert found.documents["gakkai-0000012345"].title == "分散索引による検索時間の短縮"
    assert found.files[0].encoding == "utf-8"


def test_a_wrong_forced_encoding_is_counted_not_fatal(tmp_path):
    found = read(tmp_path, "ntc1", NACSIS.encode("euc_jp"), {"gakkai-0000012345"}, encoding="utf-8")
    assert found.undecodable > 0 and "\ufffd" in found.documents["gakkai-0000012345"].title
    assert any("could not be read as utf-8" in note for note in found.notes)


def test_livingknowledge_annotations_dropped_and_both_date_spellings(tmp_path):
    found = read(tmp_path, "lk.xml", LIVING, {"lk-20120315101500_17", "lk-2"})
    doc = found.documents["lk-20120315101500_17"]
    assert doc.title == "Harbour bridge reopens after repairs"
    assert doc.facts == [("date", "2012-03-15"), ("host", "news.example.org"),
                         ("url", "http://news.example.org/bridge.html")]
    assert doc.sections == [("", "The bridge reopened on Wednesday after work by Acme.\nTraffic resumed.")]
    assert found.documents["lk-2"].sections == [("", "second document")]


def test_json_lines_json_array_and_tsv(tmp_path):
    lines = [{"_id": "b1", "title": "BEIR title", "text": "beir text", "metadata": {"url": "u"}},
             {"_id": "b2", "text": "other"}]
    found = read(tmp_path, "corpus.jsonl", "\n".join(json.dumps(r) for r in lines) + "\n", {"b1"})
    doc = found.documents["b1"]
    assert (doc.title, doc.sections) == ("BEIR title", [("", "beir text")])
    passages = [{"doc_id": "704211", "chunk_id": 3, "title": "Harbour Lights (film)", "text": "A 1987 film."}]
    found = read(tmp_path, "p.json", json.dumps(passages), {"704211"})
    assert found.documents["704211"].title == "Harbour Lights (film)"
    assert ("chunk_id", "3") in found.documents["704211"].facts
    found = read(tmp_path, "collection.tsv", "7187158\tPaula Deen and her brother\n7\tseven\n", {"7187158"})
    assert found.documents["7187158"].sections == [("", "Paula Deen and her brother")]
    found = read(tmp_path, "named.tsv", "docid\ttitle\tbody\nd1\tA title\tA body\n", {"d1"})
    assert (found.documents["d1"].title, found.documents["d1"].sections) == ("A title", [("", "A body")])


def test_fields_named_by_options(tmp_path):
    record = {"pid": 12, "heading": "H", "abstract": "A", "full": "F"}
    found = read(tmp_path, "c.jsonl", json.dumps(record) + "\n", {"12"}, id_field="pid", title_field="heading",
                 text_fields=("full", "abstract"))
    assert found.documents["12"].title == "H"
    assert found.documents["12"].sections == [("full", "F"), ("abstract", "A")]
    with pytest.raises(ConfigError, match="--id-field"):
        read(tmp_path, "n.tsv", "a\tb\n", {"a"}, id_field="pid")


def test_gzip_bzip2_tar_and_folders(tmp_path):
    folder = tmp_path / "coll"
    (folder / "sub").mkdir(parents=True)
    (folder / "dtd").mkdir()
    (folder / "a.gz").write_bytes(gzip.compress(TREC.encode()))
    (folder / "sub" / "b.bz2").write_bytes(bz2.compress(LIVING.encode()))
    (folder / "README").write_text("<DOC>\n<DOCNO>FT911-2</DOCNO>\n<TEXT>not a document</TEXT>\n</DOC>\n")
    (folder / "dtd" / "x.dtd").write_text("<!ELEMENT DOC>")
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        data = (json.dumps({"id": "t1", "contents": "in a tar"}) + "\n").encode()
        info = tarfile.TarInfo("part/one.jsonl.gz")
        packed = gzip.compress(data)
        info.size = len(packed)
        archive.addfile(info, io.BytesIO(packed))
    (folder / "c.tgz").write_bytes(buffer.getvalue())
    found = read_collection([str(folder)], {"FT911-2", "lk-2", "t1", "absent"}, CollectionOptions())
    assert found.documents["FT911-2"].sections == [("", "Other news.")]        # from a.gz, not README
    assert found.documents["lk-2"].sections == [("", "second document")]
    assert found.documents["t1"].sections == [("", "in a tar")]
    assert "absent" not in found.documents
    assert {f.path.rsplit("/", 1)[-1] for f in found.files} == {"a.gz", "b.bz2", "one.jsonl.gz"}


def test_every_file_is_read_to_its_end_and_damage_is_told(tmp_path):
    """The reader goes on after every pooled document is found (a later record of one is a duplicate to tell): a
    truncated gzip gives a warning, and the documents before the damage are kept."""
    filler = "".join("<DOC>\n<DOCNO>F%d</DOCNO>\n<TEXT>%s</TEXT>\n</DOC>\n" % (i, os.urandom(300).hex())
                     for i in range(400))
    whole = gzip.compress((TREC + filler).encode())
    broken = whole[:len(whole) // 2]
    found = read(tmp_path, "broken.gz", broken, {"FT911-1", "NEVER"})
    assert "FT911-1" in found.documents and "NEVER" not in found.documents
    assert any("cannot be read to its end" in note for note in found.notes)


def test_a_missing_path_and_a_file_of_no_known_format(tmp_path):
    with pytest.raises(ConfigError, match="does not exist"):
        read_collection([str(tmp_path / "nope")], {"x"}, CollectionOptions())
    found = read(tmp_path, "odd.txt", "just words\nno format\n", {"x"})
    assert found.documents == {} and "none of the collection formats" in found.notes[0]
    assert sniff_format(b"<DOC>\n<DOCNO>x</DOCNO>") == "trec" and sniff_format(b"\n\n{\"id\": 1}") == "jsonl"


def test_hostile_records_are_bounded_and_linear(tmp_path):
    """A record of 100,000 unclosed tags, a 40 MB line without a line end, and a record of 4 MB+ with no id:
    read in bounded memory and time, the wanted documents still found."""
    unclosed = "<DOC>\n<DOCNO>H1</DOCNO>\n<TEXT>" + "<A>x" * 100000 + "\n</DOC>\n"
    no_id = "<DOC>\n" + "<P>filler line</P>\n" * 300000 + "</DOC>\n"
    long_line = "<DOC>\n<DOCNO>H2</DOCNO>\n<TEXT>" + "y" * (40 * 1024 * 1024) + "</TEXT>\n</DOC>\n"
    start = time.process_time()
    found = read(tmp_path, "hostile.txt", unclosed + no_id + long_line, {"H1", "H2"})
    assert time.process_time() - start < 10
    assert found.documents["H1"].sections and found.documents["H2"].shortened()
    assert len(found.documents["H2"].as_json()["sections"][0][1]) <= 20000
    assert any("without an id" in note for note in found.notes)


def test_json_records_nested_too_deeply_half_surrogates_and_long_numbers(tmp_path):
    """JSON lines that json.loads reads badly: nesting 100,000 deep (a RecursionError ended `runscore pool` in an
    internal error), a text holding half a surrogate pair (`\\ud800`: kept by json.loads, it made the page
    impossible to write as UTF-8, after runs/ and runs.tsv were written), and a 300,000-digit number (int() costs
    its square on Python 3.9 builds without the int-string limit, emulated here: numbers are kept as written)."""
    import sys

    lines = ['{"id": "J1", "text": "first"}', "[" * 100000 + "]" * 100000,
             '{"id": "J2", "text": "deep", "n": ' + "[" * 100000 + "]" * 100000 + "}",
             '{"id": "J3", "text": "half \\ud800 a pair, a whole one \\ud83d\\ude00"}',
             '{"id": "J4", "text": %s, "year": 1987}' % ("9" * 300000)]
    unlimited = getattr(sys, "set_int_max_str_digits", None)
    before = sys.get_int_max_str_digits() if unlimited else None
    if unlimited:
        unlimited(0)
    try:
        start = time.process_time()
        found = read(tmp_path, "c.jsonl", "\n".join(lines) + "\n", {"J1", "J2", "J3", "J4"})
        assert time.process_time() - start < 1.0
    finally:
        if unlimited:
            unlimited(before)
    assert sorted(found.documents) == ["J1", "J3", "J4"]
    assert found.documents["J3"].sections == [("", "half \ufffd a pair, a whole one \U0001f600")]
    assert found.undecodable == 1 and any("could not be read" in note for note in found.notes)
    assert found.documents["J4"].sections[0][1].startswith("9" * 1000) and ("year", "1987") in found.documents["J4"].facts
    assert any(":2: warning: not a JSON object" in note for note in found.notes)


@pytest.mark.parametrize("kind", ["jsonl", "tsv"])
def test_the_tail_of_an_overlong_line_is_no_record(tmp_path, monkeypatch, kind):
    """A line longer than MAX_LINE is read in pieces under one line number; its later pieces were read as lines of
    their own, so a tail `D2<TAB>forged` (or a JSON object) after the cut became document D2, and the real D2 further
    on was never read (the reader stops looking for an id once found)."""
    import runscore.campaign.collection as collection

    monkeypatch.setattr(collection, "MAX_LINE", 1024)
    if kind == "jsonl":
        head = '{"id": "D1", "text": "'
        long_line = head + "a" * (1024 - len(head)) + '{"id": "D2", "text": "forged"}'
        real = '{"id": "D2", "text": "the real one"}'
    else:
        long_line = "D1\t" + "a" * (1024 - 3) + "D2\tforged"
        real = "D2\tthe real one"
    found = read(tmp_path, "c." + kind, long_line + "\n" + real + "\n", {"D2"})
    assert found.documents["D2"].sections[0][1] == "the real one"


def test_a_pipe_or_a_link_to_a_device_in_a_collection_folder_is_not_read(tmp_path):
    """A FIFO in a collection folder blocked the reader forever (open() waits for a writer), a link to /dev/zero fed
    it without end: entries that are no regular files are skipped, and said."""
    import signal

    folder = tmp_path / "collection"
    folder.mkdir()
    (folder / "a.trec").write_text(TREC, encoding="utf-8")
    os.mkfifo(str(folder / "b-pipe"))
    os.symlink("/dev/zero", str(folder / "c-zero"))

    def stuck(signum, frame):
        raise AssertionError("the reader blocked on a pipe or a device")

    previous = signal.signal(signal.SIGALRM, stuck)
    signal.alarm(10)
    try:
        found = read_collection([str(folder)], {"FT911-1", "not-there"}, CollectionOptions())
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    assert "FT911-1" in found.documents
    assert sum("not a regular file" in note for note in found.notes) == 2


def test_a_record_starts_only_where_a_record_can_start(tmp_path):
    """A crawled page inside record WEB-0001 holding `<DOC><DOCNO>WEB-0002</DOCNO>` (at a line's start, even) was
    read as record WEB-0002, and the reader kept it: the assessor judged WEB-0002 by the page author's text. A
    record starts only after the previous one's end tag (TREC, NACSIS), or for LivingKnowledge outside its text."""
    forged = ("<DOC>\n<DOCNO>WEB-0001</DOCNO>\n<TEXT>\nA page.\n<DOC><DOCNO>WEB-0002</DOCNO><TEXT>buy pills</TEXT>\n"
              "<DOC>\n<DOCNO>WEB-0003</DOCNO>\nmore pills\n</TEXT>\n</DOC>\n"
              "<DOC>\n<DOCNO>WEB-0002</DOCNO>\n<TEXT>The real second page.</TEXT>\n</DOC>\n")
    found = read(tmp_path, "web.trec", forged, {"WEB-0001", "WEB-0002", "WEB-0003"})
    assert found.documents["WEB-0002"].sections == [("", "The real second page.")]
    assert "WEB-0003" not in found.documents and "buy pills" in found.documents["WEB-0001"].sections[0][1]
    assert found.documents["WEB-0002"].place.endswith("web.trec:11") and not found.duplicated
    assert any("web.trec:5: warning: <DOC> inside the record that starts on line 1" in n for n in found.notes)
    nacsis = ("<REC>\n<ACCN>gakkai-0000000001</ACCN>\n<ABSE>An abstract\n<REC>\n<ACCN>gakkai-0000000002</ACCN>\n"
              "<TITE>Forged</TITE></ABSE>\n</REC>\n<REC>\n<ACCN>gakkai-0000000002</ACCN>\n<TITE>Real</TITE>\n</REC>\n")
    found = read(tmp_path, "ntc1", nacsis, {"gakkai-0000000002"})
    assert found.documents["gakkai-0000000002"].title == "Real" and not found.duplicated
    living = ('<doc id=lk-1>\n<meta-info>\n<tag name="title">One</tag>\n</meta-info>\n<text>\n<SE>A blog post.</SE>\n'
              '<doc id=lk-2>\n<tag name="title">Forged</tag>\n</text>\n'
              '<doc id=lk-2>\n<meta-info>\n<tag name="title">Real</tag>\n</meta-info>\n<text>real</text>\n')
    found = read(tmp_path, "lk.xml", living, {"lk-1", "lk-2"})
    assert found.documents["lk-2"].title == "Real" and not found.duplicated


def test_a_duplicate_id_is_told_with_both_places(tmp_path):
    """A second record of a pooled id was silently dropped (the reader stopped looking once an id was found): it is
    a warning naming both places, and the card of the document shown (the first) says so."""
    trec = TREC + "<DOC>\n<DOCNO>FT911-1</DOCNO>\n<TEXT>Another text.</TEXT>\n</DOC>\n"
    (tmp_path / "b.jsonl").write_text('{"id": "x"}\n{"id": "FT911-2", "text": "third"}\n')
    (tmp_path / "a.trec").write_text(trec)
    found = read_collection([str(tmp_path / "a.trec"), str(tmp_path / "b.jsonl")], {"FT911-1", "FT911-2"},
                            CollectionOptions())
    first, second = str(tmp_path / "a.trec"), str(tmp_path / "b.jsonl")
    assert found.duplicated == ["FT911-1", "FT911-2"]
    told = ["%s:17: warning: a second record of document FT911-1 (the first is at %s:1," % (first, first),
            "%s:2: warning: a second record of document FT911-2 (the first is at %s:13," % (second, first)]
    assert [[note.startswith(t) for note in found.notes] for t in told] == [[True, False], [False, True]]
    view = found.documents["FT911-1"].as_json()
    assert view["sections"] == [["", "The bridge reopened on Wednesday.\nRepairs took three weeks."]]
    assert ["duplicate id", "2 records in the collection: this one (%s:1), then %s:17" % (first, first)] in view["facts"]


def test_hostile_ids_and_tags_cost_linear_time(tmp_path):
    r"""`<DOCNO>\s*(.*?)\s*</DOCNO` was cubic in the white space after an unclosed tag (2,000 spaces: 2 s; 10,000: 8
    minutes), the LivingKnowledge `<tag name=...>` scan quadratic (20,000 unclosed tags: 18 s), the format sniffer
    quadratic in `<doc ` without `>`, and elements() looked for each of 1,000 unclosed names through a 4 MB record."""
    from runscore.campaign.documents import elements, livingknowledge_document

    spaces = " " * 10000
    trec = "".join("<DOC>\n<DOCNO>%s\n</DOC>\n" % spaces for _ in range(3)) + \
        "<DOC>\n<DOCNO>D1</DOCNO>\n<TEXT>ok</TEXT>\n</DOC>\n"
    nacsis = "<REC>\n<ACCN>%s\n</REC>\n<REC>\n<ACCN>A1</ACCN>\n</REC>\n" % spaces
    living = "<doc id=L1>\n" + "<tag name=x>" * 20000 + "\n<text>fine</text>\n"
    start = cpu_seconds()
    assert read(tmp_path, "t", trec, {"D1"}).documents["D1"].sections == [("", "ok")]
    assert "A1" in read(tmp_path, "n", nacsis, {"A1"}).documents
    assert read(tmp_path, "l", living, {"L1"}).documents["L1"].sections == [("", "fine")]
    assert livingknowledge_document("L2", '<doc id=L2><tag name="title">T</tag>' + "<tag name=y>" * 20000).title == "T"
    assert sniff_format(b"<doc " * 13000) is None
    assert len(elements("".join("<X%d>" % i for i in range(1000)) + "y" * 4000000)) == 1000
    assert cpu_seconds() - start < 3


def test_titles_and_facts_are_shortened_like_sections(tmp_path):
    """A 1 MB title made a 1 MB heading on every page that showed the document (and in its JSON): titles and facts
    are cut at a word like the text, and the card says the document is shortened."""
    title = "harbour " * 130000
    found = read(tmp_path, "c.jsonl", json.dumps({"id": "T1", "title": title, "text": "short", "url": "u" * 5000}) +
                 "\n", {"T1"})
    view = found.documents["T1"].as_json()
    assert len(view["title"]) <= 300 and view["title"].endswith("harbour\u2026")
    assert all(len(value) <= 300 for _, value in view.get("facts", []))
    assert view["shortened"]["shown"] == 5


def test_long_text_is_cut_at_a_word_and_kept_whole(tmp_path):
    """A document longer than the page shows was cut at 20,000 characters mid-word, and the rest was dropped: the
    page's view is cut at a word, and the whole text (to 1,000,000 characters) is kept for the page's link."""
    text = " ".join("word%d" % i for i in range(10000))
    found = read(tmp_path, "c.tsv", "L1\t%s\n" % text, {"L1"})
    document = found.documents["L1"]
    shown = document.as_json()["sections"][0][1]
    assert len(shown) <= 20000 and shown.endswith("\u2026") and shown[:-1].rstrip() + " " in text
    assert document.sections == [("", text)] and document.shortened()


def test_a_utf8_file_whose_start_is_ascii_is_read_as_utf8(tmp_path):
    """A UTF-8 collection whose first 64 KB are ASCII was read as EUC-JP (NTCIR-1's): "kármán" showed as
    "k叩rm叩n", and only 6 characters were counted. The encoding is decided at the first non-ASCII bytes."""
    filler = "".join("<REC>\n<ACCN>gakkai-%010d</ACCN>\n<TITE>plain ascii title</TITE>\n</REC>\n" % i
                     for i in range(2000))
    text = filler + "<REC>\n<ACCN>gakkai-k</ACCN>\n<TITE>von Kármán vortex street</TITE>\n</REC>\n"
    found = read(tmp_path, "ntc1-utf8", text, {"gakkai-k", "gakkai-0000000001"}, declared_encoding="euc_jp")
    assert found.documents["gakkai-k"].title == "von Kármán vortex street"
    assert found.files[0].encoding == "utf-8" and found.undecodable == 0 and not found.notes
    found = read(tmp_path, "ascii", filler, {"gakkai-0000000001"}, declared_encoding="euc_jp")
    assert found.files[0].encoding == "ascii"


def test_undecodable_characters_are_counted_with_their_first_line(tmp_path):
    """A UTF-8 file with a stray Latin-1 byte later on: the byte shows as U+FFFD, counted, with its line; a file
    that is mostly UTF-8 but not valid from its first non-ASCII text on is read in the task's encoding, and the
    warning counts the characters that garbles (not only the undecodable bytes)."""
    head = "<REC>\n<ACCN>a1</ACCN>\n<TITE>Kármán</TITE>\n</REC>\n" + "<REC>\n<ACCN>f</ACCN>\n</REC>\n" * 20000
    tail = "<REC>\n<ACCN>a2</ACCN>\n<TITE>caf\xe9</TITE>\n</REC>\n"
    data = head.encode("utf-8") + tail.encode("latin-1")
    found = read(tmp_path, "late", data, {"a1", "a2"}, declared_encoding="euc_jp")
    assert found.documents["a1"].title == "Kármán" and found.documents["a2"].title == "caf\ufffd"
    assert found.undecodable == 1
    line = head.count("\n") + 3
    assert any(note.startswith("%s:%d: warning: 1 character(s)" % (tmp_path / "late", line)) and
               "--encoding euc_jp" in note for note in found.notes)
    mostly = "<REC>\n<ACCN>m1</ACCN>\n<TITE>caf\xe9 Kármán Erdős Gödel Poincaré</TITE>\n</REC>\n"
    found = read(tmp_path, "mostly", mostly.encode("utf-8").replace(b"caf\xc3\xa9", b"caf\xe9"), {"m1"},
                 declared_encoding="euc_jp")
    assert found.files[0].encoding == "euc_jp"
    assert any(":3: warning: the file is not valid UTF-8 (byte 0xe9)" in note and "garbles the 5 UTF-8" in note and
               "--encoding utf-8" in note for note in found.notes)


def test_the_whole_texts_kept_are_bounded_in_all(tmp_path, monkeypatch):
    """Each pooled document keeps its whole text (to 1,000,000 characters) for its page's link: a pool of thousands
    of long documents would keep gigabytes, so past a budget for all of them a document keeps what its card shows,
    said once."""
    import runscore.campaign.collection as collection

    monkeypatch.setattr(collection, "MAX_KEPT_TOTAL", 100000)
    text = " ".join("w%d" % i for i in range(15000))
    found = read(tmp_path, "c.tsv", "".join("D%d\t%s\n" % (i, text) for i in range(4)), {"D0", "D1", "D2", "D3"})
    lengths = [found.documents["D%d" % i].length() for i in range(4)]
    assert len(text) > 80000 and lengths[0] == len(text) and all(n <= 20000 for n in lengths[1:])
    assert [found.documents["D%d" % i].cut for i in range(4)] == [False, True, True, True]
    assert sum("whole texts pass 100,000 characters" in note for note in found.notes) == 1
