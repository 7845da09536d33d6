"""Budget and byte mutation shared by the fuzz suites (tests/test_fuzz_*.py).

``JUDGE_FUZZ_EXAMPLES`` sets how many examples each fuzz test tries: unset, a small CI budget
(the whole fuzz suite takes well under a minute); ``JUDGE_FUZZ_EXAMPLES=20000`` for a nightly
run. Unset, the examples are derandomised (the same every run, so CI does not flake); set,
they are new every run, and ``JUDGE_FUZZ_SEED`` replays one.
"""

from __future__ import annotations

import os
import random

from hypothesis import HealthCheck, settings

CI_EXAMPLES = 120


def examples(ci: int = CI_EXAMPLES) -> int:
    """A test's examples: ``ci`` in CI; in a nightly run its share of JUDGE_FUZZ_EXAMPLES
    (a test whose CI budget is half the default gets half of it)."""
    value = os.environ.get("JUDGE_FUZZ_EXAMPLES", "").strip()
    return max(1, int(value) * ci // CI_EXAMPLES) if value else ci


def nightly() -> bool:
    return bool(os.environ.get("JUDGE_FUZZ_EXAMPLES", "").strip())


def fuzz_settings(ci: int = CI_EXAMPLES) -> settings:
    return settings(max_examples=examples(ci), deadline=None, database=None,
                    derandomize=not nightly(), print_blob=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                           HealthCheck.large_base_example,
                                           HealthCheck.function_scoped_fixture])


def seed() -> int:
    value = os.environ.get("JUDGE_FUZZ_SEED", "").strip()
    if value:
        return int(value)
    return random.SystemRandom().randrange(1 << 32) if nightly() else 13


NASTY = ["\x00", "\r", "\n", "\r\n", "\t", "\x7f", "\x1b", "\u2028", "\ufeff", "\u200b", "é",
         "ß", "ü", "€", "😀", "\u0663", "\ufffd", "=", "?", "<", ">", "@", ",", ";", ":", "\"",
         "\\", "-", "(", ")", "/", ".", " ", "  ", "0", "9", "-1", "99999999999999999999"]


def mutate_text(rng: random.Random, text: str, rounds: int = 3) -> str:
    """``text`` with a few random edits: characters deleted, inserted, doubled, swapped,
    words shuffled or repeated, case changed, cut short."""
    for _ in range(rng.randint(1, rounds)):
        op = rng.randrange(9)
        i = rng.randrange(len(text) + 1)
        if op == 0 and text:
            text = text[:i] + text[i + 1:]
        elif op == 1:
            text = text[:i] + rng.choice(NASTY) + text[i:]
        elif op == 2:
            text = text[:i] + text[i:i + rng.randint(1, 8)] * rng.randint(2, 4) + text[i:]
        elif op == 3:
            words = text.split(" ")
            rng.shuffle(words)
            text = " ".join(words)
        elif op == 4:
            words = text.split(" ")
            j = rng.randrange(len(words))
            words.insert(j, words[rng.randrange(len(words))])
            text = " ".join(words)
        elif op == 5:
            text = text.lower() if rng.random() < 0.5 else text.swapcase()
        elif op == 6:
            text = text[:i]
        elif op == 7:
            text = text.replace(" ", rng.choice(["", "  ", "\t", "-", ",", "\u00a0"]))
        else:
            text = text[:i] + chr(rng.randrange(0x20, 0x3000)) + text[i:]
    return text


def mutate_bytes(rng: random.Random, raw: bytes, rounds: int = 4) -> bytes:
    """``raw`` with a few random byte edits (flipped, inserted, deleted, a run repeated)."""
    data = bytearray(raw)
    for _ in range(rng.randint(1, rounds)):
        if not data:
            data += b"x"
        i = rng.randrange(len(data))
        op = rng.randrange(5)
        if op == 0:
            data[i] = rng.randrange(256)
        elif op == 1:
            data[i:i] = bytes([rng.choice([0, 10, 13, 0x3d, 0x2d, 0xc3, 0xff, 0x80])])
        elif op == 2:
            del data[i:i + rng.randint(1, 16)]
        elif op == 3:
            data[i:i] = bytes(data[i:i + rng.randint(1, 40)]) * rng.randint(2, 20)
        else:
            data[i:i] = rng.choice([b"\r\n\r\n", b"\r\n", b"\n--", b"=\r\n", b"=?utf-8?b?",
                                    b"Content-Type: multipart/mixed; boundary=x\r\n"])
    return bytes(data)
