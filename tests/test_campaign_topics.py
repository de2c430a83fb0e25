"""Topic files (campaign/topics.py): NTCIR <TOPIC>, NTCIR-3 <TOPIC><NUM>, TREC <top>, Temporalia <topic> with
subtopics, R2C2 <question>, JSON (list, lines, keyed, BEIR) and TSV; ids matched to the pool by the task's own
normaliser; the query terms a page highlights. The examples are the specs' own (specs/collections.md)."""
import json

import pytest

from runscore.campaign.topics import query_terms, read_topics
from runscore.errors import ConfigError
from runscore.tasks import get_task

NTCIR = """<TOPIC q=0084>

<TITLE>
分散検索
</TITLE>
<DESCRIPTION>
分散索引を用いて検索を高速化する手法
</DESCRIPTION>
<NARRATIVE>
索引の分割方法と応答時間の評価を含む文献を適合とする。
</NARRATIVE>
<CONCEPT>
a. 分散索引, 索引分割,
b. 応答時間
</CONCEPT>
<FIELD>
1. 電気・情報・制御
</FIELD>

</TOPIC>
"""

TREC = """<top>
<num> Number: 451
<title> harbour bridge repairs
<desc> Description:
What repairs were made to harbour bridges?
<narr> Narrative:
A relevant document names a bridge and the repair work.
</top>
"""

TEMPORALIA = """<topics><topic>
<id>051</id>
<title>Harbour bridge repairs</title>
<description>I live near the harbour and want to know about the bridge works.</description>
<query_issue_time>Mar 30, 2013 GMT+0:00</query_issue_time>
<subtopics>
<subtopic id="051p" type="past">When was the bridge first closed for repairs?</subtopic>
<subtopic id="051r" type="recency">Is the bridge open this week?</subtopic>
</subtopics>
</topic></topics>
"""

R2C2 = """<question>
<qID>0066</qID>
<q>Which harbour film of 1987 was shot at night only?</q>
</question>

<question>
<qID>0067</qID>
<q>Who scored "Harbour Lights" & its sequel?</q>
</question>
"""


def topics_of(tmp_path, task, text, name="topics", encoding="utf-8"):
    path = tmp_path / name
    path.write_bytes(text.encode(encoding))
    return read_topics(str(path), get_task(task).assessment)


def test_ntcir_topic_in_euc_jp_field_hidden_concepts_highlighted(tmp_path):
    topics = topics_of(tmp_path, "ntcir1-adhoc", NTCIR, encoding="euc_jp")
    assert topics.encoding == "euc_jp"                 # not UTF-8: the task's declared encoding
    topic = topics.for_pool_topic("0084")
    assert topic.title == "分散検索"
    assert [label for label, _ in topic.fields] == ["description", "narrative", "concepts"]   # FIELD not shown
    assert topic.terms == ["分散検索", "分散索引", "索引分割", "応答時間"]
    assert topics.for_pool_topic("84") is None and topics_of(tmp_path, "ntcir1-adhoc", NTCIR).encoding == "utf-8"


def test_ntcir3_style_topic_with_num_and_narrative_parts(tmp_path):
    text = ("<TOPIC>\n<NUM>0101</NUM>\n<SLANG>EN</SLANG>\n<TITLE>bridge repair</TITLE>\n<DESC>Repairs.</DESC>\n"
            "<NARR><BACK>Bridges age.</BACK><RELE>Repair work is relevant.</RELE></NARR>\n</TOPIC>\n")
    topic = topics_of(tmp_path, "ntcir1-adhoc", text).for_pool_topic("0101")
    assert topic.title == "bridge repair"
    assert dict(topic.fields)["narrative"] == "Background: Bridges age.\nRelevance: Repair work is relevant."


def test_trec_topic_without_end_tags(tmp_path):
    topic = topics_of(tmp_path, "ntcir1-adhoc", TREC).for_pool_topic("0451")      # NTCIR-1 pads ids to 4
    assert topic.title == "harbour bridge repairs"
    assert topic.fields == [("description", "What repairs were made to harbour bridges?"),
                            ("narrative", "A relevant document names a bridge and the repair work.")]
    assert topic.terms == ["harbour", "bridge", "repairs"]


