"""Gemini's pairing of function responses with calls: the rule, and its cost per answer.

Gemini's ``functionResponse`` names its function and may carry the call's id.
``Calls`` pairs each response with a call: by id when it has one (that call
is answered), else with the oldest unanswered call of the function.  The rule
is written here a second time, plainly (a list per function, searched and
shifted), and the two are compared on seeded random sequences of calls and
answers, repeated ids and unknown ids included.  The package's version costs
constant time per answer (the plain one shifts the list: quadratic over a
request with many calls of one function answered in order).
"""

from __future__ import annotations

import random
import unittest

from agentkit_core.providers.gemini._response import Calls


class PlainCalls:
    """The pairing rule as a list per function name."""

    def __init__(self) -> None:
        self.pending: dict[str, list[str]] = {}

    def call(self, call_id: str, name: str) -> None:
        self.pending.setdefault(name, []).append(call_id)

    def answer(self, call_id: str | None, name: str) -> str | None:
        pending = self.pending.get(name, [])
        if call_id is not None:
            if call_id in pending:
                pending.remove(call_id)
            return call_id
        return pending.pop(0) if pending else None


class Pairing(unittest.TestCase):
    def test_answers_pair_as_the_plain_rule_does(self) -> None:
        rng = random.Random(27)
        for case in range(400):
            with self.subTest(case=case):
                ours, plain = Calls(), PlainCalls()
                names = ["a", "b", "c"][: rng.randint(1, 3)]
                ids = [f"id{k}" for k in range(rng.randint(1, 6))]  # few ids: repeats are common
                for _ in range(rng.randint(1, 40)):
                    name = rng.choice(names)
                    if rng.random() < 0.5:
                        call_id = rng.choice(ids)
                        self.assertEqual(ours.call(call_id, name), (call_id, False))
                        plain.call(call_id, name)
                        continue
                    given = rng.choice([None, None, rng.choice(ids), "unknown"])
                    got, lacked = ours.answer(given, name)
                    expected = plain.answer(given, name)
                    self.assertEqual(lacked, given is None)
                    if expected is None:  # no call to answer: an invented id
                        self.assertTrue(got.startswith("call_"), got)
                    else:
                        self.assertEqual(got, expected)

    def test_invented_ids_for_calls_without_one_are_answered_in_order(self) -> None:
        calls = Calls()
        made = [calls.call(None, "search")[0] for _ in range(3)]
        self.assertEqual([calls.answer(None, "search") for _ in range(3)], [(m, True) for m in made])
        self.assertNotIn(calls.answer(None, "search")[0], made)  # none left: a new one

    def test_many_calls_of_one_function(self) -> None:
        calls = Calls()
        n = 100_000
        for k in range(n):
            calls.call(f"c{k}", "f")
        for k in range(0, n, 2):  # every other one by id, in order, then the rest by position
            calls.answer(f"c{k}", "f")
        rest = [calls.answer(None, "f")[0] for _ in range(n // 2)]
        self.assertEqual(rest, [f"c{k}" for k in range(1, n, 2)])


if __name__ == "__main__":
    unittest.main()
