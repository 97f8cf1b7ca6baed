"""Server-rendered site pages of accounts (session login). They act through the same services as the API."""

from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import redirect, render
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_http_methods, require_POST

from apps.accounts import links, selectors, services
from apps.accounts.forms import ProfileForm, SignupForm, apply_errors
from apps.core.exceptions import NotFound, RuleViolation, ValidationFailed

ACCOUNT_HOME = "/account/"


def _profile_context(user) -> dict:
    return {
        "profile": user,
        "thumbnail": links.user_thumbnail_url(user),
        "cover_image": links.user_cover_url(user),
        "public_url": links.user_public_url(user),
    }


def profile_page(request, username):
    """/@<username>: the public profile (the API's `public_url`)."""
    try:
        user = selectors.user_get_by_name(username, viewer=request.user)
    except NotFound:
        raise Http404 from None
    return render(request, "accounts/profile.html", _profile_context(user))


def _safe_next(request) -> str:
    target = request.POST.get("next") or request.GET.get("next") or ""
    if url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return target
    return ACCOUNT_HOME


@require_http_methods(["GET", "POST"])
def signup(request):
    if request.user.is_authenticated:
        return redirect(_safe_next(request))
    form = SignupForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            user = services.user_register(
                username=form.cleaned_data["username"],
                email=form.cleaned_data["email"],
                password=form.cleaned_data["password1"],
            )
        except ValidationFailed as exc:
            apply_errors(
                form, {("password1" if k == "password" else k): v for k, v in (exc.errors or {}).items()}
            )
        else:
            # Explicit backend: other apps may add authentication backends later.
            login(request, user, backend="django.contrib.auth.backends.ModelBackend")
            return redirect(_safe_next(request))
    return render(
        request,
        "accounts/signup.html",
        {"form": form, "next": _safe_next(request)},
        status=400 if form.errors else 200,
    )


@login_required
@require_http_methods(["GET", "POST"])
def account_home(request):
    """/account/: the signed-in user's home, with the profile form (same service as PATCH /users/me)."""
    user = request.user
    initial = {field: getattr(user, field) for field in ProfileForm.base_fields}
    form = ProfileForm(request.POST or None, initial=initial)
    if request.method == "POST" and form.is_valid():
        try:
            services.user_update(user=user, data=form.cleaned_data)
        except ValidationFailed as exc:
            apply_errors(form, exc.errors)
        else:
            messages.success(request, "Your profile was saved.")
            return redirect(ACCOUNT_HOME)
    context = {**_profile_context(user), "form": form}
    return render(request, "accounts/account.html", context, status=400 if form.errors else 200)


@login_required
@require_POST
def account_send_verification(request):
    try:
        services.user_send_verification(user=request.user)
    except RuleViolation as exc:
        messages.error(request, exc.message)
    else:
        messages.success(
            request, f"We sent a confirmation link to {request.user.email}, if we had not just done so."
        )
    return redirect(ACCOUNT_HOME)


def verify_email(request, token):
    """/account/verify/<token>: the link of the verification mail (spec §4.1 verify-account)."""
    try:
        user = services.user_verify_email(token=token)
    except RuleViolation as exc:
        return render(request, "accounts/verify_email.html", {"error": exc.message}, status=400)
    return render(request, "accounts/verify_email.html", {"verified_user": user})
