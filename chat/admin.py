"""Where support staff review what the agent was asked, drafted, showed and why."""

import csv
import datetime as dt
import json
from urllib.parse import urlencode

from django import forms
from django.conf import settings
from django.contrib import admin, messages
from django.contrib.admin.helpers import ActionForm
from django.core.exceptions import PermissionDenied
from django.db.models import Count, OuterRef, Subquery
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils import timezone
from django.utils.html import format_html, format_html_join
from django.utils.translation import gettext, gettext_noop

from actions.admin_tools import ReadOnlyAdminMixin, ReadOnlyInline, export_jsonl, timeline_link
from chat import gaps, selectors, services, widget
from chat.models import (
    AnswerReview,
    Conversation,
    Feedback,
    Message,
    RejectedAnswer,
)

# The unsupported-number reasons of grounding (grounding.rule, grounding.cited), said in plain
# words for staff: each completes "The answer said 777 kr, which ..." (translated). "supporting
# line is about something else" was the free-text checker's: answers it withheld keep it.
_ELSEWHERE = gettext_noop("appears in the KB, but about something else")
_PLAIN_REASONS = {
    "not in retrieved snippets": gettext_noop("does not appear in the KB text the agent was shown"),
    "ambiguous form not written the same way in retrieved snippets": gettext_noop(
        "is written differently in the KB text the agent was shown"
    ),
    "not in the knowledge base": gettext_noop("does not appear in the KB"),
    "different kind of number": gettext_noop("appears in the KB only as another kind of number"),
    "different unit": gettext_noop("appears in the KB only with another unit"),
    "different period": gettext_noop("appears in the KB only for another period"),
    "different bound or condition": gettext_noop(
        "appears in the KB only with another bound or condition"
    ),
    "different days": gettext_noop("appears in the KB only for other days"),
    "wrong subject": _ELSEWHERE,
    "supporting line is about something else": _ELSEWHERE,
}


def _pretty(data) -> str:
    return format_html("<pre>{}</pre>", json.dumps(data, ensure_ascii=False, indent=2))


def why_in_plain_words(message: Message) -> str:
    """Why the customer got no answer, as sentences staff can act on (in the admin's language)."""
    if message.status == Message.Status.NO_SUPPORT:
        return gettext("Nothing in the KB matched the question, so the agent did not answer.")
    parts = []
    for item in message.unsupported:
        reason = item.get("reason", "")
        if reason in _PLAIN_REASONS:
            said = gettext(_PLAIN_REASONS[reason])
        else:  # a reason without plain words yet: said as it is
            said = gettext("could not be verified ({reason})").format(reason=reason or "-")
        where = ", ".join(f"{loc['file']}:{loc['line']}" for loc in item.get("kb_locations", []))
        number = item.get("text", "?")
        if where:
            sentence = gettext("The answer said {number}, which {why} (it occurs in {where}).")
        else:
            sentence = gettext(
                "The answer said {number}, which {why} (it occurs nowhere in the KB)."
            )
        parts.append(sentence.format(number=number, why=said, where=where))
    if parts:
        return " ".join(parts)
    return gettext("The answer was withheld: {reason}.").format(
        reason=message.block_reason or gettext("unverified")
    )


def render_citations(citations: list[dict]):
    """Citations as a list of file:line and the quoted line, not raw JSON."""
    if not citations:
        return "-"
    rows = [(c.get("file", ""), c.get("line", ""), c.get("snippet", "")) for c in citations]
    return format_html(
        '<ul class="citations">{}</ul>',
        format_html_join("", "<li><code>{}:{}</code> <q>{}</q></li>", rows),
    )


class MessageInline(ReadOnlyInline):
    model = Message
    fields = ("created_at", "role", "message_id", "status", "grounded", "text")
    readonly_fields = fields
    ordering = ("created_at", "id")


