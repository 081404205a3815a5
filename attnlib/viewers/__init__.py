"""The viewers: what a learner looks at. They only read the maths; the maths never imports them.

    viz       static views: essay-style HTML matrix tables, equations and matplotlib figures
    widgets   the interactive explorers (ipywidgets), each wired to a pure function

Notebooks import them as `from attnlib.viewers import viz, widgets`.
"""
