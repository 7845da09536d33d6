"""Write the examples of docs/commands.md's game-running sections from the judge's real replies.

Runs the judge's own acting code (in-process, Maildir out) with a fixed clock, sends each
example mail, and prints Markdown: the mail, then what the judge sent back. Run:
``.venv/bin/python tools/gm_doc_examples.py > /tmp/examples.md``.
"""

from __future__ import annotations

import sys
import tempfile
from datetime import UTC, datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from mailkit import POWERS, Got, compose  # noqa: E402

from judge.config import Config  # noqa: E402
from judge.games.acting import Actor  # noqa: E402
from judge.mail.intake import store_message  # noqa: E402
from judge.mail.sender import Sender, read_maildir  # noqa: E402
from judge.storage import Store  # noqa: E402

JUDGE = "judge@example.org"


class Doc:
    def __init__(self, d: Path) -> None:
        self.now = datetime(2026, 11, 23, 9, 0, tzinfo=UTC)
        self.cfg = Config(address=JUDGE, database=str(d / "judge.db"), base_dir=d)
        self.cfg.default_settle = "0s"
        self.store = Store(self.cfg.database_path)
        self.actor = Actor(self.store, self.cfg, lambda: self.now)
        self.sender = Sender(self.cfg, self.store)
        self.seen = 0

    def send(self, frm: str, body: str, subject: str) -> list[Got]:
        store_message(self.store, compose(frm, JUDGE, body, subject), "test", frm)
        return self.run()

    def run(self) -> list[Got]:
        self.actor.process_inbox()
        self.actor.process_due()
        self.sender.flush()
        raws = read_maildir(self.cfg.maildir_path)
        new, self.seen = raws[self.seen:], len(raws)
        return [Got(r) for r in new]


def show_mail(frm: str, subject: str, body: str) -> None:
    print("The mail:\n\n```\nFrom: " + frm + "\nTo: " + JUDGE + "\nSubject: " + subject
          + "\n\n" + body.rstrip() + "\n```\n")


def show_got(m: Got, what: str = "The judge's reply") -> None:
    extra = ""
    for h in ("List-Id", "List-Unsubscribe"):
        if m[h]:
            extra += f"{h}: {m[h]}\n"
    print(f"{what} (to {m.rcpt}):\n\n```\nSubject: {m.subject}\n{extra}\n"
          + m.body.rstrip() + "\n```\n")


def example(doc: Doc, frm: str, subject: str, body: str, also: list[str] | None = None
            ) -> list[Got]:
    show_mail(frm, subject, body)
    out = doc.send(frm, body, subject)
    show_got(out[0])
    for needle in also or []:
        for m in out[1:]:
            if needle in m.subject:
                show_got(m, "And, for example, this mail")
                break
    return out


