"""The screen's colours: one style for every class the frame's and the games' lines
name (``class:turn``, ``class:blame``, a suit's ``class:red``...)."""

from __future__ import annotations

from prompt_toolkit.styles import Style

STYLE = Style.from_dict(
    {
        "title": "bold",
        "bold": "bold",
        "dim": "#888888",
        "red": "#ff4444 bold",
        "black": "bold",
        "blue": "#4499ff bold",  # with red, black and green: a four-colour deck's suits
        "green": "#33cc33 bold",
        "me": "bold #44aaff",
        "warn": "#ffaa00",
        "turn": "bold #44ff44",
        "selected": "reverse",
        "message": "#ffaa00",
        "ok": "#44cc44",
        "blame": "bold #ff2222",
    }
)
