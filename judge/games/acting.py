"""Acting on stored mail: each inbox message is read, its commands carried out and its reply
queued inside ONE transaction that also marks the message done. A crash before the commit
leaves the message 'new' (it is acted on after restart); after the commit it is never acted on
again. Each command runs in its own savepoint, so a command that fails changes nothing.

A command is carried out by the handler of the spec the parser read it by
(:mod:`judge.games.commands`); order lines are gathered per power and stored at the end.
"""

from __future__ import annotations

import difflib
import hashlib
import logging
import re
import threading
import traceback
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

from judge import reports
from judge.commands.parse import hide_unread
from judge.commands.spec import Command, Reply
from judge.config import Config
from judge.engine.ahead import AheadError, condition_word, is_header, read_phase
from judge.games import ahead as AH
from judge.games import deadlines, gmtools, notices, observers, replysignon, reporting, signup
from judge.games import flow as flows
from judge.games import game as G
from judge.games.commands import PASSWORD_COMMANDS, parse_lines, table
from judge.games.flow import flow_for
from judge.games.game import GameError, WrongPassword
from judge.games.session import MailSession as _Session
from judge.games.session import PowerContext as _PowerContext
from judge.games.settings import zone
from judge.mail import guard, replytoken
from judge.mail.compose import Attachment, new_message_id
from judge.mail.intake import store_message
from judge.mail.masking import UNREAD_HEAD_BYTES, mask_raw, mask_tokens, text_only, unread_copy
from judge.mail.outbox import Outbox
from judge.mail.reading import Inbound, body_text, command_lines, printable, read_message
from judge.storage import Store, iso

# a master's commands that change a game and tell everyone: each may adjudicate a phase and
# mail every player, so one mail of 998 PROCESS lines built ~8,000 mails and held the
# worker 16-28 s; at most [limits] master_actions_per_mail of them are done per mail
MASTER_ACTIONS = frozenset({"PROCESS", "ROLLBACK", "PAUSE", "RESUME", "EDIT", "EJECT",
                            "REPLACE", "ENDGAME"})

log = logging.getLogger("judge.acting")
# a bullet or number before an order (as judge.engine.parse skips it)
_LEAD = re.compile(r"^(?:[-*•·>]+\s*|\(?\d{1,3}[.):]\s*|\d{1,3}\s+)?")
_UNIT_WORDS = frozenset({"A", "F", "ARMY", "FLEET"})  # a line led by one is an order line
_SEPARATOR = re.compile(r"[,;]")  # between orders on one line, as njudge reads them
_PREFIX = re.compile(r"^\s*(?:(?:re|aw|sv|fw|fwd|wg)\s*:|\[error\])\s*", re.IGNORECASE)


def _base_subject(subject: str) -> str:
    """'Re: [ERROR] Re: orders' -> 'orders' (so replies do not pile up prefixes); a reply
    tag ('[g1.france.<token>]') is never echoed nor read as a command."""
    subject = replytoken.strip_subject(subject)
    while True:
        shorter = _PREFIX.sub("", subject, count=1)
        if shorter == subject:
            return subject.strip()
        subject = shorter


# Questions that change nothing: asked again in one mail, each is answered once (a mail of
# HELP x100 in a victim's name was a 400-fold amplifier: issue 23). MAP draws each distinct
# picture once already (mapcmd.MailMaps).
QUESTIONS = frozenset({"HELP", "LIST", "STATUS", "HISTORY", "SUMMARY", "WHOIS", "PREVIEW"})
# Questions whose answer does not depend on the words after them: 'HELP 1' ... 'HELP 100' is
# the same question asked 100 times.
_WORDS_IGNORED = frozenset({"HELP"})


def _asked_again(asked: set[tuple], ses: _Session, cmd: Command) -> bool:
    """Whether ``cmd`` is a question this mail asked already, in the same standing (signed on
    as the same power, or master of the same game); records it when it is not."""
    if cmd.name not in QUESTIONS or cmd.error:
        return False
    power = (ses.current.game["id"], ses.current.power) if ses.current else None
    words = () if cmd.name in _WORDS_IGNORED else tuple(a.upper() for a in cmd.args)
    key = (cmd.name, words, power,
           ses.master["id"] if ses.master else None)
    if key in asked:
        return True
    asked.add(key)
    return False


def _near_command(line: str) -> str | None:
    """The command word the line's first word most likely mistypes (``STAUTS``), if any."""
    first = line.split()[0].upper().rstrip(":,.!") if line.split() else ""
    words = [w for w in table().by_word if len(w) > 2]
    same = [w for w in words if sorted(w) == sorted(first)]  # HLEP, LSIT
    if len(same) == 1:
        return same[0]
    near = difflib.get_close_matches(first, words, n=1, cutoff=0.78) if len(first) > 2 else []
    return near[0] if near else None


class _Locked(GameError):
    """A password that was not checked: too many wrong ones for it lately."""


def _when(t: datetime) -> str:
    return t.astimezone(UTC).strftime("%Y-%m-%d %H:%M")


def _secrets(lines: list[tuple[str, str]]) -> list[str]:
    """The words hidden in these (line, masked line) pairs."""
    return [w for line, masked in lines for w, m in zip(line.split(), masked.split(), strict=False)
            if m == "****" and w != "****"]


def _password_lines(commands: list[Command]) -> list[tuple[str, str]]:
    """Each command that carries a password: (its line as written, the line as echoed)."""
    return [(c.line, c.masked) for c in commands if c.hide]


def _unread_password_lines(inbound: Inbound) -> list[tuple[str, str]]:
    """The password lines of a mail that is not acted on (never answered): its text read as
    if it were, to mask what it holds."""
    try:
        text = command_lines(body_text(inbound.message))
        return _password_lines(parse_lines(text) + parse_lines([_base_subject(inbound.subject)]))
    except Exception:  # unreadable: the masking of its bytes finds nothing more to do
        return []


