"""How sure a measured accuracy is, and whether two of them differ: the course's statistics, in one
place (notebooks 07-10 use nothing else).

Three situations come up when the course compares models:

* **Two models scored on the same test images** (a CapsNet and a CNN on the same 10,000 digits).
  Their scores are not independent samples: most images are read right by both, or wrong by both,
  and only the images on which the two *disagree* carry information about which is better.
  ``paired`` compares them image by image: McNemar's exact test on the disagreements (under "no
  difference", each disagreement is a fair coin: ``scipy.stats.binomtest``), and the interval of
  the difference of the accuracies that goes with that test (it excludes 0 exactly when the test
  tells the two apart).
* **A setting trained with a handful of seeds** (3 runs of each routing setting). The spread
  of 3 numbers is itself uncertain, so an interval uses Student's t with n - 1 degrees of freedom,
  not the normal 1.96 (with 3 seeds the 95 % multiplier is 4.30): ``over_seeds`` for one setting,
  ``seed_difference`` for two (paired by seed when runs of the same seed share their initial
  weights and batches, else Welch's unequal-variance test).
* **Many comparisons at once** (16 pairs of routing settings). At 95 %, about 1 comparison in 20
  crosses the line by chance alone; ``tally`` says how many were made, how many crossed, and how
  many chance alone would give.

One sign for every comparison: ``paired(a, b)`` and ``seed_difference(a, b)`` both report **a minus
b** (a's accuracy minus b's, the mean of a's seeds minus b's), so ``leader(comparison, "a", "b")``
names a when the difference is positive. Every comparison answers ``.clear`` (told apart from the
noise at its level) and prints as one line that the notebooks show, so that the prose can point at
it instead of retyping a number.

A curve recorded step by step (a training accuracy per batch) is read smoothed: ``running_mean``,
each step the mean of its last ``CURVE_WINDOW`` (09's bug zoo).
"""

import math
import warnings
from dataclasses import dataclass

import numpy as np
from scipy import stats

from .checks import check_different, check_order, check_same, warn_two_scales
from .course_settings import Name, Text
from .derived import check_derived
from .refusals import kind_of
from .validate import CheckedRecord, Flag, Float, Has, Int, Numbers, checked

LEVEL = 0.95  # every interval and test of the course: 95 % (a test at 5 %)
CURVE_WINDOW = 25  # training steps averaged in each point of a recorded curve
# A window past a curve's length averages from its first step anyway (09's curves are a few
# thousand steps); the bound only catches a typo, the work does not grow with the window.
MAX_WINDOW = 1_000_000
# how far a recorded share may lie from what its counts give: a results file keeps float32's
TOLERANCE = 1e-6

# The declarations the functions here share: the confidence level of an interval, whether each
# image was read right, one number per seed, and a comparison read by its fields. A level under
# 0.5 is refused: 0.05 is a significance level (alpha), and read as a confidence level it gives a
# 5 % interval, so narrow that noise reads as a clear difference: pass 0.95 for a test at 5 %.
Level = Float("a confidence level such as 0.95, not a significance level such as 0.05", ge=0.5,
              lt=1)
Correct = Numbers("one right/wrong value per test image (a 1-d array of booleans)", ndim=1,
                  at_least=1, bools=True, fix="score the model on at least one image")
PerSeed = Numbers("a list of numbers, one per seed", ndim=1, at_least=2,
                  fix="train and score another seed (a spread needs two)")
Share = Float("a share of images, 0..1", ge=0, le=1)
Difference = Float("a difference of two shares, -1..1", ge=-1, le=1)
Comparison = Has("a comparison", "clear", "difference",
                 source="the result of paired(...) or seed_difference(...)")


def _side(low: float, high: float, value: float) -> str:
    """Where an interval [low, high] lies against a published ``value``."""
    return "above" if low > value else "below" if high < value else "level with"


