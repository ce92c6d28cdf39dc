"""The instructors' answer key (docs/instructor/answers/) has one entry for every exercise of every
notebook, under the exercise's number and bold title, and none for an exercise that is gone; an
exercise with a checker names it; and the course's website does not show the key. Pure parsing:
no kernel runs."""

import ast
import re
from pathlib import Path

import nbformat
import pytest
from notebook_policy import _title, notebook_exercises

from capsedu import exercises

ROOT = Path(__file__).parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
KEY = ROOT / "docs" / "instructor" / "answers"

# An entry of the key: "## Exercise 1 · Title" or, for an untitled exercise, "## Exercise 1".
ENTRY = re.compile(r"^## Exercise (\d+)(?: · (.+))?$")
CHECKER = re.compile(r"\bcheck_\w+")


def key_entries(path: Path) -> dict[int, tuple[str | None, str]]:
    """The key's entries: number -> (title or None, the entry's text)."""
    entries: dict[int, list] = {}
    current = None
    for line in path.read_text().splitlines():
        match = ENTRY.match(line)
        if match:
            number = int(match[1])
            assert number not in entries, f"{path.name}: exercise {number} twice"
            current = entries[number] = [_title(match[2]), []]
        elif line.startswith("## "):
            current = None
        elif current is not None:
            current[1].append(line)
    return {n: (title, "\n".join(text)) for n, (title, text) in entries.items()}


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.stem[:2])
def test_every_exercise_has_an_answer_and_every_answer_an_exercise(notebook):
    key = KEY / f"{notebook.stem}.md"
    assert key.exists(), f"no answer key for {notebook.name}: write {key.relative_to(ROOT)}"
    asked = {n: title for n, (title, _) in notebook_exercises(notebook).items()}
    answered = {n: title for n, (title, _) in key_entries(key).items()}
    missing = {n: t for n, t in asked.items() if n not in answered}
    gone = {n: t for n, t in answered.items() if n not in asked}
    assert not missing, f"{key.name}: no entry for exercise(s) {missing} of {notebook.name}"
    assert not gone, f"{key.name}: entries for exercise(s) {gone} that {notebook.name} lacks"
    renamed = {n: (asked[n], answered[n]) for n in asked if asked[n] != answered[n]}
    assert not renamed, f"{key.name}: titles differ (notebook, key): {renamed}"


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.stem[:2])
def test_the_key_names_the_checkers_the_notebook_calls(notebook):
    """Every `check_*` of capsedu.exercises that the notebook calls is named in a "Checked by"
    line of its key, and every checker such a line names exists and is called by the notebook."""
    code = "\n".join(c.source for c in nbformat.read(notebook, 4).cells if c.cell_type == "code")
    calls = {name for name in CHECKER.findall(code) if callable(getattr(exercises, name, None))}
    entries = key_entries(KEY / f"{notebook.stem}.md")
    named = {name for _, text in entries.values() for line in text.splitlines()
             if line.startswith("Checked by") for name in CHECKER.findall(line)}
    assert calls - named == set(), f"{notebook.stem}: the key names no exercise for {calls - named}"
    assert named - calls == set(), f"{notebook.stem}: the notebook never calls {named - calls}"


def test_the_key_has_no_file_for_a_notebook_that_is_gone():
    stems = {p.stem for p in NOTEBOOKS}
    assert sorted(p.stem for p in KEY.glob("*.md") if p.stem not in stems) == []


def test_the_website_does_not_show_the_answer_key():
    """docs/conf.py's include and exclude patterns, applied as Sphinx applies them, find no page
    of the answer key (docs/instructor/README.md, docs/instructor/answers/): a learner's site has no
    answer key. They do find the notebooks, so the check is not vacuous."""
    project = pytest.importorskip("sphinx.project")
    settings = {node.targets[0].id: ast.literal_eval(node.value)
                for node in ast.parse((ROOT / "docs" / "conf.py").read_text()).body
                if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name)
                and node.targets[0].id in ("include_patterns", "exclude_patterns")}
    pages = project.Project(ROOT, {".md": "markdown", ".ipynb": "myst-nb"}).discover(
        settings.get("exclude_patterns", ()), settings.get("include_patterns", ("**",)))
    assert {f"notebooks/{p.stem}" for p in NOTEBOOKS} <= pages
    key = [p for p in pages if p.startswith(("docs/instructor/answers/", "docs/instructor/README"))]
    assert key == [], f"the website would show the answer key: {sorted(key)}"


FOLD = re.compile(r"^\*\*Exercise (\d+)\*\* <details><summary>Hint</summary>", re.M)
# a checked exercise names its checker or sends the learner to one ("until the checker prints PASS")
CHECKED = re.compile(r"\bcheck_\w+|\bcheckers? prints? PASS")


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.stem[:2])
def test_a_learner_alone_can_check_every_exercise(notebook):
    """Every exercise has a checker, or a fold with a hint and another with what a good answer
    mentions in the notebook's "### Check yourself" cell (collapsed, so reading is a choice)."""
    cells = nbformat.read(notebook, as_version=4).cells
    folds = "\n".join(c.source for c in cells if c.cell_type == "markdown"
                      and c.source.startswith("### Check yourself"))
    hinted = {int(n) for n in FOLD.findall(folds)}
    assert folds.count("<summary>Hint</summary>") == len(hinted)
    assert folds.count("<summary>A good answer mentions</summary>") == len(hinted)
    open_ones = {n for n, (_, text) in notebook_exercises(notebook).items()
                 if not CHECKED.search(text)}
    assert open_ones <= hinted, f"{notebook.name}: no hints for exercises {open_ones - hinted}"
    assert hinted <= set(notebook_exercises(notebook)), f"{notebook.name}: hints for no exercise"
