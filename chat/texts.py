"""Every sentence the agent and its page say on their own, localized (msgids in English).

Server sentences are translated with ``localized``; the page's own strings
(``PAGE``) are translated per request by ``page_strings`` and handed to the
page's script, so one catalog (``locale/<lang>/LC_MESSAGES/django.po``) holds
everything a customer reads.
"""

from babel.dates import format_date, format_time
from django.utils.translation import gettext, gettext_noop, override

NO_SUPPORT = gettext_noop("I couldn't find any references to this in the knowledge base.")
CANNOT_VERIFY = gettext_noop("I cannot verify that.")
LLM_UNAVAILABLE = gettext_noop("I can't answer right now. Please try again in a moment.")
SERVER_RESTARTING = gettext_noop("The service is restarting. Reconnecting…")
ANSWER_FAILED = gettext_noop("The answer failed. Please try again.")
HANDOFF_OFFLINE = gettext_noop(
    "No one is available to chat right now. We can call you back or create a support ticket:"
    " choose one below."
)
HANDOFF_BACK_AT = gettext_noop("Staff are back {when}.")
HANDOFF_BACK_SOON = gettext_noop("Staff answer as soon as one of them is back.")
ACTION_PROMPTS = {
    "schedule_callback": gettext_noop("Would you like us to call you back? Please confirm below."),
    "send_sms": gettext_noop("Would you like us to send you a text message? Please confirm below."),
    "create_ticket": gettext_noop(
        "Would you like us to create a support ticket? Please confirm below."
    ),
}

# What an action card says about its outcome, by card state ("done" by action).
ACTION_DONE = {
    "schedule_callback": gettext_noop("We will call you on {phone}."),
    "send_sms": gettext_noop("Text message sent to {phone}."),
    "create_ticket": gettext_noop("Ticket {reference} created."),
}
ACTION_STATE = {
    "pending": gettext_noop("Waiting for your answer."),
    "running": gettext_noop("On its way…"),
    "failed": gettext_noop("That did not work. Please try again later or contact us."),
    "rejected": gettext_noop("You declined."),
    "expired": gettext_noop("This suggestion has expired."),
}
PHONE_REQUIRED = gettext_noop("Please enter the phone number we should use.")
PHONE_INVALID = gettext_noop("That does not look like a valid phone number.")
CONTACT_INVALID = gettext_noop("That is neither a valid e-mail address nor a phone number.")

