"""The notebooks' storage policy, checked by the tests and applied by ``make notebooks``.

Policy: notebooks are stored **without outputs**, except the code cells marked
``# NBVAL_CHECK_OUTPUT``. Those hold deterministic results (hand-checkable numbers), and they keep
the output of one canonical quick-mode run, which nbval (``--nbval-lax``) compares against on
every ``make test``. Everything else is only required to run without error. This keeps diffs
small, leaves learners a clean notebook, and still pins the numbers that must not drift.

    python tests/notebook_policy.py notebooks/*.ipynb          # report violations
    python tests/notebook_policy.py --fix notebooks/*.ipynb    # re-run (quick mode) and store

Every notebook opens from its Colab and Binder badges, and its first code cell is the Colab
install cell below, the same text in every notebook, with the repository URL of pyproject.toml,
under the heading ``COLAB_HEADING``. Its sections are numbered from that one, 0, 1, 2, ... in
order; the Summary comes before the Exercises.

Every figure carries alt text for the website's readers who cannot see it: a code cell that calls
``plt.show()`` says what its figure shows in ``metadata["mystnb"]["image"]["alt"]``, which MyST-NB
puts on the cell's image outputs (``figure_alt``, ``missing_alt_text``).

Every line a learner is told to run runs in that notebook as written: a fenced ```python block of
its text, or a call in inline code of its exercises, uses only names that the snippet or the
notebook's code defines (``undefined_in_snippets``; pseudo-code goes in a ```text block).
"""

import ast
import builtins
import os
import re
import sys
import textwrap
from pathlib import Path

import nbformat
import tomllib

CHECK = "# NBVAL_CHECK_OUTPUT"
CONTROL = set(map(chr, range(32))) - {"\n"}  # never in a notebook's text
TITLE = re.compile(r"^# (\d\d) · ")
ROOT = Path(__file__).resolve().parent.parent

# The first code cell of every notebook. On Colab the notebook arrives alone, so the cell fetches
# the whole repository (package, data/ and its checkpoints) and installs it editable: the package
# then finds its data/ folder beside it, and MNIST downloads into it on first use.
COLAB_CELL = """\
# On Colab: fetch the course (the capsedu package and its trained checkpoints) and install it.
# Locally and on Binder capsedu is already installed, and this cell does nothing.
import os
import subprocess
import sys

if "google.colab" in sys.modules:
    course, repository = "/content/capsedu", "{repository}"
    if not os.path.exists(course):
        subprocess.check_call(["git", "clone", "--depth", "1", repository, course])
    subprocess.check_call([sys.executable, "-m", "pip", "install", "-q", "-e", course])
    sys.path.insert(0, course)  # this running kernel does not see a fresh editable install"""


COLAB_HEADING = "## 0 · On Colab? Install the course package first"

# An exercise starts a line: "1. **Title.** ..." (00-07; the title is optional) or
# "**1. Title.** ..." (08-10; "**2.**" has none).
ITEM = re.compile(r"^(?:(\d+)\.\s+(?:\*\*(.+?)\*\*)?|\*\*(\d+)\.\s*(.*?)\*\*)")

# A learner's map: the first cell says how long a learner spends on the notebook and what it needs
# from the notebooks before it ("**Time:** about N minutes ... **Before this:** ..."). N is the
# estimate of ``learner_minutes`` from the notebook's own length, so it follows the notebook.
WORDS_A_MINUTE, MINUTES_A_CODE_CELL, MINUTES_AN_EXERCISE = 150, 1.5, 10
TIME = re.compile(r"\*\*Time:\*\* about (\d+) minutes")
BEFORE = "**Before this:**"


def _title(text: str | None) -> str | None:
    return text.strip().rstrip(".:").strip() or None if text else None


def notebook_exercises(path: Path) -> dict[int, tuple[str | None, str]]:
    """The notebook's exercises after its "## Exercises" heading: number -> (bold title or None,
    the exercise's markdown and code, up to the next exercise)."""
    cells = nbformat.read(path, as_version=4).cells
    start = next((i for i, c in enumerate(cells) if c.cell_type == "markdown"
                  and re.search(r"^## Exercises\s*$", c.source, re.M)), None)
    assert start is not None, f"{path.name} has no '## Exercises' heading"
    found: dict[int, list] = {}
    current = None
    for k, cell in enumerate(cells[start:]):
        source = cell.source
        if k == 0:
            source = re.split(r"^## Exercises\s*$", source, flags=re.M)[1]
        for line in source.splitlines():
            match = ITEM.match(line) if cell.cell_type == "markdown" else None
            if match:
                number = int(match[1] or match[3])
                assert number not in found, f"{path.name}: exercise {number} twice"
                current = found[number] = [_title(match[2] if match[1] else match[4]), []]
            if current is not None:
                current[1].append(line)
    numbers = list(found)
    assert numbers == list(range(1, len(numbers) + 1)), f"{path.name}: exercises {numbers}"
    return {n: (title, "\n".join(text)) for n, (title, text) in found.items()}


