"""The run schemas shipped in the package (and published in the starting kit): each is a valid Draft 7 schema, and
a valid record of a flat format is checked without importing jsonschema (its import is 80 ms of every run's
check), while a bad record still gets jsonschema's worded message."""
import os
import subprocess
import sys

import jsonschema
import pytest

from conftest import ROOT
from runscore.validate import RecordSchema, load_schema, schema_names


@pytest.mark.parametrize("name", schema_names())
def test_every_shipped_schema_is_a_valid_draft7_schema(name):
    jsonschema.Draft7Validator.check_schema(load_schema(name))


def test_the_shipped_schemas_are_the_ones_the_tasks_name():
    from runscore.tasks.forms import KINDS

    assert len([name for name in schema_names() if not name.startswith("form-")]) == 7
    assert sorted(name for name in schema_names() if name.startswith("form-")) == sorted("form-" + k for k in KINDS)


def test_a_valid_flat_record_never_imports_jsonschema_and_a_bad_one_is_worded():
    code = ("import sys; from runscore.validate import RecordSchema; s = RecordSchema('ntcir1-adhoc.record'); "
            "good = {'topic': '0001', 'dummy': '0', 'docno': 'gakkai-0000011253', 'rank': '1', "
            "'similarity': '0.5', 'run_id': 'ntc1'}; "
            "print(s.fast, s.errors(good), 'jsonschema' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                          env=dict(os.environ, PYTHONPATH=os.path.join(ROOT, "scoring_program")))
    assert done.stdout.split() == ["True", "[]", "False"], done.stderr


def test_a_record_that_fails_the_patterns_gets_jsonschemas_message():
    schema = RecordSchema("ntcir1-adhoc.record")
    record = {k: "x" for k in schema.schema["properties"]}
    errors = schema.errors(record)
    assert errors and all(isinstance(e, str) and e for e in errors)


def test_a_clean_run_is_scored_without_importing_jsonschema():
    """The whole command (and score.py's check that the image has jsonschema finds it without importing it)."""
    code = ("import sys, runpy; sys.argv = ['runscore', 'score', '--task', 'ntcir1-adhoc', '--ref', %r, %r]\n"
            "try:\n    runpy.run_module('runscore', run_name='__main__')\nexcept SystemExit:\n    pass\n"
            "sys.path.insert(0, %r)\nimport score\nassert score._check_dependencies()\n"
            "print('jsonschema' in sys.modules)" % (ROOT + "/reference_data/ntcir1-adhoc",
                                                    ROOT + "/starting_kit/sample_submission/ntcir1-adhoc/ntc1",
                                                    ROOT + "/scoring_program"))
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert done.stdout.splitlines()[-1] == "False", done.stderr
