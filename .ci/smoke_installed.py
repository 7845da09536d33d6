"""Play mail through an installed judge, outside the checkout (issue 18): ``judge check``, then
``judge render`` (a PNG), ``judge serve`` with its built-in SMTP receiver and a Maildir out; a HELP, a CREATE + OPEN by a
game master and a SIGNON by a player each get their reply. Standard library only.

Usage: python3 .ci/smoke_installed.py VENV WORKDIR   (VENV/bin/judge is the installed judge)
"""

from __future__ import annotations

import mailbox
import smtplib
import socket
import subprocess
import sys
import time
from email import message_from_bytes
from email.message import EmailMessage
from pathlib import Path

venv, work = Path(sys.argv[1]), Path(sys.argv[2])
judge = str(venv / "bin" / "judge")
work.mkdir(parents=True, exist_ok=True)
with socket.socket() as s:
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
config = work / "judge.toml"
config.write_text(f"""[judge]
address = "judge@example.test"
database = "{work / 'state' / 'judge.db'}"

[intake]
mode = "smtp"
listen = "127.0.0.1:{port}"

[outbound]
mode = "maildir"
maildir = "outgoing"
""")
out = subprocess.run([judge, "--version"], capture_output=True, text=True, check=True)
print(out.stdout.strip())
subprocess.run([judge, "check", "--config", str(config)], cwd=work, check=True)
# A map picture as PNG: the wheel's drawing data, Cairo and a font.
(work / "position.json").write_text('{"variant": "standard", "phase": "S1901M", "units": '
                                    '{"FRANCE": ["A PAR", "F BRE"]}, "centres": {"FRANCE": '
                                    '["PAR", "BRE", "MAR"]}}')
(work / "orders.txt").write_text("FRANCE:\nA PAR - BUR\nF BRE - MAO\n")
subprocess.run([judge, "render", "--variant", "standard", "--position", "position.json",
                "--orders", "orders.txt", "--out", "map.png"], cwd=work, check=True)
assert (work / "map.png").read_bytes().startswith(b"\x89PNG"), "judge render wrote a PNG"
log = open(work / "judge.log", "wb")  # noqa: SIM115
proc = subprocess.Popen([judge, "serve", "--config", str(config)], cwd=work, stderr=log)


def wait(pred, what: str, timeout: float = 60.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        got = pred()
        if got:
            return got
        if proc.poll() is not None:
            break
        time.sleep(0.2)
    print((work / "judge.log").read_text(), file=sys.stderr)
    raise SystemExit(f"smoke: {what}: not seen")


def send(frm: str, body: str) -> None:
    m = EmailMessage()
    m["From"], m["To"], m["Subject"] = frm, "judge@example.test", "smoke"
    m.set_content(body)
    with smtplib.SMTP("127.0.0.1", port, timeout=30) as smtp:
        smtp.send_message(m)


def reply_to(rcpt: str, count: int) -> str:
    def replies() -> list[str]:
        box = work / "state" / "outgoing"
        if not (box / "new").is_dir():
            return []
        out = []
        for raw in mailbox.Maildir(str(box), factory=None):
            msg = message_from_bytes(raw.as_bytes())
            if rcpt in msg["To"]:
                part = next(p for p in msg.walk() if p.get_content_type() == "text/plain")
                out.append(part.get_payload(decode=True).decode("utf-8"))
        return out if len(out) >= count else []
    return "\n".join(wait(replies, f"reply {count} to {rcpt}"))


try:
    wait(lambda: b"judge: serving" in (work / "judge.log").read_bytes(), "judge serving")
    send("player@example.net", "HELP")
    assert "SIGNON" in reply_to("player@example.net", 1), "HELP reply lists the commands"
    send("gm@example.net", "CREATE smoke s3cret VARIANT standard\nOPEN")
    said = reply_to("gm@example.net", 1)
    assert "created" in said and "ERROR" not in said, said
    send("player@example.net", "SIGNON France smoke marypw")
    said = reply_to("player@example.net", 2)
    assert "France" in said and "ERROR" not in said, said
    print("smoke: check, render (PNG), HELP, CREATE + OPEN and SIGNON by the installed judge")
finally:
    proc.terminate()
    code = proc.wait(60)
    log.close()
if code != 0:
    raise SystemExit(f"smoke: judge serve exited {code}")