def learner_minutes(path: Path) -> int:
    """How long a learner spends on the notebook, to 5 minutes: its prose read at
    ``WORDS_A_MINUTE``, ``MINUTES_A_CODE_CELL`` to run and read each code cell, and
    ``MINUTES_AN_EXERCISE`` for each exercise (a guide from the notebook's length, not a
    measurement: 00 says so)."""
    cells = nbformat.read(path, as_version=4).cells
    words = sum(len(re.findall(r"\w+", c.source)) for c in cells if c.cell_type == "markdown")
    code = sum(c.cell_type == "code" for c in cells)
    minutes = (words / WORDS_A_MINUTE + MINUTES_A_CODE_CELL * code
               + MINUTES_AN_EXERCISE * len(notebook_exercises(path)))
    return 5 * max(1, round(minutes / 5))
NUMBERED = re.compile(r"^## (\d+) · ", re.M)


def repository() -> str:
    """The course's repository URL: ``[project.urls] Repository`` in pyproject.toml."""
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["urls"]["Repository"]


def colab_cell() -> str:
    """The install cell's exact text, for the repository of pyproject.toml."""
    return COLAB_CELL.format(repository=repository())


def badges(name: str) -> list[str]:
    """The Colab and Binder links that notebook ``name`` must carry in its first cell."""
    repo = repository().removeprefix("https://github.com/")
    return [f"https://colab.research.google.com/github/{repo}/blob/main/notebooks/{name}",
            f"https://mybinder.org/v2/gh/{repo}/main?urlpath=lab/tree/notebooks/{name}"]


FIGURE = "plt.show()"  # a code cell that draws a figure


def figure_alt(cell) -> str:
    """The alt text MyST-NB gives a code cell's image outputs on the website:
    ``metadata["mystnb"]["image"]["alt"]`` ("" where there is none)."""
    alt = cell.get("metadata", {})
    for key in ("mystnb", "image", "alt"):
        alt = alt.get(key, "") if isinstance(alt, dict) else ""
    return alt.strip() if isinstance(alt, str) else ""


def missing_alt_text(nb) -> list[str]:
    """One problem per figure cell (its source calls ``plt.show()``) of ``nb`` without alt text."""
    return [f"cell {k}: a figure ({FIGURE}) without alt text: say what it shows in "
            'metadata["mystnb"]["image"]["alt"]'
            for k, cell in enumerate(nb.cells)
            if cell.cell_type == "code" and FIGURE in cell.source and not figure_alt(cell)]


FENCE = re.compile(r"^[ \t]*```python\n(.*?)^[ \t]*```", re.S | re.M)
INLINE = re.compile(r"(?<!`)`([^`\n]+)`(?!`)")


def bound_names(tree: ast.AST) -> set[str]:
    """The names a piece of code defines: imports, assignments, functions, classes, arguments."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            names |= {(alias.asname or alias.name).split(".")[0] for alias in node.names}
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
    return names


def snippets(nb) -> list[tuple[int, str]]:
    """``(cell, code)`` of what the text tells a learner to run: every fenced ```python block,
    and each inline code span of the exercises (the cells from "## Exercises" on) that calls
    something."""
    found, exercises = [], False
    for k, cell in enumerate(nb.cells):
        if cell.cell_type != "markdown":
            continue
        exercises = exercises or "## Exercises" in cell.source
        found += [(k, textwrap.dedent(block)) for block in FENCE.findall(cell.source)]
        for span in INLINE.findall(FENCE.sub("", cell.source)) if exercises else []:
            try:
                tree = ast.parse(span.strip(), mode="eval")
            except SyntaxError:
                continue  # prose in backticks, not code
            if any(isinstance(node, ast.Call) for node in ast.walk(tree)):
                found.append((k, span.strip()))
    return found


def undefined_in_snippets(nb) -> list[str]:
    """One problem per snippet (``snippets``) that would raise NameError in ``nb``: a name that
    neither the snippet, the notebook's code nor Python defines."""
    code = "\n".join(c.source for c in nb.cells if c.cell_type == "code")
    defined = bound_names(ast.parse(code)) | set(dir(builtins))
    problems = []
    for k, snippet in snippets(nb):
        try:
            tree = ast.parse(snippet)
        except SyntaxError as err:
            problems.append(f"cell {k}: a ```python snippet that does not parse ({err.msg}); "
                            "pseudo-code goes in a ```text block")
            continue
        used = {node.id for node in ast.walk(tree)
                if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)}
        missing = sorted(used - defined - bound_names(tree))
        if missing:
            problems.append(f"cell {k}: the snippet {snippet.strip()[:60]!r} uses "
                            f"{', '.join(missing)}, which the notebook never defines or imports")
    return problems


