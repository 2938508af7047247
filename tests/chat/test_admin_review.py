"""The review queue, the conversation timeline and the KB gap report in the admin."""

import csv
import datetime as dt
import io

import pytest
from django.contrib.auth.models import Permission
from django.urls import reverse
from django.utils import timezone

from actions.models import Execution, Suggestion
from chat import services
from chat.models import AnswerReview, Conversation, Feedback, Message

QUEUE = "admin:chat_rejectedanswer_changelist"


def local(days_ago: int, hour: int) -> dt.datetime:
    day = timezone.localdate() - dt.timedelta(days=days_ago)
    return timezone.make_aware(dt.datetime.combine(day, dt.time(hour, 0)))


def turn(
    conversation, question: str, *, status: str, at: dt.datetime, mid: str, **answer
) -> Message:
    """A question and its assistant answer, both stamped ``at``."""
    asked = Message.objects.create(
        conversation=conversation, role="user", message_id=mid, text=question
    )
    reply = Message.objects.create(
        conversation=conversation,
        role="assistant",
        message_id=mid,
        reply_to=asked,
        status=status,
        text=answer.pop("text", "Jag kan inte verifiera det."),
        **answer,
    )
    Message.objects.filter(pk__in=[asked.pk, reply.pk]).update(created_at=at)
    return reply


WITHHELD = {
    "status": "withheld",
    "grounded": False,
    "draft": "Premium kostar 777 kr.",
    "block_reason": "Verification failed: Number mismatch",
    "unsupported": [
        {
            "text": "777 kr",
            "kind": "money",
            "reason": "not in retrieved snippets",
            "kb_locations": [],
        }
    ],
    "citations": [{"file": "kb/pricing.md", "line": 7, "snippet": "Premium: 299 kr/mån"}],
}


@pytest.fixture
def queue(db):
    """Rejected answers today, three yesterday (not in time order), one a week ago."""
    conversation = Conversation.objects.create()
    rows = {
        "today": turn(
            conversation, "Vad kostar premium idag?", at=local(0, 0), mid="t", **WITHHELD
        ),
        "y-morning": turn(
            conversation, "Vad kostar premium?", at=local(1, 9), mid="y1", **WITHHELD
        ),
        "y-evening": turn(
            conversation, "Har ni en kontor i Oslo?", status="no_support", at=local(1, 20), mid="y3"
        ),
        "y-noon": turn(conversation, "Kostar basic 5 kr?", at=local(1, 12), mid="y2", **WITHHELD),
        "old": turn(conversation, "Vad kostar premium?", at=local(8, 12), mid="o", **WITHHELD),
    }
    # An answered turn yesterday is not in the queue.
    turn(conversation, "Vad kostar basic?", status="done", at=local(1, 15), mid="ok", text="99 kr")
    return rows


def assert_in_order(body: str, *texts: str) -> None:
    """Each text occurs in the page, and in this order."""
    positions = [body.index(text) for text in texts]
    assert positions == sorted(positions)


def listed(response) -> list[int]:
    return [row.pk for row in response.context["cl"].result_list]


def test_queue_filters_yesterdays_rejected_answers_newest_first(admin_client, queue):
    """?period=yesterday lists yesterday's withheld and no-support answers, newest first."""
    response = admin_client.get(reverse(QUEUE) + "?period=yesterday")
    assert response.status_code == 200
    expected = [queue["y-evening"].pk, queue["y-noon"].pk, queue["y-morning"].pk]
    assert listed(response) == expected


@pytest.mark.parametrize(
    ("query", "names"),
    [
        ("?period=today", ["today"]),
        ("?period=7d", ["today", "y-evening", "y-noon", "y-morning"]),
        ("", ["today", "y-evening", "y-noon", "y-morning", "old"]),
        ("?reason=no_support", ["y-evening"]),
        (
            "?reason=Verification+failed%3A+Number+mismatch&period=yesterday",
            ["y-noon", "y-morning"],
        ),
    ],
)
def test_queue_period_and_reason_filters(admin_client, queue, query, names):
    """Today, the last 7 days, everything, and the reason, always newest first."""
    response = admin_client.get(reverse(QUEUE) + query)
    assert listed(response) == [queue[name].pk for name in names]


