from django.contrib import admin
from django.urls import path

from chat import views

urlpatterns = [
    path("", views.chat_page, name="chat"),
    path("history/", views.chat_history, name="chat-history"),
    path("admin/", admin.site.urls),
]
