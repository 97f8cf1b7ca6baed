"""The top-level `Other` category (DECISIONS.md: Categories, compat).

Databases seeded before it existed get it here; 0002 seeds it on new ones. Safe when it already exists:
a category named `Other` (any case) or with the slug `other`, wherever an administrator put it, is left
as it is (moving it would move its Things in the tree), and nothing is created.
"""
from django.db import migrations
from django.db.models import Max, Q


def add_other(apps, schema_editor):
    Category = apps.get_model("things", "Category")
    if Category.objects.filter(Q(name__iexact="Other") | Q(slug="other")).exists():
        return
    last = Category.objects.filter(parent__isnull=True).aggregate(last=Max("position"))["last"]
    Category.objects.create(name="Other", slug="other", parent=None, position=(last or 0) + 1)


class Migration(migrations.Migration):
    dependencies = [("things", "0004_moderation")]

    operations = [migrations.RunPython(add_other, migrations.RunPython.noop)]
