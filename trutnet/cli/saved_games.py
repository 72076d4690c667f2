"""``trutnet verify`` and ``trutnet replay``: a saved game's transcript, checked offline
(every signature, proof and move, then the table id and each seat's key fingerprint to
compare with the other players) or stepped through on a spectator's screen.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from pathlib import Path
from typing import Any

from trutnet.cli.arguments import bounded
from trutnet.i18n import N_, _, ngettext


def add_saved_game_commands(sub: Any) -> None:
    """``verify`` and ``replay``: a saved game's transcript."""
    vp = sub.add_parser(
        "verify",
        help=_("check a saved game transcript offline"),
        description=_(
            "Check every signature, proof and move of a saved game, and print the "
            "table id and each seat's key fingerprint to compare with the other players."
        ),
    )
    vp.add_argument("file", type=Path, help=_("a transcript (the game's .json file)"))

    rp = sub.add_parser(
        "replay",
        help=_("step through a saved game on the spectator's screen"),
        description=_(
            "Read a saved game as a spectator (every signature, proof and move "
            "checked) and step through it move by move: ←/→ a move, ↑/↓ a round, Home/End, "
            "q leaves. A game played on this machine is shown as your seat saw it (your "
            "cards, and no one else's); any other as a spectator saw it: no hand."
        ),
    )
    rp.add_argument(
        "file",
        type=Path,
        nargs="?",
        help=_(
            "a transcript (the game's .json file); without it, the newest saved game "
            "(trutnet games lists them)"
        ),
    )
    rp.add_argument(
        "--at", type=_move_number, default=1, help=_("start at this move (1: the first)")
    )
    rp.add_argument(
        "--spectator",
        action="store_true",
        help=_(
            "show what a spectator saw, without your cards (by default, a game you "
            "played here is shown as your seat saw it)"
        ),
    )
    rp.add_argument(
        "--print",
        action="store_true",
        help=_(
            "print that move's screen and stop (what it does when the output is not a terminal)"
        ),
    )


def _say(line: str, width: int = 80) -> None:
    """A line of ``verify``'s report, wrapped at a terminal's 80 columns: the rest of a
    long line goes on under it, indented."""
    import textwrap

    indent = " " * (len(line) - len(line.lstrip(" ")) + 4)
    wrapped = textwrap.fill(
        line, width, subsequent_indent=indent, break_long_words=False, break_on_hyphens=False
    )
    print(wrapped)


_move_number = bounded(
    int, N_("a move number"), lambda n: 1 <= n <= 1_000_000, N_("a move from 1, not {text}")
)


def cmd_replay(args: argparse.Namespace) -> int:
    from trutnet.client.replay import ReplayScreen, frame_text, load_replay
    from trutnet.store import StoreError, read_transcript

    if args.file is None:  # the newest saved game
        from trutnet.cli.folders import data_dir

        saved = sorted((data_dir() / "games").glob("*.json"), key=lambda p: p.stat().st_mtime)
        if not saved:
            print(
                _("trutnet replay: no saved game in {folder}").format(folder=data_dir() / "games"),
                file=sys.stderr,
            )
            return 2
        args.file = saved[-1]
        print(
            _("trutnet replay: the newest saved game, {file}").format(file=args.file),
            file=sys.stderr,
        )
    try:
        transcript = read_transcript(args.file)
        table_id, wires = transcript.table_id, transcript.entries
        view = None if args.spectator else _view_of(args.file, table_id)
        replay = load_replay(table_id, wires, view, transcript.signs)
    except (StoreError, ValueError) as exc:
        print(
            _("trutnet {command}: {problem}").format(command="replay", problem=exc), file=sys.stderr
        )
        return 2 if isinstance(exc, StoreError) else 1
    if replay.failure is not None:
        print(
            _(
                "trutnet replay: the transcript stops verifying at {failure}; replayed up to there"
            ).format(failure=replay.failure),
            file=sys.stderr,
        )
    if replay.seat is not None:
        said = _(
            "trutnet replay: as your seat saw it (seat {seat}, {name});"
            " --spectator: without its cards"
        )
        name = replay.names[replay.seat] if replay.seat < len(replay.names) else "?"
        print(said.format(seat=replay.seat, name=name), file=sys.stderr)
    at = min(args.at, len(replay.frames)) - 1
    if args.print or not sys.stdout.isatty():
        print(frame_text(replay, at))
    else:
        ReplayScreen(replay, at).app.run()
    return 1 if replay.failure is not None else 0


