"""Geometry for the server-rendered SVG charts: numbers in, coordinates out; the templates draw them.

Every chart prints its values on the chart itself, so it reads without hovering and without JavaScript.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

WIDTH = 280
HEIGHT = 150
LEFT, RIGHT, TOP, BOTTOM = 30, 10, 30, 26


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


@dataclass
class Histogram:
    title: str
    total: int
    bars: list[Bar]
    threshold_x: float
    ticks: list[tuple[float, str]]
    width: int = WIDTH
    height: int = HEIGHT
    baseline: float = HEIGHT - BOTTOM
    summary: str = ""


@dataclass
class Curve:
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
    width: int = WIDTH
    height: int = HEIGHT
    plot_left: float = LEFT
    plot_right: float = WIDTH - RIGHT
    plot_top: float = TOP
    plot_bottom: float = HEIGHT - BOTTOM
    summary: str = field(default="")


def _x(fraction: float) -> float:
    return round(LEFT + fraction * (WIDTH - LEFT - RIGHT), 2)


def _y(fraction: float) -> float:
    return round(HEIGHT - BOTTOM - fraction * (HEIGHT - TOP - BOTTOM), 2)


def histogram(title: str, counts: list[int], threshold: float) -> Histogram:
    bins = len(counts)
    peak = max(counts) or 1
    slot = (WIDTH - LEFT - RIGHT) / bins
    bars = []
    for index, count in enumerate(counts):
        height = (HEIGHT - TOP - BOTTOM) * count / peak
        low, high = index / bins, (index + 1) / bins
        bars.append(
            Bar(
                x=round(LEFT + index * slot + 1, 2),
                y=round(HEIGHT - BOTTOM - height, 2),
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
        ticks=[(_x(v), f"{v:g}") for v in (0.0, 0.25, 0.5, 0.75, 1.0)],
        summary=f"{title}: {total} memories, {below} in bins below the archive threshold {threshold:g}",
    )


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
