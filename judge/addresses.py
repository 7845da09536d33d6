"""The one spelling of a mailbox (:func:`canonical_address`): what the judge records,
compares, counts and mails. Apart from the mail layer (judge/mail/reading.py reads a sender
through it) so that the storage's migrations can write addresses stored before in it too."""

from __future__ import annotations

import re
import unicodedata

# a dot-atom local part: needs no quoting (non-ASCII letters too: RFC 6532 addresses)
_DOT_ATOM = re.compile(r'[^\s"(),.:;<>@\[\]\\\x00-\x1f\x7f]+(?:\.[^\s"(),.:;<>@\[\]\\\x00-\x1f\x7f]+)*')
_ESCAPE = re.compile(r"\\(.)")


_IDN_DOTS = str.maketrans({"\u3002": ".", "\uff0e": ".", "\uff61": "."})  # IDNA's dots


def ascii_domain(domain: str) -> str:
    """``domain`` as DNS names it: lower case, without its trailing dot, each non-ASCII
    label in its ASCII (punycode, ``xn--``) form. ``bücher.example``, ``BÜCHER.example`` and
    ``xn--bcher-kva.example`` are one host; as written they were three mailboxes to the
    judge (SQLite's NOCASE folds ASCII letters only). A label punycode cannot write is kept
    lower-cased as it was (mail to it fails as any undeliverable address does)."""
    domain = unicodedata.normalize("NFC", domain.translate(_IDN_DOTS)).lower().rstrip(".")
    if domain.isascii():
        return domain
    labels = []
    for label in domain.split("."):
        try:
            labels.append(label if label.isascii() else
                          "xn--" + label.encode("punycode").decode("ascii"))
        except UnicodeError:
            labels.append(label)
    return ".".join(labels)


def canonical_address(address: str) -> str:
    """The one spelling of a mailbox the judge records, compares, counts and mails: postfix
    delivers ``"victim"@x.test``, ``victim@x.test.`` and ``"\\v\\ictim"@X.TEST`` to
    ``victim@x.test``, and each spelling was a new address (its own confirmation request,
    its own ceiling). A quoted local part loses its quotes when it needs none, backslash
    escapes are dropped, the domain is written as DNS names it (:func:`ascii_domain`). The
    local part keeps the case of its ASCII letters (a mailbox may tell them apart; the judge
    compares addresses with SQLite's NOCASE, which folds those); its other letters are
    lower-cased, in NFC, since NOCASE cannot fold them and every spelling of ``Ünal`` would be
    its own mailbox. The judge mails this spelling, so what answers a mail to it is the
    mailbox the judge counts and confirms. Not an address (no "@", nothing either side):
    returned stripped, as it was."""
    text = address.strip()
    local, at, domain = text.rpartition("@")
    domain = ascii_domain(domain)
    if not at or not local or not domain:
        return text
    if len(local) >= 2 and local.startswith('"') and local.endswith('"'):
        local = local[1:-1]
    local = _ESCAPE.sub(r"\1", local)
    if not local.isascii():  # the letters NOCASE does not fold, folded here
        local = "".join(c if c.isascii() else c.lower()
                        for c in unicodedata.normalize("NFC", local))
    if not _DOT_ATOM.fullmatch(local):
        local = '"' + local.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return f"{local}@{domain}"
