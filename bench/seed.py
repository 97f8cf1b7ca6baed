"""The bench database: create it, migrate it and fill it with a large catalogue by bulk COPY.

The catalogue is deterministic (fixed random seed): ~1000 users, 2000 tags, 100,000 Things spread over
the migration-seeded categories with 1-5 tags each, then the weighted search vectors in one set-based
pass and ANALYZE. Everything between TRUNCATE and COMMIT is one transaction, so an interrupted reseed
leaves the previous catalogue in place. A marker table records what was seeded, so a second run reuses it.
"""
import bisect
import itertools
import json
import logging
import multiprocessing
import os
import random
import time
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone

import psycopg

from bench import words

log = logging.getLogger(__name__)

DB_NAME = "thingyard_bench"
# Bump when the generated data changes shape, so existing bench databases are reseeded.
SEED_VERSION = 4  # 4: the Things' stored document HTML (issue 24)
MARKER_TABLE = "bench_seed_marker"
USER_COUNT = 1000
TAG_COUNT = 2000
USERNAME_PREFIX = "bench-"
RANDOM_SEED = 20260101
# Catalogues up to this size get their Things' document HTML stored as Thing.save() would (the detail
# read's); the 1M catalogue serves search only, whose answers hold no document (its rows render on read).
DOCUMENTS_RENDERED_UP_TO = 200_000
# Things per thing_index_search() call while seeding: one set-based statement each.
INDEX_BATCH = 10_000
# `--scale`: the second catalogue, for search at a million Things (issue 17).
SCALE_DB_NAME = "thingyard_bench_1m"
SCALE_THINGS = 1_000_000
SEARCH_TABLE = "search_thing"  # apps.search.models.SearchThing, when the search app has it


@dataclass
class SeedResult:
    things: int
    reused: bool
    seconds: float = 0.0
    steps: dict = field(default_factory=dict)  # step name -> seconds
    vectors_by: str = ""  # which code computed the search vectors
    seeded_at: str = ""


def database_url(base_url: str, name: str = DB_NAME) -> str:
    """The URL of the bench database `name` on the server of `base_url`, created when missing."""
    server = base_url.rsplit("/", 1)[0]
    with psycopg.connect(server + "/postgres", autocommit=True) as conn:
        if not conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone():
            conn.execute(f'CREATE DATABASE "{name}"')
    return server + "/" + name


