from django.db import migrations


def seed(apps, schema_editor):
    from apps.things.categories import CATEGORY_TREE
    from apps.things.normalize import category_slug

    Category = apps.get_model("things", "Category")
    for top_position, (top_name, children) in enumerate(CATEGORY_TREE.items()):
        top, _ = Category.objects.get_or_create(
            name=top_name, defaults={"slug": category_slug(top_name), "position": top_position}
        )
        for position, name in enumerate(children):
            Category.objects.get_or_create(
                name=name, defaults={"slug": category_slug(name), "parent": top, "position": position}
            )


class Migration(migrations.Migration):
    dependencies = [("things", "0001_initial")]

    operations = [migrations.RunPython(seed, migrations.RunPython.noop)]