# The page's own strings, by key (templates/chat/index.html, chat/static/chat/chat.js).
PAGE = {
    "title": gettext_noop("Customer service"),
    "greeting": gettext_noop("Hi! I answer questions about Molnia's plans, prices and support."),
    "scope": gettext_noop(
        "My answers come from our help articles, and every figure is checked against them. "
        "I can also arrange a callback, a text message or a support ticket."
    ),
    "suggestions": gettext_noop("Suggestions"),
    "placeholder": gettext_noop("Write your question…"),
    "inputLabel": gettext_noop("Message"),
    "send": gettext_noop("Send"),
    "stop": gettext_noop("Stop"),
    "you": gettext_noop("You"),
    "assistant": gettext_noop("Assistant"),
    "log": gettext_noop("Conversation"),
    # The website widget (templates/chat/widget.html, chat/static/chat/widget-frame.js).
    "openChat": gettext_noop("Chat with us"),
    "closeChat": gettext_noop("Close the chat"),
    "frameTitle": gettext_noop("Customer service chat"),
    "jumpToLatest": gettext_noop("Jump to latest"),
    "connecting": gettext_noop("Connecting…"),
    "connected": gettext_noop("Connected"),
    "offline": gettext_noop(
        "No connection. Reconnecting… Messages you write are sent when we are back."
    ),
    "reconnectNow": gettext_noop("Try now"),
    "queued": gettext_noop("Waiting to be sent"),
    "unsent": gettext_noop("Not sent"),
    "retry": gettext_noop("Try again"),
    "interrupted": gettext_noop("Interrupted: you sent a new message."),
    "stopped": gettext_noop("Stopped."),
    "lostCancelled": gettext_noop(
        "The connection dropped while this answer was being written, so it was stopped."
    ),
    "lostInterrupted": gettext_noop(
        "The service restarted while this answer was being written, so it was stopped."
    ),
    "answerInterrupted": gettext_noop("This answer was interrupted before it was finished."),
    "writing": gettext_noop("Writing the answer…"),
    "askAgain": gettext_noop("Ask again"),
    "answered": gettext_noop("New answer"),
    "withheldTitle": gettext_noop("I could not check this answer against our help articles"),
    "withheldBody": gettext_noop(
        "The answer contained a figure I could not find in our help articles, so I did not "
        "show it. Rather no answer than a wrong one."
    ),
    "noSupportTitle": gettext_noop("Our help articles do not cover this"),
    "noSupportBody": gettext_noop(
        "I only answer from our help articles, and I found nothing about this there."
    ),
    "errorTitle": gettext_noop("Something went wrong on our side"),
    "nextSteps": gettext_noop("What you can do:"),
    "stepRephrase": gettext_noop("Ask in other words"),
    "stepCallback": gettext_noop("Call me back"),
    "stepTicket": gettext_noop("Create a ticket"),
    "stepPerson": gettext_noop("Talk to a person"),
    "handoffQueued": gettext_noop(
        "You are number {position} in the queue. Someone will join shortly."
    ),
    "handoffJoined": gettext_noop("{name} joined the chat."),
    "handoffTyping": gettext_noop("{name} is typing…"),
    "handoffLeft": gettext_noop(
        "{name} left the chat. You are talking to the automatic assistant again."
    ),
    "staffLabel": gettext_noop("Staff"),
    "callbackRequest": gettext_noop("Call me back"),
    "ticketRequest": gettext_noop("Create a ticket"),
    "sources": gettext_noop("Sources"),
    "source": gettext_noop("Source {n}: {title}"),
    "lines": gettext_noop("lines from {title}"),
    "openSource": gettext_noop("Open the page {title}"),
    # A number of an answer linked to its KB line: "399 kr/månad: källa Priser, rad 18".
    "numberSource": gettext_noop("{number}: source {title}, line {line}"),
    "sourceLine": gettext_noop("{title}, line {line}"),
    "close": gettext_noop("Close"),
    "copy": gettext_noop("Copy"),
    "copied": gettext_noop("Copied"),
    "helpful": gettext_noop("Helpful"),
    "notHelpful": gettext_noop("Not helpful"),
    "feedbackQuestion": gettext_noop("What was wrong?"),
    "reasonWrong": gettext_noop("Wrong"),
    "reasonNotHelpful": gettext_noop("Not helpful"),
    "reasonNoAnswer": gettext_noop("Did not answer my question"),
    "reasonOther": gettext_noop("Other"),
    "comment": gettext_noop("Comment (optional)"),
    "submitFeedback": gettext_noop("Send feedback"),
    "thanks": gettext_noop("Thank you for your feedback!"),
    "actionCallback": gettext_noop("Callback"),
    "actionSms": gettext_noop("Text message"),
    "actionTicket": gettext_noop("Support ticket"),
    "describeCallback": gettext_noop("We call you on {phone}."),
    "describeCallbackNoPhone": gettext_noop("We call you on the number you give below."),
    "describeSms": gettext_noop("We send a text message to {phone}."),
    "describeSmsNoPhone": gettext_noop("We send a text message to the number you give below."),
    "describeTicket": gettext_noop(
        "We open a support ticket with your message; you get its number here."
    ),
    "whatHappens": gettext_noop("Nothing happens until you confirm."),
    "phoneLabel": gettext_noop("Your phone number"),
    "contactLabel": gettext_noop("E-mail or phone, so we can reach you"),
    "confirm": gettext_noop("Confirm"),
    "reject": gettext_noop("No thanks"),
    "expiresIn": gettext_noop("Expires in {seconds} s"),
    "statePending": gettext_noop("Waiting for you"),
    "stateRunning": gettext_noop("Running"),
    "stateDone": gettext_noop("Done"),
    "stateFailed": gettext_noop("Failed"),
    "stateRejected": gettext_noop("Declined"),
    "stateExpired": gettext_noop("Expired"),
    "language": gettext_noop("Language"),
    "errorGeneric": gettext_noop("Something went wrong. Please try again."),
    "errorRateLimited": gettext_noop("You are sending messages quickly. Wait a moment."),
    "errorTooLarge": gettext_noop("The message is too long."),
    "serverRestarting": SERVER_RESTARTING,
}


def format_moment(moment, *, language: str, now) -> str:
    """When staff are back, as a customer reads it: "today at 08:00", "Monday at 08:00"
    (``babel``, in ``language``)."""
    hour = format_time(moment, "HH:mm", locale=language)
    if moment.date() == now.date():
        return localized(MOMENT_TODAY, language).format(time=hour)
    if (moment.date() - now.date()).days == 1:
        return localized(MOMENT_TOMORROW, language).format(time=hour)
    day = format_date(moment, "EEEE", locale=language)
    return localized(MOMENT_ON_DAY, language).format(day=day, time=hour)


MOMENT_TODAY = gettext_noop("today at {time}")
MOMENT_TOMORROW = gettext_noop("tomorrow at {time}")
MOMENT_ON_DAY = gettext_noop("on {day} at {time}")


def localized(msgid: str, language: str) -> str:
    """``msgid`` in ``language`` ("sv" or "en") through Django's catalogs."""
    with override(language):
        return gettext(msgid)


def page_strings() -> dict[str, str]:
    """The page's strings in the active language."""
    return {key: gettext(msgid) for key, msgid in PAGE.items()}
