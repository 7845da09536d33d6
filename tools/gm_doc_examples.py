"""Write the game-running examples of docs/commands.md from the judge's real replies.

Runs the judge's own acting code (in-process, Maildir out) with a fixed clock, sends each
example mail, and writes the mail and what the judge sent back into docs/commands.md, each
between its markers ``<!-- example: NAME -->`` and ``<!-- /example -->`` (the prose around
them is the doc's own). Run ``.venv/bin/python tools/gm_doc_examples.py`` to rewrite the doc,
``--check`` to only report the blocks that differ (exit status 1), ``--print`` to print them.
"""

from __future__ import annotations

import re
import sys
import tempfile
from datetime import UTC, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "commands.md"
sys.path.insert(0, str(ROOT / "tests"))

from mailkit import POWERS, Got, compose  # noqa: E402

from judge.config import Config  # noqa: E402
from judge.games.acting import Actor  # noqa: E402
from judge.games.observers import prove  # noqa: E402
from judge.mail.intake import store_message  # noqa: E402
from judge.mail.sender import Sender, read_maildir  # noqa: E402
from judge.storage import Store, parse_iso  # noqa: E402

JUDGE = "judge@example.org"


BLOCKS: dict[str, list[str]] = {}
_current: list[str] = []


def block(name: str) -> None:
    """Start the example block NAME: what is shown from now on goes there."""
    global _current
    _current = BLOCKS.setdefault(name, [])


def emit(text: str) -> None:
    _current.append(text + "\n")


class Doc:
    def __init__(self, d: Path) -> None:
        self.now = datetime(2026, 11, 23, 9, 0, tzinfo=UTC)
        self.cfg = Config(address=JUDGE, database=str(d / "judge.db"), base_dir=d)
        self.cfg.default_settle = "0s"
        self.store = Store(self.cfg.database_path)
        self.actor = Actor(self.store, self.cfg, lambda: self.now)
        self.sender = Sender(self.cfg, self.store)
        self.seen = 0
        # the addresses shown writing to the judge for the first time; every other one has
        # confirmed before (a player's first sign-on waits for that: judge/games/signup.py)
        self.newcomers: set[str] = set()

    def send(self, frm: str, body: str, subject: str, **headers: str) -> list[Got]:
        if frm not in self.newcomers:
            prove(self.store, frm, self.now, "before")
        store_message(self.store, compose(frm, JUDGE, body, subject, **headers), "test", frm)
        return self.run()

    def run(self) -> list[Got]:
        self.actor.process_inbox()
        self.actor.process_due()
        self.sender.flush()
        raws = read_maildir(self.cfg.maildir_path)
        new, self.seen = raws[self.seen:], len(raws)
        return [Got(r) for r in new]


def show_mail(frm: str, subject: str, body: str) -> None:
    emit("The mail:\n\n```\nFrom: " + frm + "\nTo: " + JUDGE + "\nSubject: " + subject
          + "\n\n" + body.rstrip() + "\n```\n")


def show_got(m: Got, what: str = "The judge's reply") -> None:
    extra = ""
    for h in ("List-Id", "List-Unsubscribe"):
        if m[h]:
            extra += f"{h}: {m[h]}\n"
    files = [f for f in (part.get_filename() for part in m.msg.walk()) if f]
    attached = f", with {', '.join(files)} attached" if files else ""
    emit(f"{what} (to {m.rcpt}{attached}):\n\n```\nSubject: {m.subject}\n{extra}\n"
          + m.body.rstrip() + "\n```\n")


def example(doc: Doc, frm: str, subject: str, body: str, also: list[str] | None = None,
            **headers: str) -> list[Got]:
    show_mail(frm, subject, body)
    out = doc.send(frm, body, subject, **headers)
    show_got(out[0])
    for needle in also or []:
        for m in out[1:]:
            if needle in m.subject:
                show_got(m, "And, for example, this mail")
                break
    return out


def got_to(out: list[Got], rcpt: str, subject_has: str) -> Got:
    return [m for m in out if m.rcpt == rcpt and subject_has in m.subject][0]


