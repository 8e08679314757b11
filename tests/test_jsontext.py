"""The nesting scan that bounds JSON text before it is parsed: exact on JSON, never an underestimate."""

from __future__ import annotations

import json
import random
import unittest
from json import scanner
from typing import Any

from agentkit_core import NormalizeError
from agentkit_core.jsontext import MAX_DEPTH, check_depth, checked_json, nesting_depth, parse_json

# Characters that make string literals hard to skip: brackets, quotes and backslashes inside them.
TRICKY = ['"', "\\", "[", "]", "{", "}", "a", "\u00e9", "\n", ",", ":", " ", "\ud800", "\\u005c"]


def depth_of(v: Any) -> int:
    """How deep a parsed value's containers nest."""
    if isinstance(v, list):
        return 1 + max(map(depth_of, v), default=0)
    if isinstance(v, dict):
        return 1 + max(map(depth_of, v.values()), default=0)
    return 0


def random_value(rng: random.Random, level: int = 0) -> Any:
    r = rng.random()
    if level > 7 or r < 0.3:
        return rng.choice([1, -2.5, None, True, "".join(rng.choice(TRICKY) for _ in range(rng.randrange(7)))])
    if r < 0.65:
        return [random_value(rng, level + 1) for _ in range(rng.randrange(4))]
    return {"".join(rng.choice(TRICKY) for _ in range(rng.randrange(4))): random_value(rng, level + 1) for _ in range(rng.randrange(4))}


def reached(text: str) -> int:
    """The deepest container json's reader enters on ``text`` before it ends or fails.

    The pure-Python scanner, with its array and object readers counted; the
    C one recurses the same way.
    """
    decoder = json.JSONDecoder()
    now = deepest = 0

    def counted(read: Any) -> Any:
        def read_counted(*args: Any) -> Any:
            nonlocal now, deepest
            now += 1
            deepest = max(deepest, now)
            try:
                return read(*args)
            finally:
                now -= 1

        return read_counted

    decoder.parse_array = counted(decoder.parse_array)  # type: ignore[method-assign]
    decoder.parse_object = counted(decoder.parse_object)  # type: ignore[method-assign]
    decoder.scan_once = scanner.py_make_scanner(decoder)
    try:
        decoder.decode(text)
    except ValueError:
        pass
    return deepest


class NestingDepth(unittest.TestCase):
    def test_exact_on_json_text_of_every_kind(self) -> None:
        rng = random.Random(13)
        for i in range(3000):
            value = random_value(rng)
            text = json.dumps(value, ensure_ascii=i % 2 == 0)
            raw = text.encode("utf-8", "surrogatepass")
            with self.subTest(text=text):
                self.assertEqual(nesting_depth(text), depth_of(value))
                self.assertEqual(nesting_depth(raw), depth_of(value))
                self.assertEqual(nesting_depth(bytearray(raw)), depth_of(value))

    def test_strings_hide_their_brackets(self) -> None:
        cases = {
            '"[[["': 0,
            '["]"]': 1,
            '[{"a\\"[": "\\\\"}, "\\\\\\"]"]': 2,  # escaped quotes and escaped backslashes
            '"\\\\"[["x"]]': 2,  # a string ending in an escaped backslash, then two levels
            '[[1], {"k": [2]}]': 3,
            "{}": 1,
            "7": 0,
            "": 0,
        }
        for text, want in cases.items():
            with self.subTest(text=text):
                self.assertEqual(nesting_depth(text), want)
                self.assertEqual(nesting_depth(text.encode()), want)

    def test_invalid_text_is_never_underestimated(self) -> None:
        # Whatever the text, the reader gets no deeper before it fails than the scan says.
        rng = random.Random(29)
        pieces = TRICKY + ["1", "n", '\\"', '"a"', "[1", "]]"]
        for _ in range(5000):
            text = "".join(rng.choice(pieces) for _ in range(rng.randrange(40)))
            with self.subTest(text=text):
                self.assertGreaterEqual(nesting_depth(text), reached(text))

    def test_an_unterminated_string_counts_what_follows_its_quote(self) -> None:
        self.assertEqual(nesting_depth('["ok", "[[[['), 5)
        self.assertEqual(nesting_depth(b'["ok", "[[[['), 5)

    def test_non_ascii_outside_strings_still_finds_the_brackets(self) -> None:
        self.assertEqual(nesting_depth("[\u00e9[\ud800[]]]"), 3)
        self.assertEqual(nesting_depth('["\u00e9", \u2028[1]]'), 2)


class ParseErrors(unittest.TestCase):
    def test_the_position_reads_once(self) -> None:
        """json says "Unterminated string starting at": the message adds no second "at"."""
        for text, message in (('"ab', "Unterminated string starting at line 1 column 1"), ('{"a": 1', "Expecting ',' delimiter at line 1 column 8")):
            with self.subTest(text), self.assertRaises(NormalizeError) as caught:
                parse_json(text)
            self.assertEqual(caught.exception.message, f"invalid JSON: {message}")
        from agentkit_core.providers._common import parse_arguments

        self.assertEqual(parse_arguments('{"city": "Par')[1]["agentkit.input_error"], "invalid JSON: Unterminated string starting at line 1 column 10")