@dataclass(frozen=True)
class Accuracy(CheckedRecord):
    """A share of test images read right, with its Wilson interval."""

    value: Share  # the share right, 0..1
    n: Int("images scored", ge=1)
    low: Share
    high: Share
    level: Level = LEVEL

    def __post_init__(self):
        """Refuse fields out of range (``CheckedRecord``), an interval that misses its value, a
        value that is no k/n of whole images, or an interval other than its Wilson interval (one
        of 0.5 to 0.5 on 10 images, or of 0.4 to 0.6 on a trillion, is no interval of the data)."""
        super().__post_init__()
        for name in ("value", "low", "high"):  # a 0-d tensor passes for a float: not kept as one
            if not isinstance(getattr(self, name), int | float):
                raise TypeError(f"Accuracy(): {name} must be a number 0..1 (a float), got "
                                f"{kind_of(getattr(self, name))}; pass tensor.item(), or "
                                "make it with accuracy(correct)")
        check_order("Accuracy", "pass the interval accuracy(...) gives", low=self.low,
                    value=self.value, high=self.high)
        k = round(self.value * self.n)  # the images read right
        if not math.isclose(self.value, k / self.n, abs_tol=TOLERANCE):
            raise ValueError(f"Accuracy(): value must be k/n, a whole number k of the n={self.n:,} "
                             f"images read right, got value={self.value!r} "
                             f"({self.value * self.n:g} images); pass accuracy(correct)")
        low, high = _wilson(k, self.n, self.level)
        if not all(math.isclose(a, b, abs_tol=TOLERANCE)
                   for a, b in ((self.low, low), (self.high, high))):
            raise ValueError(f"Accuracy(): low and high must be the {self.level:.0%} Wilson "
                             f"interval of {k:,} of {self.n:,} images, {low:.6g} to {high:.6g}, "
                             f"got low={self.low!r}, high={self.high!r}; pass accuracy(correct)")

    @checked
    def against(self, value: Share) -> str:
        """``"above"``, ``"below"`` or ``"level with"`` a published accuracy ``value`` (0..1,
        a share like this one's: 90.0, a %, is refused): where this interval lies."""
        return _side(self.low, self.high, value)

    def __str__(self) -> str:
        return (f"{100 * self.value:.2f} % of {self.n:,} ({100 * self.level:.0f} % interval "
                f"{100 * self.low:.2f} to {100 * self.high:.2f} %)")


@checked
def accuracy(correct: Correct, level: Level = LEVEL) -> Accuracy:
    """The accuracy of one model from ``correct`` ``[n]`` (whether each image was read right)."""
    k, n = int(correct.sum()), len(correct)
    return Accuracy(k / n, n, *_wilson(k, n, level), level)


def _wilson(k: int, n: int, level: float) -> tuple[float, float]:
    """The Wilson interval ``(low, high)`` of ``k`` right of ``n`` at ``level`` (``Accuracy``'s)."""
    interval = stats.binomtest(k, n).proportion_ci(confidence_level=level, method="wilson")
    return interval.low, interval.high


class _Test(CheckedRecord):
    """What a comparison with a ``p_value`` at a ``level`` answers (``Paired``,
    ``SeedDifference``)."""

    p_value: float
    level: float

    @property
    def clear(self) -> bool:
        """Told apart from the noise: p below 1 - level (the interval excludes 0)."""
        return self.p_value < 1 - self.level

    @property
    def verdict(self) -> str:
        return "told apart" if self.clear else "not told apart"


