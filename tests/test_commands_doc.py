"""docs/commands.md against the command parser: every command word the judge accepts is
documented, every command section names a real command, and the examples are the judge's
real replies (tools/gm_doc_examples.py --check).
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from judge.commands.spec import JUDGE
from judge.games import commands
from judge.games.commands import table

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "commands.md"
PARTS = ("# Commands for anyone", "# Commands for players", "# Commands for game masters")


def sections(text: str) -> dict[str, str]:
    """'## heading' -> the section's text, for the sections under the three command parts."""
    out: dict[str, str] = {}
    part = ""
    heading = ""
    for line in text.splitlines():
        if line.startswith("# "):
            part, heading = line, ""
        elif line.startswith("## ") and part in PARTS:
            heading = line[3:]
            out[heading] = ""
        elif heading and part in PARTS:
            out[heading] += line + "\n"
    return out


def words_in(heading: str) -> set[str]:
    return set(re.findall(r"\b[A-Z]{3,}\b", heading)) - {"AND"}


def documented(doc_sections: dict[str, str]) -> set[str]:
    """The command words a section is about: its heading's, and its 'Also written' forms."""
    found: set[str] = set()
    for heading, body in doc_sections.items():
        found |= words_in(heading)
        for line in body.splitlines():
            if line.lower().startswith("also written") or "(also written" in line:
                found |= {w.upper() for w in re.findall(r"`([A-Za-z_-]+)`", line)}
    return found


def variant_docs() -> dict[str, Path]:
    return {"dipnomicy": ROOT / "variants" / "dipnomicy" / "commands.md",
            "stab": ROOT / "docs" / "stab.md"}


def variant_grammars() -> list[tuple[str, set[str]]]:
    """The command words variants add to the command table (their flows' commands)."""
    return [(grammar, words) for grammar, words in table().grammars().items()
            if grammar != JUDGE]


def test_every_command_word_the_parser_accepts_has_a_section():
    core = table().grammars()[JUDGE]
    have = documented(sections(DOC.read_text()))
    assert sorted(core - have) == []
    text = "\n".join(p.read_text() for p in variant_docs().values())
    heads = {h[3:]: "" for h in text.splitlines() if h.startswith("## ")}
    have_variant = documented(heads) | set(re.findall(r"also written `([A-Z]+)`", text))
    grammars = variant_grammars()
    assert grammars, "no variant adds a command word: is the parser's plug-in table gone?"
    for name, words in grammars:
        missing = sorted(words - have_variant)
        assert missing == [], f"{name}: no section in the variants' docs for {missing}"


def test_every_command_section_names_a_real_command():
    for heading in sections(DOC.read_text()):
        words = words_in(heading)
        if heading == "Orders":
            assert commands.parse_line("A PAR - BUR").name == "ORDER"
            continue
        if heading == "Orders for later phases":  # PHASE blocks are order lines
            for line in ("PHASE F1901M", "IF A MUN", "ELSE IF A MUN", "ELSE", "ENDIF"):
                assert commands.parse_line(line).name == "ORDER", line
            continue
        assert words, f"section '{heading}' names no command"
        for phrase in re.split(r", | and ", heading):  # "SET WAIT, SET NOWAIT and SET ABSENCE"
            assert commands.parse_line(phrase).name != "ORDER", f"'{heading}': {phrase}"
    dip = variant_docs()["dipnomicy"].read_text()
    for line in dip.splitlines():
        if line.startswith("## ") and "(" in line:  # "## VOTE (players)": a command section
            for word in words_in(line.split("(")[0]):
                assert commands.parse_line(word).name != "ORDER", f"'{line}': {word}"


def test_variant_commands_are_linked_and_stab_orders_documented():
    text = DOC.read_text()
    for path in variant_docs().values():
        assert path.relative_to(ROOT).name in text
        assert path.exists()
    stab = variant_docs()["stab"].read_text()
    for form in ("PLACE F BRE", "REVEAL A RUH", "IF DISLODGED", "RETREATS WITH_ORDERS", "GUNBOAT"):
        assert form in stab
    for link in re.findall(r"\]\((\.\./[^)#]+|[a-z]+\.md)", text):
        assert (DOC.parent / link).exists(), link


def slugs(text: str) -> set[str]:
    """The anchors of a Markdown file's headings, as GitHub makes them."""
    text = re.sub(r"```.*?```", "", text, flags=re.S)
    return {re.sub(r"[^\w\- ]", "", h.strip().lower()).replace(" ", "-")
            for h in re.findall(r"(?m)^#+ (.*)$", text)}


def test_links_within_and_between_the_command_docs_resolve():
    docs = [DOC, *variant_docs().values()]
    for doc in docs:
        text = doc.read_text()
        for anchor in re.findall(r"\]\(#([^)]+)\)", text):
            assert anchor in slugs(text), f"{doc.name}: #{anchor}"
        for target, anchor in re.findall(r"\]\(([^)#:]+\.md)#([^)]+)\)", text):
            assert anchor in slugs((doc.parent / target).read_text()), f"{target}#{anchor}"


def test_every_command_is_documented_once():
    heads = [h for h in sections(DOC.read_text())]
    seen: dict[str, str] = {}
    for h in heads:
        for w in words_in(h) - {"SET"}:  # SET <setting> (masters) and SET WAIT (players)
            assert w not in seen, f"{w} in both '{seen[w]}' and '{h}'"
            seen[w] = h


def test_examples_are_the_judges_replies_and_help_matches():
    """The marked examples (HELP included) are what the judge answers today."""
    tool = ROOT / "tools" / "gm_doc_examples.py"
    run = subprocess.run([sys.executable, str(tool), "--check"], capture_output=True, text=True,
                         cwd=ROOT, timeout=300)
    assert run.returncode == 0, run.stderr[-2000:]
    blocks = len(re.findall(r"<!-- example: [a-z-]+ -->", DOC.read_text()))
    assert run.stdout.strip() == f"{blocks} example blocks match the judge's replies"
    assert "<!-- example: help -->" in DOC.read_text()
