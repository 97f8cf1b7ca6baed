"""Server-rendered site pages of accounts (session login). They act through the same services as the API."""

from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import Http404
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods, require_POST

from apps.accounts import links, selectors, services
from apps.accounts.forms import MessageForm, ProfileForm, SignupForm
from apps.core.site import apply_errors, safe_next
from apps.core.throttle import client_address
from apps.accounts.profiles import profile_tabs
from apps.core.exceptions import NotFound, RateLimited, RuleViolation, ValidationFailed
from apps.core.site import paginate

ACCOUNT_HOME = "/account/"
MESSAGES_HOME = "/account/messages"
MESSAGES_PER_PAGE = 30


def _profile_context(user) -> dict:
    return {
        "profile": user,
        "thumbnail": links.user_thumbnail_url(user),
        "cover_image": links.user_cover_url(user),
        "public_url": links.user_public_url(user),
    }


def profile_page(request, username, tab=None):
    """/@<username> (and /@<username>/<tab>): the public profile (the API's `public_url`) with the
    tabs other apps register (apps.accounts.profiles): Things, makes, collections, likes."""
    try:
        user = selectors.user_get_by_name(username, viewer=request.user)
    except NotFound:
        raise Http404 from None
    tabs = profile_tabs()
    current = next((t for t in tabs if t.slug == tab), None) if tab else (tabs[0] if tabs else None)
    if tab and current is None:
        raise Http404
    context = {**_profile_context(user), "tabs": tabs, "tab": current, "is_self": request.user.pk == user.pk}
    if current is not None:
        page = paginate(request, current.listing(owner=user, viewer=request.user))
        items = list(page)
        if current.prepare is not None:
            items = current.prepare(items, viewer=request.user)
        context.update(page=page, items=items)
    return render(request, "accounts/profile.html", context)


def _safe_next(request) -> str:
    return safe_next(request, ACCOUNT_HOME)


@require_http_methods(["GET", "POST"])
def signup(request):
    if request.user.is_authenticated:
        return redirect(_safe_next(request))
    form = SignupForm(request.POST or None)
    retry_after = 0
    if request.method == "POST" and form.is_valid():
        try:
            user = services.user_register(
                username=form.cleaned_data["username"],
                email=form.cleaned_data["email"],
                password=form.cleaned_data["password1"],
                address=client_address(request.META),
            )
        except ValidationFailed as exc:
            apply_errors(
                form, {("password1" if k == "password" else k): v for k, v in (exc.errors or {}).items()}
            )
        except RateLimited as exc:
            form.add_error(None, exc.message)
            retry_after = exc.retry_after
        else:
            # Explicit backend: other apps may add authentication backends later.
            login(request, user, backend="apps.oauth.auth_backends.ThrottledModelBackend")
            return redirect(_safe_next(request))
    response = render(
        request,
        "accounts/signup.html",
        {"form": form, "next": _safe_next(request)},
        status=429 if retry_after else 400 if form.errors else 200,
    )
    if retry_after:
        response["Retry-After"] = str(retry_after)
    return response


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
    context = {
        **_profile_context(user),
        "form": form,
        "unread_messages": selectors.unread_message_count(user=user),
    }
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


# --- private messages (what GET /users/unread-message-count counts) ---------------------------------


@login_required
@require_http_methods(["GET"])
def messages_page(request):
    """/account/messages: the inbox (newest first, unread marked); `?box=sent` lists the sent ones."""
    sent = request.GET.get("box") == "sent"
    listing = selectors.message_list_sent if sent else selectors.message_list_inbox
    page = Paginator(listing(user=request.user), MESSAGES_PER_PAGE).get_page(request.GET.get("page"))
    context = {
        "page": page,
        "box": "sent" if sent else "inbox",
        "unread": selectors.unread_message_count(user=request.user),
    }
    return render(request, "accounts/messages.html", context)


@login_required
@require_http_methods(["GET"])
def message_page(request, message_id):
    """/account/messages/<id>: one message the user sent or received; opening a received one reads it."""
    try:
        message = selectors.message_get_for_user(message_id, user=request.user)
    except NotFound:
        raise Http404 from None
    services.message_mark_read(message=message, user=request.user)
    return render(
        request,
        "accounts/message_detail.html",
        {"message": message, "received": message.recipient_id == request.user.pk},
    )


@login_required
@require_http_methods(["GET", "POST"])
def message_new(request):
    """/account/messages/new: write to a user (`?to=<name>` fills the recipient in, e.g. from a reply)."""
    form = MessageForm(request.POST or None, initial={"to": request.GET.get("to", "")})
    status = 200
    if request.method == "POST" and form.is_valid():
        try:
            message = services.message_send(
                sender=request.user, to=form.cleaned_data["to"], body=form.cleaned_data["body"]
            )
        except ValidationFailed as exc:
            apply_errors(form, exc.errors)
        except RateLimited as exc:
            form.add_error(None, exc.message)
            status = 429
        else:
            messages.success(request, f"Your message to {message.recipient.username} was sent.")
            return redirect(f"{MESSAGES_HOME}?box=sent")
    if form.errors and status == 200:
        status = 400
    return render(request, "accounts/message_new.html", {"form": form}, status=status)


@login_required
@require_POST
def messages_mark_all_read(request):
    count = services.message_mark_all_read(user=request.user)
    messages.success(request, f"Marked {count} message(s) as read.")
    return redirect(MESSAGES_HOME)