def catalogue_ensure(*, things: int, reseed: bool = False) -> SeedResult:
    """Seed `things` Things unless the marker says this exact catalogue is already there."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(
            f"CREATE TABLE IF NOT EXISTS {MARKER_TABLE} (version int, things int, seeded_at timestamptz, "
            "seconds float, steps jsonb, vectors_by text)"
        )
        cursor.execute(f"SELECT version, things, seconds, steps, vectors_by, seeded_at FROM {MARKER_TABLE}")
        marker = cursor.fetchone()
        cursor.execute("SELECT count(*) FROM things_thing")
        present = cursor.fetchone()[0]
    if not reseed and marker and marker[:2] == (SEED_VERSION, things) and present >= things:
        # Django's connection hands jsonb back undecoded; steps are [name, seconds] pairs (jsonb objects
        # do not keep their key order).
        steps = json.loads(marker[3]) if isinstance(marker[3], str) else marker[3] or []
        with connection.cursor() as cursor:
            # A migration may have filled a table since the seed (the search table): fresh statistics.
            cursor.execute("ANALYZE " + ", ".join(_bulk_tables(cursor)))
        return SeedResult(things=things, reused=True, seconds=marker[2], steps=dict(steps),
                          vectors_by=marker[4], seeded_at=f"{marker[5]:%Y-%m-%d %H:%M} UTC")
    return catalogue_seed(things=things)


# The triggers that keep derived values (migrations things.0013 and 0015), off during the bulk load: each
# would work per copied row, where one statement after the load makes the same values.
LOAD_TRIGGERS = (
    ("things_thing", "things_thing_counts"),
    ("things_thing", "things_thing_counts_update"),
    ("things_thingtag", "things_thingtag_counts"),
    ("things_thingtag", "things_thingtag_added"),
)


def catalogue_seed(*, things: int) -> SeedResult:
    """Replace the catalogue with a fresh deterministic one of `things` Things (bulk COPY)."""
    from django.db import connection, transaction

    from apps.things.counts import counts_rebuild, links_added_fill

    result = SeedResult(things=things, reused=False)
    started = time.perf_counter()
    rng = random.Random(RANDOM_SEED)

    def step(name, fn, *args):
        t0 = time.perf_counter()
        value = fn(*args)
        result.steps[name] = time.perf_counter() - t0
        print(f"  seed: {name:<28} {result.steps[name]:6.1f} s", flush=True)
        return value

    with transaction.atomic():
        cursor = connection.cursor()
        raw = connection.connection  # psycopg 3 connection, for cursor.copy()
        # CASCADE empties every table that points at Things or tags (likes, remixes, other apps' rows).
        cursor.execute("TRUNCATE things_thing, things_tag RESTART IDENTITY CASCADE")
        dropped = step("drop secondary indexes", _secondary_indexes_drop, cursor)
        # The tag and category counts' triggers would move a count per copied row, and the tag links'
        # would read a Thing per row: they are off during the load, and the counts and copies are made
        # once from the loaded tables after it.
        for table, trigger in LOAD_TRIGGERS:
            cursor.execute(f"ALTER TABLE {table} DISABLE TRIGGER {trigger}")
        user_ids = step("users", _users_ensure, rng)
        category_ids = step("categories (read)", _category_ids)
        tag_count = step("tags (COPY)", _tags_copy, raw, rng)
        step("things (COPY)", _things_copy, raw, rng, things, user_ids, category_ids)
        step("thing tags (COPY)", _thing_tags_copy, raw, rng, things, tag_count)
        for table in ("things_thing", "things_tag", "things_thingtag"):
            cursor.execute(f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), (SELECT max(id) FROM {table}))")
        # Django's foreign keys are DEFERRABLE INITIALLY DEFERRED: check the copied rows now, since
        # CREATE INDEX refuses to run on a table with pending trigger events.
        step("foreign key checks", cursor.execute, "SET CONSTRAINTS ALL IMMEDIATE")
        step("tag links' added", links_added_fill)
        for table, trigger in LOAD_TRIGGERS:
            cursor.execute(f"ALTER TABLE {table} ENABLE TRIGGER {trigger}")
        step("tag and category counts", counts_rebuild)
        # GIN indexes are built after the vectors exist; the B-trees first (the vector query joins on them).
        gin = [ddl for ddl in dropped if " using gin " in ddl.lower()]
        step("recreate b-tree indexes", _indexes_create, cursor, [ddl for ddl in dropped if ddl not in gin])
        result.vectors_by = step("search vectors", _search_vectors, cursor, things)
        if gin:
            step("recreate gin indexes", _indexes_create, cursor, gin)
    # VACUUM cannot run in a transaction. The vector UPDATE left a dead copy of every Thing row behind, and
    # the tag links' fill one of every link: VACUUM FULL rewrites the tables compact, as a catalogue grown
    # one Thing at a time would be (a plain VACUUM would leave the files twice their size, and every scan
    # of them twice as slow).
    with connection.cursor() as cursor:
        step("vacuum full things", cursor.execute, "VACUUM FULL things_thing, things_thingtag")
        tables = ", ".join(_bulk_tables(cursor) + ["things_tag", "accounts_user"])
        step("vacuum analyze", cursor.execute, f"VACUUM ANALYZE {tables}")
        result.seconds = time.perf_counter() - started
        result.seeded_at = f"{datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC"
        cursor.execute(f"DELETE FROM {MARKER_TABLE}")
        cursor.execute(
            f"INSERT INTO {MARKER_TABLE} VALUES (%s, %s, now(), %s, %s, %s)",
            [SEED_VERSION, things, result.seconds, json.dumps(list(result.steps.items())), result.vectors_by],
        )
    return result


def _secondary_indexes_drop(cursor) -> list[str]:
    """Drop the plain (non-unique, non-constraint) indexes of the bulk-loaded tables; return their DDL.

    Building an index once over 100k rows is much cheaper than maintaining it row by row during COPY
    and the vector UPDATE; the same definitions are recreated inside the same transaction.
    """
    cursor.execute(
        """
        SELECT i.indexrelid::regclass::text, pg_get_indexdef(i.indexrelid)
        FROM pg_index i
        WHERE i.indrelid = ANY(%s::regclass[])
          AND NOT i.indisunique AND NOT i.indisprimary
          AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = i.indexrelid)
        """,
        [_bulk_tables(cursor)],
    )
    rows = cursor.fetchall()
    for name, _ in rows:
        cursor.execute(f"DROP INDEX {name}")
    return [ddl for _, ddl in rows]


def _bulk_tables(cursor) -> list[str]:
    """The tables the seed fills in bulk: Things, their tags, and the search app's rows when it has them."""
    cursor.execute("SELECT to_regclass(%s)::text", [SEARCH_TABLE])
    return ["things_thing", "things_thingtag"] + ([SEARCH_TABLE] if cursor.fetchone()[0] else [])


