"""A Thing's pictures as pointers, part 2 of 3: fill `default_image` and `file_thumbnail_key` with exactly
what the correlated subqueries computed (apps.uploads.files.selectors: thing_default_image_row and
thing_first_file_thumbnail_key).

PostgreSQL: one statement per batch of Thing ids, each its own transaction (not atomic as a whole), so a
batch holds its Things' rows for a moment rather than most of the table for the whole fill, and a fill
interrupted part way goes on where it stopped when run again. Per batch, one pass over the batch's images
and files (DISTINCT ON keeps the first row per Thing) and one UPDATE of the Things that have a picture.
"""
from django.db import migrations, transaction
from django.db.models import Case, IntegerField, OuterRef, Subquery, Value, When
from django.db.models.functions import Coalesce

BATCH = 10_000  # Thing ids per statement

# The orders are those of the subqueries: the default image is the featured live image first, then
# uploaded before renders (RENDERS_LAST), then rank, added, id; the thumbnail's file is the first live
# file with a render by added, id.
FILL_SQL = """
WITH default_image AS (
    SELECT DISTINCT ON (thing_id) thing_id, id
    FROM {image}
    WHERE thing_id >= %(low)s AND thing_id < %(high)s AND status = 'live'
    ORDER BY thing_id, featured DESC, CASE WHEN source_file_id IS NULL THEN 0 ELSE 1 END, rank, added, id
), file_thumbnail AS (
    SELECT DISTINCT ON (thing_id) thing_id, thumbnail_key
    FROM {file}
    WHERE thing_id >= %(low)s AND thing_id < %(high)s AND status = 'live' AND thumbnail_key <> ''
    ORDER BY thing_id, added, id
)
UPDATE {thing} AS t
SET default_image_id = d.id, file_thumbnail_key = COALESCE(f.thumbnail_key, '')
FROM default_image AS d FULL JOIN file_thumbnail AS f ON f.thing_id = d.thing_id
WHERE t.id = COALESCE(d.thing_id, f.thing_id)
"""


def fill(apps, schema_editor):
    """Point every Thing at its pictures (a Thing without any keeps the columns' empty defaults)."""
    Thing = apps.get_model("things", "Thing")
    Image = apps.get_model("uploads", "Image")
    ThingFile = apps.get_model("uploads", "ThingFile")
    connection = schema_editor.connection
    if connection.vendor == "postgresql":
        quote = connection.ops.quote_name
        sql = FILL_SQL.format(
            image=quote(Image._meta.db_table),
            file=quote(ThingFile._meta.db_table),
            thing=quote(Thing._meta.db_table),
        )
        with connection.cursor() as cursor:
            cursor.execute(f"SELECT MIN(id), MAX(id) FROM {quote(Thing._meta.db_table)}")
            first, last = cursor.fetchone()
        for low in range(first or 0, (last or -1) + 1, BATCH):
            with transaction.atomic(using=connection.alias), connection.cursor() as cursor:
                cursor.execute(sql, {"low": low, "high": low + BATCH})
        return
    # Elsewhere (the SQLite quick start, a few rows): the same rules as the subqueries themselves.
    renders_last = Case(
        When(source_file__isnull=True, then=Value(0)), default=Value(1), output_field=IntegerField()
    )
    image = (
        Image.objects.filter(thing_id=OuterRef("pk"), status="live")
        .order_by("-featured", renders_last, "rank", "added", "id")
        .values("id")[:1]
    )
    file = (
        ThingFile.objects.filter(thing_id=OuterRef("pk"), status="live")
        .exclude(thumbnail_key="")
        .order_by("added", "id")
        .values("thumbnail_key")[:1]
    )
    Thing.objects.update(
        default_image=Subquery(image), file_thumbnail_key=Coalesce(Subquery(file), Value(""))
    )


class Migration(migrations.Migration):
    atomic = False

    dependencies = [
        ("things", "0007_picture_pointers"),
    ]

    operations = [
        migrations.RunPython(fill, migrations.RunPython.noop, elidable=True),
    ]
