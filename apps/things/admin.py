"""Admin for Things, categories and tags. State changes go through services (STYLE.md); moderators hide
a Thing with a reason (core.moderation: it vanishes from the API, search and the site but for staff)."""
from django import forms
from django.contrib import admin, messages
from django.db import transaction
from django.db.models import Count, Q
from django.urls import reverse

from apps.core.adminkit.sitelink import SitePageAdminMixin
from apps.core.domain.exceptions import DomainError
from apps.core.domain.moderation import HideWithReasonAdminMixin
from apps.things import rules, selectors, services
from apps.things.hooks import thing_reindex
from apps.things.models import Category, Remix, Tag, Thing, ThingTag
from apps.things.normalize import category_slug, tag_normalize

COUNTERS = (
    "like_count",
    "comment_count",
    "make_count",
    "collect_count",
    "file_count",
    "download_count",
)


class ThingTagInline(admin.TabularInline):
    model = ThingTag
    extra = 0
    raw_id_fields = ("tag",)
    fields = ("tag", "position")


class RemixInline(admin.TabularInline):
    """The Things this one derives from (spec §4.2 ancestors)."""

    model = Remix
    fk_name = "derivative"
    extra = 0
    raw_id_fields = ("ancestor",)
    fields = ("ancestor", "created")
    readonly_fields = ("created",)
    verbose_name = "ancestor"
    verbose_name_plural = "remix of"


MODERATION_FIELDS = ("is_hidden", "hidden_reason", "hidden_at", "hidden_by")


@admin.register(Thing)
class ThingAdmin(SitePageAdminMixin, HideWithReasonAdminMixin, admin.ModelAdmin):
    def view_on_site(self, obj):
        return reverse("thing-page", args=[obj.pk])

    def site_page_visible(self, viewer, obj) -> bool:
        return rules.thing_can_view(viewer, obj)  # a draft or a private Thing: its creator's alone

    list_display = (
        "name", "creator", "category", "is_published", "is_featured", "like_count",
        *HideWithReasonAdminMixin.moderation_list_display, "added",
    )
    list_select_related = ("creator", "category")
    list_filter = (
        "is_published", "is_featured", "is_hidden", "is_wip", "is_private", "license", "category", "added"
    )
    search_fields = ("name", "creator__username")
    date_hierarchy = "added"
    raw_id_fields = ("creator",)
    exclude = ("search_vector",)
    # Publication and featuring are state changes with rules and side effects: API services and the
    # actions below make them, never a checkbox. Counters belong to the services that keep them.
    readonly_fields = (
        "is_published", "published_at", "is_featured", "featured_at", *COUNTERS, "added", "modified",
        *MODERATION_FIELDS,
    )
    fieldsets = (
        (None, {"fields": ("name", "creator", "category", "license", "description", "instructions")}),
        (
            "Status",
            {
                "fields": (
                    "is_published",
                    "published_at",
                    "is_wip",
                    "is_private",
                    "ratings_enabled",
                    "is_featured",
                    "featured_at",
                )
            },
        ),
        ("Moderation", {"fields": MODERATION_FIELDS}),
        ("Counters", {"fields": COUNTERS}),
        ("Dates", {"fields": ("added", "modified")}),
    )
    inlines = (ThingTagInline, RemixInline)
    actions = ("feature_things", "unfeature_things", *HideWithReasonAdminMixin.actions)

    def has_add_permission(self, request):
        # Things are created by their creators through the API (thing_create), never by moderators.
        return False

    def on_hidden(self, obj):
        services.thing_hidden_changed(thing=obj)

    def on_unhidden(self, obj):
        services.thing_hidden_changed(thing=obj)

    def save_related(self, request, form, formsets, change):
        super().save_related(request, form, formsets, change)
        # Name, description and tags feed the search vector (apps.search, through hooks.thing_reindex).
        thing_id = form.instance.pk
        transaction.on_commit(lambda: thing_reindex(thing_ids=[thing_id]))

    def _set_featured(self, request, queryset, featured: bool) -> None:
        done = 0
        for thing in queryset:
            try:
                services.thing_set_featured(thing=thing, featured=featured)
                done += 1
            except DomainError as exc:
                self.message_user(request, f"{thing.name}: {exc.message}", messages.ERROR)
        verb = "Featured" if featured else "Unfeatured"
        self.message_user(request, f"{verb} {done} Thing(s).", messages.SUCCESS)

    @admin.action(description="Feature", permissions=("change",))
    def feature_things(self, request, queryset):
        self._set_featured(request, queryset, True)

    @admin.action(description="Unfeature", permissions=("change",))
    def unfeature_things(self, request, queryset):
        self._set_featured(request, queryset, False)