def _indexes_create(cursor, definitions: list[str]) -> None:
    cursor.execute("SET LOCAL maintenance_work_mem = '256MB'")
    for ddl in definitions:
        cursor.execute(ddl)


def _users_ensure(rng: random.Random) -> list[int]:
    """~1000 creators (kept across reseeds: nothing but Things points at them)."""
    from django.contrib.auth import get_user_model

    User = get_user_model()
    now = datetime.now(timezone.utc)
    users = []
    for i in range(USER_COUNT):
        first, last = rng.choice(words.FIRST_NAMES), rng.choice(words.LAST_NAMES)
        users.append(
            User(
                username=f"{USERNAME_PREFIX}{first}-{last}-{i:04d}",
                first_name=first.title(),
                last_name=last.title(),
                email=f"{first}.{last}.{i}@example.com",
                password="!",  # unusable: these users never log in
                bio=f"Makes {rng.choice(words.NOUNS)}s and {rng.choice(words.NOUNS)}s.",
                location=rng.choice(words.PURPOSES).title(),
                date_joined=now - timedelta(days=rng.randint(30, 2000)),
            )
        )
    User.objects.bulk_create(users, batch_size=1000, ignore_conflicts=True)
    return list(
        User.objects.filter(username__startswith=USERNAME_PREFIX).order_by("id").values_list("id", flat=True)
    )


def _category_ids() -> list[int]:
    from apps.things.models import Category

    leaves = list(Category.objects.filter(children__isnull=True).values_list("id", flat=True))
    return leaves or list(Category.objects.values_list("id", flat=True))


def _copy_columns(model, values):
    """Column list and a row builder for COPY into `model`'s table.

    Columns the generator does not set get the field's default, so a field added by a later migration
    does not break the seed.
    """
    from django.db import connection

    fields = [f for f in model._meta.concrete_fields]
    fixed: list = []
    for f in fields:
        if f.attname in values:
            fixed.append(None)
        elif f.has_default():
            default = f.get_default()
            fixed.append(None if callable(f.default) else f.get_db_prep_save(default, connection))
        elif not f.null:
            # A non-null field without a default (a CharField added later, e.g. moderation's reasons):
            # Django's own empty value ("" for strings), as a model save would write.
            fixed.append(f.get_db_prep_save(f.get_default(), connection))
        else:
            fixed.append(None)
    callables = {f.attname: f for f in fields if f.attname not in values and f.has_default() and callable(f.default)}
    names = [f.attname for f in fields]
    columns = ", ".join(f'"{f.column}"' for f in fields)

    def row(data: dict) -> tuple:
        out = list(fixed)
        for i, name in enumerate(names):
            if name in data:
                out[i] = data[name]
            elif name in callables:
                out[i] = callables[name].get_db_prep_save(callables[name].get_default(), connection)
        return tuple(out)

    return columns, row


def _tag_names(rng: random.Random) -> list[str]:
    nouns = list(dict.fromkeys(words.NOUNS))
    names = list(dict.fromkeys(nouns + words.MATERIALS + words.PURPOSES))
    seen = set(names)
    pools = [nouns, words.ADJECTIVES, words.MATERIALS, words.PURPOSES]
    while len(names) < TAG_COUNT:
        a, b = rng.choice(pools), rng.choice([nouns, words.PURPOSES])
        name = f"{rng.choice(a)}_{rng.choice(b)}".replace("-", "_")
        if name.lower() not in seen:
            seen.add(name.lower())
            names.append(name)
    return names[:TAG_COUNT]


def _tags_copy(raw, rng: random.Random) -> int:
    from apps.things.models import Tag

    names = _tag_names(rng)
    columns, row = _copy_columns(Tag, {"id", "name"})
    with raw.cursor() as cur, cur.copy(f"COPY things_tag ({columns}) FROM STDIN") as copy:
        for i, name in enumerate(names, start=1):
            copy.write_row(row({"id": i, "name": name}))
    return len(names)


def _zipf_picker(rng: random.Random, items: list, exponent: float = 1.0):
    """Draw from `items` with the first ones much more likely (cumulative weights, bisect)."""
    cum = list(itertools.accumulate(1.0 / (rank + 1) ** exponent for rank in range(len(items))))
    total = cum[-1]
    return lambda: items[bisect.bisect_left(cum, rng.random() * total)]


