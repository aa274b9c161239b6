"""Small pieces every SVG diagram shares."""

from __future__ import annotations

from html import escape


def caption_text(width: float, baseline: float, height: float, caption: str) -> str:
    """A caption centred under a diagram, in a band `height` high from `baseline`."""
    return (f'<text x="{width / 2:.1f}" y="{baseline + height * 0.7:.1f}" '
            f'font-family="serif" font-size="{height * 0.5:.1f}" '
            f'text-anchor="middle">{escape(caption)}</text>')
