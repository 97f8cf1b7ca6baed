"""How many Things carry each tag and fill each category, kept by the database (docs/decisions.md,
"Counts kept by the database").

A tag's and a category's `count` (docs/decisions.md: Tag, Category) used to be counted on every read: a
correlated COUNT per category over the Things table (3 s for `/categories/` at 100,000 Things), a join
over every Thing with the tag for `/tags/{tag}/` and each tag of `/things/{id}/tags`. Now triggers move
two numbers per tag and per category in the same transaction as the write that changes them, whoever
sends it (a service, the admin, `QuerySet.update()`, SQL), as migration 0010 does for a Thing's version:
- `listed`: Things published and not private (staff see these, hidden ones included);
- `shown`: of those, the ones not hidden (everyone else sees these).

A category's own row counts the Things filed directly under it; its sub-categories are added at read time
(apps.things.selectors). The rows are filled here from the tables as they are, under a lock that keeps
writers out until the triggers exist (PostgreSQL: CREATE TRIGGER takes it too; SQLite writes one
transaction at a time).
"""

import django.db.models.deletion
from django.db import migrations, models

# A count only goes down where its row exists (an UPDATE): a tag or a category being deleted loses its row
# first (Django deletes it before the Things' SET NULL and the tags' rows), and no row is made again for
# it. A count goes up by an upsert. (No change moves `listed` and `shown` in opposite directions.)
#
# PostgreSQL: the counting rows are locked in id order (categories by id, a Thing's tags by id), so two
# transactions moving counts of the same rows do not wait for each other crosswise. A change of a
# Thing's tags locks the Thing's row first, and a change of its visibility updates that row: so one of
# the two waits for the other, and each sees the other's committed rows (no tag is counted twice or
# missed when a Thing's tags and its visibility change at the same time).

# One function per counting table: `things_tagcount_add(tag, …)`, `things_categorycount_add(category, …)`.
_PG_ADD = """
CREATE OR REPLACE FUNCTION things_{name}count_add({name} bigint, d_listed integer, d_shown integer)
RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    IF d_listed < 0 OR d_shown < 0 THEN
        UPDATE things_{name}count SET listed = listed + d_listed, shown = shown + d_shown WHERE {name}_id = {name};
    ELSE
        INSERT INTO things_{name}count AS c ({name}_id, listed, shown) VALUES ({name}, d_listed, d_shown)
        ON CONFLICT ({name}_id) DO UPDATE SET listed = c.listed + EXCLUDED.listed, shown = c.shown + EXCLUDED.shown;
    END IF;
END
$$;
---"""
PG_FORWARD = _PG_ADD.format(name="tag") + _PG_ADD.format(name="category") + """
CREATE OR REPLACE FUNCTION things_thing_counts() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    old_listed integer := 0;
    old_shown integer := 0;
    new_listed integer := 0;
    new_shown integer := 0;
    old_category bigint;
    new_category bigint;
    thing bigint;
    moved record;
BEGIN
    IF TG_OP <> 'INSERT' THEN
        thing := OLD.id;
        old_category := OLD.category_id;
        IF OLD.is_published AND NOT OLD.is_private THEN
            old_listed := 1;
            old_shown := CASE WHEN OLD.is_hidden THEN 0 ELSE 1 END;
        END IF;
    END IF;
    IF TG_OP <> 'DELETE' THEN
        thing := NEW.id;
        new_category := NEW.category_id;
        IF NEW.is_published AND NOT NEW.is_private THEN
            new_listed := 1;
            new_shown := CASE WHEN NEW.is_hidden THEN 0 ELSE 1 END;
        END IF;
    END IF;
    FOR moved IN
        SELECT c AS id, sum(dl)::integer AS dl, sum(ds)::integer AS ds
        FROM (VALUES (old_category, -old_listed, -old_shown), (new_category, new_listed, new_shown)) AS v(c, dl, ds)
        WHERE c IS NOT NULL GROUP BY c ORDER BY c
    LOOP
        IF moved.dl <> 0 OR moved.ds <> 0 THEN
            PERFORM things_categorycount_add(moved.id, moved.dl, moved.ds);
        END IF;
    END LOOP;
    IF new_listed <> old_listed OR new_shown <> old_shown THEN
        FOR moved IN SELECT tag_id AS id FROM things_thingtag WHERE thing_id = thing ORDER BY tag_id LOOP
            PERFORM things_tagcount_add(moved.id, new_listed - old_listed, new_shown - old_shown);
        END LOOP;
    END IF;
    RETURN NULL;
END
$$;
---
CREATE OR REPLACE FUNCTION things_thingtag_counts() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    t record;
BEGIN
    IF TG_OP <> 'INSERT' THEN
        SELECT is_published, is_private, is_hidden INTO t FROM things_thing WHERE id = OLD.thing_id
            FOR NO KEY UPDATE;
        IF FOUND AND t.is_published AND NOT t.is_private THEN
            PERFORM things_tagcount_add(OLD.tag_id, -1, CASE WHEN t.is_hidden THEN 0 ELSE -1 END);
        END IF;
    END IF;
    IF TG_OP <> 'DELETE' THEN
        SELECT is_published, is_private, is_hidden INTO t FROM things_thing WHERE id = NEW.thing_id
            FOR NO KEY UPDATE;
        IF FOUND AND t.is_published AND NOT t.is_private THEN
            PERFORM things_tagcount_add(NEW.tag_id, 1, CASE WHEN t.is_hidden THEN 0 ELSE 1 END);
        END IF;
    END IF;
    RETURN NULL;
END
$$;
---
LOCK TABLE things_thing, things_thingtag IN SHARE ROW EXCLUSIVE MODE;
---
CREATE TRIGGER things_thing_counts AFTER INSERT OR DELETE ON things_thing
    FOR EACH ROW EXECUTE FUNCTION things_thing_counts();
---
CREATE TRIGGER things_thing_counts_update
    AFTER UPDATE OF is_published, is_private, is_hidden, category_id ON things_thing
    FOR EACH ROW WHEN (
        OLD.is_published IS DISTINCT FROM NEW.is_published OR OLD.is_private IS DISTINCT FROM NEW.is_private
        OR OLD.is_hidden IS DISTINCT FROM NEW.is_hidden OR OLD.category_id IS DISTINCT FROM NEW.category_id
    )
    EXECUTE FUNCTION things_thing_counts();
---
CREATE TRIGGER things_thingtag_counts AFTER INSERT OR DELETE OR UPDATE OF thing_id, tag_id ON things_thingtag
    FOR EACH ROW EXECUTE FUNCTION things_thingtag_counts();
"""
PG_BACKWARD = """
DROP TRIGGER IF EXISTS things_thingtag_counts ON things_thingtag;
---
DROP TRIGGER IF EXISTS things_thing_counts_update ON things_thing;
---
DROP TRIGGER IF EXISTS things_thing_counts ON things_thing;
---
DROP FUNCTION IF EXISTS things_thingtag_counts();
---
DROP FUNCTION IF EXISTS things_thing_counts();
---
DROP FUNCTION IF EXISTS things_categorycount_add(bigint, integer, integer);
---
DROP FUNCTION IF EXISTS things_tagcount_add(bigint, integer, integer);
"""