def _view_of(transcript: Path, table_id: bytes) -> Any:
    """The view of the seat that played ``transcript`` here, if one was kept."""
    from trutnet.seat_views import read_view, view_path
    from trutnet.store import StoreError

    path = view_path(Path(transcript))
    if not path.exists():
        return None
    view = read_view(path)
    if view.table_id != table_id:
        raise StoreError(_("{path} is the view of another table").format(path=path))
    return view


def cmd_verify(args: argparse.Namespace) -> int:
    from trutnet.protocol.audit import audit
    from trutnet.store import StoreError, read_transcript

    try:
        transcript = read_transcript(args.file)
    except StoreError as exc:
        print(
            _("trutnet {command}: {problem}").format(command="verify", problem=exc), file=sys.stderr
        )
        return 2
    table_id, wires = transcript.table_id, transcript.entries
    report = audit(table_id, wires, signs=transcript.signs, evidence=transcript.evidence)
    print(_("table {id}").format(id=table_id.hex()))
    _say_seats(report)
    names = [name for name, _key in report.opened]  # who played each seat from the start
    frontend = _narrate(report, names)
    _say_counts(report, len(wires))
    if report.failure is not None and report.failed_at is None and not report.complete:
        return _ended_early(report, names)
    if report.failure is not None:
        if report.failed_at is not None:
            failed = _("FAILED: entry {entry}: {failure}").format(
                entry=report.failed_at, failure=report.failure
            )
        else:
            failed = _("FAILED: {failure}").format(failure=report.failure)
        print(failed, file=sys.stderr)
        if report.blame is not None:
            from trutnet.client.blame_words import blame_said

            blamed = blame_said(report.blame.seat, report.blame.rule, names or report.replica.names)
            print(_("blame: {blame}").format(blame=blamed), file=sys.stderr)
        return 1
    if transcript.chat and not _chat_verified(table_id, transcript.chat, report):
        return 1
    if transcript.signs and not _signs_verified(report):
        return 1
    _say_outcome(report, names, frontend)
    return 0


def _ended_early(report: Any, names: list[str]) -> int:
    """A log that stops before the game's result: the cheat its evidence proves (the
    table stopped on it, 7.5), or that it ends early; status 1 either way."""
    from trutnet.client.blame_words import blame_said

    proven = report.proven
    if proven is None:
        said = _("FAILED: the transcript ends before the game's result (phase {phase})")
        print(said.format(phase=report.replica.phase), file=sys.stderr)
        if report.unproven is not None:
            print(_("its evidence proves no cheat: {why}").format(why=report.unproven))
        return 1
    blamed = blame_said(proven.seat, proven.rule, names or report.replica.names)
    _say(_("CHEAT PROVEN: {blame}").format(blame=blamed))
    _say(
        _("  the table stopped on an entry signed by that seat's key: {detail}").format(
            detail=proven.detail
        )
    )
    print(_("the game has no result: the table stopped on that cheat"), file=sys.stderr)
    return 1


def _say_seats(report: Any) -> None:
    """Each seat's player and key, and who replaced whom."""
    from trutnet.crypto.identity import fingerprint

    final = report.seated
    for seat, (name, key) in enumerate(report.opened):
        line = _("  seat {seat}: {name:<32} key {fingerprint}").format(
            seat=seat, name=name, fingerprint=fingerprint(key)
        )
        if seat < len(final) and final[seat][1] != key:
            line += _("  (replaced: now {name}, key {fingerprint})").format(
                name=final[seat][0], fingerprint=fingerprint(final[seat][1])
            )
        _say(line)


