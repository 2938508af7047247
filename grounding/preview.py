"""The admin's retrieval preview: what the chat would retrieve, and the verdict on an answer."""

from django import forms
from django.conf import settings
from django.contrib import admin
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse

from grounding.answer_check import answer_check
from grounding.selectors import current_index


class PreviewForm(forms.Form):
    question = forms.CharField(max_length=2000, widget=forms.TextInput(attrs={"size": 80}))
    answer = forms.CharField(
        max_length=4000,
        required=False,
        widget=forms.Textarea(attrs={"rows": 3, "cols": 80}),
        help_text="Optional: an answer to check against the retrieved snippets.",
    )
    top_k = forms.IntegerField(min_value=1, max_value=20, initial=5)
    threshold = forms.FloatField(
        min_value=0.0,
        max_value=1.0,
        initial=0.0,
        help_text="Share of the best chunk's score a chunk needs (0: any shared term).",
    )


def retrieval_preview(request: HttpRequest) -> HttpResponse:
    """Staff type a question (and an answer) and see the chunks, scores and verdict."""
    initial = {
        "top_k": settings.RETRIEVAL_TOP_K,
        "threshold": settings.RETRIEVAL_RELATIVE_THRESHOLD,
    }
    # A link may give only the question: the fields it leaves out take their defaults.
    data = {**initial, **request.GET.dict()} if request.GET else None
    form = PreviewForm(data, initial=initial)
    check, rows = None, []
    if form.is_valid():
        data = form.cleaned_data
        index = current_index()
        check = answer_check(
            index=index,
            question=data["question"],
            answer=data["answer"] or "",
            top_k=data["top_k"],
            threshold=data["threshold"],
        )
        sources = {r.file: r.source_url for r in index.records if r.source_url}
        rows = [(snippet, sources.get(snippet.file, "")) for snippet in check.snippets]
    context = {
        **admin.site.each_context(request),
        "title": "Retrieval preview",
        "form": form,
        "check": check,
        "rows": rows,  # (snippet, the imported page's URL or "")
        "answered": bool(form.is_valid() and form.cleaned_data["answer"]),
    }
    return TemplateResponse(request, "admin/grounding/retrieval_preview.html", context)