def is_checked(cell) -> bool:
    return cell.cell_type == "code" and CHECK in cell.source


def violations(path: Path) -> list[str]:
    """Everything about ``path`` that breaks the policy or the course's notebook structure."""
    nb = nbformat.read(path, as_version=4)
    problems = []
    for k, cell in enumerate(nb.cells):
        if any(ch in CONTROL for ch in cell.source):  # e.g. "\times" typed in a Python string
            problems.append(f"cell {k}: a control character (tab, backspace, form feed...): a "
                            "LaTeX command whose backslash became an escape?")
        if cell.cell_type != "code":
            continue
        if is_checked(cell):
            if not cell.outputs or cell.execution_count is None:
                problems.append(f"cell {k}: {CHECK} cell without a stored canonical output")
        elif cell.outputs or cell.execution_count is not None:
            problems.append(f"cell {k}: stored output in a cell that is not {CHECK}")
        if any(out.output_type == "error" for out in cell.get("outputs", [])):
            problems.append(f"cell {k}: stores an error")
    if nb.metadata.get("kernelspec", {}).get("name") != "python3":
        problems.append("kernelspec must be python3")
    if "widgets" in nb.metadata:
        problems.append("stored widget state in the metadata (clear it)")
    text = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
    first = nb.cells[0].source if nb.cells else ""
    number = TITLE.match(first)
    if not (number and number.group(1) == path.name[:2]):
        problems.append("first cell must be the title '# NN · ...' matching the file name")
    for needed in ("In this notebook you will", "## Summary", "## Exercises"):
        if needed not in text:
            problems.append(f"missing the section {needed!r}")
    if "## Summary" in text and "## Exercises" in text and (
            text.index("## Exercises") < text.rindex("## Summary")):
        problems.append("the Summary must come before the Exercises")
    numbers = [int(n) for n in NUMBERED.findall(text)]
    if numbers != list(range(len(numbers))):
        problems.append(f"sections must be numbered 0, 1, 2, ... in order; found {numbers}")
    colab = next((k for k, c in enumerate(nb.cells) if c.cell_type == "code"), None)
    if colab is not None and not (colab > 0 and nb.cells[colab - 1].cell_type == "markdown"
                                  and nb.cells[colab - 1].source.startswith(COLAB_HEADING)):
        problems.append(f"the Colab install cell must sit under the heading {COLAB_HEADING!r}")
    for link in badges(path.name):
        if f"({link})" not in first:
            problems.append(f"the first cell lacks the badge link {link}")
    time = TIME.search(first)
    if not time or BEFORE not in first:
        problems.append(f"the first cell must say '**Time:** about N minutes' and '{BEFORE}'")
    elif int(time[1]) != learner_minutes(path):
        problems.append(f"the first cell says about {time[1]} minutes; its length says "
                        f"{learner_minutes(path)} (learner_minutes)")
    code = [c.source for c in nb.cells if c.cell_type == "code"]
    if not code or code[0] != colab_cell():
        problems.append("the first code cell must be the Colab install cell "
                        "(tests/notebook_policy.py: COLAB_CELL)")
    if any("google.colab" in source for source in code[1:]):
        problems.append("only the first code cell may deal with Colab")
    problems += missing_alt_text(nb)
    problems += undefined_in_snippets(nb)
    return problems


def canonicalize(path: Path) -> None:
    """Execute ``path`` in quick mode and keep only the outputs of the checked cells."""
    from nbclient import NotebookClient

    nb = nbformat.read(path, as_version=4)
    os.environ["CAPSEDU_QUICK"] = "1"
    NotebookClient(nb, timeout=600, kernel_name="python3",
                   resources={"metadata": {"path": str(path.parent)}}).execute()
    count = 0
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        if is_checked(cell):
            count += 1
            cell.execution_count = count
            for out in cell.outputs:
                if "execution_count" in out:
                    out.execution_count = count
        else:
            cell.outputs, cell.execution_count = [], None
        cell.metadata.pop("execution", None)
    nb.metadata.pop("widgets", None)
    nbformat.write(nb, path)


if __name__ == "__main__":
    fix = "--fix" in sys.argv
    paths = [Path(p) for p in sys.argv[1:] if p != "--fix"]
    bad = 0
    for p in paths:
        if fix:
            canonicalize(p)
        for problem in violations(p):
            print(f"{p}: {problem}")
            bad += 1
    sys.exit(1 if bad else 0)
