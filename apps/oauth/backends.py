"""OAuthLib glue: read OAuth parameters wherever wire-compatible clients put them (docs/decisions.md: OAuth)."""
import json
from urllib.parse import parse_qsl, urlencode as stdlib_urlencode

from oauth2_provider.oauth2_backends import OAuthLibCore
from oauthlib import oauth2
from oauthlib.common import urlencode

from oauth2_provider.exceptions import FatalClientError, OAuthToolkitError


class MalformedBody(ValueError):
    """A body that cannot be read as parameters (JSON nested deeper than the decoder's stack)."""


def _scalar(value) -> str | None:
    if value is None or isinstance(value, (dict, list)):
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def body_params(request) -> dict[str, str]:
    """Parameters in the request body: multipart, JSON whatever Content-Type says, else form-encoded."""
    content_type = (request.content_type or "").lower()
    if content_type.startswith("multipart/"):
        return {key: value for key, value in request.POST.items()}
    raw = request.body
    if not raw or not raw.strip():
        return {}
    try:
        data = json.loads(raw)
    except RecursionError:
        raise MalformedBody("Malformed JSON in request body: nested too deeply") from None
    except (ValueError, UnicodeDecodeError):
        data = ...
    if data is None:
        return {}  # docs/decisions.md: the literal `null` means "no fields"
    if isinstance(data, dict):
        return {key: text for key, value in data.items() if (text := _scalar(value)) is not None}
    # compat: form bodies arrive labelled as anything (or nothing), so parse them ourselves.
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return {}
    return dict(parse_qsl(text, keep_blank_values=True))


def request_params(request) -> dict[str, str]:
    """Query-string parameters overlaid with the body's (the body wins on a clash)."""
    params = {key: value for key, value in request.GET.items()}
    if request.method not in ("GET", "HEAD"):
        params.update(body_params(request))
    return params


class AnyBodyOAuthLibCore(OAuthLibCore):
    """docs/decisions.md (compat): token-endpoint parameters from the query string, a form, multipart or JSON."""

    def _extract_params(self, request, *, defaults: dict | None = None):
        if request.method in ("GET", "HEAD"):
            return super()._extract_params(request)
        # One merged parameter list in the body and none in the URI, so oauthlib never sees a
        # parameter twice (it rejects duplicated client_id/redirect_uri/grant_type).
        params = {**(defaults or {}), **request_params(request)}
        return request.path, request.method, urlencode(list(params.items())), self.extract_headers(request)

    def create_token_response(self, request):
        # docs/decisions.md: grant_type defaults to authorization_code (spec §5 step 3A never sends it).
        uri, http_method, body, headers = self._extract_params(
            request, defaults={"grant_type": "authorization_code"}
        )
        try:
            headers, body, status = self.server.create_token_response(
                uri, http_method, body, headers, self._get_extra_credentials(request)
            )
            return headers.get("Location"), headers, body, status
        except oauth2.OAuth2Error as exc:
            return None, exc.headers, exc.json, exc.status_code

    def validate_authorization_request(self, request):
        # spec §5: response_type is optional at the authorization endpoint and defaults to `code`.
        try:
            uri, http_method, body, headers = self._extract_params(request)
            if "response_type" not in request.GET:
                query = list(request.GET.items()) + [("response_type", "code")]
                uri = request.path + "?" + stdlib_urlencode(query)
            scopes, credentials = self.server.validate_authorization_request(
                uri, http_method=http_method, body=body, headers=headers
            )
            return scopes, credentials
        except oauth2.FatalClientError as error:
            raise FatalClientError(error=error) from error
        except oauth2.OAuth2Error as error:
            raise OAuthToolkitError(error=error) from error