class CheckDepth(unittest.TestCase):
    def test_the_limit_is_inclusive(self) -> None:
        deepest_list = "[" * MAX_DEPTH + "]" * MAX_DEPTH
        deepest_map = '{"a":' * (MAX_DEPTH - 1) + "{}" + "}" * (MAX_DEPTH - 1)
        for text in (deepest_list, deepest_map):
            with self.subTest(text=text[:10]):
                self.assertEqual(nesting_depth(text), MAX_DEPTH)
                check_depth(text)
                with self.assertRaises(NormalizeError):
                    check_depth("[" + text + "]")

    def test_utf16_and_utf32_text_is_scanned_as_text(self) -> None:
        # An escaped quote is a backslash, a zero byte and a quote in UTF-16: read as bytes,
        # it would seem to close its string and hide the nesting that follows.
        deep = '["\\"", ' + "[" * 200 + "]" * 200 + ', "x"]'
        for encoding in ("utf-16-le", "utf-16-be", "utf-32-le", "utf-32"):
            with self.subTest(encoding=encoding):
                with self.assertRaisesRegex(NormalizeError, "recursion limit exceeded"):
                    parse_json(deep.encode(encoding))
                self.assertEqual(parse_json(json.dumps(["\"", [[1]]]).encode(encoding)), ['"', [[1]]])

    def test_brackets_in_strings_do_not_count(self) -> None:
        check_depth(json.dumps(["[" * 1000, "{" * 1000]))
        check_depth(json.dumps({"k": '\\"' + "[" * 1000}))
        with self.assertRaises(NormalizeError):
            check_depth(json.dumps(["x"]) + "[" * 200)


class CheckedJson(unittest.TestCase):
    """``checked_json``: parse_json's refusals, for data someone else parsed."""

    def test_a_copy_of_exact_types_that_shares_no_container(self) -> None:
        class Text(str):
            pass

        class Count(int):
            pass

        inner = {"b": [Count(2), 2.5, None, True]}
        value = {"a": inner, Text("t"): Text("\u00e9")}
        copy = checked_json(value)
        self.assertEqual(copy, {"a": {"b": [2, 2.5, None, True]}, "t": "\u00e9"})
        self.assertIsNot(copy["a"], inner)
        self.assertIsNot(copy["a"]["b"], inner["b"])  # type: ignore[index]
        self.assertEqual({type(k) for k in copy} | {type(copy["t"]), type(copy["a"]["b"][0])}, {str, int})  # type: ignore[index]
        self.assertEqual(checked_json(json.loads('[1, "x", {"y": [null]}]')), [1, "x", {"y": [None]}])

    def test_what_the_wire_cannot_carry_is_refused_with_its_path(self) -> None:
        cases: list[tuple[Any, str, str]] = [
            ({"a": [1, (2, 3)]}, "['a'][1]", "Python tuple (not JSON data)"),
            ({"a": {"b": float("nan")}}, "['a']['b']", "NaN and infinities are refused"),
            ([0, float("-inf")], "[1]", "NaN and infinities are refused"),
            ({"a": {3: 1}}, "['a']", "invalid key"),
            ({"a": ["ok", "\udc80"]}, "['a'][1]", "lone surrogate"),
            ({"odd key": {"\ud800": 1}}, "['odd key']", "lone surrogate"),
            ({"a": b"x"}, "['a']", "Python bytes"),
            ({"a": {1, 2}}, "['a']", "Python set"),
            (object(), "", "not JSON data"),
        ]
        for value, path, message in cases:
            with self.subTest(path=path, message=message), self.assertRaises(NormalizeError) as caught:
                checked_json(value)
            self.assertEqual(caught.exception.path, path)
            self.assertIn(message, caught.exception.message)

    def test_nesting_is_bounded_by_max_depth(self) -> None:
        for limit in (1, 5, 120, MAX_DEPTH):
            at_limit: Any = 0
            for _ in range(limit):
                at_limit = [at_limit]
            with self.subTest(limit=limit):
                self.assertEqual(checked_json(at_limit, max_depth=limit), at_limit)
                with self.assertRaises(NormalizeError) as caught:
                    checked_json([at_limit], max_depth=limit)
                self.assertEqual(caught.exception.message, f"recursion limit exceeded: containers nest deeper than {limit} levels")
                self.assertEqual(caught.exception.path, "[0]" * limit)
        # Deeper than the recursion limit, so only a walk that stops at the limit gets through
        # (not far deeper: under Pyodide, freeing a Python structure 100,000 deep recurses in C
        # past what the WebAssembly stack holds, and ends the interpreter in a later test).
        deep: Any = None
        for _ in range(2_000):
            deep = {"a": deep}
        with self.assertRaises(NormalizeError):
            checked_json(deep)

    def test_max_depth_must_be_a_level_the_wire_allows(self) -> None:
        for bad, error in ((0, ValueError), (MAX_DEPTH + 1, ValueError), (True, TypeError), (2.0, TypeError), ("5", TypeError)):
            with self.subTest(bad=bad), self.assertRaises(error):
                checked_json([], max_depth=bad)  # type: ignore[arg-type]


if __name__ == "__main__":
    unittest.main()
