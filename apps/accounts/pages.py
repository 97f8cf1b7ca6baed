"""Server-rendered site pages of accounts (session login). They act through the same services as the API."""

from django.contrib import messages
from django.contrib.auth import login, logout
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import Http404
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods, require_POST

from apps.accounts import links, selectors, services
from apps.accounts.models import User
from apps.accounts.forms import (
    CloseAccountForm,
    EmailChangeForm,
    MessageForm,
    NotifyEmailForm,
    PasswordResetRequestForm,
    ProfileForm,
    SignupForm,
)
from apps.core.site.pages import apply_errors, done, login_required_page, refused, safe_next
from apps.core.domain.exceptions import DomainError
from apps.accounts.profiles import profile_counts, profile_tabs
from apps.core.domain.exceptions import NotFound, RateLimited, RuleViolation, ValidationFailed
from apps.core.site.pages import paginate
from apps.core.security.throttle import client_address

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
    context = {
        **_profile_context(user), "tabs": tabs, "tab": current, "is_self": request.user.pk == user.pk,
        "follow": selectors.user_follow_state(user=user, viewer=request.user),
    }
    # Each tab shows how many rows it holds for this viewer, all counted in one statement, which also
    # gives the current tab's pager its length (no COUNT of its own).
    counts = profile_counts(owner=user, viewer=request.user)
    context["tab_links"] = [(t, counts.get(t.slug, 0)) for t in tabs]
    if current is not None:
        page = paginate(request, current.listing(owner=user, viewer=request.user), total=counts.get(current.slug))
        items = list(page)
        if current.prepare is not None:
            items = current.prepare(items, viewer=request.user)
        context.update(page=page, items=items)
    return render(request, "accounts/profile.html", context)


@login_required_page
@require_POST
def profile_follow(request, username):
    """POST action=follow|unfollow from a maker's page (the same services as POST/DELETE
    /users/{username}/followers); JSON for the site's script: {following, follower_count}."""
    try:
        user = selectors.user_get_by_name(username, viewer=request.user)
    except NotFound:
        raise Http404 from None
    back = f"/@{user.username}"
    try:
        if request.POST.get("action") == "unfollow":
            services.user_unfollow(follower=request.user, followed=user)
        else:
            services.user_follow(follower=request.user, followed=user)
    except DomainError as exc:
        return refused(request, exc, next_url=back)
    state = selectors.user_follow_state(user=user, viewer=request.user)
    message = f"You follow {user.username}." if state["following"] else f"You no longer follow {user.username}."
    return done(request, message=message, data={"following": state["following"], "count": state["count"]},
                next_url=back)


@login_required
@require_POST
def account_notify_email(request):
    """/account/notifications: the e-mail choice for notifications (none, each, daily digest)."""
    form = NotifyEmailForm(request.POST)
    if not form.is_valid():
        messages.error(request, "Choose one of the e-mail options.")
        return redirect(ACCOUNT_HOME + "#notifications")
    services.user_notify_email_set(user=request.user, choice=form.cleaned_data["notify_email"])
    messages.success(request, f"Saved: {request.user.get_notify_email_display()}.")
    return redirect(ACCOUNT_HOME + "#notifications")


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
        "notify_choices": User.NotifyEmail.choices,
        "picture_fields": [
            ("avatar", "Avatar", links.user_thumbnail_url(user) if user.avatar else ""),
            ("cover", "Cover image", links.user_cover_url(user) if user.cover else ""),
        ],
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
    return _mailed_link(request, "accounts/verify_email.html", "verified_user",
                        lambda: services.user_verify_email(token=token))


def _mailed_link(request, template: str, name: str, confirm):
    """A link sent by mail, opened: `confirm()`'s user shown as `name`, or its rule's message with 400."""
    try:
        user = confirm()
    except RuleViolation as exc:
        return render(request, template, {"error": exc.message}, status=400)
    return render(request, template, {name: user})


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


# --- credentials: password reset and change, e-mail change, closing the account --------------------------

