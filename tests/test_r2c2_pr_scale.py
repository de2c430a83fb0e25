"""R2C2 PR's grade scale: NTCIREVAL's levels L0..L15 with linear gains (specs/r2c2.md 4.3),
or L0 and one level a gain the task.yaml's gains option lists; a level off it is refused at QRELS:LINE with the
scale named, every bad line told at once, never scored."""
import pytest

from runscore.errors import ConfigError
from runscore.pipeline import load_reference
from runscore.tasks import get_task

PR = get_task("r2c2-pr")


def folder(tmp_path, levels, gains=None):
    ref = tmp_path / "ref"
    ref.mkdir(parents=True)
    (ref / "task.yaml").write_text("task: r2c2-pr\nqrels: q.tsv\n" + ("options: {gains: '%s'}\n" % gains
                                                                      if gains else ""))
    (ref / "q.tsv").write_text("qID\tpassage_key\tLk\n" +
                               "".join("0001\tk%d\t%s\n" % (n, level) for n, level in enumerate(levels)))
    return ref


def refused(ref):
    with pytest.raises(ConfigError) as raised:
        load_reference(PR, str(ref))
    return str(raised.value)


def test_explicit_gains_declare_the_scale_and_a_level_off_it_is_refused_at_its_line(tmp_path):
    text = refused(folder(tmp_path, ["L1", "L2", "L3", "L0", "L7"], gains="1:2"))
    assert "q.tsv:4: error: relevance level L3 is outside the task's scale L0..L2 (option gains '1:2' " \
           "declares 2 levels)" in text
    assert "q.tsv:6: error: relevance level L7 is outside the task's scale L0..L2" in text


@pytest.mark.parametrize("level", ["L16", "L123456789"])
def test_linear_gains_take_ntcireval_levels_up_to_l15(tmp_path, level):
    text = refused(folder(tmp_path, ["L1", level]))
    assert "q.tsv:3: error: relevance level %s is outside the task's scale L0..L15" % level in text


@pytest.mark.parametrize("level", ["L-1", "3", "l2", "S"])
def test_a_level_not_of_the_form_lk_is_refused(tmp_path, level):
    assert "q.tsv:3: error: relevance level %r is not of the form Lk" % level in refused(folder(tmp_path, ["L1", level]))


def test_levels_on_the_scale_load(tmp_path):
    reference = load_reference(PR, str(folder(tmp_path, ["L0", "L2", "L1"], gains="1:3"))).data
    assert reference.qrels == {"0001": {"k0": 0, "k1": 2, "k2": 1}} and list(reference.gains) == [1, 3]
    assert max(load_reference(PR, str(folder(tmp_path / "b", ["L15", "L1"]))).data.qrels["0001"].values()) == 15