@dataclass(frozen=True)
class Paired(_Test):
    """Model A against model B on the same images: A's accuracy minus B's, image by image."""

    difference: Difference  # accuracy of A minus accuracy of B, 0..1 units
    low: Difference  # the exact interval of the difference, McNemar's (``paired``)
    high: Difference
    only_a: Int("images A reads right and B wrong", ge=0)
    only_b: Int("images B reads right and A wrong", ge=0)
    n: Int("images scored", ge=1)
    p_value: Float("a p-value", ge=0, le=1)  # McNemar's exact test: a difference this large
    level: Level = LEVEL  # by chance alone

    def __post_init__(self):
        """Refuse fields out of range (``CheckedRecord``), an interval that misses the difference,
        more disagreements than images, or a difference other than (only_a - only_b) / n."""
        super().__post_init__()
        check_order("Paired", "pass the interval paired(...) gives", low=self.low,
                    difference=self.difference, high=self.high)
        check_order("Paired", "count the disagreements among the n images",
                    only_a_plus_only_b=self.only_a + self.only_b, n=self.n)
        counted = (self.only_a - self.only_b) / self.n
        if not math.isclose(self.difference, counted, abs_tol=1e-9):
            raise ValueError(f"Paired(): difference must be (only_a - only_b) / n = "
                             f"({self.only_a} - {self.only_b}) / {self.n} = {counted:g}, got "
                             f"{self.difference!r}; make it with paired(correct_a, correct_b), "
                             "or give the counts the difference comes from")
        low, high, p_value = _mcnemar(self.only_a, self.only_b, self.n, self.level)
        how = f"McNemar's for only_a={self.only_a}, only_b={self.only_b} of n={self.n}"
        check_derived("Paired", "make it with paired(correct_a, correct_b)",
                      p_value=(self.p_value, p_value, f"{how} (its exact test)"),
                      low=(self.low, low, f"{how} (its interval's low end)"),
                      high=(self.high, high, f"{how} (its interval's high end)"))

    def __str__(self) -> str:
        return (f"{100 * self.difference:+.2f} points ({100 * self.level:.0f} % interval "
                f"{100 * self.low:+.2f} to {100 * self.high:+.2f}); right only by the first on "
                f"{self.only_a:,} of {self.n:,} images, only by the second on {self.only_b:,}; "
                f"McNemar p = {self.p_value:.2g}: {self.verdict}")


@checked
def paired(correct_a: Correct, correct_b: Correct, level: Level = LEVEL) -> Paired:
    """Compare two models scored on the same ``n`` images, ``correct_a`` and ``correct_b``
    ``[n]`` (whether each model read each image right, in the same order).

    Only the images on which the models disagree say which is better: A alone reads ``only_a`` of
    them right, B alone ``only_b``, and the difference of the accuracies is
    (only_a - only_b) / n. McNemar's exact test asks how likely a split of those m = only_a +
    only_b disagreements at least this lopsided is if each went either way with probability 1/2.

    The interval goes with that test: the exact (Clopper-Pearson) interval [p_lo, p_hi] of the
    share of the disagreements that A wins, carried over to the difference with m held fixed,
    (2 p - 1) m / n. It excludes 0 exactly when p = 1/2 is outside [p_lo, p_hi], which is exactly
    when the test tells the two apart: the printed interval and the verdict beside it never
    disagree (a normal approximation, mean +- 1.96 se, can).
    """
    a, b = correct_a, correct_b
    if a.shape != b.shape:
        raise ValueError(f"paired(): correct_a and correct_b must score the same images: got "
                         f"{len(a)} and {len(b)} values; score both models on one test set")
    n = len(a)
    only_a, only_b = int((a & ~b).sum()), int((~a & b).sum())
    low, high, p_value = _mcnemar(only_a, only_b, n, level)
    return Paired((only_a - only_b) / n, low, high, only_a, only_b, n, p_value, level)


def _mcnemar(only_a: int, only_b: int, n: int, level: float) -> tuple[float, float, float]:
    """``(low, high, p_value)`` of ``paired``: the interval of the difference and McNemar's exact
    p for ``only_a`` and ``only_b`` disagreements among ``n`` images (``Paired`` checks its own)."""
    m = only_a + only_b  # the disagreements
    if not m:  # the models agree on every image: no difference, and nothing to test
        return 0.0, 0.0, 1.0
    test = stats.binomtest(only_a, m)
    share = test.proportion_ci(confidence_level=level, method="exact")  # of the m, A's wins
    low, high = ((2 * p - 1) * m / n for p in (share.low, share.high))
    return low, high, test.pvalue


