"""Chat session keys: only a key this server issued binds a browser to a conversation.

A planted ``sessionid`` cookie (set by another page on the same site, a shared
computer, a link) would otherwise let whoever chose it read the conversation
its victim then has. So a key counts only when

| key | counts because |
|---|---|
| ``issue()``'s: 20 random characters and 16 of their HMAC (``SECRET_KEY``, salted) | the server made it; checked without the database |
| a Django session the session store holds (a staff member who logged in) | Django made it |
| anything else | nothing: the chat page replaces the cookie with an issued key, a socket gets a conversation of its own that no later socket resumes |

All characters are Django's session-key characters, so Django's session
middleware takes the cookie as it takes any.
"""

from importlib import import_module

from django.conf import settings
from django.contrib.sessions.backends.base import VALID_KEY_CHARS
from django.utils.crypto import constant_time_compare, get_random_string, salted_hmac

_SALT = "chat.sessionkeys"
_NONCE = 20
_MAC = 16


def _mac(nonce: str) -> str:
    return salted_hmac(_SALT, nonce).hexdigest()[:_MAC]


def issue() -> str:
    """A new chat session key."""
    nonce = get_random_string(_NONCE, VALID_KEY_CHARS)
    return nonce + _mac(nonce)


def is_signed(key: str) -> bool:
    """Whether ``issue()`` made ``key`` (no database)."""
    return len(key) == _NONCE + _MAC and constant_time_compare(key[_NONCE:], _mac(key[:_NONCE]))


def is_issued(key: str) -> bool:
    """Whether ``key`` may bind a conversation: signed by us, or a stored Django session.

    Touches the database only for a key that is not signed.
    """
    if not key:
        return False
    if is_signed(key):
        return True
    store = import_module(settings.SESSION_ENGINE).SessionStore
    return store().exists(key)
