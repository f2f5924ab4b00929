"""Room codes: the letters a code is made of, its length, and the check every entry point applies.

Kept apart from :mod:`.store` (SQLAlchemy) so that the page builder can hand the
same rule to the browser (``web/classroom.js`` shows or sends no other code).
"""

from __future__ import annotations

#: Letters of a room code: no 0/O, 1/I/L, so a code read off a projector is typed right.
CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"
#: Letters in a room code.
CODE_LENGTH = 6


def normalise_code(code) -> str | None:
    """A room code as stored (stripped, upper case), or None when ``code`` cannot be one.

    >>> normalise_code(" ab2cd3 "), normalise_code("<img src=x>")
    ('AB2CD3', None)
    """
    if not isinstance(code, str):
        return None
    code = code.strip().upper()
    if len(code) != CODE_LENGTH or any(c not in CODE_ALPHABET for c in code):
        return None
    return code