class CategoryAdminForm(forms.ModelForm):
    slug = forms.SlugField(
        max_length=120,
        allow_unicode=True,
        required=False,
        help_text="Left blank, it is derived from the name: lower case, spaces turned into dashes (spec §2).",
    )

    class Meta:
        model = Category
        fields = ("name", "slug", "parent", "position")

    def clean(self):
        super().clean()
        cleaned = self.cleaned_data  # Form.clean returns it; typed Optional for subclasses
        name = cleaned.get("name")
        if name is None:
            return cleaned
        expected = category_slug(name)
        if not expected:
            self.add_error("name", "The name needs at least one letter or digit.")
            return cleaned
        slug = cleaned.get("slug") or expected
        if slug != expected:
            # spec §2: clients derive the id from the name, so any other slug would break their lookups.
            self.add_error("slug", f"The slug must be the name's slug: “{expected}”.")
        cleaned["slug"] = expected
        self._clean_parent(cleaned.get("parent"))
        return cleaned

    def _clean_parent(self, parent) -> None:
        """The tree stays two levels deep: category counts and lists include direct children only."""
        if parent is None:
            return
        instance = self.instance
        if instance.pk and parent.pk == instance.pk:
            self.add_error("parent", "A category cannot be its own parent.")
        elif parent.parent_id is not None:
            self.add_error("parent", "Choose a top-level category: sub-categories have no children.")
        elif instance.pk and instance.children.exists():
            self.add_error("parent", "This category has sub-categories, so it must stay top-level.")


@admin.register(Category)
class CategoryAdmin(admin.ModelAdmin):
    def view_on_site(self, obj):
        return reverse("browse-category", args=[obj.slug])

    form = CategoryAdminForm
    list_display = ("tree_name", "slug", "parent", "position", "published_things")
    list_select_related = ("parent",)
    search_fields = ("name", "slug")
    prepopulated_fields = {"slug": ("name",)}

    def get_queryset(self, request):
        return selectors.category_list()

    def get_ordering(self, request):
        return selectors.category_tree_order()

    def formfield_for_foreignkey(self, db_field, request, **kwargs):
        if db_field.name == "parent":
            kwargs["queryset"] = Category.objects.filter(parent__isnull=True)
        return super().formfield_for_foreignkey(db_field, request, **kwargs)

    @admin.display(description="name")
    def tree_name(self, category) -> str:
        return f"— {category.name}" if category.parent_id else category.name

    @admin.display(description="published Things (with sub-categories)", ordering="thing_count")
    def published_things(self, category) -> int:
        return category.thing_count


class TagAdminForm(forms.ModelForm):
    class Meta:
        model = Tag
        fields = ("name",)

    def clean_name(self):
        # spec §2: tags are stored normalised, exactly as every lookup normalises them.
        name = tag_normalize(self.cleaned_data["name"])
        if not name:
            raise forms.ValidationError("A tag needs at least one letter, digit, '_' or '-'.")
        return name


@admin.register(Tag)
class TagAdmin(SitePageAdminMixin, admin.ModelAdmin):
    def view_on_site(self, obj):
        return reverse("browse-tag", args=[obj.name])

    def site_page_visible(self, viewer, obj) -> bool:
        return selectors.tag_list(viewer=viewer).filter(pk=obj.pk).exists()  # as the page's selectors.tag_get

    form = TagAdminForm
    list_display = ("name", "thing_count", "published_count")
    search_fields = ("name",)
    ordering = ("name",)

    def get_queryset(self, request):
        return (
            super()
            .get_queryset(request)
            .annotate(
                thing_count=Count("things", distinct=True),
                published_count=Count("things", filter=Q(things__is_published=True), distinct=True),
            )
        )

    def save_model(self, request, obj, form, change):
        super().save_model(request, obj, form, change)
        if change:
            # A renamed tag changes the search vector of every Thing carrying it.
            thing_ids = list(obj.things.values_list("pk", flat=True))
            transaction.on_commit(lambda: thing_reindex(thing_ids=thing_ids))

    @admin.display(description="Things", ordering="thing_count")
    def thing_count(self, tag) -> int:
        return tag.thing_count

    @admin.display(description="published Things", ordering="published_count")
    def published_count(self, tag) -> int:
        return tag.published_count
