"""End to end: a Stab! game by email over the real mail servers (``judge serve`` as a
subprocess; players send through postfix into the judge's dovecot mailbox, read over IMAP;
the judge sends through postfix, which relays to the test's aiosmtpd sink).

Spring with the placement, an Autumn with a dislodgement and a conditional retreat, and the
Winter: each player receives its private notice and only its own, the public report says
only what rule 2 reveals, and nothing a player receives (replies included) reveals what the
rules hide from it, checked against the full adjudication (tests/stabkit.py)."""

from __future__ import annotations

from mailkit import JudgeProcess, SinkBackend, imap_config, unique, write_config
from stabkit import play_stab_game


def test_stab_game_over_real_mail_servers(judge_mailbox, smtp_sink, tmp_path):
    env = judge_mailbox
    judge = JudgeProcess(write_config(tmp_path, imap_config(env, tmp_path)), tmp_path).start()
    try:
        judge.wait_log("IMAP: connected")
        domain = f"{unique('stab')}.test"
        b = SinkBackend(smtp_sink, env["MAILTEST_HOST"], int(env["MAILTEST_SMTP_PORT"]),
                        f"judge@{env['MAILTEST_DOMAIN']}")
        reports = play_stab_game(b, unique("s"), lambda p: f"{p.lower()}@{domain}",
                                 f"gm@{domain}", tmp_path / "judge.db", gunboat=True,
                                 timeout=60)
        # Every report went to one recipient only: nobody is copied on another's notice.
        mine = [m for m in smtp_sink.messages if m.rcpt.endswith("@" + domain)]
        assert all("," not in m["To"] for m in mine)
        assert len(reports["GERMANY"]) == 3
    finally:
        assert judge.stop() == 0, judge.log.read_text()
