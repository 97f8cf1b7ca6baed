"""Site paths of the iframe SDK host (spec §4.11); none of them is part of the REST API. The SDK itself
is a static file: /static/sdk/thingyard-sdk.js (and .mjs)."""

from django.urls import path

from apps.thingapps import pages

app_name = "thingapps"

urlpatterns = [
    path("thing-apps/launch", pages.launch, name="launch"),
    path("thing-apps/verify", pages.verify, name="verify"),
    path("thing-apps/authorize", pages.authorize, name="authorize"),
    path("thing-apps/dialogs/file_select", pages.file_select, name="dialog-file_select"),
    path("thing-apps/dialogs/thing_select", pages.thing_select, name="dialog-thing_select"),
    path("thing-apps/dialogs/thing_search", pages.thing_search, name="dialog-thing_search"),
    path("thing-apps/dialogs/thing_save", pages.thing_save, name="dialog-thing_save"),
    path("developers/docs/img/<slug:name>.png", pages.docs_image, name="docs-image"),
]
