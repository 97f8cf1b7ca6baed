"""/demo/callback: where "Allow" on the demo app (seed_demo's `thingyard-demo-app`) lands (issue 23).

The page plays the demo app's part in the authorization-code flow, in the browser: it trades the code for
a token at the token endpoint (the demo app's secret is public: seed_demo prints it), then calls
GET /users/me with that token and shows the answer. A real web app keeps its secret on its server.
"""
from django.conf import settings
from django.shortcuts import render
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from apps.demo.services import DEMO_APP_CLIENT_ID, DEMO_APP_SECRET, demo_callback_url


@never_cache
@require_GET
def demo_callback(request):
    context = {
        "code": request.GET.get("code", ""),
        "error": request.GET.get("error", ""),
        "error_description": request.GET.get("error_description", ""),
        "client_id": DEMO_APP_CLIENT_ID,
        "client_secret": DEMO_APP_SECRET,
        "redirect_uri": demo_callback_url(),
        "token_url": f"{settings.AUTH_BASE_URL}/login/oauth/access_token",
        "me_url": f"{settings.API_BASE_URL}/users/me",
    }
    response = render(request, "demo/callback.html", context)
    response["Referrer-Policy"] = "no-referrer"  # the URL carries the code
    return response