def test_queue_says_why_in_plain_words_and_links_preview_and_timeline(admin_client, queue):
    """The list shows the failing number and why, a timeline link and the retrieval preview."""
    url = reverse(QUEUE) + "?period=yesterday"
    body = admin_client.get(url, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert (
        "The answer said 777 kr, which does not appear in the KB text the agent was shown" in body
    )
    assert "Nothing in the KB matched the question" in body
    assert reverse("admin:chat_timeline", args=[queue["y-noon"].conversation_id]) in body
    assert reverse("retrieval-preview") + "?question=Kostar+basic+5+kr%3F&amp;answer=" in body


def test_marking_reviewed_records_who_when_and_the_note(admin_client, admin_user, queue):
    """The bulk action writes the review through the service: reviewer, time and note."""
    before = timezone.now()
    chosen = [queue["y-noon"].pk, queue["y-morning"].pk]
    response = admin_client.post(
        reverse(QUEUE),
        {"action": "mark_reviewed", "_selected_action": chosen, "note": "KB says 299 kr; OK"},
        follow=True,
    )
    assert "Marked 2 answer(s) reviewed." in response.content.decode()
    reviews = AnswerReview.objects.filter(message_id__in=chosen)
    assert reviews.count() == 2
    for review in reviews:
        assert review.status == AnswerReview.Status.REVIEWED
        assert review.reviewed_by == admin_user
        assert before <= review.reviewed_at <= timezone.now()
        assert review.note == "KB says 299 kr; OK"
    unreviewed = admin_client.get(reverse(QUEUE) + "?period=yesterday&reviewed=no")
    assert listed(unreviewed) == [queue["y-evening"].pk]
    reviewed = admin_client.get(reverse(QUEUE) + "?reviewed=yes")
    assert listed(reviewed) == chosen
    assert "reviewed by admin at" in reviewed.content.decode()


def test_marking_twice_keeps_the_first_review(admin_user, django_user_model, queue):
    """A repeated mark does not rewrite who reviewed the answer, when, or the note."""
    pk = queue["today"].pk
    assert services.answers_mark_reviewed(message_pks=[pk], reviewer=admin_user, note="first") == 1
    other = django_user_model.objects.create_user("other", is_staff=True)
    assert services.answers_mark_reviewed(message_pks=[pk], reviewer=other, note="second") == 0
    review = AnswerReview.objects.get(message_id=pk)
    assert (review.reviewed_by, review.note) == (admin_user, "first")


def test_only_rejected_answers_can_be_reviewed(admin_user, queue):
    """An answered turn is not reviewable: the service refuses and writes nothing."""
    answered = Message.objects.get(role="assistant", status="done")
    with pytest.raises(services.NotReviewable):
        services.answers_mark_reviewed(
            message_pks=[queue["today"].pk, answered.pk], reviewer=admin_user
        )
    assert not AnswerReview.objects.exists()


def test_reviewed_needs_who_and_when(admin_user, queue):
    """The database refuses a reviewed row without a reviewer and time."""
    from django.db import IntegrityError, transaction

    with pytest.raises(IntegrityError), transaction.atomic():
        AnswerReview.objects.create(message=queue["today"], status="reviewed")


def test_assign_to_me_and_filter_by_assignee(admin_client, admin_user, queue):
    """Assigned answers are found with the assignee filter."""
    admin_client.post(
        reverse(QUEUE), {"action": "assign_to_me", "_selected_action": [queue["old"].pk]}
    )
    response = admin_client.get(reverse(QUEUE) + f"?review__assignee__id__exact={admin_user.pk}")
    assert listed(response) == [queue["old"].pk]


def test_view_only_staff_cannot_mark_reviewed(client, django_user_model, queue):
    """Staff who may only view the queue are not offered, nor allowed, the review action."""
    user = django_user_model.objects.create_user("viewer", is_staff=True)
    user.user_permissions.add(Permission.objects.get(codename="view_rejectedanswer"))
    client.force_login(user)
    page = client.get(reverse(QUEUE))
    assert page.status_code == 200 and "mark_reviewed" not in page.content.decode()
    client.post(reverse(QUEUE), {"action": "mark_reviewed", "_selected_action": [queue["old"].pk]})
    assert not AnswerReview.objects.exists()


def test_review_rows_are_read_only(admin_client, admin_user, queue):
    """Reviews are written through the queue only: no add, change or delete in the admin."""
    services.answers_mark_reviewed(message_pks=[queue["old"].pk], reviewer=admin_user)
    review = AnswerReview.objects.get()
    assert admin_client.get(reverse("admin:chat_answerreview_add")).status_code == 403
    change = reverse("admin:chat_answerreview_change", args=[review.pk])
    assert admin_client.post(change, {"note": "rewritten"}).status_code == 403
    assert AnswerReview.objects.get().note == ""


def test_timeline_shows_each_turn_with_citations_actions_feedback_and_review(
    admin_client, admin_user, queue
):
    """One page: question, what was shown, verdict, why, citations, actions, feedback, timings."""
    conversation = queue["today"].conversation
    answered = Message.objects.get(role="assistant", status="done")
    Message.objects.filter(pk=answered.pk).update(
        citations=[{"file": "kb/pricing.md", "line": 3, "snippet": "Basic: 99 kr"}], ttft_ms=125.4
    )
    Feedback.objects.create(message=answered, rating="down", comment="Fel pris")
    now = timezone.now()
    suggestion = Suggestion.objects.create(
        suggestion_id="s-1",
        conversation=conversation,
        action="schedule_callback",
        payload={"phone": "070-123 45 67"},
        source_message_id="ok",
        created_at=now,
        expires_at=now + dt.timedelta(minutes=5),
        status="executed",
    )
    Execution.objects.create(
        suggestion=suggestion,
        status="succeeded",
        success=True,
        message="Vi ringer",
        claimed_at=now,
        executed_at=now,
    )
    services.answers_mark_reviewed(
        message_pks=[queue["y-noon"].pk], reviewer=admin_user, note="Lägg till basic-priset"
    )
    timeline = reverse("admin:chat_timeline", args=[conversation.pk])
    body = admin_client.get(timeline, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert_in_order(
        body,
        "Vad kostar premium?",  # a week ago
        "Kostar basic 5 kr?",
        "Vad kostar basic?",
        "Har ni en kontor i Oslo?",
        "Vad kostar premium idag?",
    )
    for text in (
        "<code>kb/pricing.md:3</code> <q>Basic: 99 kr</q>",
        "Schedule callback",
        "execution Succeeded: Vi ringer",
        "Fel pris",
        "first token 125 ms",
        "Withheld (unverified number)",
        "The answer said 777 kr",
        "“Lägg till basic-priset”",
    ):
        assert text in body
    assert '"snippet"' not in body  # citations are rendered, not raw JSON


@pytest.mark.parametrize(
    ("route", "row"),
    [
        ("admin:chat_message_changelist", None),
        ("admin:chat_feedback_changelist", None),
        ("admin:chat_answerreview_changelist", None),
        ("admin:actions_suggestion_changelist", None),
        ("admin:actions_execution_changelist", None),
        ("admin:chat_message_change", "answer"),
        ("admin:chat_feedback_change", "feedback"),
        ("admin:actions_suggestion_change", "suggestion"),
    ],
)
def test_every_audit_row_links_to_the_timeline(admin_client, admin_user, queue, route, row):
    """Messages, feedback, reviews, suggestions and executions link to the conversation's page."""
    answer = queue["old"]
    feedback = Feedback.objects.create(message=answer, rating="down")
    services.answers_mark_reviewed(message_pks=[answer.pk], reviewer=admin_user)
    now = timezone.now()
    suggestion = Suggestion.objects.create(
        suggestion_id="s-2",
        conversation=answer.conversation,
        action="create_ticket",
        created_at=now,
        expires_at=now,
    )
    Execution.objects.create(suggestion=suggestion, claimed_at=now)
    pk = {"answer": answer.pk, "feedback": feedback.pk, "suggestion": suggestion.pk}.get(row)
    url = reverse(route, args=[pk]) if pk else reverse(route)
    body = admin_client.get(url).content.decode()
    assert reverse("admin:chat_timeline", args=[answer.conversation_id]) in body


def test_feedback_list_shows_question_and_answer(admin_client, queue):
    """Staff read what was asked beside what was answered and the rating."""
    Feedback.objects.create(message=queue["y-noon"], rating="down", comment="Svarade inte")
    body = admin_client.get(reverse("admin:chat_feedback_changelist")).content.decode()
    assert "Kostar basic 5 kr?" in body and "Jag kan inte verifiera det." in body


def test_gap_report_groups_by_search_terms_over_the_period(admin_client, queue):
    """Yesterday's and today's unanswered questions, grouped; the week-old one is outside."""
    start = (timezone.localdate() - dt.timedelta(days=1)).isoformat()
    end = timezone.localdate().isoformat()
    url = reverse("admin:chat_gap_report") + f"?start={start}&end={end}"
    body = admin_client.get(url).content.decode()
    assert "Vad kostar premium?" in body and "Har ni en kontor i Oslo?" in body
    rows = list(csv.reader(io.StringIO(admin_client.get(url + "&format=csv").content.decode())))
    assert rows[0][:4] == ["search terms", "questions", "withheld", "no support"]
    counts = {row[0]: (int(row[1]), int(row[2]), int(row[3])) for row in rows[1:]}
    assert sum(c[0] for c in counts.values()) == 4  # the week-old question is outside the period
    oslo = next(label for label in counts if "oslo" in label)
    assert counts[oslo] == (1, 0, 1)


@pytest.mark.parametrize("question", ['=HYPERLINK("http://x")', "+1+1", "@SUM(A1)", "\t=1+1"])
def test_gap_report_csv_never_starts_a_cell_with_a_formula(admin_client, question):
    """A customer's question that starts like a formula reaches the CSV as text."""
    conversation = Conversation.objects.create()
    turn(conversation, question, status="no_support", at=local(0, 0), mid="f")
    day = timezone.localdate().isoformat()
    url = reverse("admin:chat_gap_report") + f"?start={day}&end={day}&format=csv"
    rows = list(csv.reader(io.StringIO(admin_client.get(url).content.decode())))
    cells = [cell for row in rows[1:] for cell in row]
    assert any(question.strip() in cell for cell in cells), rows
    assert not any(cell.startswith(("=", "+", "-", "@", "\t", "\r")) for cell in cells), rows


def test_timeline_and_handoff_admin_show_the_handoff(admin_client, admin_user, queue, settings):
    """Asked for a person, taken, a staff reply, handed back: on the timeline, in time order."""
    from chat.handoff import handoff_request
    from staff import handoff

    settings.HANDOFF_OPENING_HOURS = "always"
    conversation = queue["today"].conversation
    handoff_request(conversation_id=conversation.pk, text="prata med en människa")
    handoff.handoff_take(conversation_id=conversation.pk, staff=admin_user)
    handoff.handoff_staff_message(
        conversation_id=conversation.pk, staff=admin_user, text="Hej, jag hjälper dig"
    )
    handoff.handoff_hand_back(conversation_id=conversation.pk, staff=admin_user)
    body = admin_client.get(reverse("admin:chat_timeline", args=[conversation.pk])).content.decode()
    assert_in_order(
        body,
        "Vad kostar premium idag?",
        "Customer asked for a person",
        "Staff joined",
        "Hej, jag hjälper dig",
        "Staff handed back to the agent",
    )
    timeline = reverse("admin:chat_timeline", args=[conversation.pk])
    for route in ("admin:chat_handoff_changelist", "admin:chat_handoffevent_changelist"):
        assert timeline in admin_client.get(reverse(route)).content.decode()


@pytest.mark.parametrize(
    ("reason", "language", "sentence"),
    [
        (
            "not in the knowledge base",
            "en",
            "The answer said 777 kr, which does not appear in the KB "
            "(it occurs nowhere in the KB).",
        ),
        (
            "not in the knowledge base",
            "sv",
            "Svaret angav 777 kr, som inte finns i kunskapsbasen "
            "(det förekommer ingenstans i kunskapsbasen).",
        ),
        (
            "different unit",
            "en",
            "The answer said 777 kr, which appears in the KB only with another unit "
            "(it occurs nowhere in the KB).",
        ),
        (
            "not in retrieved snippets",
            "sv",
            "Svaret angav 777 kr, som inte finns i den text ur kunskapsbasen som agenten fick se "
            "(det förekommer ingenstans i kunskapsbasen).",
        ),
    ],
)
def test_every_reason_is_a_sentence_in_english_and_swedish(reason, language, sentence):
    """The guard's reasons completed as sentences, in the admin's language."""
    from django.utils import translation

    from chat.admin import why_in_plain_words

    unsupported = [{**WITHHELD["unsupported"][0], "reason": reason}]
    message = Message(status="withheld", unsupported=unsupported)
    with translation.override(language):
        assert why_in_plain_words(message) == sentence


def test_every_reason_of_the_guard_has_plain_words():
    """No reason the number rule gives is shown raw ("..., which not in the knowledge base")."""
    from chat.admin import _PLAIN_REASONS
    from grounding import rule

    reasons = {v for k, v in vars(rule).items() if k.endswith("_MISMATCH") or k == "NOT_IN_KB"}
    assert reasons and reasons <= set(_PLAIN_REASONS)


def test_the_queues_retrieval_preview_link_opens_with_its_results(admin_client, queue):
    """The preview link of a withheld answer opens the preview filled in, with no field
    missing: the retrieved chunks and the verdict, not "This field is required"."""
    import html
    import re

    body = admin_client.get(reverse(QUEUE) + "?period=yesterday").content.decode()
    links = re.findall(r'href="([^"]*retrieval-preview/[?]question=[^"]*)"', body)
    assert links
    page = admin_client.get(html.unescape(links[0]))
    text = page.content.decode()
    assert page.status_code == 200 and page.context["form"].is_valid(), page.context["form"].errors
    assert "This field is required" not in text and "Detta fält måste fyllas i" not in text
    assert page.context["check"] is not None


def test_the_retrieval_preview_with_only_a_question_uses_the_defaults(admin_client, settings):
    """A link that gives only the question (an older one) still opens with results."""
    page = admin_client.get(reverse("retrieval-preview") + "?question=Vad+kostar+premium%3F")
    form = page.context["form"]
    assert form.is_valid(), form.errors
    assert form.cleaned_data["top_k"] == settings.RETRIEVAL_TOP_K
