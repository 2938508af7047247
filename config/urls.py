from django.contrib import admin
from django.urls import path

from chat import views

urlpatterns = [
    path("", views.chat_page, name="chat"),
    path("admin/", admin.site.urls),
]