def _narrate(report: Any, names: list[str]) -> Any:
    """The game in the words of its front-end (if it has one, which is returned), and
    the table's changes (7.7: replaced seats, an abandoned game)."""
    from trutnet.client.frontend import NoFrontend, frontend_for
    from trutnet.protocol.replace import describe

    state = report.replica.state
    frontend = None
    if state is not None:
        with contextlib.suppress(NoFrontend):  # the game's narration, if it has one
            frontend = frontend_for(state.game.name)
    if frontend is not None:
        for event in frontend.events(state):
            for line in frontend.narrate(event, state, names or None):
                _say(line)
    for change in report.replica.changes:
        _say(describe(change))
    return frontend


def _say_counts(report: Any, total: int) -> None:
    """What was checked, at most 80 columns a line."""
    counts = report.counts
    _say(
        _("entries checked: {checked} of {total} (signatures, chain, turns)").format(
            checked=report.entries, total=total
        )
    )
    _say(
        _(
            "shuffle proofs: {shuffles}; share batches: {shares}; "
            "decisions: {decisions}; checkpoints: {checkpoints}"
        ).format(
            shuffles=counts["shuffle"],
            shares=counts["shares"],
            decisions=counts["act"] + counts["seal"],
            checkpoints=counts["checkpoint"],
        )
    )
    if counts["blind"]:
        _say(
            _("equality tests: {blindings} blindings, {shares} shares").format(
                blindings=counts["blind"], shares=counts["unblind"]
            )
        )


def _say_outcome(report: Any, names: list[str], frontend: Any) -> None:
    """The valid transcript's end: who won, or whom the abandoned game waited for."""
    from trutnet.selfplay import who_won

    state = report.replica.state
    assert state is not None
    if report.replica.abandoned is not None:
        seat = report.replica.abandoned.seat
        who = (
            _("{name} (seat {seat})").format(name=names[seat], seat=seat)
            if 0 <= seat < len(names)
            else _("seat {seat}").format(seat=seat)
        )
        _say(
            _("OK: the transcript is valid; the game was abandoned waiting for {who}").format(
                who=who
            )
        )
        return
    teams = [list(t) for t in state.game.teams()]
    score = frontend.score(state) if frontend is not None else ""
    score = f", {score}" if score else ""
    winner = who_won(teams, state.winning_team(), report.replica.names)
    _say(_("OK: the transcript is valid; {winner}{score}").format(winner=winner, score=score))
    print(_("compare the table id and the key fingerprints with the other players"))


def _chat_verified(table_id: bytes, wires: list[bytes], report: Any) -> bool:
    """The transcript's chat (9.6): one line for what was said, or FAILED."""
    from trutnet.protocol.chat import audit_chat

    lines, failure = audit_chat(table_id, wires, [report.opened, report.seated])
    if failure is not None:
        print(_("FAILED: {failure}").format(failure=failure), file=sys.stderr)
        return False
    by_seats = sum(1 for line in lines if line.seat is not None)
    said = _("{seats} from seats, {spectators} from spectators").format(
        seats=by_seats, spectators=len(lines) - by_seats
    )
    count = ngettext("{count} message", "{count} messages", len(lines)).format(count=len(lines))
    _say(_("chat: {count} ({said}), each signed by its author").format(count=count, said=said))
    return True


def _signs_verified(report: Any) -> bool:
    """The transcript's signs (9.8), checked along the log without learning one: one
    line saying how many were made and caught, or FAILED."""
    if report.sign_failure is not None:
        print(_("FAILED: {failure}").format(failure=report.sign_failure), file=sys.stderr)
        return False
    signs = list(report.signs.signs.values()) if report.signs is not None else []
    caught = sum(1 for sign in signs for c in sign.caught.values() if c)
    unshown = [
        (sign, seat)
        for sign in signs
        for seat, c in sign.caught.items()
        if c and seat not in sign.shown
    ]
    made = ngettext("{count} sign", "{count} signs", len(signs)).format(count=len(signs))
    _say(
        _(
            "signs: {made}, caught {caught} times; each one card of its menu, shown alike "
            "to partners and catchers"
        ).format(made=made, caught=caught)
    )
    for sign, seat in unshown:  # the transcript ends before the card reached the catcher
        _say(
            _(
                "  sign {number} of seat {seat}: caught by seat {by}, not shown it in this "
                "transcript"
            ).format(number=sign.seq, seat=sign.seat, by=seat)
        )
    return True
