"""The ``judge`` command: ``serve``, ``check``, ``adjudicate``, ``variants`` and ``archive`` (the
contract of DESIGN.md), and ``render`` (map pictures, issue 10)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from judge import __version__


def _cmd_variants(args: argparse.Namespace) -> int:
    from judge.variants import get_variant, variant_names

    for name in variant_names():
        v = get_variant(name)
        print(f"{name}\t{v.title}")
    return 0


def _fail(message: str) -> int:
    print(f"judge: {message}", file=sys.stderr)
    return 2


def read_orders_file(text: str) -> list[tuple[str, str]]:
    """``POWER:`` blocks of order lines -> [(power, line), ...] in file order.

    A line ``POWER: order`` (power and order on one line) is accepted too. Blank lines and
    lines starting with ``#`` are skipped. Raises ValueError for an order before any header.
    """
    out: list[tuple[str, str]] = []
    power: str | None = None
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        head, sep, rest = line.partition(":")
        if sep and head.strip() and " " not in head.strip():
            power = head.strip().upper()
            if rest.strip():
                out.append((power, rest.strip()))
            continue
        if power is None:
            raise ValueError(f"order {line!r} comes before any 'POWER:' header")
        out.append((power, line))
    return out


def _batch_case(line: str, default_variant: str | None) -> dict:
    """One case of ``--batch``: ``{"variant": V, "position": {...}, "orders": TEXT or
    {POWER: [line, ...]}}`` (optional ``"id"``, echoed) -> the outcome as ``--json`` prints
    it. Raises ValueError (or KeyError for an unknown variant) saying what is wrong."""
    from judge.engine.position import parse_json_object
    from judge.variants import get_variant

    try:
        case = parse_json_object(line, "a case (with position and orders)")
    except json.JSONDecodeError as exc:
        raise ValueError(f"not JSON: {exc}") from None
    position = case.get("position")
    if not isinstance(position, dict):
        raise ValueError("the case has no \"position\" object")
    name = case.get("variant") or default_variant or position.get("variant")
    if not isinstance(name, str):
        raise ValueError("the case names no variant (\"variant\", or --variant)")
    variant = get_variant(name)
    orders = case.get("orders", "")
    if isinstance(orders, str):
        lines = read_orders_file(orders)
    elif isinstance(orders, dict) and all(
            isinstance(v, list) and all(isinstance(x, str) for x in v) for v in orders.values()):
        lines = [(power.upper(), text) for power, texts in orders.items() for text in texts]
    else:
        raise ValueError("\"orders\" must be the orders file's text or {POWER: [line, ...]}")
    outcome = variant.adjudicate_lines(variant.read_position(position), lines)
    return variant.outcome_json(outcome)


def _cmd_batch(args: argparse.Namespace) -> int:
    """``--batch CASES.jsonl``: one JSON outcome line per case line (blank lines skipped); a
    case that cannot be read gets ``{"error": TEXT}`` (with its ``id``) and a line on stderr,
    and the exit status is then 2."""
    from judge.engine.position import parse_json_object

    try:
        text = Path(args.batch).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        return _fail(f"cannot read input: {exc}")
    status = 0
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:  # read as the case is: a line naming "id" twice echoes neither
            case_id = parse_json_object(line).get("id")
        except ValueError:
            case_id = None
        try:
            out = _batch_case(line, args.variant)
        except KeyError as exc:
            out = {"error": str(exc.args[0])}
        except ValueError as exc:
            out = {"error": str(exc)}
        if "error" in out:
            status = 2
            print(f"judge: line {number}: {out['error']}", file=sys.stderr)
        if case_id is not None:
            out = {"id": case_id, **out}
        sys.stdout.write(json.dumps(out) + "\n")
    return status


def _cmd_adjudicate(args: argparse.Namespace) -> int:
    from judge.engine.position import parse_json_object
    from judge.variants import get_variant

    if args.batch:
        if args.position or args.orders:
            return _fail("--batch takes its positions and orders from the cases file, not "
                         "--position or --orders")
        return _cmd_batch(args)
    missing = [f"--{k}" for k in ("variant", "position", "orders") if not getattr(args, k)]
    if missing:
        return _fail(f"adjudicate needs {' and '.join(missing)} (or --batch CASES.jsonl)")
    try:
        variant = get_variant(args.variant)
    except KeyError as exc:
        return _fail(str(exc.args[0]))
    try:
        data = parse_json_object(Path(args.position).read_text(encoding="utf-8"))
        position = variant.read_position(data)
        lines = read_orders_file(Path(args.orders).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        return _fail(f"cannot read input: {exc}")
    except ValueError as exc:
        return _fail(f"unreadable input: {exc}")
    outcome = variant.adjudicate_lines(position, lines)
    if args.json:
        json.dump(variant.outcome_json(outcome), sys.stdout)
        sys.stdout.write("\n")
        return 0
    print(f"{variant.title}: {position.phase.long_name} ({position.phase})")
    for r in outcome.results:
        reason = f" ({r.reason})" if r.reason else ""
        print(f"  {r.power:<10} {r.order:<32} {r.result}{reason}")
    nxt = outcome.position
    print(f"Next phase: {nxt.phase} ({nxt.phase.long_name})")
    # Dislodged units as the variant writes them (Stack 'em: "2A RUH" for two armies).
    for power, entries in variant.write_position(nxt)["dislodged"].items():
        for entry in entries:
            options = ", ".join(entry.get("retreats") or ()) or "none: it will be disbanded"
            print(f"  dislodged: {power} {entry['unit']} (retreats: {options})")
    if nxt.winner:
        print(f"Winner: {nxt.winner}")
    return 0


def _cmd_render(args: argparse.Namespace) -> int:
    """Draw a position (and, with orders, the phase's orders as arrows) as SVG or PNG."""
    from judge.engine.position import parse_json_object
    from judge.render import render_svg, svg_to_png
    from judge.variants import get_variant

    try:
        variant = get_variant(args.variant)
    except KeyError as exc:
        return _fail(str(exc.args[0]))
    out = Path(args.out)
    if out.suffix.lower() not in (".png", ".svg"):
        return _fail(f"--out must end in .png or .svg, not {out.name!r}")
    try:
        data = parse_json_object(Path(args.position).read_text(encoding="utf-8"))
        position = variant.read_position(data)
        lines = read_orders_file(Path(args.orders).read_text(encoding="utf-8")) \
            if args.orders else []
    except (OSError, UnicodeDecodeError) as exc:
        return _fail(f"cannot read input: {exc}")
    except ValueError as exc:
        return _fail(f"unreadable input: {exc}")
    results = []
    if lines:  # the orders are drawn as adjudicated: failed ones are marked
        results = [r.to_json() for r in variant.adjudicate_lines(position, lines).results]
    svg = render_svg(variant.name, variant.write_position(position), results,
                     title=variant.title, supply_centres=variant.board.supply_centres)
    if out.suffix.lower() == ".svg":
        out.write_text(svg, encoding="utf-8")
    else:
        out.write_bytes(svg_to_png(svg))
    return 0


def _cmd_serve(args: argparse.Namespace) -> int:
    from judge.service import serve

    return serve(args.config, log_level=args.log_level)


def _cmd_check(args: argparse.Namespace) -> int:
    from judge.check import run_check

    return run_check(args.config)


def _cmd_archive(args: argparse.Namespace) -> int:
    """Write the whole web archive (every game's public mail, pages and feeds) to --out."""
    from judge.archive.write import rebuild
    from judge.config import ConfigError, check_archive_folder, load_config
    from judge.storage import Store, UnusableDatabase, inspect_database

    try:
        cfg = load_config(args.config)
        check_archive_folder(cfg, Path(args.out), "--out")  # `--out .` beside judge.db
    except ConfigError as exc:
        return _fail(str(exc))
    if not cfg.database_path.is_file():
        return _fail(f"no database at {cfg.database_path}: nothing to archive")
    try:
        inspect_database(cfg.database_path)
    except UnusableDatabase as exc:
        return _fail(str(exc))
    store = Store(cfg.database_path)
    try:
        changed = rebuild(store, cfg, Path(args.out))
    except OSError as exc:
        return _fail(f"cannot write the archive to {args.out}: {exc.strerror or exc}")
    finally:
        store.close()
    print(f"judge: archive written to {args.out} ({changed} file(s) changed)")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="judge", description="A play-by-email Diplomacy judge.")
    parser.add_argument("--version", action="version", version=f"judge {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("serve", help="run the judge: intake, scheduler, sender")
    p.add_argument("--config", help="TOML config file (default: embedded defaults)")
    p.add_argument("--log-level", type=str.lower,
                   choices=("debug", "info", "warning", "error"),
                   help="log this much and more (default: [log] level, else info)")
    p.set_defaults(func=_cmd_serve)

    p = sub.add_parser("check", help="check the config and try the mail servers; exit 0 if all work")
    p.add_argument("--config", help="TOML config file (default: embedded defaults)")
    p.set_defaults(func=_cmd_check)

    p = sub.add_parser("adjudicate", help="adjudicate one phase from files")
    p.add_argument("--variant", help="the variant (with --batch: for cases that name none)")
    p.add_argument("--position", help="position JSON file")
    p.add_argument("--orders", help="orders text file (POWER: blocks)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--batch", metavar="CASES.jsonl",
                   help="one JSON case per line in, one JSON outcome per line out")
    p.set_defaults(func=_cmd_adjudicate)

    p = sub.add_parser("render", help="draw a position (and its orders) as PNG or SVG")
    p.add_argument("--variant", required=True)
    p.add_argument("--position", required=True, help="position JSON file")
    p.add_argument("--orders", help="orders text file (POWER: blocks): drawn as arrows")
    p.add_argument("--out", required=True, help="picture to write: map.png or map.svg")
    p.set_defaults(func=_cmd_render)

    p = sub.add_parser("archive", help="write the whole web archive of public pages and feeds")
    p.add_argument("--out", required=True, help="the folder to write it to")
    p.add_argument("--config", help="TOML config file (default: embedded defaults)")
    p.set_defaults(func=_cmd_archive)

    p = sub.add_parser("variants", help="list the variants this judge runs")
    p.set_defaults(func=_cmd_variants)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return int(args.func(args) or 0)


if __name__ == "__main__":
    sys.exit(main())
