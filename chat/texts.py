"""Every sentence the agent says on its own, localized (msgids in English)."""

from django.utils.translation import gettext, gettext_noop, override

NO_SUPPORT = gettext_noop("I couldn't find any references to this in the knowledge base.")
CANNOT_VERIFY = gettext_noop("I cannot verify that.")
LLM_UNAVAILABLE = gettext_noop("I can't answer right now. Please try again in a moment.")
HANDOFF_OFFLINE = gettext_noop(
    "No one is available to chat right now. We can call you back or create a support ticket: "
    'write for example "call me on 070-123 45 67" or "create a ticket".'
)
ACTION_PROMPTS = {
    "schedule_callback": gettext_noop("Would you like us to call you back? Please confirm below."),
    "send_sms": gettext_noop("Would you like us to send you a text message? Please confirm below."),
    "create_ticket": gettext_noop(
        "Would you like us to create a support ticket? Please confirm below."
    ),
}


def localized(msgid: str, language: str) -> str:
    """``msgid`` in ``language`` ("sv" or "en") through Django's catalogs."""
    with override(language):
        return gettext(msgid)
