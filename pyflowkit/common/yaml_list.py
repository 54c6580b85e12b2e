"""A YAML 1.2 list value as ``Configuration.parse_list_value`` reads it (standard YAML).

PyFlink parses a list option with a safe YAML 1.2 loader (Flink 1.19+'s standard
``config.yaml``): a flow sequence ``[a, 'b c', 1]`` or a block sequence (``- a`` lines) is a list,
anything else is not. Only what a list value can hold is read here, exactly: flow and block
sequences, nested flow sequences and flow mappings, plain / single- / double-quoted scalars,
comments, and the core schema's scalar types (null, bool, int, float). A document that does not
start a sequence is reported as "not a list" (``None``); a malformed sequence raises ValueError.
"""

from __future__ import annotations

import math
import re
from typing import Any

_NULL = re.compile(r"^(?:~|null|Null|NULL|)$")
_TRUE = re.compile(r"^(?:true|True|TRUE)$")
_FALSE = re.compile(r"^(?:false|False|FALSE)$")
_INT10 = re.compile(r"^[-+]?[0-9]+$")
_INT8 = re.compile(r"^0o[0-7]+$")
_INT16 = re.compile(r"^0x[0-9a-fA-F]+$")
_FLOAT = re.compile(r"^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$")
_INF = re.compile(r"^[-+]?\.(?:inf|Inf|INF)$")
_NAN = re.compile(r"^\.(?:nan|NaN|NAN)$")
_ESCAPES = {
    "0": "\0",
    "a": "\a",
    "b": "\b",
    "t": "\t",
    "\t": "\t",
    "n": "\n",
    "v": "\v",
    "f": "\f",
    "r": "\r",
    "e": "\x1b",
    " ": " ",
    '"': '"',
    "/": "/",
    "\\": "\\",
    "N": "\x85",
    "_": "\xa0",
    "L": "\u2028",
    "P": "\u2029",
}
_HEX_ESCAPES = {"x": 2, "u": 4, "U": 8}


def resolve_plain(text: str) -> Any:
    """A plain scalar by the YAML 1.2 core schema: null, bool, int, float, else the string."""
    if _NULL.match(text):
        return None
    if _TRUE.match(text):
        return True
    if _FALSE.match(text):
        return False
    if _INT10.match(text):
        return int(text)
    if _INT8.match(text):
        return int(text[2:], 8)
    if _INT16.match(text):
        return int(text[2:], 16)
    if _FLOAT.match(text):
        return float(text)
    if _INF.match(text):
        return -math.inf if text.startswith("-") else math.inf
    if _NAN.match(text):
        return math.nan
    return text


def _strip_comment(line: str) -> str:
    """The line without a ``#`` comment (one at the start or after a space, outside quotes)."""
    quote = ""
    for i, ch in enumerate(line):
        if quote:
            if ch == quote:
                quote = ""
            elif ch == "\\" and quote == '"':
                continue
        elif ch in "'\"":
            quote = ch
        elif ch == "#" and (i == 0 or line[i - 1] in " \t"):
            return line[:i]
    return line