def _things_copy(raw, rng: random.Random, count: int, user_ids: list[int], category_ids: list[int]) -> None:
    from apps.core.domain.licenses import THING_LICENSE_CHOICES
    from apps.things.models import Thing

    nouns = list(dict.fromkeys(words.NOUNS))
    # Head nouns are skewed (the top one names ~1 Thing in 15, like "bracket" on a real site); the nouns
    # inside descriptions are drawn evenly, so a common word does not end up in every description.
    noun = _zipf_picker(rng, nouns, 0.7)
    any_noun = lambda: rng.choice(nouns)  # noqa: E731
    creator = _zipf_picker(rng, user_ids, 0.8)
    shuffled_categories = category_ids[:]
    rng.shuffle(shuffled_categories)
    category = _zipf_picker(rng, shuffled_categories, 0.7)
    licenses = [code for code, _ in THING_LICENSE_CHOICES]
    columns, row = _copy_columns(
        Thing,
        {"id", "creator_id", "name", "description", "instructions", "license", "category_id", "is_published",
         "published_at", "is_wip", "like_count", "comment_count", "make_count", "collect_count", "file_count",
         "download_count", "added", "modified", "search_vector", "description_html", "instructions_html",
         "documents_key"},
    )
    # The texts' stored HTML, as Thing.save() writes it (apps.things.models.documents_fill): the detail
    # read uses it while its key matches. The rows are generated first (one random sequence), their
    # texts rendered on every core (instructions repeat: each once), then copied.
    from apps.core.domain.markup import document_render_fresh, documents_key

    generated = []
    # Added times climb with the id over three years, like a real catalogue.
    end = datetime.now(timezone.utc).replace(microsecond=0) - timedelta(days=1)
    step = timedelta(days=3 * 365) / count
    start = end - step * count
    choice, rand, randint = rng.choice, rng.random, rng.randint
    for i in range(1, count + 1):
        head = noun()
        name = f"{choice(words.ADJECTIVES).replace('-', ' ').title()} {any_noun().title()} {head.title()}"
        if rand() < 0.3:
            name += f" v{randint(2, 9)}"
        added = start + step * i
        published = rand() < 0.92
        likes = int(rng.paretovariate(1.3)) - 1
        description = _description(rng, head, any_noun)
        instructions = " ".join(rng.sample(words.PRINT_NOTES, randint(1, 4)))
        generated.append({
            "id": i,
            "creator_id": creator(),
            "name": name,
            "description": description,
            "instructions": instructions,
            "documents_key": documents_key(description, instructions),
            "license": choice(licenses),
            "category_id": category(),
            "is_published": published,
            "published_at": added + timedelta(minutes=randint(1, 600)) if published else None,
            "is_wip": rand() < 0.05,
            "like_count": likes,
            "comment_count": likes // 7,
            "make_count": likes // 11,
            "collect_count": likes // 3,
            "file_count": randint(1, 6),
            "download_count": likes * randint(2, 9),
            "added": added,
            "modified": added,
            "search_vector": None,
        })
    html: dict[str, str] = {}
    if count <= DOCUMENTS_RENDERED_UP_TO:
        texts = list(dict.fromkeys(t for r in generated for t in (r["description"], r["instructions"])))
        with multiprocessing.get_context("fork").Pool(os.cpu_count() or 1) as pool:
            html = dict(zip(texts, pool.map(document_render_fresh, texts, chunksize=500)))
    with raw.cursor() as cur, cur.copy(f"COPY things_thing ({columns}) FROM STDIN") as copy:
        for r in generated:
            if html:
                r["description_html"], r["instructions_html"] = html[r["description"]], html[r["instructions"]]
            else:
                r["description_html"] = r["instructions_html"] = r["documents_key"] = ""
            copy.write_row(row(r))


def _description(rng: random.Random, head: str, noun) -> str:
    """Two to five sentences, ~30-90 words, about the Thing's head noun."""
    choice, randint = rng.choice, rng.randint
    sentences = [
        f"A {choice(words.ADJECTIVES)} {head} that {choice(words.VERBS)} {choice(words.FILLER)} "
        f"{noun()} in your {choice(words.PURPOSES)}."
    ]
    for _ in range(randint(1, 4)):
        sentences.append(
            f"It {choice(words.VERBS)} the {noun()} {choice(words.FILLER)} and {choice(words.VERBS)} "
            f"{choice(words.FILLER)} {noun()} {choice(words.FILLER)} {choice(words.FILLER)} "
            f"{choice(words.PURPOSES)}, printed in {choice(words.MATERIALS).upper()}."
        )
    if rng.random() < 0.5:
        sentences.append(f"Remixed from an older {head} with {randint(2, 12)} mm clearance.")
    return " ".join(sentences)


