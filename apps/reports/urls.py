"""The site's report and appeal pages (not part of the REST API)."""
from django.urls import path

from apps.reports import pages

app_name = "reports"

urlpatterns = [
    path("report/<slug:kind>/<int:target_id>", pages.report_page, name="report"),
    path("appeal/<slug:kind>/<int:target_id>", pages.appeal_page, name="appeal"),
]