def first_steps() -> None:
    """A game from its creation to its first report: the examples of the first sections."""
    doc = Doc(Path(tempfile.mkdtemp()))
    gm, mary, paul = "gm@example.net", "mary@example.net", "paul@example.net"
    block("signoff")
    example(doc, "alice@example.net", "list", "LIST\nSIGNOFF\nThanks, see you next turn!\nAlice")
    block("create")
    example(doc, gm, "new game", "CREATE spring26 s3cret VARIANT standard DEADLINES 48h 24h 24h")
    block("master")
    example(doc, gm, "open", "MASTER spring26 s3cret\nDEADLINES 72h 24h 24h\nOPEN")
    block("join")
    doc.newcomers = {mary}  # her first mail to this judge
    asked = example(doc, mary, "join", "JOIN spring26 France marypw")[0]
    block("join-confirm")
    example(doc, mary, "Re: join", "Yes, that was me.", In_Reply_To=asked["Message-ID"])
    block("wrong-password")
    example(doc, "eve@example.net", "x", "SIGNON France spring26 guess\nA PAR - GAS")
    block("list")
    example(doc, paul, "list", "LIST")
    for p in POWERS:
        if p != "FRANCE":
            doc.send(f"{p.lower()}@example.net", f"SIGNON {p} spring26 pw-{p.lower()}", "join")
    block("start")
    out = example(doc, gm, "start", "MASTER spring26 s3cret\nSTART")
    show_got(got_to(out, mary, "started"), "The notice each player gets")
    block("status")
    example(doc, mary, "status", "SIGNON France spring26 marypw\nSTATUS")
    block("map")
    example(doc, paul, "map", "MAP spring26")
    example(doc, paul, "map", "MAP spring26 S1999M")
    block("orders")
    example(doc, mary, "orders", "SIGNON France spring26 marypw\nA PAR - Burgundy\n"
            "A MAR S A PAR - BUR\nF BRE - Londn")
    emit("Sending the corrected set (a reply quoting the judge's mail is fine: quotes and the\n"
         "signature are ignored):\n")
    example(doc, mary, "Re: orders", "SIGNON Fspring26 marypw\nA PAR - BUR\nA MAR S A PAR - BUR\n"
            "F BRE - MAO\n\n-- \nMary")
    block("clear")
    example(doc, mary, "clear", "SIGNON France spring26 marypw\nCLEAR")
    doc.send(mary, "SIGNON France spring26 marypw\nPHASE Fall 1901\nA PAR - PIC", "ahead")
    emit("With orders sent ahead for Fall 1901 waiting:\n")
    example(doc, mary, "clear ahead", "SIGNON France spring26 marypw\nCLEAR PENDING")
    block("newtoken")
    example(doc, mary, "new reply address", "SIGNON France spring26 marypw\nNEWTOKEN")
    block("deadline")
    example(doc, gm, "pause", "MASTER spring26 s3cret\nDEADLINE 2026-11-24 18:00\nPAUSE")
    doc.send(gm, "MASTER spring26 s3cret\nRESUME", "resume")
    orders = {"AUSTRIA": "A VIE - GAL\nA BUD - SER\nF TRI - ALB",
              "ENGLAND": "F LON - NTH\nF EDI - NWG\nA LVP - YOR",
              "FRANCE": "A PAR - PIC\nA MAR - BUR\nF BRE - MAO\nSET LAYOUT BOTH",
              "GERMANY": "A BER - MUN\nA MUN - RUH\nF KIE - DEN",
              "ITALY": "A VEN H\nA ROM - APU\nF NAP - ION",
              "RUSSIA": "A WAR - UKR\nA MOS - STP\nF SEV - BLA\nF STP/SC - BOT"}
    for p, lines in orders.items():
        frm, pw = (mary, "marypw") if p == "FRANCE" else (f"{p.lower()}@example.net",
                                                          f"pw-{p.lower()}")
        doc.send(frm, f"SIGNON {p} spring26 {pw}\n{lines}", "orders")
    block("process-now")
    out = example(doc, gm, "process", "MASTER spring26 s3cret\nPROCESS")
    block("report")
    show_got(got_to(out, mary, "results"), "The report France's player gets (she chose "
             "SET LAYOUT BOTH with her orders: the classic block, then the readable report)")


