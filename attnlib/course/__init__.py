"""The course tooling: the manifest, the learner's workspace, the lab launcher and the command line.

    manifest    LESSONS, the one ordered list of lessons and their exercises (imported here)
    workspace   the learner's own copies in workspace/, never overwritten without a backup
    notebooks   exercise notebooks on disk: stubs generated from solutions/, run headless, their check outcomes read
    lab         `make lab`: JupyterLab on 127.0.0.1 with a token
    cli         `python -m attnlib status | check | hint | reset | update | lab`
"""
from .manifest import EXERCISE_LESSONS, LESSONS, STEMS, Lesson, course_map, lesson  # noqa: F401
