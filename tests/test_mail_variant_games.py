"""Variant games through the judge's real acting code (in process, Maildir out): orders as the
variant's rules write them, and acknowledgements and reports that show its units its way."""

from __future__ import annotations

from mailkit import POWERS, InProcessJudge


def _addr(p: str) -> str:
    return f"{p.lower()}@players.test"


def _start(judge: InProcessJudge, game: str, variant: str, powers: tuple[str, ...]) -> None:
    judge.send("gm@players.test", f"CREATE {game} masterpw VARIANT {variant}\nOPEN")
    for p in powers:
        judge.send(_addr(p), f"SIGNON {p} {game} pw-{p.lower()}")
    sent = judge.send("gm@players.test", f"MASTER {game} masterpw\nSTART")
    assert any("has started" in m.subject for m in sent)


def _process(judge: InProcessJudge, game: str) -> dict[str, str]:
    sent = judge.send("gm@players.test", f"MASTER {game} masterpw\nPROCESS")
    return {m.rcpt: m.body for m in sent if "results" in m.subject}


def test_stackem_game_reports_stacks(tmp_path) -> None:
    judge = InProcessJudge(tmp_path)
    _start(judge, "se1", "stackem", POWERS)
    # Rule 1: two French armies may end in one space.
    reply = judge.send(_addr("FRANCE"), "SIGNON FRANCE se1 pw-france\nA PAR-BUR\nA MAR-BUR")
    assert not reply[0].subject.startswith("[ERROR]"), reply[0].body
    reports = _process(judge, "se1")
    text = reports[_addr("ENGLAND")]
    assert "2A BUR" in text
    # Rule 2: a counted order moves both armies; the acknowledgement writes it back so.
    reply = judge.send(_addr("FRANCE"), "SIGNON FRANCE se1 pw-france\n2A BUR-MUN")
    assert "2A BUR - MUN" in reply[0].body, reply[0].body
    reports = _process(judge, "se1")
    assert "2A BUR - MUN" in reports[_addr("GERMANY")]


def test_multiplicity_game_builds_a_multiple_unit(tmp_path) -> None:
    judge = InProcessJudge(tmp_path)
    _start(judge, "mu1", "multiplicity", POWERS)
    # The game opens with Winter 1900 builds: an army of strength 2 placed in Paris.
    reply = judge.send(_addr("FRANCE"), "SIGNON FRANCE mu1 pw-france\nBUILD 2A PAR\nBUILD F BRE")
    assert not reply[0].subject.startswith("[ERROR]"), reply[0].body
    reports = _process(judge, "mu1")
    assert "2A PAR" in reports[_addr("ITALY")]
    reply = judge.send(_addr("FRANCE"), "SIGNON FRANCE mu1 pw-france\n2A PAR - BUR")
    assert not reply[0].subject.startswith("[ERROR]"), reply[0].body
    reports = _process(judge, "mu1")
    assert "2A BUR" in reports[_addr("GERMANY")]


def test_hoplite_game_uses_the_bc_calendar(tmp_path) -> None:
    from judge.variants import get_variant

    powers = get_variant("hoplite").board.powers
    judge = InProcessJudge(tmp_path)
    _start(judge, "hw1", "hoplite", powers)
    sent = judge.send(_addr(powers[0]), f"SIGNON {powers[0]} hw1 pw-{powers[0].lower()}\n")
    assert "451" in sent[0].body
    reports = _process(judge, "hw1")
    assert reports and all("450" in body for body in reports.values())


def test_multiplicity_merge_replaces_and_covers_each_of_its_units(tmp_path) -> None:
    """A MERGE is an order for each unit it names: a later merge replaces an earlier order
    for its second unit (the reply says so), a later order for that unit replaces the merge,
    and a merge leaves none of its units 'without orders'."""
    judge = InProcessJudge(tmp_path)
    _start(judge, "mu2", "multiplicity", POWERS)
    judge.send(_addr("FRANCE"), "SIGNON FRANCE mu2 pw-france\nBUILD A PAR\nBUILD A MAR\n"
                                "BUILD F BRE")
    _process(judge, "mu2")
    signon = "SIGNON FRANCE mu2 pw-france\n"
    reply = judge.send(_addr("FRANCE"), signon + "A PAR & A MAR MERGE BUR\nA MAR - SPA\n"
                                        "F BRE H")[0].body
    assert "replaced by the later order A MAR - SPA" in reply, reply
    reply = judge.send(_addr("FRANCE"), signon + "A MAR - SPA\nA PAR & A MAR MERGE BUR\n"
                                        "F BRE H")[0].body
    assert "replaced by the later order A PAR & A MAR MERGE 2A BUR" in reply, reply
    assert "without orders" not in reply, reply
    reports = _process(judge, "mu2")
    assert "2A BUR" in reports[_addr("GERMANY")]


def test_stackem_a_later_order_replaces_one_unit_of_a_counted_order(tmp_path) -> None:
    """Stack 'em: '2A BUR-MUN' then 'A BUR-PIC' is an order for each army, the later one
    replacing one unit of the counted order; the reply shows what stands (it accepted both
    lines and the adjudicator then failed one 'already has an order')."""
    judge = InProcessJudge(tmp_path)
    _start(judge, "se2", "stackem", POWERS)
    judge.send(_addr("FRANCE"), "SIGNON FRANCE se2 pw-france\nA PAR-BUR\nA MAR-BUR")
    _process(judge, "se2")
    reply = judge.send(_addr("FRANCE"), "SIGNON FRANCE se2 pw-france\n2A BUR-MUN\n"
                                        "A BUR-PIC")[0]
    assert not reply.subject.startswith("[ERROR]"), reply.body
    assert "A BUR - MUN" in reply.body and "2A BUR - MUN" not in reply.body, reply.body
    assert "A BUR - PIC" in reply.body, reply.body
    reports = _process(judge, "se2")
    text = reports[_addr("ENGLAND")]
    assert "already has an order" not in text, text
    assert "A PIC" in text, text


def test_multiplicity_builds_are_counted_by_components_in_the_reply(tmp_path) -> None:
    """Multiplicity: 'BUILD 2A PAR' is two builds; with three due the mail kept a third line
    'BUILD F BRE', which the adjudicator then refused. The reply now refuses it, saying why,
    and in the initial placement a second build on one centre is refused as the rules do."""
    judge = InProcessJudge(tmp_path)
    _start(judge, "mu3", "multiplicity", POWERS)
    signon = "SIGNON FRANCE mu3 pw-france\n"
    reply = judge.send(_addr("FRANCE"), signon + "BUILD A PAR\nBUILD A PAR\nBUILD A MAR")[0]
    assert "a unit was already built in Paris" in reply.body, reply.body
    reply = judge.send(_addr("FRANCE"), signon + "BUILD 2A PAR\nBUILD A MAR\nBUILD F BRE")[0]
    assert reply.subject.startswith("[ERROR]"), reply.body
    assert "BUILD F BRE" in reply.body and "no more builds due" in reply.body, reply.body
    reports = _process(judge, "mu3")
    assert "2A PAR" in reports[_addr("ITALY")] and "F BRE" not in reports[_addr("ITALY")]