@dataclass(frozen=True)
class OverSeeds(CheckedRecord):
    """One setting's numbers over seeds: their mean and its t interval."""

    mean: Float("the mean over the seeds")
    sd: Float("the spread of one seed's number (ddof=1)", ge=0)
    n: Int("seeds", ge=2)
    half_width: Float("t_{n-1} * sd / sqrt(n), half the interval's width", ge=0)
    level: Level = LEVEL

    def __post_init__(self):
        """Refuse fields out of range (``CheckedRecord``), or a ``half_width`` other than
        t_{n-1} x sd / sqrt(n) at ``level``."""
        super().__post_init__()
        width = t_multiplier(self.n - 1, self.level) * self.sd / math.sqrt(self.n)
        if not np.isclose(self.half_width, width, rtol=1e-3):
            raise ValueError(f"OverSeeds(): half_width must be t_{{n-1}} * sd / sqrt(n) "
                             f"({width:g} for sd={self.sd!r}, n={self.n}, level={self.level!r}), "
                             f"got {self.half_width!r}; pass that, as over_seeds(...) does")

    @property
    def low(self) -> float:
        return self.mean - self.half_width

    @property
    def high(self) -> float:
        return self.mean + self.half_width

    @checked
    def against(self, value: Float("a published number, in the units of the seeds' numbers")
                ) -> str:
        """``"above"``, ``"below"`` or ``"level with"`` a published ``value`` (in the units of
        the seeds' numbers: a share against seeds' %, or a % against shares, is warned of): where
        this interval lies."""
        warn_two_scales("OverSeeds.against", mean=self.mean, value=value)
        return _side(self.low, self.high, value)

    def __str__(self) -> str:
        return (f"{self.mean:.2f} ± {self.half_width:.2f} ({100 * self.level:.0f} % t interval "
                f"over {self.n} seeds; sd {self.sd:.2f})")


@checked
def t_multiplier(degrees_of_freedom: Float("degrees of freedom, e.g. seeds - 1: 1 at least "
                                           "(2 seeds)", ge=1),
                 level: Level = LEVEL) -> float:
    """Student's t quantile for a two-sided ``level`` interval: 4.30 for 2 degrees of freedom
    (3 seeds), 2.78 for 4, 1.96 in the limit."""
    return float(stats.t.ppf((1 + level) / 2, degrees_of_freedom))


@checked
def over_seeds(values: PerSeed, level: Level = LEVEL) -> OverSeeds:
    """The mean of one number per seed (e.g. a test error in %) with its t interval; warns of
    numbers that look like fractions of 1 and % mixed (``checks.warn_two_scales``)."""
    warn_two_scales("over_seeds", values=values)
    x = values.astype(float)
    sd = x.std(ddof=1)
    return OverSeeds(x.mean(), sd, len(x), t_multiplier(len(x) - 1, level) * sd / np.sqrt(len(x)),
                     level)


@checked
def check_summary(where: Name, name: Name, over: OverSeeds, of: Name,
                  values: Numbers("the numbers per seed it sums up", ndim=1)) -> None:
    """Refuse ``over``, the field ``name`` of the record ``where``, when it is not what
    ``over_seeds`` makes of ``values`` (the numbers per seed of its field ``of``): n other than
    their count, a mean or an sd other than theirs (its half_width follows, ``OverSeeds``)."""
    fix = f"make it with over_seeds({of})"
    check_same(where, "seeds", fix, **{of: len(values), f"{name}.n": over.n})
    with warnings.catch_warnings():  # the scales were the maker's to warn of
        warnings.simplefilter("ignore")
        want = over_seeds(values, over.level)
    check_derived(where, fix, **{f"{name}.mean": (over.mean, want.mean, f"the mean of {of}"),
                                 f"{name}.sd": (over.sd, want.sd, f"the sd of {of}")})