# SQLite (the quick start): the same moves as statements of each trigger; booleans are 0 and 1.
_LISTED = "({t}.is_published AND NOT {t}.is_private)"
_SHOWN = "({t}.is_published AND NOT {t}.is_private AND NOT {t}.is_hidden)"
_TAG_UPSERT = "ON CONFLICT (tag_id) DO UPDATE SET listed = listed + excluded.listed, shown = shown + excluded.shown"
_CATEGORY_UPSERT = (
    "ON CONFLICT (category_id) DO UPDATE SET listed = listed + excluded.listed, shown = shown + excluded.shown"
)
SQLITE_FORWARD = f"""
CREATE TRIGGER things_thing_counts_insert AFTER INSERT ON things_thing
WHEN NEW.category_id IS NOT NULL AND {_LISTED.format(t="NEW")}
BEGIN
    INSERT INTO things_categorycount (category_id, listed, shown)
        SELECT NEW.category_id, 1, {_SHOWN.format(t="NEW")} WHERE 1 {_CATEGORY_UPSERT};
END;
---
CREATE TRIGGER things_thing_counts_delete AFTER DELETE ON things_thing
WHEN {_LISTED.format(t="OLD")}
BEGIN
    UPDATE things_categorycount SET listed = listed - 1, shown = shown - {_SHOWN.format(t="OLD")}
        WHERE category_id = OLD.category_id;
    UPDATE things_tagcount SET listed = listed - 1, shown = shown - {_SHOWN.format(t="OLD")}
        WHERE tag_id IN (SELECT tag_id FROM things_thingtag WHERE thing_id = OLD.id);
END;
---
CREATE TRIGGER things_thing_counts_update
AFTER UPDATE OF is_published, is_private, is_hidden, category_id ON things_thing
WHEN OLD.is_published IS NOT NEW.is_published OR OLD.is_private IS NOT NEW.is_private
    OR OLD.is_hidden IS NOT NEW.is_hidden OR OLD.category_id IS NOT NEW.category_id
BEGIN
    UPDATE things_categorycount SET listed = listed - 1, shown = shown - {_SHOWN.format(t="OLD")}
        WHERE category_id = OLD.category_id AND {_LISTED.format(t="OLD")};
    INSERT INTO things_categorycount (category_id, listed, shown)
        SELECT NEW.category_id, 1, {_SHOWN.format(t="NEW")}
        WHERE NEW.category_id IS NOT NULL AND {_LISTED.format(t="NEW")} {_CATEGORY_UPSERT};
    UPDATE things_tagcount
        SET listed = listed + {_LISTED.format(t="NEW")} - {_LISTED.format(t="OLD")},
            shown = shown + {_SHOWN.format(t="NEW")} - {_SHOWN.format(t="OLD")}
        WHERE tag_id IN (SELECT tag_id FROM things_thingtag WHERE thing_id = NEW.id)
            AND ({_LISTED.format(t="NEW")} < {_LISTED.format(t="OLD")}
                OR {_SHOWN.format(t="NEW")} < {_SHOWN.format(t="OLD")});
    INSERT INTO things_tagcount (tag_id, listed, shown)
        SELECT tag_id, {_LISTED.format(t="NEW")} - {_LISTED.format(t="OLD")},
            {_SHOWN.format(t="NEW")} - {_SHOWN.format(t="OLD")}
        FROM things_thingtag
        WHERE thing_id = NEW.id AND ({_LISTED.format(t="NEW")} > {_LISTED.format(t="OLD")}
            OR {_SHOWN.format(t="NEW")} > {_SHOWN.format(t="OLD")})
        {_TAG_UPSERT};
END;
---
CREATE TRIGGER things_thingtag_counts_insert AFTER INSERT ON things_thingtag
BEGIN
    INSERT INTO things_tagcount (tag_id, listed, shown)
        SELECT NEW.tag_id, 1, {_SHOWN.format(t="t")} FROM things_thing t
        WHERE t.id = NEW.thing_id AND {_LISTED.format(t="t")} {_TAG_UPSERT};
END;
---
CREATE TRIGGER things_thingtag_counts_delete AFTER DELETE ON things_thingtag
BEGIN
    UPDATE things_tagcount
        SET listed = listed - 1, shown = shown - (SELECT {_SHOWN.format(t="t")} FROM things_thing t WHERE t.id = OLD.thing_id)
        WHERE tag_id = OLD.tag_id
            AND EXISTS (SELECT 1 FROM things_thing t WHERE t.id = OLD.thing_id AND {_LISTED.format(t="t")});
END;
---
CREATE TRIGGER things_thingtag_counts_update AFTER UPDATE OF thing_id, tag_id ON things_thingtag
BEGIN
    UPDATE things_tagcount
        SET listed = listed - 1, shown = shown - (SELECT {_SHOWN.format(t="t")} FROM things_thing t WHERE t.id = OLD.thing_id)
        WHERE tag_id = OLD.tag_id
            AND EXISTS (SELECT 1 FROM things_thing t WHERE t.id = OLD.thing_id AND {_LISTED.format(t="t")});
    INSERT INTO things_tagcount (tag_id, listed, shown)
        SELECT NEW.tag_id, 1, {_SHOWN.format(t="t")} FROM things_thing t
        WHERE t.id = NEW.thing_id AND {_LISTED.format(t="t")} {_TAG_UPSERT};
END;
"""
SQLITE_BACKWARD = """
DROP TRIGGER IF EXISTS things_thingtag_counts_update;
---
DROP TRIGGER IF EXISTS things_thingtag_counts_delete;
---
DROP TRIGGER IF EXISTS things_thingtag_counts_insert;
---
DROP TRIGGER IF EXISTS things_thing_counts_update;
---
DROP TRIGGER IF EXISTS things_thing_counts_delete;
---
DROP TRIGGER IF EXISTS things_thing_counts_insert;
"""