def main() -> None:
    d = Path(tempfile.mkdtemp())
    doc = Doc(d)
    gm = "gm@example.net"
    addr = {p: f"{p.lower()}@example.net" for p in POWERS}
    print("## SET: a game's settings (game master)\n")
    print("""Game masters configure a game with `SET <setting> <value>`, one per line, after `CREATE` or
`MASTER`. A bad value gets a specific error and changes nothing.

| setting | values | default |
|---|---|---|
| `ZONE` | a time zone (`Europe/Paris`, `America/New_York`, `UTC`): every date the judge writes for the game | `UTC` |
| `TIME` | `HH:MM` or `ANY`: deadlines fall at this time of day (in the zone) | any |
| `DAYS` | `MON-FRI`, `SAT,SUN`, `ALL`: the weekdays a deadline may fall on | all |
| `GRACE` | a duration or `OFF`: time after the deadline before missing orders count | none |
| `REMINDER` | a duration or `OFF`: reminder to powers without complete orders, before the deadline (none when that falls before the phase began) | `24h` |
| `SETTLE` | a duration or `OFF`: the settling delay of early processing | `default_settle` |
| `MISSED` | `PROCESS` (civil disorder at the end of grace) or `WAIT` (for the orders or a replacement) | `PROCESS` |
| `ABANDON` | a number or `OFF`: missed phases in a row before a power is declared abandoned and offered for `TAKEOVER` | `3` |
| `PRESS` | `WHITE`, `GREY`, `BOTH`, `NONE` | `WHITE` |
| `GMPRESS` | `ON`/`OFF`: the master receives and can read all press; players are told | `OFF` |
| `OBSERVERPRESS` | `ON`/`OFF`: observers receive broadcast press | `OFF` |
| `DRAW` | `ALL` (all survivors) or `SUBSET` (a vote may name some survivors) | `ALL` |
| `LIST` | an address, or `OFF`: a mailing list that receives every public report, once it confirms (`CONFIRM <code>` from the mail the judge sends it) | none |
| `ANONYMOUS` | `ON`/`OFF`: `WHOIS` and `LIST <game>` hide players' addresses | `OFF` |
| `ABSENCE` | a duration: the longest absence a player may declare | `14d` |
| `MOVEMENT`, `RETREAT`, `ADJUSTMENT` | a duration: that phase length, from the next phase | `CREATE`'s |

""", end="")
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
    print("## LIST <game>: settings and players\n")
    print("""`LIST <game>` (anyone) shows the game's state, its settings, its players (addresses unless
the game is anonymous) and how many observe it.

""", end="")
    example(doc, "someone@example.com", "list", "LIST spring26")
    print("## SET WAIT, SET NOWAIT and SET ABSENCE (players)\n")
    print("""`SET WAIT` keeps the current phase from being processed early (it is processed at its
deadline, or when nobody waits any more); `SET NOWAIT` withdraws it. Waits belong to a phase
and clear themselves when it is processed. `SET ABSENCE <from> TO <to>` (dates in the game's
time zone, whole days, or `2026-12-24 18:00`) records an absence, at most the game's
`ABSENCE` long: no deadline of the game falls inside it; a deadline that would is moved to the
end of the absence (then to the game's time of day and weekdays).

""", end="")
    example(doc, addr["FRANCE"], "wait", "SIGNON France spring26 pw-france\nSET WAIT\n"
            "SET ABSENCE 2026-12-24 TO 2026-12-27\nSET ABSENCE 2027-01-01 TO 2027-02-28")
    print("## PRESS and BROADCAST\n")
    print("""`PRESS TO <power>[,<power>...]` sends the lines that follow, up to `ENDPRESS`, to those
powers; `BROADCAST` to every player. `GREY` sends it anonymously where the game's `PRESS` is
`BOTH` (always anonymous in a `GREY` game; refused in a `WHITE` one; `NONE` allows no press).
Lines after `ENDPRESS` are read as usual (orders, commands). The master receives broadcasts,
and private press only in a `GMPRESS ON` game, where every press mail says so. Press is
archived and shown by `HISTORY` to those who could see it. The master may send press too.

""", end="")
    example(doc, addr["ENGLAND"], "press", "SIGNON England spring26 pw-england\n"
            "PRESS TO France, Germany GREY\nWho takes Belgium?\nENDPRESS\nBROADCAST\n"
            "Peace in our time.\nENDPRESS", also=["press from an anonymous power"])
    print("## OBSERVE and UNOBSERVE\n")
    print("""Anyone may observe a game: observers receive its public reports and notices (and broadcast
press in an `OBSERVERPRESS ON` game). Observing is double opt-in, as on every mailing list:
`OBSERVE <game>` only asks. The reply carries a confirmation code; the address observes once
it answers that reply (what the answer says does not matter) or sends `CONFIRM <code>`, within
7 days. Until then nothing is sent to it, so nobody can make the judge mail someone else's
address; a repeated `OBSERVE` within a day sends no new code. `CONFIRM <code>` may come from
any address: the code was only ever mailed to the one that asked.

Every report an observer receives ends with how to stop it, and carries `List-Unsubscribe`,
whose mailto sends `UNOBSERVE <game>` in the subject: the judge acts on `UNOBSERVE` (and
`CONFIRM`) in the subject whatever the mail program writes in the body, and honours it, without
a reply, even in a mail marked `Auto-Submitted`. `UNOBSERVE` also withdraws a request not yet
confirmed.

""", end="")
    out = example(doc, "watcher@example.com", "observe", "OBSERVE spring26")
    code = out[0].flat.split("send CONFIRM ")[1].split(".")[0]
    example(doc, "watcher@example.com", "confirm", f"CONFIRM {code}")
    example(doc, "watcher2@example.com", "unobserve", "UNOBSERVE spring26")
    print("## DRAW, NODRAW, CONCEDE, NOCONCEDE (players)\n")
    print("""A draw vote is secret: nobody is told of it until every survivor has voted for the same draw,
which ends the game (everyone is told). In a `DRAW SUBSET` game a vote may name the powers
sharing the draw (`DRAW France Germany`). `CONCEDE <power>` concedes the game: when every
other survivor concedes to the same power, it wins. Votes are cleared when the phase is
processed.

""", end="")
    example(doc, addr["ITALY"], "draw", "SIGNON Italy spring26 pw-italy\nDRAW\n"
            "CONCEDE Italy")
    print("## Reminders, late notices and the end of grace\n")
    print("""These mails come from the deadline engine, not in answer to a mail. Reminders go `REMINDER`
before the deadline to each power without complete orders; late notices at the deadline to
those powers (and a summary to the master), again every 24 hours of grace. Abandonment,
pauses, player changes, edits and rollbacks are told to every player, the master, observers
and the game's list.

""", end="")
    for p in POWERS:
        if p != "RUSSIA":
            doc.send(addr[p], f"SIGNON {p} spring26 pw-{p.lower()}\nSET NOWAIT", "x")
    game = doc.store.game("spring26")
    from judge.storage import parse_iso

    deadline = parse_iso(game["deadline"])
    doc.now = deadline - timedelta(hours=12)
    out = doc.run()
    show_got([m for m in out if m.rcpt == addr["RUSSIA"]][0], "A reminder")
    doc.now = deadline
    out = doc.run()
    show_got([m for m in out if m.rcpt == addr["RUSSIA"]][0], "A late notice")
    doc.now = deadline + timedelta(hours=1)
    doc.send(addr["FRANCE"], "SIGNON France spring26 pw-france\nA PAR - BUR\nA MAR - SPA\n"
             "F BRE - MAO", "orders")
    print("## PREVIEW, PROCESS <phase> (game master)\n")
    print("""`PREVIEW` adjudicates the orders in now and mails the result to the master alone; nothing is
stored. `PROCESS <phase>` processes the current phase now, but only if it is still `<phase>`:
the same mail sent twice cannot process two phases. (`PROCESS` alone still works.)

""", end="")
    example(doc, gm, "preview", "MASTER spring26 s3cret\nPREVIEW",
            also=["preview (not processed)"])
    example(doc, gm, "process", "MASTER spring26 s3cret\nPROCESS S1901M",
            also=["S1901M results"])
    example(doc, gm, "process", "MASTER spring26 s3cret\nPROCESS S1901M")
    print("## HISTORY, SUMMARY and WHOIS\n")
    print("""`HISTORY <game> [<from> [<to>]]` shows the processed phases' orders and results (not in a
variant with secrets, such as Stab!) and the press the sender could see: a player signed on
in the same mail sees their own and broadcast press, the master (signed on) what the game
lets the master see, anyone else only what observers may see. `SUMMARY <game>` shows the
centre counts after each adjustment and the player changes. `WHOIS` names the players,
unless the game is anonymous.

""", end="")
    example(doc, addr["FRANCE"], "history", "SIGNON France spring26 pw-france\n"
            "HISTORY spring26 S1901M\nSUMMARY spring26\nWHOIS spring26 Russia")
    print("## ROLLBACK (game master)\n")
    print("""`ROLLBACK <phase>` returns the game to an earlier phase: later phases are deleted, the orders
given for `<phase>` are restored, the phase gets a fresh deadline, and everyone is told.

""", end="")
    example(doc, gm, "rollback", "MASTER spring26 s3cret\nROLLBACK S1901M",
            also=["rolled back"])
    print("## EJECT, REPLACE, TAKEOVER, ACT (game master; TAKEOVER: a new player)\n")
    print("""`EJECT <power>` removes a power's player (told too); `REPLACE <power> <address> <password>`
seats a new player; `TAKEOVER <power> <game> <password>` lets anyone take an abandoned or
empty power. `ACT <power>` makes the master that power for the rest of the mail.

""", end="")
    example(doc, gm, "players", "MASTER spring26 s3cret\nEJECT Russia\n"
            "REPLACE Turkey tom@example.com tompass\nACT Austria\nA VIE - GAL",
            also=["Russia ejected"])
    example(doc, "ivan@example.com", "takeover", "TAKEOVER Russia spring26 ivanpass\nA WAR H")
    print("## EDIT (game master)\n")
    print("""`EDIT ADD <power> <unit>`, `EDIT REMOVE <unit>`, `EDIT OWNER <centre> <power|NONE>` change the
current position; orders sent for the phase are cleared, and every reader is told of each
edit.

""", end="")
    example(doc, gm, "edit", "MASTER spring26 s3cret\nEDIT ADD France A PIC\n"
            "EDIT REMOVE F KIE\nEDIT OWNER BEL France\nEDIT ADD France A ROM",
            also=["position edited"])
    print("## PAUSE and RESUME (game master)\n")
    print("""`PAUSE` stops the clock and tells everyone; while paused, everyone is reminded each day.
`RESUME` restarts it (a deadline that passed during the pause is renewed with a full phase)
and tells everyone the deadline.

""", end="")
    example(doc, gm, "pause", "MASTER spring26 s3cret\nPAUSE", also=["paused"])
    example(doc, gm, "resume", "MASTER spring26 s3cret\nRESUME", also=["resumed"])
    print("## ENDGAME (game master)\n")
    print("""`ENDGAME` ends the game; `ENDGAME DRAW <power> ...` as a draw, `ENDGAME WINNER <power>` with
a winner. Everyone is told.

""", end="")
    example(doc, gm, "end", "MASTER spring26 s3cret\nENDGAME DRAW France Germany",
            also=["game over"])


if __name__ == "__main__":
    main()