@dataclass(frozen=True)
class SeedDifference(_Test):
    """The mean of A's seeds minus the mean of B's, with its t interval and test."""

    difference: Float("the mean of a minus the mean of b")
    low: Float("the interval's low end")
    high: Float("the interval's high end")
    degrees_of_freedom: Float("the t distribution's degrees of freedom, 1 at least", ge=1)
    p_value: Float("a p-value", ge=0, le=1)
    by_seed: Flag("paired seed by seed (same seeds), or Welch's two-sample test")
    level: Level = LEVEL

    def __post_init__(self):
        """Refuse fields out of range (``CheckedRecord``), an interval that misses the
        difference or is not centred on it, degrees of freedom other than seeds - 1 by seed, or
        a p-value other than the t test's of the difference, interval and degrees of freedom."""
        super().__post_init__()
        check_order("SeedDifference", "pass the interval seed_difference(...) gives",
                    low=self.low, difference=self.difference, high=self.high)
        half = (self.high - self.low) / 2
        se = half / t_multiplier(self.degrees_of_freedom, self.level)
        fix = "make it with seed_difference(a, b, by_seed)"
        check_derived("SeedDifference", fix, difference=(
            self.difference, self.low + half, "the middle of the t interval low..high"))
        if self.by_seed:
            check_derived("SeedDifference", fix, degrees_of_freedom=(
                self.degrees_of_freedom, round(self.degrees_of_freedom),
                "seeds - 1 when by_seed (the paired t test), a whole number"))
        p_value = (float(2 * stats.t.sf(abs(self.difference) / se, self.degrees_of_freedom))
                   if se else float(self.difference == 0))
        check_derived("SeedDifference", fix, p_value=(
            self.p_value, p_value, f"the t test's of difference, low, high and "
            f"degrees_of_freedom={self.degrees_of_freedom:g} at level {self.level:g}"))

    def __str__(self) -> str:
        test = "paired by seed" if self.by_seed else "Welch"
        return (f"{self.difference:+.3f} ({100 * self.level:.0f} % t interval {self.low:+.3f} to "
                f"{self.high:+.3f}, {test}, {self.degrees_of_freedom:.1f} d.f.; "
                f"p = {self.p_value:.2g}): {self.verdict}")


@checked
def seed_difference(a: PerSeed, b: PerSeed,
                    by_seed: Flag("True when the runs of one seed share their initial weights and "
                                  "batches, False for Welch's test"),
                    level: Level = LEVEL) -> SeedDifference:
    """Mean of ``a`` minus mean of ``b``, each one number per seed (the sign of ``paired``).

    ``by_seed=True`` when the runs of one seed share what a seed decides (initial weights,
    batches, augmentation) in both settings, as the routing grid's do: the t interval of the
    per-seed differences, n - 1 degrees of freedom. ``by_seed=False`` for runs that share nothing
    (two architectures): Welch's interval, with the Welch-Satterthwaite degrees of freedom.
    ``a`` and ``b`` on one scale: both in %, or both fractions of 1 (a warning says when they
    look like one of each).
    """
    warn_two_scales("seed_difference", a=a, b=b)
    x, y = a.astype(float), b.astype(float)
    if by_seed:
        check_same("seed_difference", "length", "by_seed=True compares seed by seed: pass one "
                   "value per seed in each, the seeds in the same order (by_seed=False for runs "
                   "that share nothing)", a=len(x), b=len(y))
        d = x - y
        df, se = len(d) - 1, d.std(ddof=1) / np.sqrt(len(d))
    else:
        vx, vy = x.var(ddof=1) / len(x), y.var(ddof=1) / len(y)
        se = np.sqrt(vx + vy)
        df = (vx + vy) ** 2 / (vx**2 / (len(x) - 1) + vy**2 / (len(y) - 1)) if se else len(x) - 1
        df = max(df, min(len(x), len(y)) - 1)  # its least, but for float rounding
    difference = x.mean() - y.mean()
    if se == 0:  # identical spreads of zero: nothing to test against
        p_value = 1.0 if difference == 0 else 0.0
    else:
        p_value = float(2 * stats.t.sf(abs(difference) / se, df))
    half = t_multiplier(df, level) * se
    return SeedDifference(difference, difference - half, difference + half, float(df), p_value,
                          by_seed, level)


