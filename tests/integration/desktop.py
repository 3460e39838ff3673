"""A real desktop for notices: dunst on an Xvfb display of its own, on a private bus, and
screenshots of that display (ImageMagick's `import`) as raw pixels or a cropped PNG."""

from __future__ import annotations

import os
import struct
import subprocess
import zlib
from pathlib import Path

from tests.integration.daemon_kit import PrivateBus, need, wait_until

Box = tuple[int, int, int, int]  # left, top, width, height


class Dunst:
    """dunst on an Xvfb display of its own, on the private bus (`config`: a dunstrc, else
    dunst's built-in defaults)."""

    def __init__(self, bus: PrivateBus, config: Path | None = None) -> None:
        need("Xvfb", "dunst", "dunstctl", "dbus-send")
        self.env = {**os.environ, "DBUS_SESSION_BUS_ADDRESS": bus.address}
        read, write = os.pipe()
        self.xvfb = subprocess.Popen(
            ["Xvfb", "-displayfd", str(write), "-nolisten", "tcp", "-screen", "0", "640x480x24"],
            pass_fds=(write,),
            stderr=subprocess.DEVNULL,
        )
        os.close(write)
        with os.fdopen(read) as handle:
            display = handle.readline().strip()
        self.env["DISPLAY"] = f":{display}"
        self.dunst = subprocess.Popen(
            ["dunst", "-config", str(config or "/dev/null")],
            env=self.env,
            stderr=subprocess.DEVNULL,
        )
        wait_until(self._owns_name)

    def _owns_name(self) -> bool:
        reply = self.ctl_raw(
            "dbus-send",
            "--session",
            "--print-reply",
            "--dest=org.freedesktop.DBus",
            "/org/freedesktop/DBus",
            "org.freedesktop.DBus.NameHasOwner",
            "string:org.freedesktop.Notifications",
        )
        return "boolean true" in reply

    def ctl_raw(self, *argv: str) -> str:
        done = subprocess.run(argv, env=self.env, capture_output=True, timeout=10, check=False)
        return done.stdout.decode()

    def ctl(self, *args: str) -> str:
        return self.ctl_raw("dunstctl", *args)

    def window(self) -> Box:
        """Where dunst's window is on the display (`xwininfo`), its frame included."""
        info = self.ctl_raw("xwininfo", "-display", self.env["DISPLAY"], "-name", "Dunst")
        fields = dict(
            line.strip().split(":", 1) for line in info.splitlines() if line.count(":") == 1
        )
        names = ("Absolute upper-left X", "Absolute upper-left Y", "Width", "Height")
        left, top, width, height = (int(fields[name]) for name in names)
        return left, top, width, height

    def close(self) -> None:
        for process in (self.dunst, self.xvfb):
            process.terminate()
            process.wait(5)


def screenshot(dunst: Dunst, keep: Path | None = None) -> tuple[int, int, bytes]:
    """The whole display as raw RGB (ImageMagick's `import` as PPM); a PNG copy kept to look
    at when `keep` is given."""
    display = dunst.env["DISPLAY"]
    if keep is not None:
        subprocess.run(
            ["import", "-display", display, "-window", "root", str(keep)], check=True, timeout=30
        )
    done = subprocess.run(
        ["import", "-display", display, "-window", "root", "-depth", "8", "ppm:-"],
        capture_output=True,
        check=True,
        timeout=30,
    )
    return parse_ppm(done.stdout)


def parse_ppm(data: bytes) -> tuple[int, int, bytes]:
    """Width, height and pixels of a binary PPM (P6, 8 bits a channel)."""
    fields: list[bytes] = []
    at = 0
    while len(fields) < 4:
        while data[at : at + 1].isspace():
            at += 1
        if data[at : at + 1] == b"#":
            at = data.index(b"\n", at) + 1
            continue
        end = at
        while not data[end : end + 1].isspace():
            end += 1
        fields.append(data[at:end])
        at = end
    magic, width, height, depth = fields[0], int(fields[1]), int(fields[2]), int(fields[3])
    assert magic == b"P6" and depth == 255, (magic, depth)
    return width, height, data[at + 1 : at + 1 + width * height * 3]


def crop(width: int, pixels: bytes, box: Box) -> bytes:
    """The RGB rows of `box` out of a picture `width` pixels wide."""
    left, top, box_width, box_height = box
    stride = width * 3
    return b"".join(
        pixels[y * stride + left * 3 : y * stride + (left + box_width) * 3]
        for y in range(top, top + box_height)
    )


def rgb_png(width: int, height: int, pixels: bytes, texts: dict[str, str]) -> bytes:
    """An 8-bit RGB PNG of `pixels` with `texts` as iTXt chunks (UTF-8); the same pixels and
    texts give the same bytes (no dates, one filter, one compression level)."""
    stride = width * 3
    raw = b"".join(b"\0" + pixels[y * stride : (y + 1) * stride] for y in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    chunks = [_chunk(b"IHDR", header)]
    for key, value in texts.items():
        chunks.append(_chunk(b"iTXt", key.encode("latin-1") + b"\0\0\0\0\0" + value.encode()))
    chunks += [_chunk(b"IDAT", zlib.compress(raw, 9)), _chunk(b"IEND", b"")]
    return b"\x89PNG\r\n\x1a\n" + b"".join(chunks)


def with_texts(data: bytes, texts: dict[str, str]) -> bytes:
    """The PNG `data` with `texts` as iTXt chunks (UTF-8) right after its header, in place of
    any chunks of those keywords it had; its pixels untouched."""
    kept = [
        raw
        for kind, body, raw in png_chunks(data)
        if not (kind == b"iTXt" and body.split(b"\0", 1)[0].decode("latin-1") in texts)
    ]
    added = [
        _chunk(b"iTXt", key.encode("latin-1") + b"\0\0\0\0\0" + value.encode())
        for key, value in texts.items()
    ]
    return data[:8] + b"".join(kept[:1] + added + kept[1:])


def png_texts(data: bytes) -> dict[str, str]:
    """The uncompressed iTXt chunks of a PNG, by keyword."""
    texts: dict[str, str] = {}
    for kind, body, _raw in png_chunks(data):
        if kind == b"iTXt":
            key, rest = body.split(b"\0", 1)
            if rest[:1] == b"\0":  # not compressed
                _language, _translated, text = rest[2:].split(b"\0", 2)
                texts[key.decode("latin-1")] = text.decode()
    return texts


def png_chunks(data: bytes) -> list[tuple[bytes, bytes, bytes]]:
    """A PNG's chunks after its signature: each one's kind, body and bytes as they stand."""
    found, at = [], 8
    while at < len(data):
        (length,) = struct.unpack(">I", data[at : at + 4])
        found.append(
            (data[at + 4 : at + 8], data[at + 8 : at + 8 + length], data[at : at + 12 + length])
        )
        at += 12 + length
    return found


def _chunk(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))
