import random

import pytest

from feedback_intelligence.config import ReportSettings
from feedback_intelligence.report.trends import direction_label, trend_direction
from feedback_intelligence.report.window import build_window
from tests.report.oracle import direction_of, group_items
from tests.report.support import NOW, item, make_domain, newest_first, stamp, window


@pytest.mark.parametrize(
    ("first", "second", "sev_first", "sev_second", "expected"),
    [
        (2, 10, 1, 3, "worsening"),
        (3, 9, 1, 3, "worsening"),
        (1, 7, 2, 2, "growing"),
        (0, 6, 0, 1, "growing"),
        (9, 1, 2, 2, "declining"),
        (2, 6, 1, 3, "stable"),
        (6, 6, 2, 2, "stable"),
        (1, 4, 1, 2, "stable"),
    ],
)
def test_pinned_shapes_at_defaults(first, second, sev_first, sev_second, expected):
    assert trend_direction(first, second, sev_first, sev_second, 6, 1.6) == expected


def test_labels_follow_the_domain_language():
    assert direction_label("worsening", "fi") == "paheneva"
    assert direction_label("declining", "en") == "declining"
    assert direction_label("growing", "sv") == "growing"


def test_organic_uniform_noise_rarely_reads_as_a_trend():
    """40 seeds x 80 items over 14 categories, uniform times and severities: the share of theme
    cards that show a trend while nothing happened stays under 10 %, and worsening under 3 %."""
    domain = make_domain(categories=14)
    categories = [f"cat{i:02d}" for i in range(14)]
    options = ReportSettings()
    w = window()

    themes = trending = worsening = 0
    for seed in range(40):
        rng = random.Random(seed)
        items = [
            item(
                f"s{seed}-{n}",
                rng.uniform(0, 7),
                category=rng.choice(categories),
                severity=rng.choice(list(domain.severities)),
            )
            for n in range(80)
        ]
        for group in group_items(newest_first(items), domain, "standard"):
            direction = direction_of(group.items, w, domain, options)
            themes += 1
            trending += direction != "stable"
            worsening += direction == "worsening"
    assert themes >= 500
    assert trending / themes < 0.10, (trending, themes)
    assert worsening / themes < 0.03, (worsening, themes)


def test_a_real_surge_is_detected_and_a_new_theme_only_grows():
    domain = make_domain()
    options = ReportSettings()
    w = build_window("2026-06-01T00:00:00Z", "2026-06-08T00:00:00Z", NOW, options)

    escalating = [item(f"a{n}", 0.5, severity="low") for n in range(2)] + [
        item(f"b{n}", 5.0 + n / 10, severity="high") for n in range(10)
    ]
    assert direction_of(escalating, w, domain, options) == "worsening"
    brand_new = [item(f"n{n}", 4.0 + n / 10, severity="critical") for n in range(8)]
    assert direction_of(brand_new, w, domain, options) == "growing"
    assert w.midpoint_norm == stamp(3.5)