def _scrub(text: str, lines: list[tuple[str, str]], words: bool = False,
           tokens: set[str] | None = None) -> str:
    """``text`` with every password line of the mail masked (a subject); with ``words``, every
    hidden word of three characters or more too (an exception's text, a traceback); every
    reply token in ``tokens`` too."""
    for line, masked in lines:
        text = text.replace(line, masked)
    for token in tokens or ():
        text = re.sub(re.escape(token), "****", text, flags=re.IGNORECASE)
    if words:
        for secret in sorted(_secrets(lines), key=len, reverse=True):
            if len(secret) >= 3:
                text = text.replace(secret, "****")
    return text


class Actor:
    """Acts on the inbox and on due games; one per thread (it owns a Store)."""

    def __init__(self, store: Store, cfg: Config,
                 clock: Callable[[], datetime] | None = None,
                 chance: flows.Chance = flows.system_chance) -> None:
        """``clock``: the judge's; None is the store's (the wall clock unless its opener
        gave one)."""
        self.s = store
        self.cfg = cfg
        self.chance = chance  # a game's draws (countries, pseudonyms): a simulator seeds them
        flows.prepare_storage(store)  # the tables the variants' flows declare
        clock = clock or store.clock
        self.outbox = Outbox(store, cfg, clock, zone_of=zone)
        self.clock = clock  # the outbox's and the store's too (the property below)
        self.stopping = threading.Event()
        # (line, masked line) of the mail being acted on: to mask its stored copy
        self._password_lines: list[tuple[str, str]] = []
        self._tokens: set[str] = set()  # reply tokens in that mail: masked the same way
        self._given_up: set[int] = set()  # inbox ids whose failure could not even be stored

    @property
    def clock(self) -> Callable[[], datetime]:
        """The judge's (injectable) clock: game time, as the deadlines run on it."""
        return self._clock

    @clock.setter
    def clock(self, clock: Callable[[], datetime]) -> None:
        # one clock for the acting, the mail it writes and the rows it stores: a clock moved
        # by a test or a simulator after the actor was built must reach the deadlines the
        # templates write ("in 7 days"), the hourly ceilings and the loop guard (they count
        # the outbox's rows by the times stored in them), not only the games
        self._clock = clock
        self.outbox.clock = clock
        self.s.clock = clock

    # -------------------------------------------------------------- inbox
    def process_inbox(self, limit: int = 500) -> int:
        """Act on every stored message not yet acted on; returns how many.

        Stops early (between messages) when ``self.stopping`` is set."""
        done = 0
        while True:
            self.s.import_spool(store_message)  # mail the SMTP receiver could not store at once
            rows = self.s.pending_inbox(limit)
            if not rows:
                return done
            rows = [r for r in rows if r["id"] not in self._given_up]
            if not rows:
                return done
            for row in rows:
                if self.stopping.is_set():
                    return done
                self.act(row)
                done += 1

    def act(self, pending: dict) -> None:
        row = pending
        self._password_lines = []
        self._tokens = set()
        try:
            with self.s.transaction():
                row = self.s.inbox_row(pending["id"]) or pending
                if row.get("state") != "new":
                    return
                self._tokens = self._tokens_of(row)
                state, note = self._act(row)
                self._mask_stored(row, self._password_lines)
                self.s.finish_inbox(row["id"], state, note)
            log.info("inbox %s (%s, %d bytes): %s%s", row["id"], row["source"], row["size"],
                     state, f": {printable(note)}" if note else "")  # a mail's words in it
        except Exception as exc:  # a bug must not stop the judge or loop on one message
            self._failed(row, exc)

    def _failed(self, row: dict, exc: Exception) -> None:
        """Acting on ``row`` raised (its transaction is rolled back): log it, mark it
        'error' and tell its sender nothing was changed. Should that fail too, the mail is
        only marked 'error'; should even that fail, it is left for the next start, and the
        mail after it is acted on now (never the same mail again and again)."""
        try:
            lines = self._password_lines or self._password_lines_of(row)
            tokens = self._tokens or self._tokens_of(row)
        except Exception:
            lines, tokens = [], set()
        log.error("acting on inbox message %s failed\n%s", row["id"],
                  _scrub(traceback.format_exc(), lines, words=True, tokens=tokens))
        try:
            text = f"{exc}"
        except Exception:  # its own message raises: the type still says what failed
            text = "(its message could not be read)"
        why = _scrub(text, lines, words=True, tokens=tokens)
        for answer in (True, False):
            try:
                with self.s.transaction():
                    if answer:
                        self._mask_stored(row, lines)
                    self.s.finish_inbox(row["id"], "error", f"{type(exc).__name__}: {why}")
                    if answer:
                        self.s.audit(command="(message)", outcome=f"internal error: {why}",
                                     inbox_id=row["id"])
                        if "raw" in row:
                            self._apologise(row)
                return
            except Exception:
                log.error("inbox message %s: %s after its failure\n%s", row["id"],
                          "could not answer it" if answer else "could not mark it",
                          _scrub(traceback.format_exc(), lines, words=True, tokens=tokens))
        self._given_up.add(row["id"])

    def _password_lines_of(self, row: dict) -> list[tuple[str, str]]:
        """The password lines of a stored mail, read again (after a failure)."""
        try:
            inbound = read_message(row["raw"], row["mail_from"], self.cfg.address)
            cmds = parse_lines(inbound.lines) + parse_lines([_base_subject(inbound.subject)])
        except Exception:
            return []
        return _password_lines(cmds)

    def _tokens_of(self, row: dict) -> set[str]:
        """The reply tokens a stored mail holds (the head only of one refused unread)."""
        raw = row.get("raw") or b""
        if row.get("size", 0) > self.cfg.max_message_bytes:
            raw = raw[:UNREAD_HEAD_BYTES]
        return replytoken.tokens_in(raw)

    def _mask_stored(self, row: dict, lines: list[tuple[str, str]]) -> None:
        """The stored copy of an acted-on mail keeps no password, no reply token and no part
        the judge cannot read as text (same transaction); of a mail refused unread for its
        size, only the headers are kept."""
        if "raw" not in row:
            return
        masked = row["raw"]
        if row.get("size", 0) > self.cfg.max_message_bytes:
            masked = unread_copy(masked, row["size"])
        else:  # a part it cannot read as text (a zip, UTF-16) is not kept: beyond masking
            masked = text_only(masked)
        if lines:
            secrets = _secrets(lines)
            masked = mask_raw(masked, lines, secrets, set(secrets))
            key = row.get("key") or ""
            if any(secret in key for secret in secrets if len(secret) >= 4):
                # its Message-ID held a password: the key keeps a hash of itself instead (a
                # later copy of this very mail is then no longer known as a duplicate)
                self.s.execute("UPDATE inbox SET key = ? WHERE id = ?",
                               ("masked:" + hashlib.sha256(key.encode()).hexdigest(), row["id"]))
        masked = mask_tokens(masked, self._tokens)
        if masked != row["raw"]:
            self.s.replace_inbox_raw(row["id"], masked)

    def _act(self, row: dict) -> tuple[str, str]:
        raw: bytes = row["raw"]
        if row["size"] > self.cfg.max_message_bytes:
            return self._refuse_oversized(row)
        inbound = read_message(raw, row["mail_from"], self.cfg.address)
        if not inbound.ignore_reason and guard.copies_judge_mail(
                self.s, inbound.lines, inbound.in_reply_to, inbound.references):
            inbound.ignore_reason = "the judge's own mail copied back unquoted"
        if not inbound.ignore_reason and observers.out_of_office_answer(
                self.s, [inbound.in_reply_to, *inbound.references], inbound.sender,
                self.clock(), inbound.subject, inbound.lines):
            inbound.ignore_reason = "an out-of-office reply to a confirmation request"
        if inbound.ignore_reason:
            # not acted on, yet a password in it is masked all the same: a player who pasted
            # the judge's reply, mark line and all, above a SIGNON kept it on disk for good
            self._password_lines = _unread_password_lines(inbound)
            self._unobserve_silently(inbound, row["id"])
            self.s.audit(command="(message)", outcome=f"not answered: {inbound.ignore_reason}",
                         inbox_id=row["id"], address=inbound.sender)
            return "ignored", inbound.ignore_reason
        session = _Session(inbound, row["id"])
        commands = self._commands(session)
        if not any(c.name == "SIGNON" for c in commands):  # a SIGNON is used instead
            self._sign_on_by_reply_address(session)
        if not commands and not session.items:
            session.say(None, "This mail holds no commands. Write one command per line in the "
                        "body of a plain-text mail; send HELP for the list.", error=True)
        cap = self.cfg.limits.commands_per_mail
        rest, commands = commands[cap:], commands[:cap]
        # STATUS in a mail with orders answers once they are stored (at the end), in its place
        orders = any(c.name == "ORDER" for c in commands)
        deferred: list[tuple[int, Command, _PowerContext | None, dict | None]] = []
        asked: set[tuple] = set()
        for cmd in commands:
            if _asked_again(asked, session, cmd):
                session.say(cmd, "The same question as a line above: answered above, once.")
                continue
            if orders and cmd.name == "STATUS" and not cmd.error:
                deferred.append((len(session.items), cmd, session.current, session.master))
                continue
            self._run(session, cmd)
            if cmd.note:
                session.say(None, cmd.note)
        if rest:
            session.say(None, f"LIMIT: this mail holds {len(commands) + len(rest)} command or "
                        f"order lines; the judge acts on at most {cap} per mail ([limits] "
                        f"commands_per_mail). The first {cap} were read as above; the other "
                        f"{len(rest)}, from '{rest[0].masked[:40]}' on, were not read and changed "
                        "nothing. Send them in another mail if you meant them.", error=True)
        self._flush_orders(session)
        here = (session.current, session.master)
        for at, cmd, current, master in reversed(deferred):
            session.current, session.master = current, master
            start = len(session.items)
            self._run(session, cmd)
            moved = session.items[start:]
            del session.items[start:]
            session.items[at:at] = moved
        session.current, session.master = here
        turns = self._after_changes(session)
        if session.unanswered:  # a forged sign-on again: its address was asked already
            for queue in session.later:
                queue()
            reporting.queue_turns(self.outbox, self.s, turns)
            self.s.audit(command="(message)", outcome=f"not answered: {session.unanswered}",
                         inbox_id=row["id"], address=inbound.sender)
            return "done", f"{len(commands)} command(s), not answered: {session.unanswered}"
        if all(item["error"] for item in session.items) and self._looping(inbound.sender):
            self.s.audit(command="(message)", outcome="not answered: mail-loop guard",
                         inbox_id=row["id"], address=inbound.sender)
            return "ignored", "mail-loop guard: too many error replies to this address"
        subject = "Re: " + (_scrub(_base_subject(inbound.subject), self._password_lines)
                            or "your mail to the judge")
        if session.errors:
            subject = "[ERROR] " + subject
        items, omitted = guard.bound_items(session.items, self.cfg.reply_quote_lines)
        message_id = new_message_id(self.cfg.domain)
        answered = self._reply(row, inbound, subject=subject, template="reply.txt.j2",
                               context={"items": items, "errors": session.errors,
                                        "held": session.signon_held, "omitted": omitted,
                                        "quote_lines": self.cfg.reply_quote_lines,
                                        "judge_name": self.cfg.name},
                               attachments=session.attachments, message_id=message_id,
                               seats=list(session.contexts),
                               drawings=session.maps.later if session.maps else None)
        if answered:  # a reply to this reply confirms the OBSERVE requests it carries
            observers.requests_sent(self.s, row["id"], message_id)
        for queue in session.later:  # game mail after the reply
            queue()
        reporting.queue_turns(self.outbox, self.s, turns)
        note = f"{len(commands)} command(s), {session.errors} error(s)"
        return "done", note if answered else note + ", not answered: reply ceiling"

    LOOP_LIMIT = 10  # error-only replies to one address ...
    LOOP_WINDOW = timedelta(minutes=10)  # ... within this window; then silence

    def _looping(self, address: str) -> bool:
        """An address that only ever gets error replies, fast: a robot answering the judge.
        Fast by the judge's clock, which stamped the outbox's ``created`` it counts."""
        since = self.clock() - self.LOOP_WINDOW
        return self.s.recent_error_replies(address, since) >= self.LOOP_LIMIT

    def _reply(self, row: dict, inbound: Inbound, *, subject: str, template: str,
               context: dict, attachments: list[Attachment] | None = None,
               message_id: str = "", seats: list[tuple[int, str]] | None = None,
               drawings: list[tuple[str, str]] | None = None) -> bool:
        """Queue a reply to the author unless the address has had its replies for this hour
        (guard.reply_gate): then the one final notice, or nothing. True when it was queued.
        The hour is the judge's clock's, which stamped the outbox's ``created`` it counts (a
        season on a virtual clock counts its virtual hours). A mail that signed on to a seat
        (``seats``) is a player's, in a hurry before a deadline maybe: its replies are bounded
        by the ceiling on all mail to the address instead (mail_per_hour, then a digest)."""
        now = self.clock()
        gate = "reply" if seats else guard.reply_gate(self.s, inbound.sender, now,
                                                       self.cfg.replies_per_hour)
        # the mail's Message-ID and References thread the reply, unless one holds a password
        # of the mail: then the reply goes unthreaded rather than carry it
        ids = [inbound.message_id or "", *inbound.references]
        if any(secret in i for secret in _secrets(self._password_lines) if len(secret) >= 4
               for i in ids):
            in_reply_to, references = "", []
        else:
            in_reply_to, references = inbound.message_id, inbound.references
        if gate == "reply":
            self.outbox.queue(kind="reply", to=inbound.sender, subject=subject,
                              template=template, context=context, inbox_id=row["id"],
                              in_reply_to=in_reply_to, references=references,
                              attachments=attachments, message_id=message_id, seats=seats,
                              drawings=drawings)
            return True
        if gate == "final":
            self.outbox.queue(kind="limit", to=inbound.sender,
                              subject="[LIMIT] Replies to you are paused for an hour",
                              template="reply_limit.txt.j2",
                              context={"limit": self.cfg.replies_per_hour,
                                       "until": now + guard.HOUR},
                              inbox_id=row["id"], in_reply_to=in_reply_to,
                              references=references)
        self.s.audit(command="(message)", outcome=f"not answered: reply ceiling ({gate})",
                     inbox_id=row["id"], address=inbound.sender)
        return False

    def _commands(self, ses: _Session) -> list[Command]:
        """The mail's commands. A reply to a confirmation request answers it by its first
        line (observers.confirm_by_reply: YES or nothing confirms, NO drops it); a subject
        UNOBSERVE or CONFIRM (what a List-Unsubscribe mailto sends) is acted on whatever the
        mail program put in the body; a mail with an empty body may hold its command in the
        subject ("HELP")."""
        ib = ses.inbound
        commands = parse_lines(ib.lines)
        answered = observers.confirm_by_reply(
            self.s, [ib.in_reply_to, *ib.references], ib.sender, self.clock(),
            signup.taker(self, ses), ib.lines, gmtools.seat_taker(self, ses))
        for text in answered:
            ses.say(None, text)
        if answered:  # its "Yes" or "No" answered the request, told above: not a sign-off
            commands = [c for c in commands
                        if c.name != "ORDER" or not observers.is_answer(c.line)]
        if ses.items and all(c.name == "ORDER" for c in commands):
            commands = []
        # a reply's subject is the request's own ("Re: Confirm: ..."), not a command
        subject = [] if answered else parse_lines([_base_subject(ib.subject)])
        # every password the mail carries, body or subject, is masked wherever it is echoed
        self._password_lines = _password_lines(commands + subject)
        name = subject[0].name if subject else ""
        if name in ("UNOBSERVE", "CONFIRM") and all(c.name != name for c in commands):
            plain = all(c.name == "ORDER" for c in commands)  # text, not commands
            return subject + ([] if plain else commands)
        # an empty body: a command in the subject ("HELP") will do, never one with a password
        if not commands and not ses.items and name and name not in (
                "ORDER", "SIGNON", "JOIN", "MASTER", "CREATE") and not (
                name in PASSWORD_COMMANDS or subject[0].hide):
            return subject
        return commands

    def _unobserve_silently(self, inbound: Inbound, inbox_id: int) -> None:
        """An unsubscribe that is not to be answered (an auto-submitted List-Unsubscribe
        mail) is still honoured; the judge's own text coming back is not read at all."""
        if not inbound.sender or "judge" in inbound.ignore_reason:
            return
        cmds = parse_lines([_base_subject(inbound.subject)])
        if cmds and cmds[0].name == "UNOBSERVE" and not cmds[0].error:
            game = self.s.game(cmds[0].args[0])
            if game is not None and observers.unobserve(self.s, game, inbound.sender):
                self.s.audit(command=cmds[0].masked, outcome="ok: unobserved (not answered)",
                             inbox_id=inbox_id, address=inbound.sender, game=game["name"])

    def _apologise(self, row: dict) -> None:
        """The judge failed on this mail: tell the sender that nothing was changed."""
        try:
            inbound = read_message(row["raw"][:65536], row["mail_from"], self.cfg.address)
        except Exception:
            return
        if inbound.ignore_reason or not inbound.sender:
            return
        self._reply(row, inbound,
                    subject="[ERROR] Re: " + (_base_subject(inbound.subject) or "your mail"),
                    template="internal_error.txt.j2", context={"ref": row["id"]})

    def _refuse_oversized(self, row: dict) -> tuple[str, str]:
        # read the headers only: the body may be huge
        raw: bytes = row["raw"]
        end = raw.find(b"\r\n\r\n")
        end = raw.find(b"\n\n") if end < 0 else end
        head = raw[: end if end > 0 else 65536][:UNREAD_HEAD_BYTES] + b"\r\n\r\n"
        inbound = read_message(head, row["mail_from"], self.cfg.address)
        # a password command in its Subject is masked in the headers kept (_mask_stored)
        self._password_lines = _password_lines(parse_lines([_base_subject(inbound.subject)]))
        if inbound.ignore_reason or not inbound.sender:
            return "ignored", f"oversized and {inbound.ignore_reason or 'no sender'}"
        if guard.answers_refusal(self.s, inbound.in_reply_to, inbound.references):
            # an oversized answer to the judge's own size refusal: a responder sending the
            # big mail back; it was told once
            self.s.audit(command="(message)", outcome="not answered: oversized answer to a "
                         "size refusal", inbox_id=row["id"], address=inbound.sender)
            return "ignored", "oversized, answering the judge's size refusal"
        subject = "[ERROR] Re: " + (_scrub(_base_subject(inbound.subject), self._password_lines)
                                    or "your mail to the judge")
        self._reply(row, inbound, subject=subject, template="refused_size.txt.j2",
                    context={"size": row["size"], "limit": self.cfg.max_message_bytes})
        self.s.audit(command="(message)", outcome=f"refused: {row['size']} bytes",
                     inbox_id=row["id"], address=inbound.sender)
        return "refused", f"{row['size']} bytes > {self.cfg.max_message_bytes}"

    # ------------------------------------------------- reply-address sign-on
    def _sign_on_by_reply_address(self, ses: _Session) -> None:
        """A mail sent to a seat's reply address (or keeping its Subject tag) is signed on as
        that power, like a SIGNON at its top (judge/mail/replytoken.py)."""
        ib = ses.inbound
        presented = replytoken.presented(self.cfg, ib.recipients, ib.subject)
        if presented is None:
            return
        self._tokens.add(presented.token)
        try:
            with self.s.db.atomic():
                text = replysignon.seat(self, ses, presented)
        except GameError as exc:
            ses.say(None, str(exc), error=True)
            ses.signon_failed, ses.current, ses.address_refused = True, None, True
            self._password_refused(ses, exc)
            outcome = "error: " + str(exc)
        else:
            ses.say(None, text)
            outcome = "ok: " + text
        self.s.audit(command=f"(reply address {presented.label})", outcome=outcome[:500],
                     inbox_id=ses.inbox_id, address=ib.sender,
                     game=ses.current.game["name"] if ses.current else None,
                     power=ses.current.power if ses.current else None)

    # ----------------------------------------------------------- commands
    def _refusal(self, ses: _Session, cmd: Command) -> str:
        """Why this command is refused before it is looked at ("" when it is not)."""
        if cmd.error:
            return cmd.error
        if cmd.spec is not None and cmd.name in MASTER_ACTIONS:
            ses.master_actions += 1
            most = self.cfg.limits.master_actions_per_mail
            if ses.master_actions > most:
                return (f"not done: a mail may carry at most {most} commands that change a "
                        f"game ({', '.join(sorted(MASTER_ACTIONS))}; [limits] "
                        "master_actions_per_mail); this one and the later ones were not done")
        password = cmd.spec is not None and cmd.spec.carries_password
        if ses.password_failed and password:
            return ("not checked: an earlier password in this mail was wrong"
                    if cmd.name in ("SIGNON", "MASTER") else
                    "not done: an earlier password in this mail was wrong")
        if password:
            ses.passwords += 1
            most = self.cfg.limits.passwords_per_mail
            if ses.passwords > most:
                return (f"not done: a mail may carry at most {most} commands with a password "
                        "([limits] passwords_per_mail); this one and the later ones were not "
                        "looked at")
        limit = self.cfg.limits.press_bytes
        size = sum(len(x.encode("utf-8")) + 1 for x in cmd.block)
        if size > limit:
            return (f"not sent: this text is {size} bytes, over the limit of {limit} bytes "
                    "([limits] press_bytes); none of it was sent or kept")
        return ""

    def _run(self, ses: _Session, cmd: Command) -> None:
        address = ses.inbound.sender
        ctx = ses.current
        if refused := self._refusal(ses, cmd):
            ses.say(cmd, refused, error=True)
            if cmd.name == "SIGNON":
                ses.signon_failed, ses.current = True, None
            if cmd.name in ("MASTER", "CREATE"):
                ses.master_failed, ses.master = True, None
            self.s.audit(command=cmd.masked, outcome="error: " + refused,
                         inbox_id=ses.inbox_id, address=address)
            return
        if cmd.name == "ORDER" and cmd.signoff and not self._reads_as_order(ctx, cmd.line) \
                and not condition_word(cmd.line) and not is_header(cmd.line) \
                and not any(self._reads_as_order(ctx, x) or condition_word(x) or is_header(x)
                            for x in cmd.under) \
                and (not cmd.loose or ctx is None or (
                    self._starts_unknown(ctx, cmd.line) and not _near_command(cmd.line))):
            last = ses.items[-1] if ses.items else {}
            skipped = [*last.get("signoff", []), cmd.line.strip()] if "signoff" in last \
                else [cmd.line.strip()]
            text = (f"Skipped {' and '.join(repr(x) for x in skipped)}: "
                    f"{'looks' if len(skipped) == 1 else 'look'} like a sign-off, so "
                    f"{'it was' if len(skipped) == 1 else 'they were'} not read as "
                    f"{'an order' if len(skipped) == 1 else 'orders'}.")
            if "signoff" in last:
                last["text"], last["signoff"] = text, skipped
            else:
                ses.say(None, text)
                ses.items[-1]["signoff"] = skipped
            return
        if cmd.name == "ORDER":
            if ctx is None:
                reason = ("not used: the sign-on above waits for this address to confirm; "
                          "send your orders again once it has" if ses.signon_held else
                          "not used: the sign-on by reply address above failed"
                          if ses.address_refused else
                          "not used: the SIGNON above failed" if ses.signon_failed else
                          "not a command, and not an order either because this mail has not "
                          "signed on to a power; start with SIGNON <power> <game> <password>, "
                          "or send HELP")
                ses.say(cmd, reason, error=True)
                first = cmd.line.split()[0][:20]  # never the rest: it may hold a password
                self.s.audit(command=f"{first} ...", outcome="error: " + reason[:200],
                             inbox_id=ses.inbox_id, address=address)
                return
            if not is_header(cmd.line) and not ctx.in_block():
                if condition_word(cmd.line):
                    # IF with no PHASE line: njudge reads it for the phase being played, so
                    # the lines it guards stay guarded (never taken unconditionally)
                    ctx.lines.append(f"PHASE {G.refresh(self.s, ctx.game)['phase']}")
                elif (why := self._not_an_order(ctx, cmd.line)) is not None:
                    # a mistyped command is no order: it must not replace the stored orders
                    ses.say(cmd, why, error=True)
                    self.s.audit(command=f"{cmd.line.split()[0][:20]} ...",
                                 outcome="error: " + why[:200], inbox_id=ses.inbox_id,
                                 address=address, game=ctx.game["name"], power=ctx.power)
                    return
            if ctx.reopen is not None:
                if not is_header(cmd.line):
                    ctx.lines.append(ctx.reopen)
                ctx.reopen = None
            ctx.lines.extend(self._orders_of_line(ctx, cmd.line))
            ctx.touched = True
            return
        if cmd.name == "SET" and ctx is not None and ctx.in_block() and \
                [a.upper() for a in cmd.args] in (["WAIT"], ["NOWAIT"]):
            # njudge carries SET WAIT in a PHASE block to that phase (waits are per phase)
            try:
                with self.s.db.atomic():
                    text = self._carry_wait(ctx, cmd.args[0].upper() == "WAIT")
            except GameError as exc:
                ses.say(cmd, str(exc), error=True)
                outcome = "error: " + str(exc)
            else:
                ses.say(cmd, text)
                outcome = "ok: " + text
            self.s.audit(command=cmd.masked, outcome=outcome[:500], inbox_id=ses.inbox_id,
                         address=address, game=ctx.game["name"], power=ctx.power)
            return
        try:
            with self.s.db.atomic():  # a savepoint: a failed command leaves no trace
                text, kind, data = self._command(ses, cmd)
        except GameError as exc:
            reason = str(exc)
            if not isinstance(exc, WrongPassword | _Locked):  # the password was not read
                reason = hide_unread(cmd, reason, lambda word: self._names(cmd.line, word))
                if cmd.hide:  # the stored mail masks what the reply hid
                    self._password_lines.append((cmd.line, cmd.masked))
            ses.say(cmd, reason, error=True)
            if cmd.name == "SIGNON":
                ses.signon_failed, ses.current = True, None
            if cmd.name in ("MASTER", "CREATE"):
                ses.master_failed, ses.master = True, None
            self._password_refused(ses, exc)
            outcome = "error: " + reason
        else:
            # kind "error": the command did something (a late vote is kept, to be reported) but
            # the sender must read it as an error
            ses.say(cmd, text, kind=kind, data=data, error=kind == "error")
            outcome = ("error: " if kind == "error" else "ok: ") + (
                text.splitlines()[0] if text else "")
        game = ses.current.game["name"] if ses.current else (
            ses.master["name"] if ses.master else None)
        self.s.audit(command=cmd.masked, outcome=outcome[:500], inbox_id=ses.inbox_id,
                     address=address, game=game,
                     power=ses.current.power if ses.current else None)

    def _names(self, line: str, word: str) -> bool:
        """Does ``word`` name a game, or a power of a game named on ``line``?"""
        if self.s.game(word) is not None:
            return True
        games = [g for w in line.split()[1:] if (g := self.s.game(w)) is not None]
        return any(word.upper() in G.get_variant(g["variant"]).board.powers for g in games)

    def _carry_wait(self, ctx: _PowerContext, wait: bool) -> str:
        """SET WAIT (``wait``) or SET NOWAIT inside a PHASE block: for the block's phase."""
        game = G.refresh(self.s, ctx.game)
        G.check_running(game)
        headers = [x for x in ctx.lines if is_header(x)]
        header = ctx.reopen or headers[-1]
        try:
            target = read_phase(header, G.current_position(self.s, game).phase)
        except AheadError as exc:
            raise GameError(f"not done: the PHASE line above cannot be used ({exc})") from exc
        # the block's place among the mail's blocks (a reopened one is put back after these)
        ctx.commanded.add(len(headers) if ctx.reopen is not None else len(headers) - 1)
        phase, name = str(target), f"{target.long_name} ({target})"
        if wait:
            self.s.execute("INSERT OR IGNORE INTO waits (game_id, phase, power) "
                           "VALUES (?, ?, ?)", (game["id"], phase, ctx.power))
            if phase == game["phase"]:
                self.s.execute("UPDATE games SET early_at = NULL WHERE id = ?", (game["id"],))
            return (f"{ctx.power.title()} waits in {name} of game {game['name']} (SET WAIT in "
                    "its PHASE block): that phase will not be processed before its deadline. "
                    "The wait ends with SET NOWAIT or when the phase is processed.")
        self.s.execute("DELETE FROM waits WHERE game_id = ? AND phase = ? AND power = ?",
                       (game["id"], phase, ctx.power))
        return f"{ctx.power.title()} no longer waits in {name} of game {game['name']}."

    def _read_line(self, ctx: _PowerContext | None, line: str) -> dict | None:
        """``line`` read as an order of the power signed on, in the phase being played
        (``order`` set when it reads, else ``error``); None when it cannot be read at all."""
        if ctx is None:
            return None
        try:
            game = G.refresh(self.s, ctx.game)
            if ctx.reading is None or ctx.reading[0] != game["phase"]:
                ctx.reading = (game["phase"], G.get_variant(game["variant"]),
                               G.current_position(self.s, game))
            _, variant, pos = ctx.reading
            read = G.read_order_lines(variant, pos, ctx.power, [line])
        except (GameError, ValueError, KeyError):
            return None
        return read[0] if read else None

    def _reads_as_order(self, ctx: _PowerContext | None, line: str) -> bool:
        """Whether ``line`` reads as a valid order of the power signed on (a sign-off that
        does, ``Greece`` with a unit there, is kept as the order it is)."""
        read = self._read_line(ctx, line)
        return bool(read and read.get("order"))

    def _orders_of_line(self, ctx: _PowerContext, line: str) -> list[str]:
        """The order lines ``line`` holds: njudge reads several orders on one line separated
        by commas or semicolons (its data/syntax), so a line that is no order as a whole but
        whose every such part is a valid order is those orders; any other line is itself
        (a comma inside an order, a conditional retreat's list, stays as written)."""
        if not _SEPARATOR.search(line) or is_header(line) or ctx.in_block() \
                or condition_word(line):
            return [line]
        parts = [p.strip() for p in _SEPARATOR.split(line) if p.strip()]
        if len(parts) < 2 or self._reads_as_order(ctx, line) \
                or not all(self._reads_as_order(ctx, p) for p in parts):
            return [line]
        return parts

    def _starts_unknown(self, ctx: _PowerContext | None, line: str) -> str | None:
        """The variant's reason when ``line`` is no order because its very first word is
        no place, unit or order word of the game (``STAUTS``, ``Bruno``), else None."""
        read = self._read_line(ctx, line)
        if read is None or read.get("order"):
            return None
        why = read.get("error") or ""
        m = re.match(r"unknown place '([^']+)'", why)
        text = _LEAD.sub("", line.strip())
        return why if m and text.upper().startswith(m.group(1).upper()) else None

    def _not_an_order(self, ctx: _PowerContext, line: str) -> str | None:
        """Why an order line is neither a command nor an order of this game (its first word
        is unknown), naming the nearest command word or place; None when it is an order,
        or an order with a mistake (kept, and marked, among the orders)."""
        first = _LEAD.sub("", line.strip()).split(None, 1)
        if not first or first[0].upper() in _UNIT_WORDS:  # an order (most are): not read twice
            return None
        why = self._starts_unknown(ctx, line)
        if why is None:
            return None
        near = _near_command(line)
        place = re.search(r"\(did you mean ([^)]+)\?\)", why)
        hint = f"did you mean {near}?" if near else (
            f"did you mean {place.group(1)}?" if place else "send HELP for the commands.")
        return (f"'{line.split()[0][:30]}' is no command, and this line no order: {hint} "
                "This line changed nothing (your orders were not replaced by it).")

    def _command(self, ses: _Session, cmd: Command) -> Reply:
        """Carry out ``cmd`` by its spec's handler (the one the parser read it by)."""
        spec = cmd.spec
        if spec is None or spec.handler is None:  # pragma: no cover (orders, END: not here)
            raise GameError(f"unknown command {cmd.name}")
        if not spec.mail_after_reply:
            return spec.handler(self, ses, cmd)
        # the mail it queues goes out after the reply, and only if it succeeds (a GameError
        # rolls back its savepoint, and must not leave notices behind)
        with self.outbox.holding() as held:
            reply = spec.handler(self, ses, cmd)
        ses.later.extend(held)
        return reply

    def guard_password(self, scope: str, what: str) -> None:
        """Refuse to check a password for ``scope`` while it is locked."""
        until = self.s.password_lock(scope, self.clock())
        if until is not None:
            raise _Locked(f"not checked: too many wrong passwords were sent for {what}; no "
                          f"password for it is checked until {_when(until)} UTC")

    def _password_refused(self, ses: _Session, exc: GameError) -> None:
        """A refusal for a wrong password or a lock: the mail checks no more passwords, and a
        wrong one is counted towards the lock."""
        if isinstance(exc, WrongPassword | _Locked):
            ses.password_failed = True
        if isinstance(exc, WrongPassword):
            self._wrong_password(ses, exc)

    def _wrong_password(self, ses: _Session, exc: WrongPassword) -> None:
        """Count a wrong password; too many for one scope lock it and tell its owner once."""
        lim, now = self.cfg.limits, self.clock()
        count = self.s.record_password_failure(
            exc.scope, ses.inbound.sender, ses.inbox_id, now,
            now - timedelta(seconds=lim.password_window_seconds))
        if count < lim.password_attempts:
            return
        until = now + timedelta(seconds=lim.password_lock_seconds)
        self.s.lock_passwords(exc.scope, now, until)
        # a master's address from a forged CREATE has not confirmed it reads the judge's mail:
        # an attacker's wrong passwords must not make the judge mail it (again each time the
        # lock runs out)
        # (said alike either way: whether it was told would tell a forger whether the victim
        # confirmed, and a Gunboat spy whether the power has a player)
        ses.say(None, f"LIMIT: {count} wrong passwords for {exc.what} within "
                f"{reports.duration(lim.password_window_seconds)} ([limits] password_attempts, "
                f"password_window_seconds): no password for it is checked until {_when(until)} "
                "UTC. Its owner is told, if its address has confirmed it reads this judge's "
                "mail.", error=True)
        if exc.owner and self.s.confirmed(exc.owner):
            self.outbox.queue(kind="notice", to=exc.owner,
                              subject=f"Sign-on for {exc.what} locked after wrong passwords",
                              template="notices/password_lock.txt.j2",
                              context={"what": exc.what, "failures": count,
                                       "window": reports.duration(lim.password_window_seconds),
                                       "until": _when(until), "sender": ses.inbound.sender})
        self.s.audit(command="(password lock)", outcome=f"locked until {iso(until)}",
                     inbox_id=ses.inbox_id, address=ses.inbound.sender)

    def master_game(self, ses: _Session) -> dict:
        """The game the sender signed on to as master (GameError when none)."""
        return self._master_game(ses)

    def _master_game(self, ses: _Session) -> dict:
        if ses.master is None:
            if ses.master_failed:
                raise GameError("not done: the MASTER sign-on above failed")
            raise GameError("this is a game master's command: sign on first with "
                            "MASTER <game> <password>")
        return G.refresh(self.s, ses.master)

    def set_context(self, ses: _Session, game: dict, power: str) -> None:
        key = (game["id"], power)
        ctx = ses.contexts.get(key)
        if ctx is None:
            ctx = ses.contexts[key] = _PowerContext(game, power)
        ses.current = ctx

    def _flush_orders(self, ses: _Session) -> None:
        """Each signed-on power: this mail's orders replace its earlier ones; show them all."""
        for ctx in ses.contexts.values():
            game = G.refresh(self.s, ctx.game)
            if game["status"] not in ("active", "paused"):
                if ctx.lines:
                    ses.say(None, f"Orders not stored: game {game['name']} is not running "
                            f"(it is {game['status']}).", error=True)
                continue
            pending, wrong = None, None
            try:
                with self.s.db.atomic():
                    if ctx.lines:
                        flow_for(game).check_orders(self, game, ctx.power)  # e.g. too late
                    # PHASE blocks (orders sent ahead) are kept for their phase; the lines
                    # before them, if any, are this phase's orders
                    received = AH.receive(self.s, game, G.current_position(self.s, game),
                                          ctx.power, ctx.lines, ses.inbox_id,
                                          commanded=ctx.commanded) \
                        if ctx.lines else None
                    wrong = self._every_order_wrong(game, ctx.power, received.now) \
                        if received is not None and received.now and not ctx.cleared else None
                    if wrong:
                        # a mail none of whose orders can be used (a typo in a place, a unit
                        # the power does not have) never wipes a stored set: njudge honours
                        # "the last valid order for a particular unit"
                        for text, why in wrong:
                            ses.items.append({"echo": text, "text": why, "error": True,
                                              "kind": "text", "data": None})
                            ses.errors += 1
                        ses.say(None, "No order of this mail could be used, so your orders "
                                      "stored before stand, unchanged.")
                        status = G.order_status(self.s, game, ctx.power)
                    elif received is not None and received.now is not None:
                        status = G.submit_orders(self.s, game, ctx.power, received.now,
                                                 ses.inbox_id)
                        ses.games_touched.add(game["id"])
                    elif ctx.cleared:
                        G.clear_orders(self.s, game, ctx.power)
                        status = G.order_status(self.s, game, ctx.power)
                        ses.games_touched.add(game["id"])
                    else:
                        status = G.order_status(self.s, game, ctx.power)
                    pending = AH.reply_item(self.s, game, G.current_position(self.s, game),
                                            ctx.power, received, always=ctx.pending_cleared)
            except GameError as exc:
                ses.say(None, f"Orders for {ctx.power.title()} in {game['name']} not stored: "
                        f"{exc}", error=True)
                continue
            # the stored orders shown again (this mail sent none, or none usable): their
            # errors were told when they were sent, and are no error of this mail
            earlier = (not ctx.touched or bool(wrong)) and not ctx.cleared
            if status.has_errors and not earlier:
                ses.errors += 1
            ses.items.append({"echo": "", "text": "", "error": status.has_errors and not earlier,
                              "kind": "orders", "data": status, "earlier": earlier})
            if pending is not None:  # "Pending orders": the blocks waiting for later phases
                if received is None or not received.blocks:  # told when they were sent
                    pending["error"] = False
                ses.errors += 1 if pending["error"] else 0
                ses.items.append(pending)
            if ctx.by_master and not wrong and (ctx.touched or ctx.cleared or ctx.pending_cleared):
                self._tell_player(ses, game, ctx.power, status, pending)
            self.s.audit(command=f"(orders: {len(ctx.lines)} line(s))" if ctx.touched
                         else "(orders shown)",
                         outcome=f"{sum(1 for x in status.lines if x.get('order'))} order(s), "
                                 f"{sum(1 for x in status.lines if x.get('error'))} error(s)",
                         inbox_id=ses.inbox_id, address=ses.inbound.sender, game=game["name"],
                         power=ctx.power)

    def _every_order_wrong(self, game: dict, power: str, lines: list[str]
                           ) -> list[tuple[str, str]] | None:
        """Each of ``lines`` with its error when not one of them is a usable order while
        ``power`` has orders stored for the phase (those then stand); otherwise None."""
        if not any(x.get("order") for x in G.order_status(self.s, game, power).lines):
            return None
        read = G.read_order_lines(G.get_variant(game["variant"]), G.current_position(
            self.s, game), power, lines)
        if not read or any(x.get("order") for x in read):
            return None
        return [(x["text"], x.get("error") or "not an order") for x in read]

    def _tell_player(self, ses: _Session, game: dict, power: str, status: G.OrderStatus,
                     pending: dict | None) -> None:
        """The master changed ``power``'s orders (ACT): its player is told, after the reply,
        the orders that stand (one notice per power and mail) - unless the player is the one
        who sent the mail (the reply shows them)."""
        player = self.s.player(game["id"], power)
        if player is None or player["address"].strip().lower() == \
                ses.inbound.sender.strip().lower():
            return

        def tell() -> None:
            now = G.refresh(self.s, game)  # a later line of the mail may have moved the
            fresh = G.order_status(self.s, now, power) \
                if now["phase"] == status.phase else status  # deadline; processed: as sent
            notices.orders_changed(self, now, power, fresh, pending)

        ses.later.append(tell)

    # ---------------------------------------------------------------- time
    def _after_changes(self, ses: _Session) -> list[G.Turn]:
        """Games whose every power has ordered are processed early (deadlines.after_orders:
        at once, or after the game's settling delay, unless someone waits)."""
        turns: list[G.Turn] = []
        for gid in sorted(ses.games_touched):
            game = self.s.game_by_id(gid)
            if game and game["status"] == "active":
                text, done = deadlines.after_orders(self, game, self.clock())
                turns += done
                if text:
                    ses.say(None, text)
        return turns

    def process_due(self) -> int:
        """Do what is due in every game, by the deadline engine (judge/games/deadlines.py):
        reminders, late notices, processing at the deadline, the end of grace, early
        processing, paused reminders; a flow's own stages (a vote) the same way. Then the
        digests of mail held past the ceiling that are due (judge/mail/outbox.py)."""
        done = deadlines.run_due(self, self.clock())
        self.outbox.release_held()
        return done
