"""Device sign-in's endpoint and page (RFC 8628; docs/decisions.md: Device sign-in).

`DeviceAuthorizationView` subclasses DOT's under our URL pattern: oauthlib validates the request (the
client, its authentication, the scopes) and the app type decides; `DeviceView` is the /device page
where a signed-in person types the code and consents as on the authorize page (oauth/authorize.html).
The device's polls are the token endpoint's (apps.oauth.views.AccessTokenView, oauthlib's device grant).
"""

from django.contrib.auth.mixins import LoginRequiredMixin
from django.http import JsonResponse
from django.shortcuts import render
from django.utils import timezone
from django.utils.decorators import method_decorator
from django.views import View
from django.views.decorators.cache import never_cache
from django.views.decorators.debug import sensitive_post_parameters
from oauth2_provider.views import DeviceAuthorizationView as DotDeviceAuthorizationView
from oauthlib import common
from oauthlib.oauth2 import OAuth2Error
from oauthlib.oauth2.rfc6749.errors import InvalidClientIdError
from oauthlib.oauth2.rfc8628.endpoints.pre_configured import DeviceApplicationServer

from apps.core.pipeline.api import site_url
from apps.core.security.throttle import client_address
from apps.oauth import rules as oauth_rules
from apps.oauth import selectors as oauth_selectors
from apps.oauth.backends import AnyBodyOAuthLibCore
from apps.oauth.device import rules, selectors, services
from apps.oauth.device.forms import DeviceConsentForm, UserCodeForm
from apps.oauth.services import ApplicationUserLimitReached
from apps.oauth.views import _malformed_body_is_400, application_limit_page


def _oauth_json(data: dict, *, status: int, headers: dict | None = None) -> JsonResponse:
    response = JsonResponse(data, status=status)
    for key, value in (headers or {}).items():
        if key.lower() != "content-type":
            response[key] = value
    response["Cache-Control"] = "no-store"  # RFC 8628 §3.2: the codes are credentials
    response["Pragma"] = "no-cache"
    return response


def _oauth_error(error: OAuth2Error) -> JsonResponse:
    body = {"error": error.error}
    if error.description:
        body["error_description"] = error.description
    return _oauth_json(body, status=error.status_code, headers=error.headers)


class DeviceOAuthLibCore(AnyBodyOAuthLibCore):
    """Parameters wherever wire-compatible clients put them (docs/decisions.md: OAuth), as at the token
    endpoint: oauthlib then reads one form-encoded body, and is told so."""

    def device_authorization_validate(self, request) -> common.Request:
        """oauthlib's validation of a device authorization request (RFC 8628 §3.1); the request it
        returns carries the authenticated client and the resolved scopes. Raises OAuth2Error."""
        uri, http_method, body, headers = self._extract_params(request)
        headers = {**headers, "Content-Type": "application/x-www-form-urlencoded"}
        oauth_request = common.Request(uri, http_method=http_method, body=body, headers=headers)
        self.server.validate_device_authorization_request(oauth_request)
        return oauth_request


