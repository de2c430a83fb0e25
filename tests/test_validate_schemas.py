"""The shipped record schemas are valid JSON Schemas, and a run with no bad line never imports jsonschema.

Why here: validate.RecordSchema makes its jsonschema validator (and checks the schema) only for the first record
its patterns refuse (importing jsonschema costs about 0.1 s a process), so a broken schema file would not show
on clean runs: this test checks every one.
"""
import subprocess
import sys

import jsonschema
import pytest

from runscore.validate import load_schema, record_schema, schema_names

from conftest import ROOT


@pytest.mark.parametrize("name", schema_names())
def test_every_shipped_schema_is_a_valid_draft7_schema(name):
    jsonschema.Draft7Validator.check_schema(load_schema(name))


def test_the_fast_patterns_and_the_validator_agree_on_the_words_of_a_bad_record():
    schema = record_schema("ntcir1-adhoc.record")
    good = dict(topic="0031", dummy="0", docno="gakkai-1", rank="1", similarity="0.5", run_id="ntc1")
    assert schema.errors(good) == [] and list(schema.validator.iter_errors(good)) == []
    assert schema.errors(dict(good, similarity="high")) == \
        ["Similarity-value: 'high' is not a decimal number (the Similarity-value, e.g. 0.8731 or 9999)"]


def test_a_clean_run_is_scored_without_importing_jsonschema():
    code = ("import sys, runpy; sys.argv = ['runscore', 'score', '--task', 'ntcir1-adhoc', '--ref', "
            "%r, %r]\ntry:\n    runpy.run_module('runscore', run_name='__main__')\nexcept SystemExit:\n    pass\n"
            "print('jsonschema' in sys.modules)" % (ROOT + "/reference_data/ntcir1-adhoc",
                                                    ROOT + "/starting_kit/sample_submission/ntcir1-adhoc/ntc1"))
    done = subprocess.run([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          universal_newlines=True, cwd=ROOT)
    assert done.stdout.splitlines()[-1] == "False", done.stderr