# The rows as the tables stand (the same statements as apps.things.counts.counts_rebuild, frozen here).
FILL = """
INSERT INTO things_categorycount (category_id, listed, shown)
    SELECT category_id, COUNT(*), SUM(CASE WHEN is_hidden THEN 0 ELSE 1 END) FROM things_thing
    WHERE category_id IS NOT NULL AND is_published AND NOT is_private GROUP BY category_id;
---
INSERT INTO things_tagcount (tag_id, listed, shown)
    SELECT tt.tag_id, COUNT(*), SUM(CASE WHEN t.is_hidden THEN 0 ELSE 1 END)
    FROM things_thingtag tt INNER JOIN things_thing t ON t.id = tt.thing_id
    WHERE t.is_published AND NOT t.is_private GROUP BY tt.tag_id;
"""


def forward(apps, schema_editor):
    postgresql = schema_editor.connection.vendor == "postgresql"
    _run(schema_editor, PG_FORWARD if postgresql else SQLITE_FORWARD)
    _run(schema_editor, FILL)


def backward(apps, schema_editor):
    postgresql = schema_editor.connection.vendor == "postgresql"
    _run(schema_editor, PG_BACKWARD if postgresql else SQLITE_BACKWARD)


def _run(schema_editor, script: str) -> None:
    for statement in script.split("---"):
        if statement.strip():
            schema_editor.execute(statement, params=None)


class Migration(migrations.Migration):

    dependencies = [
        ('things', '0012_thing_documents_html'),
    ]

    operations = [
        migrations.CreateModel(
            name='CategoryCount',
            fields=[
                ('category', models.OneToOneField(on_delete=django.db.models.deletion.CASCADE, primary_key=True, related_name='counts', serialize=False, to='things.category')),
                ('listed', models.IntegerField(default=0)),
                ('shown', models.IntegerField(default=0)),
            ],
        ),
        migrations.CreateModel(
            name='TagCount',
            fields=[
                ('tag', models.OneToOneField(on_delete=django.db.models.deletion.CASCADE, primary_key=True, related_name='counts', serialize=False, to='things.tag')),
                ('listed', models.IntegerField(default=0)),
                ('shown', models.IntegerField(default=0)),
            ],
        ),
        migrations.RunPython(forward, backward),
    ]
