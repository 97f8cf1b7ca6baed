from django.conf import settings
from django.contrib.postgres.search import SearchVectorField
from django.db import models
from django.db.models.functions import Lower

from apps.core.db.loading import LeanFromDb
from apps.core.domain.licenses import THING_LICENSE_CHOICES
from apps.core.domain.markup import document_render, documents_key
from apps.core.domain.moderation import Moderated


class Category(models.Model):
    """A node of the category tree (seeded by migration 0002). `slug` is the API id (spec §2)."""

    name = models.CharField(max_length=100, unique=True)
    slug = models.SlugField(max_length=120, unique=True, allow_unicode=True)
    parent = models.ForeignKey("self", null=True, blank=True, on_delete=models.PROTECT, related_name="children")
    position = models.PositiveSmallIntegerField(default=0)

    class Meta:
        ordering = ["position", "name"]
        verbose_name_plural = "categories"
        constraints = [models.UniqueConstraint(Lower("name"), name="things_category_name_ci_unique")]

    def __str__(self):
        return self.name


class Tag(models.Model):
    """A normalised tag (spec §2). Matching ignores case; the first spelling seen is kept."""

    name = models.CharField(max_length=100)

    class Meta:
        ordering = ["name"]
        constraints = [models.UniqueConstraint(Lower("name"), name="things_tag_name_ci_unique")]

    def __str__(self):
        return self.name


# /popular/'s lifetime part (apps.things.selectors.thing_list_popular): a make weighs 20, a download 1. One
# expression for the ranking and for the index that walks it (PostgreSQL matches an index by expression).
POPULAR_MAKE_WEIGHT = 20
POPULAR_DOWNLOAD_WEIGHT = 1


def popular_lifetime():
    return models.F("make_count") * POPULAR_MAKE_WEIGHT + models.F("download_count") * POPULAR_DOWNLOAD_WEIGHT


