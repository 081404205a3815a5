"""JupyterHub for a small class of Rediscovering Attention on one machine: a starting point.

Run it as root from the class's environment (classroom/README.md builds one), in a folder of its own
(the hub keeps its database and cookie secret there):

    ATTNLIB_INSTRUCTOR=teacher ATTNLIB_STUDENTS="ada alan grace" \\
        /opt/attention/bin/python -m jupyterhub -f classroom/jupyterhub_config.py

Every hub user is a Unix user of the same name (nbgrader tells students apart by the Unix user their server
runs as); the local process spawner starts each one's Jupyter server as that user, with the Python this hub
runs on, so that Python must be readable by all of them. The instructor's server has nbgrader's formgrader,
the students' servers have only the assignment list. tests/course/test_classroom.py starts this file on a
real hub and runs a whole assignment through it.
"""
import os
import sys

c = get_config()  # noqa: F821 - JupyterHub defines it when it loads this file

INSTRUCTOR = os.environ.get("ATTNLIB_INSTRUCTOR", "")  # optional: also addable later, see below
STUDENTS = os.environ.get("ATTNLIB_STUDENTS", "").split()
PYTHON = os.environ.get("ATTNLIB_CLASS_PYTHON", sys.executable)  # every user's server and kernels run on it
INSTRUCTORS = "instructors"  # the hub group whose members get nbgrader's formgrader

c.JupyterHub.bind_url = os.environ.get("ATTNLIB_HUB_URL", "http://127.0.0.1:8000")

# Sign-in. "dummy" takes any password: fine for trying the hub on 127.0.0.1, never for a class on a
# network, where anyone who reaches the hub could sign in as the instructor. There, set
# ATTNLIB_HUB_AUTHENTICATOR=pam (the users' Unix passwords) or use your institution's OAuth/LTI authenticator.
c.JupyterHub.authenticator_class = os.environ.get("ATTNLIB_HUB_AUTHENTICATOR", "dummy")
c.Authenticator.allowed_users = {name for name in (INSTRUCTOR, *STUDENTS) if name}
c.Authenticator.allow_existing_users = True  # and whoever is added through the admin page or the REST API
c.Authenticator.allow_all = False  # nobody else: with the local spawner a stray name would be a Unix user (root!)
c.Authenticator.admin_users = {INSTRUCTOR} if INSTRUCTOR else set()  # the hub's admin page: optional
c.JupyterHub.load_groups = {INSTRUCTORS: {"users": [INSTRUCTOR] if INSTRUCTOR else []}}

# One Jupyter server per user, as that Unix user, started in their home folder.
c.JupyterHub.spawner_class = "localprocess"
c.Spawner.cmd = [PYTHON, "-m", "jupyterhub.singleuser"]
c.Spawner.default_url = "/lab"
# not the hub's PATH, PYTHONPATH or VIRTUAL_ENV; the course and exchange for classroom/nbgrader_config.py
c.Spawner.env_keep = ["LANG", "LC_ALL", "ATTNLIB_COURSE", "ATTNLIB_EXCHANGE"]
c.Spawner.environment = {"PATH": os.pathsep.join([os.path.dirname(PYTHON), "/usr/local/bin", "/usr/bin", "/bin"])}
c.Spawner.http_timeout = 60
c.Spawner.start_timeout = 120
c.Spawner.args = ["--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate"]

STUDENT_EXTENSIONS = ["--ServerApp.jpserver_extensions=" + ext + "=False" for ext in (
    "nbgrader.server_extensions.formgrader",  # the gradebook is the instructor's
)]


def students_without_formgrader(spawner):
    """The formgrader is for the group "instructors"; a student's server keeps the assignment list (fetch,
    submit, feedback) and validation."""
    if INSTRUCTORS not in {group.name for group in spawner.user.groups}:
        spawner.args = list(spawner.args) + STUDENT_EXTENSIONS


c.Spawner.pre_spawn_hook = students_without_formgrader

# A service token for scripts that add students and start servers through the REST API
# (classroom/README.md shows the calls). Unset: no service.
if os.environ.get("ATTNLIB_HUB_API_TOKEN"):
    c.JupyterHub.services = [{"name": "classroom-admin", "api_token": os.environ["ATTNLIB_HUB_API_TOKEN"]}]
    c.JupyterHub.load_roles = [{
        "name": "classroom-admin",
        "scopes": ["admin:users", "admin:servers", "tokens", "groups"],
        "services": ["classroom-admin"],
    }]