@admin.register(Conversation)
class ConversationAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    # The customer named by what they asked first (not the UUID), so the list fits 1280 px.
    list_display = (
        "customer",
        "language",
        "started_at",
        "channel",
        "last_active_at",
        "message_count",
        "widget_token",
    )
    list_display_links = ("customer",)
    list_filter = ("channel", "language", "started_at")
    search_fields = ("id", "messages__text")
    # The session's (or widget token's) hash is a lookup key, not something staff read or export;
    # the widget's token itself is stored nowhere.
    exclude = ("session_hash",)
    export_exclude = ("session_hash",)
    date_hierarchy = "started_at"
    inlines = [MessageInline]
    actions = [export_jsonl, "revoke_widget_tokens"]
    readonly_fields = ("timeline", "widget_token")

    @admin.display(description="widget token")
    def widget_token(self, obj) -> str:
        """The token's state (never the token): live until, revoked at, expired at."""
        if obj.channel != Conversation.Channel.WIDGET:
            return "-"
        if obj.token_revoked_at:
            return f"revoked {obj.token_revoked_at:%Y-%m-%d %H:%M}"
        state = "expired" if obj.token_expires_at <= timezone.now() else "live until"
        return f"{state} {obj.token_expires_at:%Y-%m-%d %H:%M}"

    @admin.action(
        description="Revoke the widget token (its browser starts a new conversation)",
        permissions=["revoke_widget_token"],
    )
    def revoke_widget_tokens(self, request: HttpRequest, queryset) -> None:
        count = widget.widget_tokens_revoke(
            conversation_ids=list(queryset.values_list("pk", flat=True))
        )
        self.message_user(request, f"Revoked {count} widget token(s).", messages.SUCCESS)

    def has_revoke_widget_token_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm("chat.revoke_widget_token")

    def get_queryset(self, request: HttpRequest):
        """Each row's first question and message count in the list's one query."""
        first = Message.objects.filter(
            conversation_id=OuterRef("pk"), role=Message.Role.USER
        ).order_by("created_at", "id")
        return (
            super()
            .get_queryset(request)
            .annotate(
                first_question=Subquery(first.values("text")[:1]),
                messages_total=Count("messages", distinct=True),
            )
        )

    @admin.display(description="customer (first question)", ordering="started_at")
    def customer(self, obj) -> str:
        question = (getattr(obj, "first_question", None) or "").strip()
        if not question:
            return f"No question yet ({str(obj.pk)[:8]})"
        return question if len(question) <= 60 else question[:59] + "…"

    @admin.display(description="messages", ordering="messages_total")
    def message_count(self, obj) -> int:
        total = getattr(obj, "messages_total", None)
        return obj.messages.count() if total is None else total

    @admin.display(description="timeline")
    def timeline(self, obj) -> str:
        return timeline_link(obj.pk)

    def get_urls(self):
        view = self.admin_site.admin_view
        return [
            path("<uuid:object_id>/timeline/", view(self.timeline_view), name="chat_timeline"),
            path("gap-report/", view(self.gap_report_view), name="chat_gap_report"),
            *super().get_urls(),
        ]

    def timeline_view(self, request: HttpRequest, object_id) -> TemplateResponse:
        """One page with the conversation's turns in order, and everything that happened."""
        conversation = get_object_or_404(Conversation, pk=object_id)
        if not self.has_view_permission(request, conversation):
            raise PermissionDenied
        context = {
            **self.admin_site.each_context(request),
            "opts": self.model._meta,
            "title": f"Timeline of {conversation}",
            "conversation": conversation,
            "entries": _timeline_entries(
                conversation, with_actions=_may_view_actions(request.user)
            ),
        }
        return TemplateResponse(request, "admin/chat/timeline.html", context)

    def gap_report_view(self, request: HttpRequest) -> HttpResponse:
        """Unanswered questions grouped by search terms over a period; CSV with ?format=csv."""
        if not self.has_view_permission(request):
            raise PermissionDenied
        form = GapPeriodForm(request.GET or None)
        today = timezone.localdate()
        start, end = today - dt.timedelta(days=6), today
        if form.is_valid():
            start = form.cleaned_data["start"] or start
            end = form.cleaned_data["end"] or end
        since = timezone.make_aware(dt.datetime.combine(start, dt.time.min))
        until = timezone.make_aware(dt.datetime.combine(end + dt.timedelta(days=1), dt.time.min))
        report = gaps.gaps_by_terms(selectors.unanswered_questions(since=since, until=until))
        if request.GET.get("format") == "csv":
            return _gap_csv(report, start, end)
        query = urlencode({"start": start.isoformat(), "end": end.isoformat(), "format": "csv"})
        context = {
            **self.admin_site.each_context(request),
            "opts": self.model._meta,
            "title": "KB gap report",
            "form": form if form.is_bound else GapPeriodForm(initial={"start": start, "end": end}),
            "gaps": report,
            "start": start,
            "end": end,
            "csv_query": query,
        }
        return TemplateResponse(request, "admin/chat/gap_report.html", context)