class Thing(LeanFromDb, Moderated):
    creator = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="things")
    name = models.CharField(max_length=255)
    description = models.TextField(blank=True, max_length=50000)
    # docs/decisions.md: the field the spec prints as "the service".
    instructions = models.TextField(blank=True, max_length=50000)
    license = models.CharField(max_length=16, choices=THING_LICENSE_CHOICES, default="cc-sa")
    category = models.ForeignKey(Category, null=True, blank=True, on_delete=models.SET_NULL, related_name="things")
    tags = models.ManyToManyField(Tag, through="ThingTag", related_name="things", blank=True)
    # The remix graph: a Thing's ancestors are the Things it derives from (spec §4.2).
    ancestors = models.ManyToManyField(
        "self", through="Remix", symmetrical=False, related_name="derivatives", blank=True
    )
    is_published = models.BooleanField(default=False)
    published_at = models.DateTimeField(null=True, blank=True)
    is_wip = models.BooleanField(default=False)
    # Structured print settings (apps/things/printsettings.py): the keys with a value, or null.
    print_settings = models.JSONField(null=True, blank=True)
    is_private = models.BooleanField(default=False)
    ratings_enabled = models.BooleanField(default=True)
    is_featured = models.BooleanField(default=False)
    featured_at = models.DateTimeField(null=True, blank=True)
    # Counters kept by the services that change them (F() updates under row locks), read by every list.
    like_count = models.PositiveIntegerField(default=0)
    comment_count = models.PositiveIntegerField(default=0)
    make_count = models.PositiveIntegerField(default=0)
    collect_count = models.PositiveIntegerField(default=0)
    file_count = models.PositiveIntegerField(default=0)
    download_count = models.PositiveIntegerField(default=0)
    added = models.DateTimeField(auto_now_add=True)
    modified = models.DateTimeField(auto_now=True)
    # Weighted name (A) > tags (B) > description (C); written by services.thing_index_search.
    # Its GIN index is created by migration on PostgreSQL only (the quick start runs on SQLite).
    search_vector = SearchVectorField(null=True, editable=False)
    # The Thing's pictures (docs/decisions.md "A Thing's pictures as pointers"), what `default_image` and
    # `thumbnail` show: its default image, which every Thing query joins (hooks.ThingImages), and the
    # store key of the render of its first live file that has one (the thumbnail without a default
    # image), a plain column: a second join cost as much planning as the subqueries it replaced. Kept by
    # apps.uploads' services in the transactions that change images and files (things names the model by
    # string and never imports that app).
    default_image = models.ForeignKey(
        "uploads.Image", null=True, blank=True, editable=False, on_delete=models.SET_NULL, related_name="+"
    )
    file_thumbnail_key = models.CharField(max_length=512, blank=True, default="", editable=False)
    # What the read path's caches and ETags are validated by (issue 24, apps.things.bodycache): the
    # database moves it on every UPDATE of the row (a trigger, migration 0010: QuerySet.update() and raw
    # SQL included), and the one change event (apps.things.changes.thing_changed, heard by bodycache)
    # moves it in the same transaction as a change of a row a Thing's body shows (images, files, tags'
    # and category's names, the creator's summary).
    version = models.BigIntegerField(default=1, editable=False)
    # The description's and instructions' HTML, rendered when the texts are saved (issue 24: rendering
    # Markdown was a quarter of an uncached detail read), and what they were rendered from
    # (apps.core.domain.markup.documents_key). Read only while the key matches the row's texts
    # (documents_html); otherwise the texts are rendered on read, as before.
    description_html = models.TextField(blank=True, default="", editable=False)
    instructions_html = models.TextField(blank=True, default="", editable=False)
    documents_key = models.CharField(max_length=32, blank=True, default="", editable=False)

    class Meta:
        indexes = [
            models.Index(fields=["is_published", "-added", "-id"], name="things_published_added_idx"),
            models.Index(fields=["creator", "-added", "-id"], name="things_creator_added_idx"),
            models.Index(fields=["category", "is_published", "-added"], name="things_category_added_idx"),
            models.Index(fields=["is_featured", "-featured_at"], name="things_featured_idx"),
            # /popular/'s Things by their lifetime activity (selectors.thing_list_popular, PopularPages): a
            # page's run walked in the index alone, its filter's `is_hidden` and the expression's columns
            # included (PostgreSQL; SQLite has no INCLUDE and reads the rows).
            models.Index(
                popular_lifetime().desc(), models.F("added").desc(), models.F("id").desc(),
                name="things_popular_lifetime_idx", condition=models.Q(is_published=True, is_private=False),
                include=["is_hidden", "make_count", "download_count"],
            ),
            # A page of /newest/ chosen in the index alone (apps.core.db.compiled.deferred_page): the list's
            # order, and `is_hidden`, the one column of its filter beyond the condition, as a last key.
            models.Index(
                fields=["-added", "-id", "is_hidden"], name="things_listed_added_idx",
                condition=models.Q(is_published=True, is_private=False),
            ),
        ]

    def __str__(self):
        return self.name

    def save(self, *args, **kwargs):
        # Every save that writes the texts writes their HTML with them (documents_html reads it).
        fields = kwargs.get("update_fields")
        if fields is None or {"description", "instructions"} & set(fields):
            if documents_fill(self) and fields is not None:
                kwargs["update_fields"] = {*fields, *DOCUMENT_FIELDS}
        super().save(*args, **kwargs)


DOCUMENT_FIELDS = ("description_html", "instructions_html", "documents_key")


def documents_fill(thing: Thing) -> bool:
    """Render the Thing's texts into its stored HTML if they changed since (True when it did)."""
    key = documents_key(thing.description, thing.instructions)
    if thing.documents_key == key:
        return False
    thing.description_html = document_render(thing.description)
    thing.instructions_html = document_render(thing.instructions)
    thing.documents_key = key
    return True


def documents_html(thing: Thing) -> tuple[str, str]:
    """(description, instructions) as HTML: the stored rendering while it is of the row's texts, else
    rendered now (a row written around save(): a migration's, QuerySet.update(), SQL, a bulk seed)."""
    if thing.__dict__.get("documents_key") == documents_key(thing.description, thing.instructions):
        return thing.description_html, thing.instructions_html
    return document_render(thing.description), document_render(thing.instructions)