def ahead_example() -> None:
    """Orders for later phases: a block kept, shown under Pending orders, a block added to it
    and one replaced, and the mail when its phase begins (a game of its own)."""
    doc = Doc(Path(tempfile.mkdtemp()))
    gm, turkey = "gm@example.net", "turkey@example.net"
    doc.send(gm, "CREATE autumn26 s3cret DEADLINES 72h 24h 24h\nOPEN", "new game")
    for p in POWERS:
        doc.send(f"{p.lower()}@example.net", f"SIGNON {p} autumn26 pw-{p.lower()}", "join")
    doc.send(gm, "MASTER autumn26 s3cret\nSTART", "start")
    block("ahead")
    example(doc, turkey, "orders ahead", "SIGNON Turkey autumn26 pw-turkey\nF ANK - BLA\n"
            "A CON - BUL\nA SMY - ARM\nPHASE Fall 1901 Movement\n"
            "IF Turkish F BLA AND NOT Russian F SEV\n  F BLA - SEV\n  A ARM S F BLA - SEV\n"
            "ELSE\n  F BLA H\n  A ARM - SEV\nENDIF\nA BUL - GRE\nA CON H\n"
            "PHASE Winter 1901 Build\nIF OWN SEV OR OWN GRE\n  BUILD F SMY\nENDIF\n"
            "PHASE Spring 1902\nIF A BUL AND\n  A BUL - SER")
    emit("A day later Turkey sends the army in Bulgaria to Serbia instead: the new Fall block is\n"
         "added after the first, its order replacing the earlier one for that army. The Spring\n"
         "1902 block is replaced: its PHASE line alone withdraws it, then the fixed one "
         "follows.\n")
    example(doc, turkey, "more orders ahead", "SIGNON Turkey autumn26 pw-turkey\n"
            "PHASE Fall 1901\nA BUL - SER\nPHASE Spring 1902\nPHASE Spring 1902\n"
            "IF A SER AND NOT Austrian A BUD\n  A SER - BUD")
    emit("When Fall 1901 begins, the Fall blocks become Turkey's orders. Russia's fleet "
         "stayed in\nSevastopol, so the ELSE lines stand; the army ordered to hold in "
         "Constantinople\nhas left for Bulgaria, so that line is left out, as is the "
         "replaced one; Turkey is told:\n")
    out = doc.send(gm, "MASTER autumn26 s3cret\nPROCESS", "process")
    show_got(got_to(out, turkey, "sent ahead"), "The mail Turkey gets")