def _may_view_actions(user) -> bool:
    """Whether the actions' own admin pages (suggestions, executions) are open to ``user``."""
    return user.has_perm("actions.view_suggestion") and user.has_perm("actions.view_execution")


def _timeline_entries(conversation: Conversation, *, with_actions: bool = True) -> list[dict]:
    """Turns and handoff events of a conversation, merged in time order; the turns' actions
    (phone numbers, execution results) only ``with_actions``."""
    entries = [
        {
            "kind": "turn",
            "at": turn.at,
            "turn": turn,
            "citations": render_citations(turn.answer.citations) if turn.answer else "-",
            "why": why_in_plain_words(turn.answer)
            if turn.answer and turn.answer.status in services.REVIEWABLE_STATUSES
            else "",
        }
        for turn in selectors.conversation_timeline(
            conversation=conversation, with_actions=with_actions
        )
    ]
    entries += [
        {"kind": "handoff", "at": event.created_at, "event": event}
        for event in selectors.handoff_events(conversation=conversation)
    ]
    return sorted(entries, key=lambda entry: entry["at"])


class GapPeriodForm(forms.Form):
    start = forms.DateField(required=False, widget=forms.DateInput(attrs={"type": "date"}))
    end = forms.DateField(required=False, widget=forms.DateInput(attrs={"type": "date"}))


# A spreadsheet runs a cell that starts with one of these as a formula (OWASP CSV injection);
# a tab or carriage return is stripped by some, leaving the next character first.
_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(value):
    """``value`` safe for a spreadsheet: text that could start a formula gets a leading "'"."""
    if isinstance(value, str) and value.startswith(_FORMULA_STARTS):
        return "'" + value
    return value