def test_temporalia_subtopics_are_the_assessment_topics(tmp_path):
    topics = topics_of(tmp_path, "temporalia-tir", TEMPORALIA)
    past = topics.for_pool_topic("051p")
    assert past.title == "When was the bridge first closed for repairs?"
    assert past.fields[:2] == [("temporal class", "past"), ("topic", "Harbour bridge repairs")]
    assert ("query issued", "Mar 30, 2013 GMT+0:00") in past.fields
    assert "closed" in past.terms and "first" not in past.terms and "harbour" in past.terms
    # a subtopic the file does not list is shown with its topic (the task's parent rule), ids spelled any way
    assert topics.for_pool_topic("051f").title == "Harbour bridge repairs"
    assert topics_of(tmp_path, "temporalia-tir", "51p\tthe past of 51\n").for_pool_topic("051p").title == \
        "the past of 51"


def test_r2c2_questions_with_raw_ampersands(tmp_path):
    topics = topics_of(tmp_path, "r2c2-pr", R2C2)
    assert topics.for_pool_topic("0067").title == 'Who scored "Harbour Lights" & its sequel?'
    assert topics_of(tmp_path, "r2c2-ac", "D066\tquestion sixty-six\n").for_pool_topic("0066").title == \
        "question sixty-six"


@pytest.mark.parametrize("text", [
    json.dumps([{"query_id": "7", "title": "bridges", "description": "d", "narrative": "n"}]),
    json.dumps({"query_id": "7", "title": "bridges", "description": "d", "narrative": "n"}) + "\n",
    json.dumps({"7": {"title": "bridges", "description": "d", "narrative": "n"}}),
    json.dumps({"_id": "7", "title": "bridges", "metadata": {"description": "d", "narrative": "n"}}) + "\n",
])
def test_json_topics(tmp_path, text):
    topic = topics_of(tmp_path, "ntcir1-adhoc", text).for_pool_topic("0007")
    assert (topic.title, topic.fields) == ("bridges", [("description", "d"), ("narrative", "n")])


def test_tsv_topics_with_and_without_a_header(tmp_path):
    topic = topics_of(tmp_path, "ntcir1-adhoc", "qid\ttitle\tnarrative\n31\tbridges\tabout bridges\n")
    assert (topic.for_pool_topic("0031").title, topic.for_pool_topic("0031").fields) == \
        ("bridges", [("narrative", "about bridges")])
    with pytest.raises(ConfigError, match="topic<TAB>text"):
        topics_of(tmp_path, "ntcir1-adhoc", "no tab here\n")
    with pytest.raises(ConfigError, match="no topic found"):
        topics_of(tmp_path, "ntcir1-adhoc", "<TOPIC>\n<TITLE>no id</TITLE>\n</TOPIC>\n")


def test_query_terms():
    assert query_terms("What is the effect of El Nino on 1998 crops?") == ["effect", "nino", "1998", "crops"]
    assert query_terms("分散検索 と 応答時間") == ["分散検索", "応答時間"]


def test_a_topic_file_of_many_unclosed_tags_is_read_in_linear_time(tmp_path):
    import time

    start = time.process_time()
    topics = topics_of(tmp_path, "ntcir1-adhoc", NTCIR + "<topic>x" * 200000)
    assert time.process_time() - start < 5 and topics.for_pool_topic("0084").title == "分散検索"


def test_json_topics_nested_too_deeply_or_holding_half_a_surrogate_pair(tmp_path):
    """A topic file nested 100,000 deep is the organiser's error with its line (it was a RecursionError, an internal
    error); half a surrogate pair (`\\udc00`, kept by json.loads) shows as U+FFFD (the page could not be written)."""
    found = topics_of(tmp_path, "ntcir1-adhoc", '[{"id": "0031", "title": "ports \\udc00 and harbours"}]')
    assert found.by_id["0031"].title == "ports \ufffd and harbours"
    with pytest.raises(ConfigError, match="not JSON: nested too deeply"):
        topics_of(tmp_path, "ntcir1-adhoc", "[" * 100000 + "]" * 100000, name="deep")


