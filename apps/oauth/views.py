"""Browser pages and endpoints of the OAuth provider (spec §5). Plain Django views, not DRF.

DOT's views are subclassed here under our own URL patterns (STYLE.md); the reads and writes they need
live in selectors.py and services.py.
"""
import functools
import json
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import views as auth_views
from django.contrib.auth.mixins import LoginRequiredMixin
from django.http import Http404, HttpResponse, JsonResponse
from django.shortcuts import redirect, render
from django.utils.decorators import method_decorator
from django.views import View
from django.views.decorators.cache import never_cache
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.debug import sensitive_post_parameters
from django.views.generic import TemplateView
from oauth2_provider.exceptions import OAuthToolkitError
from oauth2_provider.views import AuthorizationView, RevokeTokenView, TokenView
from oauth2_provider.views.mixins import OAuthLibMixin

from apps.core.pipeline.api import auth_url
from apps.core.site.pages import SafeNextMixin
from apps.core.pipeline.views import json_error
from apps.oauth import rules, selectors, services
from apps.oauth.backends import MalformedBody, request_params
from apps.oauth.forms import ThrottledAuthenticationForm
from apps.oauth.services import ApplicationUserLimitReached

# RFC 6749 §5.1 member order: clients parse `access_token=…&token_type=bearer` first (compat).
_TOKEN_FIELDS_FIRST = ("access_token", "token_type")


def _wants_json(request) -> bool:
    """docs/decisions.md: reply JSON when `Accept` asks for application/json (as GitHub does)."""
    for part in request.headers.get("Accept", "").split(","):
        media, *params = [p.strip() for p in part.split(";")]
        if media.lower() != "application/json":
            continue
        for param in params:
            name, _, value = param.partition("=")
            if name.strip().lower() == "q":
                try:
                    return float(value) > 0
                except ValueError:
                    return False
        return True
    return False


def _ordered_token_params(data: dict) -> list[tuple[str, str]]:
    if "token_type" in data:
        data = {**data, "token_type": str(data["token_type"]).lower()}  # compat: `bearer`
    first = [(key, data[key]) for key in _TOKEN_FIELDS_FIRST if key in data]
    rest = [(key, value) for key, value in data.items() if key not in _TOKEN_FIELDS_FIRST]
    return [(key, value if isinstance(value, str) else str(value)) for key, value in first + rest]


def oauth_response(request, data: dict, *, status: int, headers: dict | None = None) -> HttpResponse:
    """A token-endpoint reply: form-encoded by default, JSON when asked (docs/decisions.md: OAuth)."""
    if _wants_json(request):
        ordered = dict(_ordered_token_params(data))
        if "expires_in" in data:
            ordered["expires_in"] = data["expires_in"]
        response = HttpResponse(json.dumps(ordered), status=status, content_type="application/json")
    else:
        response = HttpResponse(
            urlencode(_ordered_token_params(data)),
            status=status,
            content_type="application/x-www-form-urlencoded",
        )
    for key, value in (headers or {}).items():
        if key.lower() != "content-type":
            response[key] = value
    response["Cache-Control"] = "no-store"
    response["Pragma"] = "no-cache"
    return response


def _malformed_body_is_400(handler):
    """docs/security.md (issue 14, finding 2): a body too deeply nested to parse is a 400, never a 500."""

    @functools.wraps(handler)
    def wrapped(self, request, *args, **kwargs):
        try:
            return handler(self, request, *args, **kwargs)
        except MalformedBody as exc:
            return json_error(400, str(exc), "MALFORMED_JSON")

    return wrapped


def _with_bearer_fragment(uri: str) -> str:
    """Implicit grant: `#access_token=…&token_type=bearer&…` in that order (compat)."""
    parts = urlsplit(uri)
    fragment = dict(parse_qsl(parts.fragment, keep_blank_values=True))
    if "access_token" not in fragment:
        return uri
    return urlunsplit(parts._replace(fragment=urlencode(_ordered_token_params(fragment))))


def _error_page(request, *, title: str, message: str, status: int, application=None) -> HttpResponse:
    context = {"title": title, "message": message, "application": application}
    return render(request, "oauth/error.html", context, status=status)


def application_limit_page(request, application) -> HttpResponse:
    """403: an unapproved app already serves its maximum number of people (spec §5/§8)."""
    limit = rules.application_user_limit()
    return _error_page(
        request,
        title="This application is awaiting review",
        message=(
            f"“{application.name}” has not been approved yet, and until it is it may be used by at most "
            f"{limit} people. That limit has been reached, so it cannot be authorized for your account "
            "right now. Please try again after the application has been reviewed."
        ),
        status=403,
        application=application,
    )


