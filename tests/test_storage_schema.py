"""Storage: numbered migrations, WAL, the inbox keyed by Message-ID, config loading."""

from __future__ import annotations

import sqlite3

import pytest

from judge import storage
from judge.config import ConfigError, load_config
from judge.storage import Store


def test_fresh_database_is_migrated_to_the_last_version_in_wal_mode(tmp_path):
    s = Store(tmp_path / "judge.db")
    assert s.schema_version() == len(storage.MIGRATIONS)
    tables = set(s.db.table_names())
    assert {"games", "players", "positions", "orders", "inbox", "outbox", "audit"} <= tables
    assert s.one("PRAGMA journal_mode")["journal_mode"] == "wal"
    s.close()
    # opening again applies nothing twice
    s = Store(tmp_path / "judge.db")
    assert s.schema_version() == len(storage.MIGRATIONS)


def test_a_new_migration_is_applied_once_in_order(tmp_path, monkeypatch):
    Store(tmp_path / "judge.db").close()
    monkeypatch.setattr(storage, "MIGRATIONS",
                        [*storage.MIGRATIONS, "ALTER TABLE games ADD COLUMN press TEXT"])
    s = Store(tmp_path / "judge.db")
    assert s.schema_version() == len(storage.MIGRATIONS)
    assert "press" in s.db["games"].columns_dict
    s.close()
    Store(tmp_path / "judge.db").close()  # no "duplicate column" on the next start


def test_inbox_stores_a_message_once_per_key(tmp_path):
    s = Store(tmp_path / "judge.db")
    assert s.store_inbound("<a@x>", b"raw", "test") == 1
    assert s.store_inbound("<a@x>", b"other copy", "test") is None
    [row] = s.pending_inbox()
    assert s.inbox_row(row["id"])["raw"] == b"raw"


def test_transaction_rolls_back_on_error(tmp_path):
    s = Store(tmp_path / "judge.db")
    with pytest.raises(RuntimeError), s.transaction():
        s.store_inbound("<b@x>", b"raw", "test")
        raise RuntimeError("crash")
    assert s.pending_inbox() == []
    con = sqlite3.connect(tmp_path / "judge.db")
    assert con.execute("SELECT count(*) FROM inbox").fetchone()[0] == 0


def test_embedded_default_config():
    cfg = load_config(None)
    assert cfg.address == "judge@localhost" and cfg.database == "judge.db"
    assert cfg.intake.mode == "smtp" and cfg.intake.listen == "127.0.0.1:2525"
    assert cfg.outbound.mode == "maildir" and cfg.outbound.maildir == "outgoing"


def test_config_file_keys_and_paths(tmp_path):
    p = tmp_path / "judge.toml"
    p.write_text('[judge]\naddress = "j@example.org"\ndatabase = "data/j.db"\n'
                 '[intake]\nmode = "imap"\nhost = "imap.example.org"\nport = 993\nssl = true\n'
                 'starttls = false\nuser = "j"\npassword = "pw"\nfolder = "INBOX"\n'
                 'listen = "127.0.0.1:2525"\n'
                 '[outbound]\nmode = "smtp"\nhost = "smtp.example.org"\nport = 587\n'
                 'ssl = false\nstarttls = true\nuser = "j"\npassword = "pw"\n'
                 'maildir = "out"\n')
    cfg = load_config(p)
    assert cfg.database_path == tmp_path / "data" / "j.db"
    assert cfg.maildir_path == tmp_path / "data" / "out"
    assert (cfg.intake.mode, cfg.intake.port, cfg.intake.ssl) == ("imap", 993, True)
    assert (cfg.outbound.mode, cfg.outbound.starttls) == ("smtp", True)


@pytest.mark.parametrize("text, message", [
    ('[intake]\nmode = "pop3"\n', '[intake] mode'),
    ('[intake]\nport = "x"\n', "[intake] port: expected a whole number, got 'x'"),
    ('[outbound]\nssl = "yes"\n', "[outbound] ssl: expected true or false"),
    ('[judge]\naddres = "x@y"\n', "[judge] addres: unknown key"),
    ('[judge\n', "judge.toml"),
])
def test_bad_config_says_which_key(tmp_path, text, message):
    p = tmp_path / "judge.toml"
    p.write_text(text)
    with pytest.raises(ConfigError, match=message.replace("[", r"\[").replace("]", r"\]")):
        load_config(p)
