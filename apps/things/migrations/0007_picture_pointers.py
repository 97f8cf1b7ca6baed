"""A Thing's pictures as pointers (docs/decisions.md "A Thing's pictures as pointers", issue 17).

`default_image` and `file_thumbnail_key` replace the correlated subqueries every Thing statement carried.
This migration adds them (the foreign key bare: no constraint, no index), fills them in one statement
with exactly what those subqueries computed (apps.uploads.files.selectors: thing_default_image_row and
thing_first_file_thumbnail_key), then adds the foreign key and its index, so the fill maintains no index
and queues no constraint check per row, and the index is built once over the filled column.
"""
import django.db.models.deletion
from django.db import migrations, models
from django.db.models import Case, IntegerField, OuterRef, Subquery, Value, When
from django.db.models.functions import Coalesce

# PostgreSQL: one pass over each table (DISTINCT ON keeps the first row per Thing in the order below)
# and one UPDATE of the Things that have a picture. The orders are those of the subqueries: the default
# image is the featured live image first, then uploaded before renders (RENDERS_LAST), then rank, added,
# id; the thumbnail's file is the first live file with a render by added, id.
FILL_SQL = """
WITH default_image AS (
    SELECT DISTINCT ON (thing_id) thing_id, id
    FROM {image}
    WHERE thing_id IS NOT NULL AND status = 'live'
    ORDER BY thing_id, featured DESC, CASE WHEN source_file_id IS NULL THEN 0 ELSE 1 END, rank, added, id
), file_thumbnail AS (
    SELECT DISTINCT ON (thing_id) thing_id, thumbnail_key
    FROM {file}
    WHERE status = 'live' AND thumbnail_key <> ''
    ORDER BY thing_id, added, id
)
UPDATE {thing} AS t
SET default_image_id = d.id, file_thumbnail_key = COALESCE(f.thumbnail_key, '')
FROM default_image AS d FULL JOIN file_thumbnail AS f ON f.thing_id = d.thing_id
WHERE t.id = COALESCE(d.thing_id, f.thing_id)
"""


def fill(apps, schema_editor):
    """Point every Thing at its pictures. Safe to run again: it writes what the rows say."""
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
            cursor.execute(sql)
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
    Thing.objects.update(default_image=Subquery(image), file_thumbnail_key=Coalesce(Subquery(file), Value("")))


class Migration(migrations.Migration):

    dependencies = [
        ("things", "0006_admin_names"),
        ("uploads", "0006_admin_names"),
    ]

    operations = [
        migrations.AddField(
            model_name="thing",
            name="default_image",
            field=models.ForeignKey(
                blank=True, editable=False, null=True, on_delete=django.db.models.deletion.SET_NULL,
                related_name="+", to="uploads.image", db_constraint=False, db_index=False,
            ),
        ),
        migrations.AddField(
            model_name="thing",
            name="file_thumbnail_key",
            field=models.CharField(blank=True, default="", editable=False, max_length=512),
        ),
        migrations.RunPython(fill, migrations.RunPython.noop),
        migrations.AlterField(
            model_name="thing",
            name="default_image",
            field=models.ForeignKey(
                blank=True, editable=False, null=True, on_delete=django.db.models.deletion.SET_NULL,
                related_name="+", to="uploads.image",
            ),
        ),
    ]