def test_hostile_topic_files_cost_linear_time(tmp_path):
    """Many `<subtopic>` without their end tag (each was looked for to the file's end), a title of 200,000
    distinct words (each looked up in the list of terms so far) and a tag of 100,000 `q="` attributes without their
    closing quote (each tried to the tag's end): linear now."""
    from conftest import cpu_seconds

    subtopics = TEMPORALIA.replace("</subtopics>", '<subtopic id="051x">' * 30000 + "</subtopics>")
    words = " ".join("w%06d" % i for i in range(200000))
    start = cpu_seconds()
    assert topics_of(tmp_path, "temporalia-tir", subtopics).for_pool_topic("051p") is not None
    assert len(topics_of(tmp_path, "ntcir1-adhoc", "31\t%s\n" % words, name="t2").for_pool_topic("0031").terms) == 30
    assert topics_of(tmp_path, "ntcir1-adhoc", '<TOPIC q=0031 %s>\n<TITLE>t</TITLE>\n</TOPIC>\n' % ('q="' * 100000),
                     name="t3").for_pool_topic("0031").title == "t"
    assert cpu_seconds() - start < 3


def test_a_long_topic_title_is_shortened_on_the_page(tmp_path):
    """A 1 MB topic title made a 1 MB heading (twice: the panel and the header's pop-up) and topic line."""
    topic = topics_of(tmp_path, "ntcir1-adhoc", "31\t%s\n" % ("harbour " * 130000)).for_pool_topic("0031")
    shown = topic.as_json()
    assert len(shown["title"]) <= 300 and shown["title"].endswith("\u2026")


def test_topic_encodings_are_decided_from_the_bytes_and_told(tmp_path):
    """Valid UTF-8 is UTF-8 (the NTCIR-1 task's EUC-JP never garbles "kármán"), `--encoding` insists, a file that is
    not valid UTF-8 is read in the task's encoding, and what could not be read is counted with its first line;
    a mostly-UTF-8 file with a stray byte is told that the task's encoding garbles its characters."""
    text = "31\tvon Kármán vortex\n"
    assert topics_of(tmp_path, "ntcir1-adhoc", text).for_pool_topic("0031").title == "von Kármán vortex"
    path = tmp_path / "topics"
    insisted = read_topics(str(path), get_task("ntcir1-adhoc").assessment, "latin-1")
    assert insisted.encoding == "latin-1" and insisted.for_pool_topic("0031").title == "von KÃ¡rmÃ¡n vortex"
    (tmp_path / "bad").write_bytes("31\tbridges\n32\tcaf\xe9 Kármán Erdős\n".encode("utf-8").replace(b"caf\xc3\xa9", b"caf\xe9"))
    read = read_topics(str(tmp_path / "bad"), get_task("ntcir1-adhoc").assessment)
    assert read.encoding == "euc_jp"
    assert any(note.startswith("%s:2: warning: the file is not valid UTF-8 (byte 0xe9)" % (tmp_path / "bad")) and
               "garbles its 3 UTF-8 character(s)" in note and "--encoding utf-8" in note for note in read.notes)
    (tmp_path / "utf8task").write_bytes(b"0001\tok\n0002\tcaf\xe9\n")
    read = read_topics(str(tmp_path / "utf8task"), get_task("r2c2-pr").assessment)
    assert read.for_pool_topic("0002").title == "caf\ufffd"
    assert read.notes == ["%s:2: warning: 1 character(s) could not be read as utf-8 and show as \ufffd (the first "
                          "on this line); give --encoding if the file is in another encoding" % (tmp_path / "utf8task")]


def test_pool_prints_the_topic_files_encoding_warnings(tmp_path, capsys):
    """`runscore pool --topics` read a topic file that is not valid UTF-8 in the task's encoding without a word:
    its warnings are on stderr, and `--encoding` insists."""
    from runscore.cli import main

    (tmp_path / "topics").write_bytes("0031\tcaf\xe9 Kármán Erdős\n".encode("utf-8").replace(b"caf\xc3\xa9", b"caf\xe9"))
    (tmp_path / "run1").write_text("0031\t0\tD1\t1\t9\trun1\n")
    assert main(["pool", "--task", "ntcir1-adhoc", "--depth", "10", str(tmp_path / "run1"), "-o",
                 str(tmp_path / "pool"), "--topics", str(tmp_path / "topics")]) == 0
    err = capsys.readouterr().err
    assert "%s:1: warning: the file is not valid UTF-8 (byte 0xe9)" % (tmp_path / "topics") in err
    assert main(["pool", "--task", "ntcir1-adhoc", "--depth", "10", str(tmp_path / "run1"), "-o",
                 str(tmp_path / "pool2"), "--topics", str(tmp_path / "topics"), "--encoding", "utf-8"]) == 0
    captured = capsys.readouterr()
    assert "1 character(s) could not be read as utf-8" in captured.err and "topics: 1 entry" in captured.out
