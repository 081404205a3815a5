# Every target creates .venv from the pins first, so a fresh machine needs only
# Python 3.10+ and make.  PARITY=1 (set automatically under CI=true) also
# installs PyTorch CPU, the independent reference for the parity tests.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
PARITY ?= $(if $(filter true,$(CI)),1,)
STAMP  := $(VENV)/.installed$(if $(PARITY),-parity,)

.PHONY: lab test grade bench refresh exercises clean

$(STAMP): requirements.txt requirements-parity.txt pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -r requirements.txt $(if $(PARITY),-r requirements-parity.txt,)
	$(BIN)/python -m pip install --quiet --no-deps -e .
	touch $(STAMP)

lab: $(STAMP)            ## open the course in JupyterLab (127.0.0.1, with a token)
	$(BIN)/python -m attnlib lab

test: $(STAMP)           ## run every test: unit, property, parity, grader, notebooks, browser
	$(BIN)/python -m pytest

grade: $(STAMP)          ## your progress over exercises/
	$(BIN)/python -m attnlib status

bench: $(STAMP)          ## print the benchmark tables (ratios, not assertions)
	$(BIN)/python bench/attention.py
	@for b in bench/widgets.py bench/train.py bench/generate.py; do \
	  if [ -f $$b ]; then echo; $(BIN)/python $$b || exit 1; fi; done

refresh: $(STAMP)        ## maintainers: re-execute notebooks and store their outputs
	$(BIN)/python tools/refresh_notebooks.py

exercises: $(STAMP)      ## maintainers: regenerate exercises/ from solutions/
	$(BIN)/python tools/make_exercises.py

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis artifacts