def _gap_csv(report: list, start, end) -> HttpResponse:
    response = HttpResponse(content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="kb-gaps-{start}-{end}.csv"'
    writer = csv.writer(response)
    writer.writerow(
        ["search terms", "questions", "withheld", "no support", "last asked", "examples"]
    )
    for gap in report:
        row = [
            gap.label,
            gap.count,
            gap.withheld,
            gap.no_support,
            gap.last_asked.isoformat(),
            " | ".join(gap.examples),
        ]
        writer.writerow([csv_cell(value) for value in row])
    return response


class BaseMessageAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    list_select_related = ("conversation", "reply_to")
    date_hierarchy = "created_at"
    search_fields = ("text", "draft", "message_id", "reply_to__text")
    actions = [export_jsonl]
    fieldsets = (
        (
            None,
            {"fields": ("conversation", "timeline", "role", "message_id", "status", "language")},
        ),
        ("Question and answer", {"fields": ("question", "draft", "text")}),
        ("Grounding", {"fields": ("grounded", "block_reason", "unsupported_view")}),
        ("Evidence", {"fields": ("citations_view", "numbers_view", "retrieved_view")}),
        (
            "Timing and model",
            {"fields": ("ttft_ms", "total_ms", "token_count", "backend", "model")},
        ),
        ("Failure", {"fields": ("error",)}),
    )
    readonly_fields = (
        "conversation",
        "timeline",
        "role",
        "message_id",
        "status",
        "language",
        "question",
        "draft",
        "text",
        "grounded",
        "block_reason",
        "unsupported_view",
        "citations_view",
        "numbers_view",
        "retrieved_view",
        "ttft_ms",
        "total_ms",
        "token_count",
        "backend",
        "model",
        "error",
    )

    @admin.display(description="question")
    def question(self, obj) -> str:
        return obj.reply_to.text if obj.reply_to else ""

    @admin.display(description="unsupported numbers")
    def unsupported_view(self, obj):
        if not obj.unsupported:
            return "-"
        rows = []
        for item in obj.unsupported:
            where = ", ".join(
                f"{loc['file']}:{loc['line']}" for loc in item.get("kb_locations", [])
            )
            rows.append((item.get("text"), item.get("reason"), where or "nowhere in the KB"))
        return format_html(
            "<ul>{}</ul>",
            format_html_join("", "<li><b>{}</b>: {} (occurs in: {})</li>", rows),
        )

    @admin.display(description="citations")
    def citations_view(self, obj):
        return render_citations(obj.citations)

    @admin.display(description="numbers and their lines")
    def numbers_view(self, obj):
        if not obj.numbers:
            return "-"
        rows = [(n.get("text", ""), n.get("file", ""), n.get("line", "")) for n in obj.numbers]
        return format_html("<ul>{}</ul>", format_html_join("", "<li><b>{}</b>: {}:{}</li>", rows))

    @admin.display(description="timeline")
    def timeline(self, obj) -> str:
        return timeline_link(obj.conversation_id)

    @admin.display(description="retrieved snippets")
    def retrieved_view(self, obj):
        return _pretty(obj.retrieved)


@admin.register(Message)
class MessageAdmin(BaseMessageAdmin):
    list_display = (
        "created_at",
        "role",
        "status",
        "grounded",
        "language",
        "short_text",
        "timeline",
    )
    list_filter = ("role", "status", "grounded", "language", "backend", "created_at")

    @admin.display(description="text")
    def short_text(self, obj) -> str:
        return obj.text[:80]


class PeriodFilter(admin.SimpleListFilter):
    """Today, yesterday or the last 7 days, in the site's time zone."""

    title = "period"
    parameter_name = "period"

    def lookups(self, request, model_admin):
        return (("today", "Today"), ("yesterday", "Yesterday"), ("7d", "Last 7 days"))

    def queryset(self, request, queryset):
        today = timezone.localdate()
        days = {"today": (today, 1), "yesterday": (today - dt.timedelta(days=1), 1)}
        days["7d"] = (today - dt.timedelta(days=6), 7)
        if self.value() not in days:
            return queryset
        first, count = days[self.value()]
        since = timezone.make_aware(dt.datetime.combine(first, dt.time.min))
        return queryset.filter(
            created_at__gte=since, created_at__lt=since + dt.timedelta(days=count)
        )


class ReasonFilter(admin.SimpleListFilter):
    """No support in the KB, or the guard's reason for withholding."""

    title = "reason"
    parameter_name = "reason"

    def lookups(self, request, model_admin):
        reasons = (
            model_admin.get_queryset(request)
            .filter(status=Message.Status.WITHHELD)
            .exclude(block_reason="")
            .order_by("block_reason")
            .values_list("block_reason", flat=True)
            .distinct()
        )
        return [("no_support", "No support in the KB"), *((r, r) for r in reasons)]

    def queryset(self, request, queryset):
        if self.value() == "no_support":
            return queryset.filter(status=Message.Status.NO_SUPPORT)
        if self.value():
            return queryset.filter(status=Message.Status.WITHHELD, block_reason=self.value())
        return queryset


class ReviewedFilter(admin.SimpleListFilter):
    title = "reviewed"
    parameter_name = "reviewed"

    def lookups(self, request, model_admin):
        return (("yes", "Reviewed"), ("no", "Not reviewed"))

    def queryset(self, request, queryset):
        reviewed = {"review__status": AnswerReview.Status.REVIEWED}
        if self.value() == "yes":
            return queryset.filter(**reviewed)
        if self.value() == "no":
            return queryset.exclude(**reviewed)
        return queryset


class ReviewActionForm(ActionForm):
    note = forms.CharField(
        required=False,
        max_length=2000,
        label="Note",
        widget=forms.TextInput(attrs={"size": 40, "placeholder": "note for 'mark reviewed'"}),
    )


@admin.register(RejectedAnswer)
class RejectedAnswerAdmin(BaseMessageAdmin):
    """The review queue: withheld and no-support answers, newest first, with a reviewed state."""

    list_display = (
        "created_at",
        "question",
        "reason",
        "why",
        "review_state",
        "assignee",
        "links",
    )
    list_filter = (
        PeriodFilter,
        ReasonFilter,
        ReviewedFilter,
        ("review__assignee", admin.RelatedOnlyFieldListFilter),
        "language",
    )
    list_select_related = (
        "conversation",
        "reply_to",
        "review__assignee",
        "review__reviewed_by",
    )
    ordering = ("-created_at", "-id")
    action_form = ReviewActionForm
    actions = ["mark_reviewed", "assign_to_me", export_jsonl]
    fieldsets = (
        ("Review", {"fields": ("why", "review_state", "assignee", "links")}),
        *BaseMessageAdmin.fieldsets,
    )
    readonly_fields = (
        "why",
        "review_state",
        "assignee",
        "links",
        *BaseMessageAdmin.readonly_fields,
    )

    def get_queryset(self, request):
        return (
            super()
            .get_queryset(request)
            .filter(role=Message.Role.ASSISTANT, status__in=services.REVIEWABLE_STATUSES)
        )

    def has_review_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm("chat.change_answerreview")

    @admin.display(description="reason", ordering="status")
    def reason(self, obj) -> str:
        if obj.status == Message.Status.NO_SUPPORT:
            return "No support"
        numbers = ", ".join(item.get("text", "") for item in obj.unsupported)
        return f"{obj.block_reason or 'Withheld'}: {numbers}" if numbers else obj.block_reason

    @admin.display(description="why, in plain words")
    def why(self, obj) -> str:
        return why_in_plain_words(obj)

    @admin.display(description="review", ordering="review__reviewed_at")
    def review_state(self, obj) -> str:
        review = getattr(obj, "review", None)
        if review is None or review.status != AnswerReview.Status.REVIEWED:
            return "open"
        when = timezone.localtime(review.reviewed_at).strftime("%Y-%m-%d %H:%M")
        note = f": {review.note}" if review.note else ""
        return f"reviewed by {review.reviewed_by} at {when}{note}"

    @admin.display(description="assignee", ordering="review__assignee")
    def assignee(self, obj) -> str:
        review = getattr(obj, "review", None)
        return str(review.assignee) if review and review.assignee else "-"

    @admin.display(description="open")
    def links(self, obj) -> str:
        question = obj.reply_to.text if obj.reply_to else ""
        # Every field of the preview's form, so the link opens with its results.
        query = {"question": question}
        if obj.status == Message.Status.WITHHELD:
            query["answer"] = obj.draft[:4000]
        query.update(
            top_k=settings.RETRIEVAL_TOP_K, threshold=settings.RETRIEVAL_RELATIVE_THRESHOLD
        )
        preview = f"{reverse('retrieval-preview')}?{urlencode(query)}"
        return format_html(
            '{} · <a href="{}">retrieval preview</a>', timeline_link(obj.conversation_id), preview
        )

    @admin.action(description="Mark selected reviewed (with the note)", permissions=["review"])
    def mark_reviewed(self, request: HttpRequest, queryset) -> None:
        note = request.POST.get("note", "")
        changed = services.answers_mark_reviewed(
            message_pks=list(queryset.values_list("pk", flat=True)),
            reviewer=request.user,
            note=note,
        )
        skipped = queryset.count() - changed
        self.message_user(request, f"Marked {changed} answer(s) reviewed.", messages.SUCCESS)
        if skipped:
            self.message_user(
                request, f"{skipped} were already reviewed and kept as they were.", messages.INFO
            )

    @admin.action(description="Assign selected to me", permissions=["review"])
    def assign_to_me(self, request: HttpRequest, queryset) -> None:
        count = services.answers_assign(
            message_pks=list(queryset.values_list("pk", flat=True)), assignee=request.user
        )
        self.message_user(request, f"Assigned {count} answer(s) to you.", messages.SUCCESS)


@admin.register(AnswerReview)
class AnswerReviewAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    """Who reviewed which answer, when, with what note: written through the review queue."""

    list_display = (
        "message",
        "status",
        "assignee",
        "reviewed_by",
        "reviewed_at",
        "note",
        "timeline",
    )
    list_filter = ("status", "reviewed_at")
    list_select_related = ("message", "assignee", "reviewed_by")
    readonly_fields = ("message", "status", "assignee", "reviewed_by", "reviewed_at", "note")

    @admin.display(description="timeline")
    def timeline(self, obj) -> str:
        return timeline_link(obj.message.conversation_id)


@admin.register(Feedback)
class FeedbackAdmin(ReadOnlyAdminMixin, admin.ModelAdmin):
    list_display = ("created_at", "rating", "comment", "question", "answer", "timeline")
    list_filter = ("rating", "created_at")
    search_fields = ("comment", "message__text", "message__message_id", "message__reply_to__text")
    date_hierarchy = "created_at"
    list_select_related = ("message__reply_to",)
    actions = [export_jsonl]
    readonly_fields = (
        "message",
        "rating",
        "comment",
        "created_at",
        "question",
        "answer",
        "timeline",
    )

    @admin.display(description="question")
    def question(self, obj) -> str:
        return obj.message.reply_to.text[:120] if obj.message.reply_to else ""

    @admin.display(description="answer")
    def answer(self, obj) -> str:
        return obj.message.text[:120]

    @admin.display(description="timeline")
    def timeline(self, obj) -> str:
        return timeline_link(obj.message.conversation_id)
