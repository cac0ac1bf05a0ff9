"""Tokens an attached image costs in the context, estimated from its size in pixels.

Providers count an image by its pixels, not its bytes, each with its own rule; pleat takes the
larger of the two best documented, so the context is never measured smaller than it is:

- Anthropic scales an image down until its long side is at most 1568 px and it has at most about
  1.15 megapixels, then counts width × height / 750 tokens (at most about 1,600).
- OpenAI (high detail) fits it in 2048 × 2048, then scales its short side down to 768, and
  counts 170 tokens per 512-px tile it covers plus 85 (at most 1,105 for GPT-4o).

A provider's reported prompt tokens replace the estimate as soon as a reply carries them
(agent/model/tokens.py), whatever its own rule.
"""

from __future__ import annotations

import math

# Anthropic: the long side after its resize, the most pixels it keeps, and pixels per token.
ANTHROPIC_MAX_SIDE = 1_568
ANTHROPIC_MAX_PIXELS = 1_150_000
ANTHROPIC_PIXELS_PER_TOKEN = 750
# OpenAI: the square an image is fitted into, the short side it is scaled to, the tile side,
# and the tokens per tile and per image.
OPENAI_FIT_SIDE = 2_048
OPENAI_SHORT_SIDE = 768
OPENAI_TILE_SIDE = 512
OPENAI_TILE_TOKENS = 170
OPENAI_BASE_TOKENS = 85


def _anthropic(width: int, height: int) -> int:
    scale = min(
        1.0,
        ANTHROPIC_MAX_SIDE / max(width, height),
        math.sqrt(ANTHROPIC_MAX_PIXELS / (width * height)),
    )
    return math.ceil(width * scale * height * scale / ANTHROPIC_PIXELS_PER_TOKEN)


def _openai(width: int, height: int) -> int:
    scale = min(1.0, OPENAI_FIT_SIDE / max(width, height))
    w, h = width * scale, height * scale
    scale = min(1.0, OPENAI_SHORT_SIDE / min(w, h))
    tiles = math.ceil(w * scale / OPENAI_TILE_SIDE) * math.ceil(h * scale / OPENAI_TILE_SIDE)
    return OPENAI_BASE_TOKENS + OPENAI_TILE_TOKENS * tiles


def image_tokens(width: int, height: int) -> int:
    """Tokens an image of this size takes in a request (the larger provider estimate)."""
    if width <= 0 or height <= 0:
        return 0
    return max(_anthropic(width, height), _openai(width, height))