class AuthorizeView(AuthorizationView):
    """GET/POST {auth}/login/oauth/authorize (spec §5 step 1): login, consent, redirect with code or token.

    Consent is skipped for a user who already authorized the app and has not revoked it (as GitHub
    does); `prompt=consent` shows it again.
    """

    template_name = "oauth/authorize.html"

    def get(self, request, *args, **kwargs):
        try:
            scopes, credentials = self.validate_authorization_request(request)
        except OAuthToolkitError as error:
            return self.error_response(error, application=None)
        application = selectors.application_get_by_client_id(client_id=credentials["client_id"])
        if not selectors.application_can_serve_user(application=application, user=request.user):
            return self._limit_response(application)
        prompt = request.GET.get("prompt", "").split()
        already = selectors.application_user_is_counted(application=application, user=request.user)
        if not prompt and (already or application.skip_authorization):
            return self._authorize(request, application, " ".join(scopes), credentials)
        return super().get(request, *args, **kwargs)

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        application = context.get("application")
        if application is not None:
            context["owner"] = application.user
            context["user_limit"] = rules.application_user_limit()
        # docs/security.md (issue 22, finding 1): the page names exactly what the token will allow.
        if "scopes" in context:
            context["scopes_descriptions"] = rules.scope_descriptions(" ".join(context["scopes"]))
        # The consent page names where the browser goes next (the registered callback it was given).
        context["redirect_host"] = rules.redirect_host(context.get("redirect_uri") or "")
        return context

    def form_valid(self, form):
        data = form.cleaned_data
        application = selectors.application_get_by_client_id(client_id=data.get("client_id"))
        redirect_uri = data.get("redirect_uri") or ""
        # Never send the browser to a URI the app did not register, even from a tampered form.
        if application is None or not application.redirect_uri_allowed(redirect_uri):
            return _error_page(
                self.request,
                title="Invalid authorization request",
                message="The application or its callback URL is not registered.",
                status=400,
            )
        if not data.get("allow"):
            return self._deny(application, redirect_uri, data.get("response_type"), data.get("state"))
        try:
            services.authorization_grant(
                application=application, user=self.request.user, scope=data.get("scope") or ""
            )
        except ApplicationUserLimitReached:
            return self._limit_response(application)
        return super().form_valid(form)

    def form_invalid(self, form):
        return _error_page(
            self.request,
            title="Invalid authorization request",
            message="The form was incomplete.",
            status=400,
        )

    def error_response(self, error, application, **kwargs):
        redirect_to_client, response = OAuthLibMixin.error_response(self, error, **kwargs)
        if redirect_to_client:
            return self.redirect(response["url"], application)
        # Unknown client, missing or unregistered redirect_uri: an error page, never a redirect.
        oauth_error = response["error"]
        return _error_page(
            self.request,
            title="Invalid authorization request",
            message=oauth_error.description or oauth_error.error,
            status=oauth_error.status_code,
        )

    def redirect(self, redirect_to, application):
        return super().redirect(_with_bearer_fragment(redirect_to), application)

    def _authorize(self, request, application, scopes: str, credentials: dict):
        try:
            services.authorization_grant(application=application, user=request.user, scope=scopes)
        except ApplicationUserLimitReached:
            return self._limit_response(application)
        try:
            uri, _headers, _body, _status = self.create_authorization_response(
                request=request, scopes=scopes, credentials=credentials, allow=True
            )
        except OAuthToolkitError as error:
            return self.error_response(error, application)
        return self.redirect(uri, application)

    def _deny(self, application, redirect_uri: str, response_type: str | None, state: str | None):
        params = {"error": "access_denied"}
        if state:
            params["state"] = state
        params["iss"] = settings.AUTH_BASE_URL  # RFC 9207, as DOT's own answers (docs/security.md, issue 22)
        parts = urlsplit(redirect_uri)
        if response_type == "token":  # RFC 6749 §4.2.2.1: implicit errors travel in the fragment
            parts = parts._replace(fragment=urlencode(params))
        else:
            query = parse_qsl(parts.query, keep_blank_values=True) + list(params.items())
            parts = parts._replace(query=urlencode(query))
        return self.redirect(urlunsplit(parts), application)

    def _limit_response(self, application):
        return application_limit_page(self.request, application)


class AccessTokenView(TokenView):
    """POST {auth}/login/oauth/access_token (spec §5 step 3A; docs/decisions.md: OAuth)."""

    @method_decorator(sensitive_post_parameters("client_secret", "code", "refresh_token", "code_verifier", "device_code"))
    @_malformed_body_is_400
    def post(self, request, *args, **kwargs):
        _url, headers, body, status = self.create_token_response(request)
        try:
            data = json.loads(body) if body else {}
        except ValueError:
            data = {"error": "server_error"}
        return oauth_response(request, data, status=status, headers=headers)


