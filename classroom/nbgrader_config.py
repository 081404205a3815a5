"""nbgrader for one course of Rediscovering Attention on JupyterHub: a starting point.

Install it for every user of the class's environment, as `<env>/etc/jupyter/nbgrader_config.py`
(`<env>` is the Python prefix the hub's servers run on, e.g. /opt/attention). Students need the course id and
the exchange; the instructor's course folder is `~/<course>` (source/, release/, submitted/, autograded/,
feedback/ and gradebook.db live there). See classroom/README.md.
"""
import os

c = get_config()  # noqa: F821 - nbgrader defines it when it loads this file

COURSE = os.environ.get("ATTNLIB_COURSE", "attention")

c.CourseDirectory.course_id = COURSE
# The exchange: one folder every user can reach, mode 777 (`install -d -m 777 /srv/nbgrader/exchange`).
# Students can write to its inbound/ but not list it; on Kubernetes it is a shared volume.
c.Exchange.root = os.environ.get("ATTNLIB_EXCHANGE", "/srv/nbgrader/exchange")
c.CourseDirectory.root = os.path.join(os.path.expanduser("~"), COURSE)  # only the instructor has one

# The checks run each learner function in a child process with its own time limit; a cell may still take a
# while on a busy machine (the capstone trains two models).
c.ExecutePreprocessor.timeout = 300
