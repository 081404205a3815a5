"""python -m attnlib: the course command line (attnlib.course.cli)."""
import sys

from .course.cli import main

sys.exit(main())
