from django.contrib import admin
from django.contrib.auth.decorators import permission_required
from django.urls import include, path

from chat import views
from chat.metrics import metrics_view
from grounding.preview import retrieval_preview
from staff import views as staff_views

urlpatterns = [
    path("", views.chat_page, name="chat"),
    path("history/", views.chat_history, name="chat-history"),
    path("widget.js", views.widget_loader, name="widget-loader"),
    path("widget/", views.widget_frame, name="widget-frame"),
    path("widget/history/", views.widget_history, name="widget-history"),
    path("widget-demo/", views.widget_demo, name="widget-demo"),
    path("i18n/", include("django.conf.urls.i18n")),
    path("staff/", staff_views.staff_console, name="staff-console"),
    path(
        "admin/retrieval-preview/",
        admin.site.admin_view(
            permission_required("grounding.preview_retrieval", raise_exception=True)(
                retrieval_preview
            )
        ),
        name="retrieval-preview",
    ),
    path("admin/", admin.site.urls),
    path("metrics", metrics_view, name="metrics"),
]