class _Flow:
    """A recursive-descent reader of one flow collection (``[...]`` or ``{...}``)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0

    def error(self, what: str) -> ValueError:
        return ValueError(f"parse_list_value: {what} at offset {self.pos} of {self.text!r}.")

    def skip_space(self) -> None:
        while self.pos < len(self.text) and self.text[self.pos] in " \t\r\n":
            self.pos += 1

    def peek(self) -> str:
        self.skip_space()
        return self.text[self.pos] if self.pos < len(self.text) else ""

    def node(self) -> Any:
        ch = self.peek()
        if ch == "[":
            return self.sequence()
        if ch == "{":
            return self.mapping()
        if ch == "'":
            return self.single_quoted()
        if ch == '"':
            return self.double_quoted()
        return self.plain()

    def sequence(self) -> list[Any]:
        self.pos += 1  # [
        items: list[Any] = []
        while True:
            ch = self.peek()
            if ch == "]":
                self.pos += 1
                return items
            if not ch:
                raise self.error("unterminated flow sequence (missing ']')")
            if ch == ",":
                raise self.error("empty entry in a flow sequence")
            items.append(self.node())
            ch = self.peek()
            if ch == ",":
                self.pos += 1
            elif ch != "]":
                raise self.error(f"expected ',' or ']', found {ch!r}" if ch else "missing ']'")

    def mapping(self) -> dict[Any, Any]:
        self.pos += 1  # {
        out: dict[Any, Any] = {}
        while True:
            ch = self.peek()
            if ch == "}":
                self.pos += 1
                return out
            if not ch:
                raise self.error("unterminated flow mapping (missing '}')")
            key = self.node()
            value = None
            if self.peek() == ":":
                self.pos += 1
                value = None if self.peek() in (",", "}") else self.node()
            if key in out:
                raise self.error(f"duplicate key {key!r} in a flow mapping")
            out[key] = value
            ch = self.peek()
            if ch == ",":
                self.pos += 1
            elif ch != "}":
                raise self.error(f"expected ',' or '}}', found {ch!r}" if ch else "missing '}'")

    def single_quoted(self) -> str:
        start = self.pos = self.pos + 1
        parts: list[str] = []
        while True:
            end = self.text.find("'", self.pos)
            if end < 0:
                self.pos = start
                raise self.error("unterminated single-quoted scalar")
            parts.append(self.text[self.pos : end])
            if self.text.startswith("''", end):
                parts.append("'")
                self.pos = end + 2
                continue
            self.pos = end + 1
            return _fold("".join(parts))

    def double_quoted(self) -> str:
        self.pos += 1
        out: list[str] = []
        text = self.text
        while self.pos < len(text):
            ch = text[self.pos]
            if ch == '"':
                self.pos += 1
                return _fold("".join(out))
            if ch == "\\":
                esc = text[self.pos + 1 : self.pos + 2]
                if esc in _ESCAPES:
                    out.append(_ESCAPES[esc])
                    self.pos += 2
                elif esc in _HEX_ESCAPES:
                    digits = text[self.pos + 2 : self.pos + 2 + _HEX_ESCAPES[esc]]
                    if len(digits) != _HEX_ESCAPES[esc] or not re.fullmatch(
                        r"[0-9a-fA-F]+", digits
                    ):
                        raise self.error(f"bad escape \\{esc}{digits}")
                    out.append(chr(int(digits, 16)))
                    self.pos += 2 + len(digits)
                else:
                    raise self.error(f"unknown escape \\{esc}")
                continue
            out.append(ch)
            self.pos += 1
        raise self.error("unterminated double-quoted scalar")

    def plain(self) -> Any:
        start = self.pos
        text = self.text
        while self.pos < len(text):
            ch = text[self.pos]
            if ch in ",[]{}":
                break
            if ch == ":" and (self.pos + 1 == len(text) or text[self.pos + 1] in " ,[]{}"):
                break
            self.pos += 1
        raw = text[start : self.pos].strip()
        if not raw:
            raise self.error("expected a value")
        return resolve_plain(_fold(raw))


def _fold(text: str) -> str:
    """Line folding of a multi-line flow scalar: a line break between words is one space."""
    if "\n" not in text:
        return text
    lines = [line.strip() for line in text.split("\n")]
    return " ".join(line for line in lines if line) if all(lines) else " ".join(lines).strip()


def _scalar(text: str) -> Any:
    text = text.strip()
    if text.startswith(("[", "{", "'", '"')):
        reader = _Flow(text)
        value = reader.node()
        if reader.peek():
            raise reader.error("text after the value")
        return value
    return resolve_plain(text)


def parse_yaml_list(value: str) -> list[Any] | None:
    """The list ``value`` holds as a YAML 1.2 document, or None when it holds no sequence."""
    lines = [_strip_comment(line).rstrip() for line in value.splitlines()]
    body = [line for line in lines if line.strip()]
    if not body:
        return None
    first = body[0].lstrip()
    if first.startswith("["):
        reader = _Flow("\n".join(body))
        reader.skip_space()
        items = reader.sequence()
        if reader.peek():
            raise reader.error("text after the flow sequence")
        return items
    if first == "-" or first.startswith("- "):
        indent = len(body[0]) - len(first)
        items: list[Any] = []
        for line in body:
            stripped = line.lstrip()
            if len(line) - len(stripped) != indent or not (
                stripped == "-" or stripped.startswith("- ")
            ):
                raise ValueError(
                    f"parse_list_value: line {line!r} is not an entry of the block sequence "
                    f"started by {body[0]!r}."
                )
            items.append(_scalar(stripped[1:]))
        return items
    return None