PASSWORD_RESET_DONE = "/password_reset/done/"


@require_http_methods(["GET", "POST"])
def password_reset(request):
    """/password_reset/: ask for a link to choose a new password. The answer never tells whether an
    account uses the address; too many requests from one address or for one e-mail answer 429."""
    form = PasswordResetRequestForm(request.POST or None)
    status = 200
    retry_after = 0
    if request.method == "POST" and form.is_valid():
        try:
            services.user_password_reset_request(
                email=form.cleaned_data["email"], address=client_address(request.META)
            )
        except RateLimited as exc:
            form.add_error(None, exc.message)
            status = 429
            retry_after = exc.retry_after
        else:
            return redirect(PASSWORD_RESET_DONE)
    if form.errors and status == 200:
        status = 400
    response = render(request, "registration/password_reset_form.html", {"form": form}, status=status)
    if status == 429:
        response["Retry-After"] = str(retry_after)
    return response


def password_reset_done(request):
    return render(request, "registration/password_reset_done.html")


class PasswordResetConfirm(auth_views.PasswordResetConfirmView):
    """/reset/<uidb64>/<token>/: Django's own view and token; a used or expired link says so."""

    template_name = "registration/password_reset_confirm.html"
    success_url = "/reset/done/"

    def form_valid(self, form):
        response = super().form_valid(form)
        services.user_password_changed(user=form.user)
        return response


def password_reset_complete(request):
    return render(request, "registration/password_reset_complete.html")


class PasswordChange(auth_views.PasswordChangeView):
    """/account/password: the current password and a new one twice (Django's validators); this browser
    stays signed in, every other session ends (Django's session hash)."""

    template_name = "accounts/password_change.html"
    success_url = ACCOUNT_HOME

    def form_valid(self, form):
        response = super().form_valid(form)
        services.user_password_changed(user=form.user)
        messages.success(self.request, "Your password was changed.")
        return response

    def form_invalid(self, form):
        response = super().form_invalid(form)
        response.status_code = 400
        return response


@login_required
@require_http_methods(["GET", "POST"])
def account_email(request):
    """/account/email: move the account to a new address (confirmed from that address)."""
    form = EmailChangeForm(request.POST or None)
    status = 200
    if request.method == "POST" and form.is_valid():
        try:
            services.user_email_change_request(
                user=request.user, new_email=form.cleaned_data["email"], password=form.cleaned_data["password"]
            )
        except ValidationFailed as exc:
            apply_errors(form, exc.errors)
        except RateLimited as exc:
            form.add_error(None, exc.message)
            status = 429
        else:
            messages.success(
                request,
                f"We sent a confirmation link to {form.cleaned_data['email']}. Your address changes once you "
                "open it.",
            )
            return redirect(ACCOUNT_HOME)
    if form.errors and status == 200:
        status = 400
    return render(request, "accounts/email_change.html", {"form": form}, status=status)


def email_change_confirm(request, token):
    """/account/email/confirm/<token>: the link of the confirmation mail."""
    return _mailed_link(request, "accounts/email_change_confirm.html", "changed_user",
                        lambda: services.user_email_change_confirm(token=token))


@login_required
@require_http_methods(["GET", "POST"])
def account_close(request):
    """/account/close: what closing removes is said first; the password and the user name confirm it."""
    form = CloseAccountForm(request.POST or None)
    status = 200
    if request.method == "POST" and form.is_valid():
        try:
            services.user_close_account(
                user=request.user,
                password=form.cleaned_data["password"],
                confirm_username=form.cleaned_data["confirm_username"],
            )
        except ValidationFailed as exc:
            apply_errors(form, exc.errors)
        except RuleViolation as exc:
            form.add_error(None, exc.message)
            status = 409
        else:
            logout(request)
            messages.success(request, "Your account was closed. Thank you for sharing with us.")
            return redirect("/")
    if form.errors and status == 200:
        status = 400
    counts = selectors.user_closing_summary(user=request.user)
    return render(request, "accounts/account_close.html", {"form": form, "counts": counts}, status=status)
