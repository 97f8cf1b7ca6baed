"""Admin for accounts. Moderation actions go through services (STYLE.md: admin actions call services too)."""

from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.contrib.auth.admin import UserAdmin as DjangoUserAdmin
from django.contrib.auth.forms import AdminUserCreationForm, UserChangeForm
from django.template.response import TemplateResponse
from django.urls import reverse

from apps.accounts import selectors, services
from apps.accounts.forms import SuspendForm
from apps.accounts.models import Follow, Message, User
from apps.core.adminkit.readonly import ReadOnlyAdmin
from apps.core.adminkit.sitelink import SitePageAdminMixin
from apps.core.domain.exceptions import DomainError, NotFound


class ThingyardUserChangeForm(UserChangeForm):
    # Django's forms are bound to auth.User; ours is swapped in (AUTH_USER_MODEL).
    class Meta(UserChangeForm.Meta):
        model = User


class ThingyardUserCreationForm(AdminUserCreationForm):
    class Meta(AdminUserCreationForm.Meta):
        model = User
        fields = ("username", "email")


@admin.register(User)
class UserAdmin(SitePageAdminMixin, DjangoUserAdmin):
    def view_on_site(self, obj):
        return reverse("accounts:profile", args=[obj.username])

    def site_page_visible(self, viewer, obj) -> bool:
        try:  # the profile page's own lookup: a suspended account's page does not exist
            selectors.user_get_by_name(obj.username, viewer=viewer)
        except NotFound:
            return False
        return True

    form = ThingyardUserChangeForm
    add_form = ThingyardUserCreationForm
    list_display = (
        "username",
        "email",
        "email_verified",
        "is_active",
        "is_staff",
        "date_joined",
        "last_active",
    )
    list_filter = (
        "is_active",
        "is_staff",
        "is_superuser",
        "email_verified",
        "default_license",
        "date_joined",
    )
    search_fields = ("username", "email", "first_name", "last_name")
    ordering = ("-date_joined",)
    readonly_fields = ("last_login", "date_joined", "last_active", "suspended_reason")
    fieldsets = (
        (None, {"fields": ("username", "password")}),
        (
            "Profile",
            {
                "fields": (
                    "first_name",
                    "last_name",
                    "email",
                    "email_verified",
                    "bio",
                    "location",
                    "default_license",
                    "avatar",
                    "cover",
                )
            },
        ),
        (
            "Status",
            {
                "fields": (
                    "is_active",
                    "suspended_reason",
                    "is_staff",
                    "is_superuser",
                    "groups",
                    "user_permissions",
                )
            },
        ),
        ("Dates", {"fields": ("last_login", "date_joined", "last_active")}),
    )
    add_fieldsets = (
        (None, {"classes": ("wide",), "fields": ("username", "email", "password1", "password2")}),
    )
    actions = ("suspend_users", "unsuspend_users")

    @admin.action(description="Suspend users", permissions=("change",))
    def suspend_users(self, request, queryset):
        """Intermediate page asks for the reason; the second POST (with `apply`) suspends."""
        form = SuspendForm(request.POST if "apply" in request.POST else None)
        if form.is_bound and form.is_valid():
            done = 0
            for user in queryset:
                try:
                    services.user_suspend(user=user, reason=form.cleaned_data["reason"], actor=request.user)
                    done += 1
                except DomainError as exc:
                    self.message_user(request, f"{user.username}: {exc.message}", messages.ERROR)
            self.message_user(request, f"Suspended {done} user(s).", messages.SUCCESS)
            return None
        context = {
            **self.admin_site.each_context(request),
            "title": "Suspend users",
            "opts": self.model._meta,
            "users": list(queryset),
            "form": form,
            "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
        }
        return TemplateResponse(request, "accounts/admin/suspend_confirm.html", context)

    @admin.action(description="Unsuspend users", permissions=("change",))
    def unsuspend_users(self, request, queryset):
        for user in queryset:
            services.user_unsuspend(user=user)
        self.message_user(request, f"Unsuspended {queryset.count()} user(s).", messages.SUCCESS)


@admin.register(Follow)
class FollowAdmin(ReadOnlyAdmin):
    list_display = ("follower", "followed", "created")
    list_select_related = ("follower", "followed")
    search_fields = ("follower__username", "followed__username")
    raw_id_fields = ("follower", "followed")


@admin.register(Message)
class MessageAdmin(ReadOnlyAdmin):
    """Private messages, read-only: moderators look into abuse reports, never write or edit messages."""

    list_display = ("sender", "recipient", "excerpt", "created", "read_at")
    list_filter = (("read_at", admin.EmptyFieldListFilter), "created")
    list_select_related = ("sender", "recipient")
    search_fields = ("sender__username", "recipient__username")
    raw_id_fields = ("sender", "recipient")
    fields = ("sender", "recipient", "body", "created", "read_at")
    date_hierarchy = "created"
    ordering = ("-created", "-id")

    @admin.display(description="message")
    def excerpt(self, message) -> str:
        return message.body if len(message.body) <= 80 else message.body[:79] + "…"
