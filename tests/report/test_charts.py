"""landing.report.charts: a trend's axis runs from 0 to 100%, and every point says its sample size."""

import base64
import re

from landing.report.charts import trend


def _svg_and_alt(html: str) -> tuple[str, str]:
    alt = re.search(r'alt="([^"]*)"', html).group(1)
    return base64.b64decode(re.search(r"base64,([^\"]+)", html).group(1)).decode(), alt


def test_a_fall_of_2_pages_of_14_is_drawn_on_an_axis_from_0_to_100_percent_with_its_sample_size():
    svg, alt = _svg_and_alt(
        trend("Share of ok", [("ok % of read", "#2e7d32", [(1.0, 14), (0.8571, 14)])], ["v1", "v2"])
    )
    assert re.findall(r'text-anchor="end">([^<]+)</text>', svg) == ["0.0%", "50.0%", "100.0%", "v2"]
    assert re.findall(r"<title>([^<]+)</title>", svg) == ["ok % of read: 100.0% of 14", "ok % of read: 85.7% of 14"]
    assert alt == "Share of ok. ok % of read per version, axis from 0 to 100%: v1 100.0% of 14, v2 85.7% of 14."
    ys = [float(y) for y in re.findall(r'cy="([\d.]+)"', svg)]
    assert round(ys[1] - ys[0], 1) == round(180 * (1 - 0.8571), 1)  # 14 points of a 180-pixel plot, no cliff
