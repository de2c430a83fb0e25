"""Django settings of the Codabench site the platform suite runs: Codabench's own `settings.base`, pointed at this
machine's services, with object storage on local folders (the first stand-in, see codabench_harness.py).

The harness sets every environment variable `settings.base` reads (DATABASE_URL, REDIS_URL, DOMAIN_NAME,
SUBMISSIONS_API_URL, TEMP_SUBMISSION_STORAGE) and RUNSCORE_PLATFORM_STORAGE, the folder of the two buckets and the URL
of the file server that plays the storage service. Only what has no local equivalent is changed here.
"""
import json
import os

from settings import base as _codabench

# Codabench's own settings, as production loads them (`from settings.base import *`, written out for pyflakes).
globals().update({name: value for name, value in vars(_codabench).items() if name.isupper()})
_storage = json.loads(os.environ["RUNSCORE_PLATFORM_STORAGE"])

# Object storage stand-in: the public and the private bucket are two folders, served (and their signed URLs
# checked) by the harness's file server. `utils.storage.BundleStorage` / `PublicStorage` are made from the same two.
STORAGES = {
    "default": {
        "BACKEND": "django.core.files.storage.FileSystemStorage",
        "OPTIONS": {"location": os.path.join(_storage["root"], "public"), "base_url": _storage["url"] + "/public/"},
    },
    "bundle": {
        "BACKEND": "django.core.files.storage.FileSystemStorage",
        "OPTIONS": {"location": os.path.join(_storage["root"], "private"), "base_url": _storage["url"] + "/private/"},
    },
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
}

# Message queue stand-in, the site's half: the site-worker tasks (unpacking, starting submissions) run in the
# request that queues them, as Codabench's own test settings do (settings/test.py); the compute-worker jobs are
# handed to the worker by the harness (codabench_harness.py, `send_task`).
CELERY_TASK_ALWAYS_EAGER = True