class ThingTag(models.Model):
    thing = models.ForeignKey(Thing, on_delete=models.CASCADE)
    tag = models.ForeignKey(Tag, on_delete=models.CASCADE)
    position = models.PositiveSmallIntegerField(default=0)
    # The Thing's own `added`, copied by the database (migration 0015's triggers: on every insert of a
    # tag link and every change of the Thing's `added`, whoever sends it), never written by Python. With
    # the index below, a tag's Things newest first are one walk of the tag's own entries, however rare
    # or clustered the tag (docs/decisions.md, "A tag's Things in order").
    added = models.DateTimeField(null=True, editable=False)
    # Whether everyone may see the Thing (published, not private, not hidden), copied by the database the
    # same way (migration 0017), never written by Python (what it sends is replaced). With the partial index
    # below, a deep page of a tag's Things is chosen in the index alone (selectors.tag_list_things). Null
    # only until the database has written it (the quick start's SQLite writes it just after the insert).
    shown = models.BooleanField(null=True, editable=False)

    class Meta:
        ordering = ["position", "id"]
        constraints = [models.UniqueConstraint(fields=["thing", "tag"], name="things_thingtag_unique")]
        indexes = [
            models.Index(fields=["tag", "-added", "-thing"], name="things_thingtag_newest_idx"),
            models.Index(fields=["tag", "-added", "-thing"], name="things_thingtag_shown_idx",
                         condition=models.Q(shown=True)),
        ]
        verbose_name = "Thing tag"
        verbose_name_plural = "Thing tags"

    def __str__(self) -> str:
        return f"Tag {self.tag_id} on Thing {self.thing_id}"


class KeptCount(models.Model):
    """How many Things a tag or a category covers, kept by the database (migration 0013's triggers), never
    by Python.

    `listed`: published and not private (what staff see, hidden Things included); `shown`: listed and not
    hidden (what everyone else sees). Every insert, delete or visibility change of a Thing and every
    change of its tags moves these in the same transaction, whoever sends the statement (a service, the
    admin, `QuerySet.update()`, SQL), so a count is read, never counted (docs/decisions.md, "Counts kept
    by the database").
    """

    listed = models.IntegerField(default=0)
    shown = models.IntegerField(default=0)

    class Meta:
        abstract = True

    def __str__(self) -> str:
        return f"Counts of {type(self).__name__.removesuffix('Count').lower()} {self.pk}"


class TagCount(KeptCount):
    tag = models.OneToOneField(Tag, primary_key=True, on_delete=models.CASCADE, related_name="counts")


class CategoryCount(KeptCount):
    """A category's own Things (not its sub-categories': the selectors add those when they read it)."""

    category = models.OneToOneField(Category, primary_key=True, on_delete=models.CASCADE, related_name="counts")


class Remix(models.Model):
    derivative = models.ForeignKey(Thing, on_delete=models.CASCADE, related_name="ancestor_links")
    ancestor = models.ForeignKey(Thing, on_delete=models.CASCADE, related_name="derivative_links")
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["derivative", "ancestor"], name="things_remix_unique"),
            models.CheckConstraint(condition=~models.Q(derivative=models.F("ancestor")), name="things_remix_not_self"),
        ]
        verbose_name = "remix link"
        verbose_name_plural = "remix links"

    def __str__(self) -> str:
        return f"Thing {self.derivative_id} remixes Thing {self.ancestor_id}"


class Like(models.Model):
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="thing_likes")
    thing = models.ForeignKey(Thing, on_delete=models.CASCADE, related_name="likes")
    created = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["user", "thing"], name="things_like_unique")]
        indexes = [models.Index(fields=["user", "-created"], name="things_like_user_idx")]


class Watch(models.Model):
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="thing_watches")
    thing = models.ForeignKey(Thing, on_delete=models.CASCADE, related_name="watches")
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["user", "thing"], name="things_watch_unique")]