@method_decorator(never_cache, name="dispatch")
class DeviceAuthorizationView(DotDeviceAuthorizationView):
    """POST {auth}/login/oauth/device_authorization (RFC 8628 §3.1–3.2): a device code and a user code."""

    server_class = DeviceApplicationServer
    oauthlib_backend_class = DeviceOAuthLibCore

    @classmethod
    def get_server(cls):
        # The URIs are answered per request (the site's address is a setting); the codes are drawn by
        # the view, so only validation is asked of this server.
        return cls.get_server_class()(
            cls.get_validator_class()(),
            verification_uri="/device",
            interval=rules.POLL_INTERVAL_SECONDS,
            user_code_generator=rules.user_code_generate,
        )

    @method_decorator(sensitive_post_parameters("client_secret"))
    @_malformed_body_is_400
    def post(self, request, *args, **kwargs):
        address = client_address(request.META)
        wait = selectors.device_codes_locked_for(address=address)
        if wait:
            response = _oauth_json(
                {"error": "slow_down", "error_description": rules.device_codes_throttled_message(wait)}, status=429
            )
            response["Retry-After"] = str(wait)
            return response
        try:
            oauth_request = self.get_oauthlib_core().device_authorization_validate(request)
        except InvalidClientIdError:
            # RFC 6749 §5.2 (RFC 8628 §3.2 refers to it): an unknown client is `invalid_client`, 401, as at
            # the token endpoint; oauthlib says invalid_request here.
            return _oauth_json({"error": "invalid_client", "error_description": "Unknown client."}, status=401)
        except OAuth2Error as error:
            return _oauth_error(error)
        application = oauth_request.client  # the authenticated one (Basic credentials name it too)
        if not rules.application_may_use_device_grant(app_type=application.app_type):
            return _oauth_json(
                {
                    "error": "unauthorized_client",
                    "error_description": "Only Desktop and Mobile apps may use device sign-in.",
                },
                status=400,
            )
        device_code = common.generate_token(length=40)
        grant = services.device_grant_create(
            application=application,
            device_code=device_code,
            user_code=rules.user_code_generate(),
            scope=" ".join(oauth_request.scopes or []),
            address=address,
        )
        shown = rules.user_code_display(grant.user_code)
        verification_uri = site_url("/device")
        return _oauth_json(
            {
                "device_code": device_code,
                "user_code": shown,
                "verification_uri": verification_uri,
                "verification_uri_complete": f"{verification_uri}?user_code={shown}",
                "expires_in": rules.DEVICE_CODE_SECONDS,
                "interval": grant.interval,
            },
            status=200,
        )

    def get(self, request, *args, **kwargs):
        return _oauth_json({"error": "invalid_request", "error_description": "Use POST."}, status=405)


@method_decorator(never_cache, name="dispatch")
class DeviceView(LoginRequiredMixin, View):
    """GET/POST /device: type the device's code (prefilled from verification_uri_complete), consent as
    for any app, approve or deny. Signing in comes first (the log-in page brings the person back with
    the code). Every wrong, expired or used code counts toward a pause (rules.USER_CODE_*_LIMIT)."""

    def get(self, request, *args, **kwargs):
        form = UserCodeForm(initial={"user_code": request.GET.get("user_code", "")[:32]})
        return self._entry(form)

    def post(self, request, *args, **kwargs):
        form = UserCodeForm(request.POST)
        if not form.is_valid():
            return self._entry(form, status=400)
        address = client_address(request.META)
        wait = selectors.user_code_locked_for(user=request.user, address=address)
        if wait:
            return self._throttled(form, wait)
        grant = selectors.device_grant_get_by_user_code(user_code=form.cleaned_data["user_code"])
        problem = rules.user_code_problem(
            status=grant.status if grant else None, expires=grant.expires if grant else None, now=timezone.now()
        )
        if problem:
            wait = services.user_code_failure_record(user=request.user, address=address)
            if wait:
                return self._throttled(form, wait)
            form.add_error("user_code", problem)
            return self._entry(form, status=400)
        application = grant.application
        if not oauth_selectors.application_can_serve_user(application=application, user=request.user):
            return self._limit_response(application)
        if not request.POST.get("confirm"):
            return self._consent(grant)
        try:
            if request.POST.get("allow"):
                services.device_grant_approve(grant=grant, user=request.user)
            else:
                services.device_grant_deny(grant=grant, user=request.user)
        except ApplicationUserLimitReached:
            return self._limit_response(application)
        except services.DeviceCodeNotPending as error:
            form.add_error("user_code", error.message)
            return self._entry(form, status=400)
        context = {"application": application, "approved": bool(request.POST.get("allow"))}
        return render(request, "oauth/device_done.html", context)

    def _entry(self, form, *, status: int = 200, wait: int = 0):
        return render(self.request, "oauth/device.html", {"form": form, "wait": wait}, status=status)

    def _throttled(self, form, wait: int):
        form.add_error(None, rules.user_code_throttled_message(wait))
        response = self._entry(form, status=429, wait=wait)
        response["Retry-After"] = str(wait)
        return response

    def _consent(self, grant):
        application = grant.application
        context = {
            "application": application,
            "owner": application.user,
            "user_limit": oauth_rules.application_user_limit(),
            "scopes_descriptions": oauth_rules.scope_descriptions(grant.scope),
            "redirect_host": "",
            "user_code": rules.user_code_display(grant.user_code),
            "form": DeviceConsentForm(initial={"user_code": grant.user_code}),
        }
        return render(self.request, "oauth/device_consent.html", context)

    def _limit_response(self, application):
        return application_limit_page(self.request, application)
