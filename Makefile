# Every target builds its virtual environment from the pins first, so a fresh
# machine needs only Python 3.10+ and make.
#   .venv      the learner's: the course only (requirements.txt)       lab, grade
#   .venv-dev  the maintainers': the course + test tools + the site    test, lint, bench, refresh, exercises, site
#   .node/site the site's MathJax and the accessibility tests' axe-core (npm, pinned)        site, site-js
# PARITY=1 (set automatically under CI=true) also installs PyTorch CPU into
# .venv-dev, the independent reference for the parity tests.
PYTHON ?= python3
VENV   := .venv
DEV    := .venv-dev
PARITY ?= $(if $(filter true,$(CI)),1,)
COURSE := $(VENV)/.installed
TOOLS  := $(DEV)/.installed$(if $(PARITY),-parity,)
SITE_JS := .node/site/.installed
MATHJAX_VERSION := 3.2.2
AXE_VERSION     := 4.14.1

.PHONY: lab grade grade-pytest grade-nbval test lint bench refresh exercises course-map site site-js clean

$(COURSE): requirements.txt pyproject.toml
	@test -x $(VENV)/bin/python || $(PYTHON) -m venv $(VENV)
	$(VENV)/bin/python -m pip install --quiet --upgrade pip
	$(VENV)/bin/python -m pip install --quiet -r requirements.txt
	$(VENV)/bin/python -m pip install --quiet --no-deps -e .
	touch $@

$(TOOLS): requirements.txt requirements-dev.txt requirements-site.txt requirements-parity.txt pyproject.toml
	@test -x $(DEV)/bin/python || $(PYTHON) -m venv $(DEV)
	$(DEV)/bin/python -m pip install --quiet --upgrade pip
	$(DEV)/bin/python -m pip install --quiet -r requirements-dev.txt -r requirements-site.txt \
	  $(if $(PARITY),-r requirements-parity.txt,)
	$(DEV)/bin/python -m pip install --quiet --no-deps -e .
	touch $@

lab: $(COURSE)           ## open the course in JupyterLab (127.0.0.1, with a token), from your workspace/
	$(VENV)/bin/python -m attnlib lab

grade: $(COURSE)         ## your progress over workspace/exercises/
	$(VENV)/bin/python -m attnlib status

grade-pytest: $(TOOLS)   ## the same, as one pytest test per exercise (ATTNLIB_EXERCISES=folder to grade another)
	$(DEV)/bin/python -m pytest -o addopts="" -p no:cacheprovider grading/

grade-nbval: $(TOOLS)    ## the same through nbval: every cell must run, a failing or unattempted check fails its cell
	$(DEV)/bin/python -c "from attnlib.course import workspace; workspace.sync('.')"
	ATTNLIB_STRICT=1 $(DEV)/bin/python -m pytest -o addopts="" -p no:cacheprovider --nbval-lax \
	  --nbval-current-env $(or $(ATTNLIB_EXERCISES),workspace/exercises)

test: $(TOOLS)           ## run every test: unit, property, parity, grader, notebooks, browser
	$(DEV)/bin/python -m pytest

lint: $(TOOLS)           ## ruff over the code (rules in pyproject.toml)
	$(DEV)/bin/ruff check .

bench: $(TOOLS)          ## print the benchmark tables (ratios, not assertions)
	$(DEV)/bin/python bench/attention.py
	@for b in bench/widgets.py bench/train.py bench/generate.py bench/capstone.py bench/rope.py bench/gqa.py; do \
	  if [ -f $$b ]; then echo; $(DEV)/bin/python $$b || exit 1; fi; done

refresh: $(TOOLS)        ## maintainers: re-execute notebooks and store their outputs
	$(DEV)/bin/python tools/refresh_notebooks.py

exercises: $(TOOLS)      ## maintainers: regenerate exercises/ from solutions/ (learners' workspace/ untouched)
	$(DEV)/bin/python tools/make_exercises.py

course-map: $(TOOLS)     ## maintainers: write the course map from attnlib/course/manifest.py into README and notebook 00
	$(DEV)/bin/python tools/course_map.py

$(SITE_JS): Makefile
	@command -v npm >/dev/null 2>&1 || { echo "the site's MathJax and axe-core come from npm: apt-get install npm" >&2; exit 1; }
	mkdir -p .node/site
	npm install --prefix .node/site --no-save --no-package-lock --no-audit --no-fund --loglevel=error \
	  mathjax@$(MATHJAX_VERSION) axe-core@$(AXE_VERSION) >/dev/null
	touch $@

site-js: $(SITE_JS)      ## the site's MathJax and the accessibility tests' axe-core, pinned, into .node/site/

site: $(TOOLS) $(SITE_JS) ## the course as a static website in artifacts/site/, from the stored outputs (nothing runs)
	$(DEV)/bin/python site/build.py

clean:                   ## remove the environments and caches (never workspace/)
	rm -rf $(VENV) $(DEV) .pytest_cache .hypothesis artifacts