class RevokeView(RevokeTokenView):
    """POST {auth}/login/oauth/revoke (RFC 7009; client authentication as DOT does)."""

    @_malformed_body_is_400
    def post(self, request, *args, **kwargs):
        return super().post(request, *args, **kwargs)


@method_decorator(csrf_exempt, name="dispatch")
@method_decorator(never_cache, name="dispatch")
class TokenInfoView(View):
    """GET/POST {auth}/login/oauth/tokeninfo (spec §5 step 3B)."""

    @_malformed_body_is_400
    def get(self, request, *args, **kwargs):
        raw = request_params(request).get("access_token", "").strip()
        if not raw:
            scheme, _, value = request.headers.get("Authorization", "").partition(" ")
            raw = value.strip() if scheme.lower() == "bearer" else ""
        token = selectors.access_token_get_active(token=raw)
        if token is None or token.application is None:
            return JsonResponse({"error": "invalid_token"}, status=400)
        user_id = str(token.user_id) if token.user_id is not None else None
        return JsonResponse({"audience": token.application.client_id, "user_id": user_id})

    post = get


class ServerMetadataView(View):
    """GET /.well-known/oauth-authorization-server (RFC 8414)."""

    def get(self, request, *args, **kwargs):
        auth_methods = ["client_secret_post", "client_secret_basic", "none"]
        return JsonResponse(
            {
                "issuer": settings.AUTH_BASE_URL,
                "authorization_endpoint": auth_url("/login/oauth/authorize"),
                "token_endpoint": auth_url("/login/oauth/access_token"),
                "revocation_endpoint": auth_url("/login/oauth/revoke"),
                "device_authorization_endpoint": auth_url("/login/oauth/device_authorization"),
                "response_types_supported": ["code", "token"],
                "response_modes_supported": ["query", "fragment"],
                "grant_types_supported": [
                    "authorization_code",
                    "implicit",
                    "refresh_token",
                    "urn:ietf:params:oauth:grant-type:device_code",
                ],
                "code_challenge_methods_supported": ["S256"],
                "token_endpoint_auth_methods_supported": auth_methods,
                "revocation_endpoint_auth_methods_supported": auth_methods,
                "scopes_supported": sorted(settings.OAUTH2_PROVIDER.get("SCOPES", {})),
                # RFC 9207 (docs/security.md, issue 22): every authorization response carries `iss`.
                "authorization_response_iss_parameter_supported": True,
            }
        )


class AuthorizedAppListView(LoginRequiredMixin, TemplateView):
    """GET /account/apps: the apps the user has authorized."""

    template_name = "oauth/authorized_apps.html"

    def get_context_data(self, **kwargs):
        context = super().get_context_data(**kwargs)
        context["authorizations"] = selectors.authorization_list_for_user(user=self.request.user)
        return context


class AuthorizedAppRevokeView(LoginRequiredMixin, View):
    """/account/apps/<application_id>/revoke: GET asks for confirmation (works without JS), POST
    withdraws consent and every token of the app."""

    def _authorization(self, request, application_id):
        authorization = selectors.authorization_get_for_user(user=request.user, application_id=application_id)
        if authorization is None:
            raise Http404
        return authorization

    def get(self, request, application_id: int, *args, **kwargs):
        authorization = self._authorization(request, application_id)
        context = {"authorization": authorization, "application": authorization.application}
        return render(request, "oauth/authorized_app_revoke.html", context)

    def post(self, request, application_id: int, *args, **kwargs):
        authorization = self._authorization(request, application_id)
        services.authorization_revoke(user=request.user, application=authorization.application)
        messages.success(request, f"Access for “{authorization.application.name}” has been revoked.")
        return redirect("oauth:authorized-apps")


class LoginView(SafeNextMixin, auth_views.LoginView):
    """GET/POST /login/: Django's log-in page with the failed-login throttle (docs/security.md, finding 7).

    A refused attempt while the account or the address is locked answers 429 with Retry-After and says
    so on the page.
    """

    authentication_form = ThrottledAuthenticationForm

    def form_invalid(self, form):
        response = super().form_invalid(form)
        if form.throttled_seconds:
            response.status_code = 429
            response["Retry-After"] = str(form.throttled_seconds)
        return response


class LogoutView(SafeNextMixin, auth_views.LogoutView):
    """POST /logout/: Django's, with `next` read as every page reads it (apps.core.site.pages.next_path)."""