@checked
def check_difference(where: Name, name: Name, over: SeedDifference, of: tuple[Name, Name],
                     a: Numbers("the first's numbers per seed", ndim=1),
                     b: Numbers("the second's numbers per seed", ndim=1)) -> None:
    """Refuse ``over``, the field ``name`` of the record ``where``, when it is not
    ``seed_difference(a, b)`` (by seed or not, at the level it says): ``a`` and ``b`` are the
    numbers per seed of the record's fields named ``of``; its p-value follows from those
    (``SeedDifference``)."""
    fix = f"make it with seed_difference({', '.join(of)}, by_seed={over.by_seed})"
    if min(len(a), len(b)) < 2:
        raise ValueError(f"{where}(): {' and '.join(of)} must hold a number per seed of at least "
                         f"2 seeds (a spread over seeds needs two), got {len(a)} and {len(b)}; "
                         "pass every seed's")
    with warnings.catch_warnings():  # the scales were the maker's to warn of
        warnings.simplefilter("ignore")
        want = seed_difference(a, b, by_seed=over.by_seed, level=over.level)
    check_derived(where, fix, **{f"{name}.{field}": (getattr(over, field), getattr(want, field),
                                                     f"that of {' minus '.join(of)}")
                                 for field in ("difference", "low", "high", "degrees_of_freedom")})


@checked
def check_paired_mean(where: Name, over: SeedDifference, pairs: tuple[Paired, ...],
                      fix: Text) -> None:
    """Refuse the record ``where``'s ``over_seeds`` (``over``: the mean of a's numbers per seed
    minus b's) when its difference is not the mean of its ``by_seed`` (``pairs``: a against b on
    the same images, one per seed), which it is: a mean of differences is the difference of the
    means. ``fix`` says how to make one that agrees."""
    check_derived(where, fix, **{"over_seeds.difference": (
        over.difference, sum(p.difference for p in pairs) / len(pairs),
        "the mean of by_seed's differences (first minus second)")})


@checked
def leader(comparison: Comparison, first: str, second: str,
           lower_is_better: Flag("whether the numbers are errors (a smaller one is better)")
           = False) -> str:
    """A comparison in two words, for a table: ``"<first> ahead"`` when it is told apart and its
    difference is positive (a minus b, for ``paired(a, b)`` and ``seed_difference(a, b)`` alike),
    ``"<second> ahead"`` when told apart the other way, else ``"not told
    apart"``. ``lower_is_better``: the numbers are errors, so a negative difference puts
    ``first`` ahead. Any record with ``.clear`` and ``.difference`` will do (e.g. a reading of a
    sample beside its full set), so ``comparison`` is declared by those fields."""
    check_different("leader", "pass the names of the two things compared", first=first,
                    second=second)
    if not comparison.clear:
        return "not told apart"
    return f"{first} ahead" if (comparison.difference > 0) != lower_is_better else f"{second} ahead"


@checked
def tally(comparisons: Has("a list of comparisons", "clear", "level", many=True,
                          source="paired(...) or seed_difference(...) results")) -> str:
    """How many ``comparisons`` (each with ``.clear`` and ``.level``; a list, or any iterable of
    them) crossed the line, next to how many chance alone would give if no difference were
    real."""
    levels = {c.level for c in comparisons}
    if len(levels) != 1:
        raise ValueError(f"tally(): comparisons must be made at one level, got levels "
                         f"{sorted(levels)}; tally the comparisons of each level apart")
    level, crossed = levels.pop(), sum(c.clear for c in comparisons)
    chance = len(comparisons) * (1 - level)
    return (f"{crossed} of {len(comparisons)} comparisons told apart at {100 * level:.0f} %; "
            f"chance alone would give about {chance:.1f} ({len(comparisons)} x "
            f"{1 - level:.2f}) if no difference were real")


@checked
def running_mean(values: Numbers("a 1-d sequence of finite numbers [steps]", ndim=1,
                                 fix="pass one curve at a time"),
                 window: Int("steps averaged in each point", ge=1, le=MAX_WINDOW) = CURVE_WINDOW
                 ) -> np.ndarray:
    """Each step's mean over its last ``window`` values (fewer at the first steps): a per-step
    curve, smoothed. ``values`` ``[steps]`` -> ``[steps]``."""
    # total[t] = values[0] + ... + values[t - 1]
    total = np.concatenate([[0.0], np.cumsum(values)])
    end = np.arange(1, len(values) + 1)
    start = np.maximum(end - window, 0)
    return (total[end] - total[start]) / (end - start)
