"""MQTT topic layout, version 1 (``docs/protocol.md`` part 9).

``trutnet/v1/lobby/<table>``            retained table announcement (host; cleared by will)
``trutnet/v1/table/<table>/log``        log entries, QoS 1
``trutnet/v1/table/<table>/join``       join requests to the host, QoS 1
``trutnet/v1/table/<table>/sync``       "send me what follows my head", QoS 1
``trutnet/v1/table/<table>/presence/<fp>``  retained presence of a player (key fingerprint),
                                        last will "offline"
``trutnet/v1/table/<table>/done/<fp>``  retained "this process has the whole log" (no will)
``trutnet/v1/table/<table>/notice``     stall reports and other notices, QoS 1
``trutnet/v1/table/<table>/vote``       signed votes to replace a stalled seat, QoS 1
``trutnet/v1/table/<table>/chat``       signed chat messages of seats and spectators, QoS 1
``trutnet/v1/table/<table>/signs``      signed signs, draws on them and cards shown, QoS 1
``trutnet/v1/table/<table>/watchers/<fp>``  retained signed presence of a spectator (key
                                        fingerprint), cleared by its last will
``trutnet/v1/invite/<place>[/ask|/confirm|/answer/<id>]``  an invitation's exchange
                                        (9.9, 9.10: ``runtime/invitations.py``)
"""

from __future__ import annotations

ROOT = "trutnet/v1"


def lobby(table: bytes) -> str:
    return f"{ROOT}/lobby/{table.hex()}"


LOBBY_ALL = f"{ROOT}/lobby/+"


def table_topic(table: bytes, leaf: str) -> str:
    return f"{ROOT}/table/{table.hex()}/{leaf}"


def log(table: bytes) -> str:
    return table_topic(table, "log")


def join(table: bytes) -> str:
    return table_topic(table, "join")


def sync(table: bytes) -> str:
    return table_topic(table, "sync")


def vote(table: bytes) -> str:
    return table_topic(table, "vote")


def notice(table: bytes) -> str:
    return table_topic(table, "notice")


def chat(table: bytes) -> str:
    return table_topic(table, "chat")


def signs(table: bytes) -> str:
    return table_topic(table, "signs")


def presence(table: bytes, seat: int | str) -> str:
    return table_topic(table, f"presence/{seat}")


def done(table: bytes, seat: int | str) -> str:
    return table_topic(table, f"done/{seat}")


def watcher(table: bytes, fp: str) -> str:
    return table_topic(table, f"watchers/{fp}")


def table_of(topic: str) -> bytes | None:
    parts = topic.split("/")
    if len(parts) >= 4 and parts[:2] == ["trutnet", "v1"] and parts[2] in ("table", "lobby"):
        try:
            value = bytes.fromhex(parts[3])
        except ValueError:
            return None
        return value if len(value) == 16 else None
    return None


INVITE = f"{ROOT}/invite"


def invite_claim(place: int | str) -> str:
    """A code's nameplate, or a private table's id in hex: its host's retained claim."""
    return f"{INVITE}/{place}"


def invite_ask(place: int | str) -> str:
    return f"{INVITE}/{place}/ask"


def invite_confirm(place: int | str) -> str:
    return f"{INVITE}/{place}/confirm"


def invite_answer(place: int | str, ask_id: bytes) -> str:
    return f"{INVITE}/{place}/answer/{ask_id.hex()}"
