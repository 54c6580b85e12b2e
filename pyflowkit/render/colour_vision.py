"""How a colour looks to viewers with the common colour-vision deficiencies and in greyscale, and how
far apart two colours look (CIEDE2000). No Flink counterpart: used to choose and check the palette.

Dichromacy is simulated with Machado, Oliveira and Fernandes (2009), severity 1.0, on linear sRGB;
greyscale is CIE L* (what a monochrome projector or a black-and-white printout keeps).
"""

from __future__ import annotations

import math

Rgb = tuple[float, float, float]
Lab = tuple[float, float, float]

#: Machado et al. (2009) matrices, severity 1.0, applied to linear sRGB.
DEFICIENCIES: dict[str, tuple[Rgb, Rgb, Rgb]] = {
    "protanopia": (
        (0.152286, 1.052583, -0.204868),
        (0.114503, 0.786281, 0.099216),
        (-0.003882, -0.048116, 1.051998),
    ),
    "deuteranopia": (
        (0.367322, 0.860646, -0.227968),
        (0.280085, 0.672501, 0.047413),
        (-0.011820, 0.042940, 0.968881),
    ),
    "tritanopia": (
        (1.255528, -0.076749, -0.178779),
        (-0.078411, 0.930809, 0.147602),
        (0.004733, 0.691367, 0.303900),
    ),
}
VISIONS = ("normal", *DEFICIENCIES)


def _linear(c: float) -> float:
    return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4


def linear_rgb(hex_colour: str) -> Rgb:
    """``#rrggbb`` → linear sRGB in [0, 1]."""
    r, g, b = (_linear(int(hex_colour[i : i + 2], 16) / 255) for i in (1, 3, 5))
    return r, g, b


def simulate(rgb: Rgb, vision: str) -> Rgb:
    """Linear sRGB as seen with ``vision`` (``normal`` or a key of ``DEFICIENCIES``)."""
    if vision == "normal":
        return rgb
    m = DEFICIENCIES[vision]
    return tuple(  # type: ignore[return-value]
        min(1.0, max(0.0, row[0] * rgb[0] + row[1] * rgb[1] + row[2] * rgb[2])) for row in m
    )


def to_lab(rgb: Rgb) -> Lab:
    """Linear sRGB → CIE L*a*b* (D65)."""
    r, g, b = rgb
    x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047
    y = 0.2126 * r + 0.7152 * g + 0.0722 * b
    z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883

    def f(t: float) -> float:
        return t ** (1 / 3) if t > 216 / 24389 else (24389 / 27 * t + 16) / 116

    fx, fy, fz = f(x), f(y), f(z)
    return 116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz)


def lab_of(hex_colour: str, vision: str = "normal") -> Lab:
    return to_lab(simulate(linear_rgb(hex_colour), vision))


def lightness(hex_colour: str) -> float:
    """CIE L* (0 black … 100 white): the colour in greyscale."""
    return lab_of(hex_colour)[0]


def delta_e(lab1: Lab, lab2: Lab) -> float:
    """CIEDE2000 colour difference (about 2.3 is just noticeable; 10+ is clearly different)."""
    l1, a1, b1 = lab1
    l2, a2, b2 = lab2
    c1, c2 = math.hypot(a1, b1), math.hypot(a2, b2)
    cm = (c1 + c2) / 2
    g = 0.5 * (1 - math.sqrt(cm**7 / (cm**7 + 25**7)))
    a1p, a2p = (1 + g) * a1, (1 + g) * a2
    c1p, c2p = math.hypot(a1p, b1), math.hypot(a2p, b2)
    h1p = math.degrees(math.atan2(b1, a1p)) % 360
    h2p = math.degrees(math.atan2(b2, a2p)) % 360
    dlp, dcp = l2 - l1, c2p - c1p
    dh = h2p - h1p
    if c1p * c2p == 0:
        dh = 0.0
    elif dh > 180:
        dh -= 360
    elif dh < -180:
        dh += 360
    dhp = 2 * math.sqrt(c1p * c2p) * math.sin(math.radians(dh / 2))
    lpm, cpm = (l1 + l2) / 2, (c1p + c2p) / 2
    if c1p * c2p == 0:
        hpm = h1p + h2p
    elif abs(h1p - h2p) <= 180:
        hpm = (h1p + h2p) / 2
    else:
        hpm = (h1p + h2p + 360) / 2 if h1p + h2p < 360 else (h1p + h2p - 360) / 2
    t = (
        1
        - 0.17 * math.cos(math.radians(hpm - 30))
        + 0.24 * math.cos(math.radians(2 * hpm))
        + 0.32 * math.cos(math.radians(3 * hpm + 6))
        - 0.20 * math.cos(math.radians(4 * hpm - 63))
    )
    d_theta = 30 * math.exp(-(((hpm - 275) / 25) ** 2))
    rc = 2 * math.sqrt(cpm**7 / (cpm**7 + 25**7))
    sl = 1 + 0.015 * (lpm - 50) ** 2 / math.sqrt(20 + (lpm - 50) ** 2)
    sc = 1 + 0.045 * cpm
    sh = 1 + 0.015 * cpm * t
    rt = -math.sin(math.radians(2 * d_theta)) * rc
    return math.sqrt(
        (dlp / sl) ** 2 + (dcp / sc) ** 2 + (dhp / sh) ** 2 + rt * (dcp / sc) * (dhp / sh)
    )


def difference(c1: str, c2: str, vision: str = "normal") -> float:
    """CIEDE2000 between two ``#rrggbb`` colours as a viewer with ``vision`` sees them."""
    return delta_e(lab_of(c1, vision), lab_of(c2, vision))