def main() -> None:
    mode = sys.argv[1] if len(sys.argv) > 1 else "--write"
    if mode not in ("--write", "--check", "--print"):
        sys.exit(__doc__)
    first_steps()
    ahead_example()
    d = Path(tempfile.mkdtemp())
    doc = Doc(d)
    gm = "gm@example.net"
    addr = {p: f"{p.lower()}@example.net" for p in POWERS}
    block("help")
    example(doc, "alice@example.net", "help", "HELP")
    block("set")
    out = example(doc, gm, "new game", "CREATE spring26 s3cret DEADLINES 48h 24h 24h\n"
            "SET ZONE Europe/Paris\nSET TIME 18:00\nSET DAYS MON-FRI\nSET GRACE 1d\n"
            "SET REMINDER 12h\nSET SETTLE 10m\nSET PRESS BOTH\nSET LIST dip-spring26@example.net\n"
            "SET MISSED WATT\nOPEN")
    code = [m for m in out if m.rcpt == "dip-spring26@example.net"][0].flat.split(
        "CONFIRM ")[1].split()[0]
    doc.send("owner@example.net", f"CONFIRM {code}", "confirm")  # the list's double opt-in
    for p in POWERS:
        doc.send(addr[p], f"SIGNON {p} spring26 pw-{p.lower()}", "join")
    doc.send(gm, "MASTER spring26 s3cret\nSTART", "start")
    block("list-game")
    example(doc, "someone@example.com", "list", "LIST spring26")
    block("wait")
    example(doc, addr["FRANCE"], "wait", "SIGNON France spring26 pw-france\nSET WAIT\n"
            "SET ABSENCE 2026-12-24 TO 2026-12-27\nSET ABSENCE 2027-01-01 TO 2027-02-28\n"
            "SET NOABSENCE")
    block("press")
    example(doc, addr["ENGLAND"], "press", "SIGNON England spring26 pw-england\n"
            "PRESS TO France, Germany GREY\nWho takes Belgium?\nENDPRESS\nBROADCAST\n"
            "Peace in our time.\nENDPRESS", also=["press from an anonymous power"])
    block("observe")
    out = example(doc, "watcher@example.com", "observe", "OBSERVE spring26")
    code = out[0].flat.split("send the line CONFIRM ")[1].split()[0]
    example(doc, "watcher@example.com", "confirm", f"CONFIRM {code}")
    example(doc, "watcher2@example.com", "unobserve", "UNOBSERVE spring26")
    block("draw")
    example(doc, addr["ITALY"], "draw", "SIGNON Italy spring26 pw-italy\nDRAW\n"
            "CONCEDE Italy")
    for p in POWERS:
        if p != "RUSSIA":
            doc.send(addr[p], f"SIGNON {p} spring26 pw-{p.lower()}\nSET NOWAIT", "x")
    game = doc.store.game("spring26")
    deadline = parse_iso(game["deadline"])
    block("reminders")
    doc.now = deadline - timedelta(hours=12)
    out = doc.run()
    show_got([m for m in out if m.rcpt == addr["RUSSIA"]][0], "A reminder")
    doc.now = deadline
    out = doc.run()
    show_got([m for m in out if m.rcpt == addr["RUSSIA"]][0], "A late notice")
    doc.now = deadline + timedelta(hours=1)
    doc.send(addr["FRANCE"], "SIGNON France spring26 pw-france\nA PAR - BUR\nA MAR - SPA\n"
             "F BRE - MAO", "orders")
    # Germany sends its Fall orders ahead; Fall's start uses them, ROLLBACK brings them back
    doc.send(addr["GERMANY"], "SIGNON Germany spring26 pw-germany\nPHASE Fall 1901\nA MUN H",
             "orders ahead")
    block("preview")
    example(doc, gm, "preview", "MASTER spring26 s3cret\nPREVIEW",
            also=["preview (not processed)"])
    block("process")
    example(doc, gm, "process", "MASTER spring26 s3cret\nPROCESS S1901M",
            also=["S1901M results"])
    example(doc, gm, "process", "MASTER spring26 s3cret\nPROCESS S1901M")
    block("history")
    example(doc, addr["FRANCE"], "history", "SIGNON France spring26 pw-france\n"
            "HISTORY spring26 S1901M\nSUMMARY spring26\nWHOIS spring26 Russia")
    block("rollback")
    out = example(doc, gm, "rollback", "MASTER spring26 s3cret\nROLLBACK S1901M")
    show_got(got_to(out, addr["GERMANY"], "rolled back"), "And, for example, this mail")
    block("eject")
    example(doc, gm, "players", "MASTER spring26 s3cret\nEJECT Russia\n"
            "REPLACE Turkey tom@example.com tompass\nACT Austria\nA VIE - GAL",
            also=["Russia ejected"])
    block("takeover")
    example(doc, "ivan@example.com", "takeover", "TAKEOVER Russia spring26 ivanpass\nA WAR H")
    block("edit")
    example(doc, gm, "edit", "MASTER spring26 s3cret\nEDIT ADD France A PIC\n"
            "EDIT REMOVE F KIE\nEDIT OWNER BEL France\nEDIT ADD France A ROM",
            also=["position edited"])
    block("pause")
    example(doc, gm, "pause", "MASTER spring26 s3cret\nPAUSE", also=["paused"])
    example(doc, gm, "resume", "MASTER spring26 s3cret\nRESUME", also=["resumed"])
    block("endgame")
    example(doc, gm, "end", "MASTER spring26 s3cret\nENDGAME DRAW France Germany",
            also=["game over"])
    if mode == "--print":
        for name, parts in BLOCKS.items():
            print(f"<!-- example: {name} -->\n" + "".join(parts))
        return
    text = DOC.read_text()
    new = write_blocks(text)
    if mode == "--check":
        if new != text:
            sys.exit("docs/commands.md: examples differ from the judge's replies; run "
                     "tools/gm_doc_examples.py")
        print(f"{len(BLOCKS)} example blocks match the judge's replies")
        return
    DOC.write_text(new)


def _same(a: str, b: str) -> bool:
    """Equal but for the random codes the judge draws (OBSERVE's confirmation code)."""
    def norm(t: str) -> str:
        return re.sub(r"CONFIRM [0-9a-f]{16}", "CONFIRM <code>", t)
    return norm(a) == norm(b)


def write_blocks(text: str) -> str:
    """Replace each marked example block of TEXT; every block must be there exactly once.

    A block that differs only in a random code is left as it is, so the doc does not churn.
    """
    for name, parts in BLOCKS.items():
        pat = re.compile(rf"(<!-- example: {re.escape(name)} -->\n)(.*?)(<!-- /example -->)", re.S)
        if len(pat.findall(text)) != 1:
            sys.exit(f"docs/commands.md: need exactly one '<!-- example: {name} -->' block")
        body = "\n" + "".join(parts)
        text = pat.sub(lambda mt, body=body: mt.group(1)
                       + (mt.group(2) if _same(mt.group(2), body) else body) + mt.group(3), text)
    return text


if __name__ == "__main__":
    main()
