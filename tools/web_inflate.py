"""A page's body decompressed as it arrives, never past a size limit (a gzip bomb stays small).

web_fetch asks for `gzip` and `deflate` only and decodes them itself, one network read at a
time, with zlib's `max_length`: however far a few compressed bytes would expand, at most the
room left under the limit is ever produced, so memory stays bounded by the limit.
"""

from __future__ import annotations

import zlib

from tools.base import ToolError

# The content codings web_fetch asks for (Accept-Encoding) and decodes; "identity" is none.
ACCEPTED_CODINGS = ("gzip", "deflate")
# zlib window bits: 16 + 15 reads a gzip member; 15 a zlib stream (HTTP's `deflate`); -15 a
# raw deflate stream, which some servers send as `deflate` all the same.
GZIP_BITS = 16 + zlib.MAX_WBITS
ZLIB_BITS = zlib.MAX_WBITS
RAW_DEFLATE_BITS = -zlib.MAX_WBITS
# Old names of the same codings, still sent by some servers.
OLD_NAMES = {"x-gzip": "gzip"}


class BoundedBody:
    """Collects a body, decoding its content coding, up to `limit` bytes of decoded content;
    `cut` tells that more was sent (the rest is not decoded, and need not be read)."""

    def __init__(self, content_encoding: str, limit: int) -> None:
        codings = [c.strip() for c in content_encoding.lower().split(",")]
        codings = [OLD_NAMES.get(c, c) for c in codings if c not in ("", "identity")]
        if len(codings) > 1 or not set(codings) <= set(ACCEPTED_CODINGS):
            raise ToolError(
                f"the server sent the page encoded as {content_encoding[:40]!r}, which web_fetch "
                "did not ask for and cannot read"
            )
        self.coding = codings[0] if codings else ""
        self.limit = limit
        self.data = bytearray()
        self.raw_bytes = 0
        self.cut = False
        self._inflater: zlib._Decompress | None = None
        self._deflate_start = b""  # the first bytes of a `deflate` body, until its kind is known
        if self.coding == "gzip":
            self._inflater = zlib.decompressobj(GZIP_BITS)

    def feed(self, raw: bytes) -> None:
        """Add the next raw bytes of the body (ToolError when the coding is broken)."""
        if self.cut or not raw:
            return
        if not self.coding:
            self._keep(raw)
            return
        self.raw_bytes += len(raw)
        if self.coding == "deflate" and self._inflater is None:
            raw = self._deflate_start + raw
            self._deflate_start = b""
            if len(raw) < 2:
                self._deflate_start = raw
                return
            bits = ZLIB_BITS if _zlib_header(raw) else RAW_DEFLATE_BITS
            self._inflater = zlib.decompressobj(bits)
        self._inflate(raw)
        if self.raw_bytes > self.limit:  # compressed data that yields little (empty members)
            self.cut = True

    def _inflate(self, raw: bytes) -> None:
        inflater = self._inflater
        assert inflater is not None
        try:
            while raw and not self.cut:
                room = self.limit - len(self.data)
                self._keep(inflater.decompress(raw, room + 1))
                raw = inflater.unconsumed_tail
                if inflater.eof:
                    # A gzip body may hold several members one after the other.
                    rest = inflater.unused_data
                    if self.coding != "gzip" or not rest.strip(b"\0"):
                        return
                    inflater = self._inflater = zlib.decompressobj(GZIP_BITS)
                    raw = rest
        except zlib.error as error:
            raise self._broken(error) from None

    def _broken(self, error: zlib.error) -> ToolError:
        return ToolError(f"the page's {self.coding} compression is broken: {error}")

    def _keep(self, piece: bytes) -> None:
        room = self.limit - len(self.data)
        if len(piece) > room:
            self.data += piece[:room]
            self.cut = True
        else:
            self.data += piece

    def finish(self) -> bytes:
        """The decoded body (ToolError when a compressed one ended before its end)."""
        if self._deflate_start:
            self._inflater = zlib.decompressobj(RAW_DEFLATE_BITS)
            raw, self._deflate_start = self._deflate_start, b""
            self._inflate(raw)
        inflater = self._inflater
        if inflater is not None and not self.cut:
            try:
                self._keep(inflater.flush())
            except zlib.error as error:
                raise self._broken(error) from None
        return bytes(self.data)


def _zlib_header(start: bytes) -> bool:
    """Whether a `deflate` body starts with a zlib header (RFC 1950: method 8, a checksum)."""
    return start[0] & 0x0F == 8 and (start[0] << 8 | start[1]) % 31 == 0