def _thing_tags_copy(raw, rng: random.Random, things: int, tag_count: int) -> None:
    tag = _zipf_picker(rng, list(range(1, tag_count + 1)), 0.8)
    pk = itertools.count(1)
    randint = rng.randint
    with raw.cursor() as cur, cur.copy("COPY things_thingtag (id, thing_id, tag_id, position) FROM STDIN") as copy:
        for thing_id in range(1, things + 1):
            chosen = []
            for _ in range(randint(1, 5)):
                t = tag()
                if t not in chosen:
                    chosen.append(t)
            for position, tag_id in enumerate(chosen):
                copy.write_row((next(pk), thing_id, tag_id, position))


def _search_vectors(cursor, things: int) -> str:
    """Index every Thing for search with the search app's own service (the one source of the vector and
    of the search rows), INDEX_BATCH ids per set-based statement."""
    from apps.search.services import thing_index_search

    cursor.execute("SET LOCAL work_mem = '64MB'")
    for low in range(1, things + 1, INDEX_BATCH):
        thing_index_search(thing_ids=range(low, min(low + INDEX_BATCH, things + 1)))
    return "apps.search.services.thing_index_search"


def zipf_sample(ids: list[int], *, count: int, exponent: float = 1.0, rng_seed: int = 11) -> list[int]:
    """`count` draws from `ids` with Zipf-distributed popularity (issue 24: reads by real people, a long
    tail): each id gets a random rank r (1 = most read) and is drawn with weight 1 / r ** exponent."""
    if not ids:
        return []
    rng = random.Random(rng_seed)
    ranked = list(ids)
    rng.shuffle(ranked)  # popularity independent of age
    weights = [1.0 / (rank ** exponent) for rank in range(1, len(ranked) + 1)]
    return rng.choices(ranked, weights=weights, k=count)


def catalogue_zipf(*, count: int, exponent: float = 1.0) -> list[int]:
    """`count` Zipf-distributed draws over every Thing anyone may read (the whole catalogue)."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT id FROM things_thing WHERE is_published AND NOT is_hidden AND NOT is_private")
        ids = [row[0] for row in cursor.fetchall()]
    return zipf_sample(ids, count=count, exponent=exponent)


def catalogue_sample(*, count: int, rng_seed: int = 7) -> dict:
    """Ids of published Things, a creator with many published Things, a populous category and tag."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT max(id) FROM things_thing")
        high = cursor.fetchone()[0] or 0
        rng = random.Random(rng_seed)
        candidates = sorted({rng.randint(1, high) for _ in range(count * 2)}) if high else []
        cursor.execute("SELECT id FROM things_thing WHERE is_published AND id = ANY(%s)", [candidates])
        ids = [r[0] for r in cursor.fetchall()][:count]
        cursor.execute(
            """SELECT u.username FROM things_thing t JOIN accounts_user u ON u.id = t.creator_id
               WHERE t.is_published GROUP BY u.username ORDER BY count(*) DESC LIMIT 1"""
        )
        creator = (cursor.fetchone() or [None])[0]
        cursor.execute(
            """SELECT c.slug FROM things_thing t JOIN things_category c ON c.id = t.category_id
               WHERE t.is_published GROUP BY c.slug ORDER BY count(*) DESC LIMIT 1"""
        )
        category = (cursor.fetchone() or [None])[0]
        cursor.execute(
            """SELECT g.name FROM things_thingtag tt JOIN things_tag g ON g.id = tt.tag_id
               GROUP BY g.name ORDER BY count(*) DESC LIMIT 1"""
        )
        tag = (cursor.fetchone() or [None])[0]
    return {"thing_ids": ids, "creator": creator, "category": category, "tag": tag}


def main() -> int:
    """`python -m bench.seed --database NAME --things N`: ensure that catalogue (a subprocess of `make
    bench --scale`, which keeps its own connection on the 100k catalogue); prints the result as JSON."""
    import argparse
    import os

    parser = argparse.ArgumentParser(prog="python -m bench.seed")
    parser.add_argument("--database", default=DB_NAME)
    parser.add_argument("--things", type=int, default=100_000)
    parser.add_argument("--reseed", action="store_true")
    parser.add_argument("--token", action="store_true", help="also make the bench client's access token")
    args = parser.parse_args()
    os.environ["DATABASE_URL"] = database_url(
        os.environ.get("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/thingyard"), args.database
    )
    os.environ.setdefault("REDIS_URL", "redis://127.0.0.1:6379/9")
    os.environ["DJANGO_SETTINGS_MODULE"] = "bench.settings"
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    result = catalogue_ensure(things=args.things, reseed=args.reseed)
    data = dict(result.__dict__)
    if args.token:
        from bench.targets import bench_client_token

        data["token"] = bench_client_token()
    print("SEED_RESULT " + json.dumps(data))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
