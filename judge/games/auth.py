"""Passwords: stored as scrypt hashes, compared in constant time, never logged.

``scrypt$n$r$p$salt_hex$hash_hex``. A verified (hash, password) pair is remembered in memory
(as a keyed digest, not the password) so that a player sending many mails does not pay the
deliberate scrypt cost every time.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import threading

N, R, P = 2**14, 8, 1
_cache: set[bytes] = set()
_cache_key = os.urandom(32)
_lock = threading.Lock()


def hash_password(password: str) -> str:
    salt = os.urandom(16)
    digest = hashlib.scrypt(password.encode("utf-8"), salt=salt, n=N, r=R, p=P, dklen=32)
    return f"scrypt${N}${R}${P}${salt.hex()}${digest.hex()}"


def verify_password(password: str, stored: str) -> bool:
    memo = hmac.new(_cache_key, stored.encode() + b"\0" + password.encode("utf-8"),
                    hashlib.sha256).digest()
    with _lock:
        if memo in _cache:
            return True
    try:
        scheme, n, r, p, salt, digest = stored.split("$")
        if scheme != "scrypt":
            return False
        got = hashlib.scrypt(password.encode("utf-8"), salt=bytes.fromhex(salt), n=int(n),
                             r=int(r), p=int(p), dklen=len(bytes.fromhex(digest)))
    except (ValueError, TypeError):
        return False
    ok = hmac.compare_digest(got, bytes.fromhex(digest))
    if ok:
        with _lock:
            if len(_cache) > 10_000:
                _cache.clear()
            _cache.add(memo)
    return ok
