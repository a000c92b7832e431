"""Geometry for the server-rendered SVG charts: numbers in, coordinates out; the templates draw them.

Every chart prints its values on the chart itself, so it reads without hovering and without JavaScript. Charts of
one kind share their scales (every histogram the same count axis, every curve 0..1 over the same days), so two
charts side by side compare at a glance. Text is drawn at 12 units or more and the page never draws a chart
narrower than its viewBox (CSS: `.charts`), so no label renders under 12 px.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from datetime import date, timedelta

WIDTH = 300
HEIGHT = 200
LEFT, RIGHT, TOP, BOTTOM = 44, 12, 44, 40
PLOT_BOTTOM = HEIGHT - BOTTOM
DAILY_WIDTH = 400


@dataclass
class Bar:
    x: float
    y: float
    width: float
    height: float
    count: int
    label: str
    below_threshold: bool
    label_x: float = 0.0


class Frame:
    """Where a chart draws: the SVG's size and its plot area, inside the same margins on every chart (a wider chart
    sets its own `width`). The x axis runs along `baseline`, the y axis up from it at `plot_left`."""

    width: int = WIDTH
    height: int = HEIGHT
    plot_left: float = LEFT
    plot_top: float = TOP
    baseline: float = PLOT_BOTTOM

    @property
    def plot_right(self) -> float:
        return self.width - RIGHT


@dataclass
class Histogram(Frame):
    title: str
    total: int
    bars: list[Bar]
    threshold_x: float
    ticks: list[tuple[float, str]]
    y_ticks: list[tuple[float, str]] = field(default_factory=list)
    summary: str = ""


@dataclass
class Curve(Frame):
    title: str
    count: int
    start: float
    rate: float
    points: str
    threshold_y: float
    crossing: tuple[float, float] | None
    crossing_day: int | None
    x_ticks: list[tuple[float, str]]
    y_ticks: list[tuple[float, str]]
    summary: str = ""


def _x(fraction: float) -> float:
    return round(LEFT + fraction * (WIDTH - LEFT - RIGHT), 2)


def _y(fraction: float) -> float:
    return round(PLOT_BOTTOM - fraction * (HEIGHT - TOP - BOTTOM), 2)


def nice_peak(value: int) -> int:
    """A round top for a count axis (1, 2, 5, 10, 20, 50, ...) at or above `value`."""
    value = max(1, value)
    magnitude = 10 ** int(math.log10(value))
    for step in (1, 2, 5, 10):
        if step * magnitude >= value:
            return step * magnitude
    return 10 * magnitude


def histogram(title: str, counts: list[int], threshold: float, peak: int | None = None) -> Histogram:
    """One distribution; `peak` is the shared top of the count axis (the largest bin of every chart shown)."""
    bins = len(counts)
    top = nice_peak(peak if peak is not None else max(counts))
    slot = (WIDTH - LEFT - RIGHT) / bins
    bars = []
    for index, count in enumerate(counts):
        height = (HEIGHT - TOP - BOTTOM) * count / top
        low, high = index / bins, (index + 1) / bins
        bars.append(
            Bar(
                x=round(LEFT + index * slot + 1, 2),
                y=round(PLOT_BOTTOM - height, 2),
                width=round(slot - 2, 2),
                height=round(height, 2),
                count=count,
                label=f"{low:.1f}–{high:.1f}",
                below_threshold=high <= threshold + 1e-9,
                label_x=round(LEFT + index * slot + slot / 2, 2),
            )
        )
    total = sum(counts)
    below = sum(b.count for b in bars if b.below_threshold)
    return Histogram(
        title=title,
        total=total,
        bars=bars,
        threshold_x=_x(threshold),
        ticks=[(_x(v), f"{v:g}") for v in (0.0, 0.5, 1.0)],
        y_ticks=[(_y(f), str(round(top * f))) for f in (0.0, 0.5, 1.0) if f == 0 or round(top * f) == top * f],
        summary=f"{title}: {total} memories, {below} in bins below the archive threshold {threshold:g}",
    )


def shared_peak(groups: list[dict[str, list[int]]]) -> int:
    return max((max(counts) for group in groups for counts in group.values()), default=1)


def decay_curve(title: str, count: int, start: float, rate: float, threshold: float, days: int = 90) -> Curve:
    values = [start * rate**day for day in range(days + 1)]
    points = " ".join(f"{_x(day / days)},{_y(value)}" for day, value in enumerate(values))
    crossing_day = None
    if start < threshold:
        crossing_day = 0
    elif 0 < rate < 1 and start > 0:
        day = math.log(threshold / start) / math.log(rate)
        crossing_day = math.ceil(day) if day <= days else None
    crossing = (_x(crossing_day / days), _y(threshold)) if crossing_day is not None else None
    if crossing_day is None:
        summary = f"stays above {threshold:g} for {days} days (at {values[-1]:.2f} on day {days})"
    elif crossing_day == 0:
        summary = f"already below {threshold:g}"
    else:
        summary = f"falls below {threshold:g} on day {crossing_day}"
    return Curve(
        title=title,
        count=count,
        start=round(start, 3),
        rate=rate,
        points=points,
        threshold_y=_y(threshold),
        crossing=crossing,
        crossing_day=crossing_day,
        x_ticks=[(_x(d / days), str(d)) for d in (0, 30, 60, 90) if d <= days],
        y_ticks=[(_y(v), f"{v:g}") for v in (0.0, 0.5, 1.0)],
        summary=summary,
    )


@dataclass
class DailyBars(Frame):
    """Counts per day over a window, stacked by series (gate decisions, proposal outcomes)."""

    title: str
    series: list[str]
    days: list[date]
    rects: list[dict]
    y_ticks: list[tuple[float, str]]
    x_ticks: list[tuple[float, str, str]]  # x, label, text-anchor
    totals: dict[str, int]
    summary: str = ""
    width = DAILY_WIDTH  # a slot for each of 30 days


def daily_bars(title: str, counts: dict[tuple[date, str], int], series: list[str], end: date, days: int = 30):
    """Stacked bars, one per day for the `days` days ending at `end` (a day without counts is an empty slot)."""
    width = DAILY_WIDTH
    span = [end - timedelta(days=days - 1 - i) for i in range(days)]
    per_day = [sum(counts.get((d, s), 0) for s in series) for d in span]
    top = nice_peak(max(per_day, default=0))
    slot = (width - LEFT - RIGHT) / days
    rects = []
    for index, day in enumerate(span):
        y = PLOT_BOTTOM
        for name in series:
            n = counts.get((day, name), 0)
            if not n:
                continue
            height = (HEIGHT - TOP - BOTTOM) * n / top
            y -= height
            rects.append(
                {
                    "x": round(LEFT + index * slot + 1, 2),
                    "y": round(y, 2),
                    "width": round(max(slot - 2, 1), 2),
                    "height": round(height, 2),
                    "series": name,
                    "label": f"{day:%b %d}: {n} {name}",
                }
            )
    totals = {name: sum(counts.get((d, name), 0) for d in span) for name in series}
    summary = f"{title}, last {days} days: " + ", ".join(f"{n} {name}" for name, n in totals.items())
    return DailyBars(
        title=title,
        series=series,
        days=span,
        rects=rects,
        y_ticks=[(_y(f), str(round(top * f))) for f in (0.0, 0.5, 1.0) if f == 0 or round(top * f) == top * f],
        x_ticks=[
            (round(LEFT + i * slot + slot / 2, 2), f"{span[i]:%b %d}", anchor)
            for i, anchor in ((0, "start"), (days // 2, "middle"), (days - 1, "end"))
        ],
        totals=totals,
        summary=summary,
    )
