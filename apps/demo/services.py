"""Demo data for the quick start (`make run`) and for trying the API by hand."""
import hashlib
from dataclasses import dataclass
from typing import Any
from datetime import timedelta

import boto3
from botocore.exceptions import BotoCoreError, ClientError
from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone
from django.utils.crypto import salted_hmac
from oauth2_provider.models import get_access_token_model, get_application_model

from apps.makes.models import Make
from apps.oauth.tokens import generate_token
from apps.search.services import thing_index_search
from apps.things.models import Category, Like, Remix, Tag, Thing, ThingTag
from apps.things.services import thing_set_featured

DEMO_PASSWORD = "thingyard-demo"
DEMO_USERS = [
    ("demo", "Dana", "Maker", "Designs parametric brackets and tool holders."),
    ("alice", "Alice", "Printer", "Prints everything in PETG."),
    ("bob", "Bob", "Builder", "Remixes other people's designs."),
]
# (creator, name, category slug, tags, published, extra fields). Names are the idempotence key per creator.
DEMO_THINGS = [
    ("demo", "Parametric Shelf Bracket", "replacement-parts", ["bracket", "parametric", "shelf"], True,
     {"description": "A shelf bracket whose width, depth and screw size are parameters.",
      "instructions": "PETG, 4 perimeters, 40% gyroid infill. Print on its side.",
      "license": "cc-sa", "download_count": 42}),
    ("demo", "Wall Tool Holder", "tool-holders-boxes", ["tool_holder", "workshop", "parametric"], True,
     {"description": "A modular rack for screwdrivers and pliers, screwed to a pegboard.",
      "instructions": "PLA, 0.2 mm layers, no supports.", "license": "cc", "download_count": 12}),
    ("alice", "Articulated Robot Arm", "robotics", ["Robot_Arm", "articulated", "servo"], True,
     {"description": "A four-axis desktop robot arm driven by SG90 servos.",
      "instructions": "PETG for the joints, PLA elsewhere. See the assembly notes.", "license": "cc-nc-sa",
      "download_count": 80, "is_featured": True}),
    ("alice", "Calibration Cube", "3d-printing-tests", ["calibration", "test_print"], True,
     {"description": "A 20 mm cube with axis labels to tune steps per mm.",
      "instructions": "Any material, 0.2 mm layers, 20% infill.", "license": "pd0", "download_count": 150}),
    ("bob", "Robot Arm Gripper", "robotics", ["Robot_Arm", "gripper", "remix"], True,
     {"description": "A parallel gripper for the Articulated Robot Arm.",
      "instructions": "PETG; the fingers print flat.", "license": "cc-nc-sa", "download_count": 9}),
    ("bob", "Desk Cable Organizer", "office-organization", ["cable", "desk"], False,
     {"description": "Clips that keep charging cables at the desk's edge. Work in progress.",
      "is_wip": True, "license": "cc-sa"}),
]
# (derivative, ancestor) by name, and (user, Thing name) likes.
DEMO_REMIXES = [("Robot Arm Gripper", "Articulated Robot Arm")]
DEMO_LIKES = [
    ("alice", "Parametric Shelf Bracket"),
    ("bob", "Parametric Shelf Bracket"),
    ("demo", "Articulated Robot Arm"),
    ("bob", "Articulated Robot Arm"),
]
# (maker, Thing name, description): copies (makes) without images; `make_count` follows them.
DEMO_MAKES = [
    ("alice", "Parametric Shelf Bracket", "Two in PETG hold the garage shelf; 40% gyroid was plenty."),
    ("bob", "Parametric Shelf Bracket", "Printed at 8 mm screw size for a heavier shelf."),
    ("demo", "Articulated Robot Arm", "Printed over a weekend; the base joint needed a little sanding."),
]
# (author, Thing name, body, replies as (author, body)): a short discussion, written through the services.
DEMO_COMMENTS = [
    ("alice", "Parametric Shelf Bracket", "Printed two of these for the garage. **Solid** at 40% infill.",
     [("demo", "Thanks! The 8 mm screw variant holds even more."), ("bob", "Which PETG brand did you use?")]),
    ("bob", "Articulated Robot Arm", "Remixed the gripper for this arm, see *Robot Arm Gripper*.", []),
]
DEMO_APP_CLIENT_ID = "thingyard-demo-app"
# The example Thing app (examples/thing-app, served by `make run` on :8001), approved so it shows on every
# Thing page for a signed-in user (issue 7).
DEMO_THING_APP_CLIENT_ID = "thingyard-example-thing-app"
DEMO_THING_APP_URL = "http://127.0.0.1:8001/"
DEMO_APP_SECRET = "thingyard-demo-secret"


def demo_callback_url() -> str:
    """The demo app's callback page (apps/demo/pages.py), where "Allow" lands."""
    return f"{settings.API_BASE_URL}/demo/callback"


def demo_authorize_url() -> str:
    """The consent page of the demo app: "Allow" there shows the token working on the callback page."""
    from urllib.parse import urlencode

    query = urlencode({"client_id": DEMO_APP_CLIENT_ID, "response_type": "code", "redirect_uri": demo_callback_url()})
    return f"{settings.AUTH_BASE_URL}/login/oauth/authorize?{query}"


@dataclass
class DemoSummary:
    username: str
    password: str
    token: str
    client_id: str
    client_secret: str
    admin_username: str


def object_store_ensure_bucket() -> bool:
    """Create the configured bucket if the store lacks it; False when the store is unreachable."""
    client = boto3.client(
        "s3",
        endpoint_url=settings.AWS_S3_ENDPOINT_URL,
        region_name=settings.S3_REGION,
        aws_access_key_id=settings.S3_ACCESS_KEY_ID,
        aws_secret_access_key=settings.S3_SECRET_ACCESS_KEY,
    )
    try:
        client.head_bucket(Bucket=settings.S3_BUCKET)
        return True
    except ClientError:
        client.create_bucket(Bucket=settings.S3_BUCKET)
        return True
    except BotoCoreError:
        return False


@transaction.atomic
def demo_seed() -> DemoSummary:
    """Idempotent: users, a moderator, an approved demo app, demo Things and a ready token for `demo`."""
    User = get_user_model()
    users = {}
    for username, first, last, bio in DEMO_USERS:
        user, created = User.objects.get_or_create(
            username=username,
            defaults={"first_name": first, "last_name": last, "bio": bio, "email": f"{username}@example.com",
                      "location": "Workshop"},
        )
        if created:
            user.set_password(DEMO_PASSWORD)
            user.save(update_fields=["password"])
        users[username] = user

    admin, created = User.objects.get_or_create(
        username="admin", defaults={"is_staff": True, "is_superuser": True, "email": "admin@example.com"}
    )
    if created:
        admin.set_password(DEMO_PASSWORD)
        admin.save(update_fields=["password"])

    Application = get_application_model()
    app = Application.objects.filter(client_id=DEMO_APP_CLIENT_ID).first()
    # "Allow" lands on the demo app's callback page, which shows the token working (issue 23); Swagger's
    # callback stays, so /docs/ can "Authorize" with the demo app too.
    redirect_uris = f"{demo_callback_url()} {settings.API_BASE_URL}/docs/oauth2-redirect.html"
    if app is not None and app.redirect_uris != redirect_uris:
        Application.objects.filter(pk=app.pk).update(redirect_uris=redirect_uris)
    if app is None:
        app = Application.objects.create(
            client_id=DEMO_APP_CLIENT_ID,
            client_secret=DEMO_APP_SECRET,  # DOT hashes it on save
            name="Thingyard Demo App",
            description="The demo application created by `seed_demo`.",
            app_type=Application.AppType.WEB,
            info_url=f"{settings.API_BASE_URL}/docs/",
            application_url=settings.API_BASE_URL,
            redirect_uris=redirect_uris,
            client_type=Application.CLIENT_CONFIDENTIAL,
            authorization_grant_type=Application.GRANT_AUTHORIZATION_CODE,
            user=users["demo"],
            approval_state=Application.Approval.APPROVED,
            approval_reason="Demo application",
            reviewed_at=timezone.now(),
        )

    demo_seed_thing_app(owner=users["demo"])
    things = demo_seed_things(users=users)
    demo_seed_comments(users=users, things=things)

    # Tokens are stored as their checksum only (docs/security.md, issue 22 finding 6), so the demo's token
    # is derived from SECRET_KEY: every run prints the same one without it being stored.
    demo = users["demo"]
    plain = salted_hmac("apps.demo.services.demo_token", "demo", algorithm="sha256").hexdigest()[:32]
    AccessToken = get_access_token_model()
    existing = AccessToken.objects.filter(token_checksum=hashlib.sha256(plain.encode()).hexdigest()).first()
    if existing is None or existing.expires <= timezone.now() + timedelta(days=1):
        if existing is not None:
            existing.delete()
        AccessToken.objects.create(
            user=demo,
            application=app,
            token=plain,  # stored as its checksum (apps.oauth.signals)
            expires=timezone.now() + timedelta(days=365),
            scope="read write",
        )
    return DemoSummary(
        username=demo.username,
        password=DEMO_PASSWORD,
        token=plain,
        client_id=DEMO_APP_CLIENT_ID,
        client_secret=DEMO_APP_SECRET,
        admin_username=admin.username,
    )


def demo_seed_things(*, users: dict) -> dict[str, Thing]:
    """Idempotent: the demo Things (one draft), their tags, a remix, a few likes and copies, indexed for
    search."""
    now = timezone.now()
    things = {}
    for username, name, slug, tag_names, published, extra in DEMO_THINGS:
        fields = dict(extra)
        featured = fields.pop("is_featured", False)
        thing, _ = Thing.objects.get_or_create(
            creator=users[username],
            name=name,
            defaults={
                "category": Category.objects.filter(slug=slug).first(),
                "is_published": published,
                "published_at": now if published else None,
                **fields,
            },
        )
        if featured:
            thing_set_featured(thing=thing, featured=True)  # a no-op on the second run
        for position, tag_name in enumerate(tag_names):
            tag = Tag.objects.filter(name__iexact=tag_name).first() or Tag.objects.create(name=tag_name)
            ThingTag.objects.get_or_create(thing=thing, tag=tag, defaults={"position": position})
        things[name] = thing
    for derivative, ancestor in DEMO_REMIXES:
        Remix.objects.get_or_create(derivative=things[derivative], ancestor=things[ancestor])
    for username, name in DEMO_LIKES:
        Like.objects.get_or_create(user=users[username], thing=things[name])
    for username, name, description in DEMO_MAKES:
        if not Make.objects.filter(creator=users[username], thing=things[name]).exists():
            Make.objects.create(creator=users[username], thing=things[name], description=description)
    for thing in things.values():
        # The counters the like and make services keep, recomputed so a second run leaves them unchanged.
        Thing.objects.filter(pk=thing.pk).update(
            like_count=thing.likes.count(), make_count=thing.makes.filter(is_hidden=False).count()
        )
    thing_index_search(thing_ids=[thing.pk for thing in things.values()])
    return things


def demo_seed_thing_app(*, owner):
    """Idempotent: the approved example Thing app (examples/thing-app) that `make run` serves on :8001."""
    Application = get_application_model()
    app = Application.objects.filter(client_id=DEMO_THING_APP_CLIENT_ID).first()
    if app is None:
        app = Application.objects.create(
            client_id=DEMO_THING_APP_CLIENT_ID,
            client_secret=generate_token(),  # a Thing app gets its token from the Thing page, not a code
            name="Example Thing App",
            description="examples/thing-app: calls echo, every dialog and the read-only API.",
            app_type=Application.AppType.THING,
            info_url=DEMO_THING_APP_URL,
            application_url=DEMO_THING_APP_URL,
            redirect_uris=DEMO_THING_APP_URL,
            client_type=Application.CLIENT_CONFIDENTIAL,
            authorization_grant_type=Application.GRANT_IMPLICIT,
            user=owner,
            approval_state=Application.Approval.APPROVED,
            approval_reason="Demo application",
            reviewed_at=timezone.now(),
        )
    return app


def demo_seed_comments(*, users: dict, things: dict):
    """Idempotent: a few comments and replies (Markdown rendered, counters kept by the comment services)."""
    from apps.comments.models import Comment
    from apps.comments.services import comment_create, comment_reply

    for username, name, body, replies in DEMO_COMMENTS:
        thing = things[name]
        if Comment.objects.filter(thing=thing, user=users[username], body=body).exists():
            continue
        comment = comment_create(user=users[username], target=thing, body=body)
        for reply_author, reply_body in replies:
            comment_reply(user=users[reply_author], comment=comment, body=reply_body)


# --- models and photos, so the quick start's Thing pages show the 3D preview ---------------------------

# (Thing name, file name, boxes (x0, y0, z0, x1, y1, z1) in mm whose union is the model)
DEMO_MODELS = [
    ("Articulated Robot Arm", "robot-arm-base.stl",
     [(0, 0, 0, 60, 60, 10), (20, 20, 10, 40, 40, 70), (20, 20, 60, 90, 40, 75), (80, 25, 40, 90, 35, 60)]),
    ("Robot Arm Gripper", "gripper.stl", [(0, 0, 0, 40, 20, 8), (0, 0, 8, 6, 20, 40), (34, 0, 8, 40, 20, 40)]),
    ("Parametric Shelf Bracket", "shelf-bracket.stl",
     [(0, 0, 0, 60, 20, 5), (0, 0, 0, 5, 20, 60), (5, 8, 5, 45, 12, 45)]),
    ("Calibration Cube", "calibration-cube.stl", [(0, 0, 0, 20, 20, 20)]),
    ("Wall Tool Holder", "tool-holder.stl",
     [(0, 0, 0, 80, 4, 40), (0, 4, 0, 80, 24, 4), (0, 20, 0, 80, 24, 15)]),
]


def _box_triangles(x0, y0, z0, x1, y1, z1) -> list:
    v = [(x, y, z) for x in (x0, x1) for y in (y0, y1) for z in (z0, z1)]
    faces = [(0, 1, 3, 2), (4, 6, 7, 5), (0, 4, 5, 1), (2, 3, 7, 6), (0, 2, 6, 4), (1, 5, 7, 3)]
    return [tri for a, b, c, d in faces for tri in ((v[a], v[b], v[c]), (v[a], v[c], v[d]))]


def demo_stl(boxes) -> bytes:
    """A binary STL of the union of `boxes` (their surfaces, overlapping where they meet)."""
    import struct

    triangles = [tri for box in boxes for tri in _box_triangles(*box)]
    out = [b"Thingyard demo model".ljust(80, b" "), struct.pack("<I", len(triangles))]
    for tri in triangles:
        out.append(struct.pack("<3f", 0, 0, 0) + b"".join(struct.pack("<3f", *p) for p in tri) + b"\0\0")
    return b"".join(out)


def _demo_row_kept(row) -> bool:
    """Whether a demo file or image row exists with its object in the store. moto keeps objects in memory:
    after `make run` restarts it, SQLite still has the rows but not the objects, so the row is dropped
    (its render and sizes with it) and seeded again."""
    from apps.uploads import store

    if row is None:
        return False
    if store.head(row.key) is not None:
        return True
    row.delete()
    return False


def demo_seed_models() -> int:
    """Idempotent: an STL for some demo Things, put in the store and processed (a render and the three.js
    geometry), as an upload would have been. Needs the object store; returns how many were added."""
    from apps.uploads import store
    from apps.uploads.models import ThingFile
    from apps.uploads.processing import services as processing

    added = 0
    for name, filename, boxes in DEMO_MODELS:
        thing = Thing.objects.filter(name=name).first()
        if thing is None or _demo_row_kept(ThingFile.objects.filter(thing=thing, name=filename).first()):
            continue
        data = demo_stl(boxes)
        key = f"demo/{thing.pk}/{filename}"
        store.put(key, data, content_type="model/stl")
        file = ThingFile.objects.create(thing=thing, name=filename, key=key, size=len(data), content_type="model/stl")
        Thing.objects.filter(pk=thing.pk).update(file_count=thing.files.count())
        processing.file_process(file_id=file.pk)
        added += 1
    return added


# --- photos of Things and makes, a group, collections: the product as people see it (issue 23) -------

# (Thing name, photo file name, background, shape colour): the Calibration Cube keeps only its model, so
# the quick start has a model-first Thing page (its 3D preview comes first).
DEMO_THING_PHOTOS = [
    ("Parametric Shelf Bracket", "bracket-on-the-wall.png", (226, 232, 240), (42, 127, 214)),
    ("Wall Tool Holder", "tool-holder-in-use.png", (240, 234, 222), (232, 89, 12)),
    ("Articulated Robot Arm", "robot-arm-assembled.png", (222, 236, 228), (10, 91, 181)),
    ("Robot Arm Gripper", "gripper-closed.png", (236, 226, 240), (120, 60, 170)),
]
# (maker, Thing name, photo file name, background, shape colour): one photo for each make of DEMO_MAKES.
DEMO_MAKE_PHOTOS = [
    ("alice", "Parametric Shelf Bracket", "garage-shelf.png", (214, 222, 230), (30, 110, 90)),
    ("bob", "Parametric Shelf Bracket", "heavy-shelf.png", (230, 220, 210), (160, 70, 40)),
    ("demo", "Articulated Robot Arm", "weekend-print.png", (220, 230, 240), (200, 40, 40)),
]
DEMO_GROUP: dict[str, Any] = {
    "slug": "workshop-organizers",
    "name": "Workshop Organizers",
    "creator": "demo",
    "description": "Brackets, racks and holders that keep a workshop tidy. Share yours, ask for advice.",
    "members": ["alice", "bob"],
    "things": ["Parametric Shelf Bracket", "Wall Tool Holder", "Calibration Cube"],
    # (author, name, body, pinned, replies as (author, body))
    "topics": [
        ("demo", "Welcome: what belongs here", "Anything that organizes a workshop. Add your Things to the "
         "group and say what you printed them in.", True, []),
        ("alice", "PETG or PLA for wall mounts?", "My PLA hooks creep under load in summer. Is PETG enough, "
         "or should I go to ABS?", False,
         [("bob", "PETG has been fine for me for two years, 4 perimeters."),
          ("demo", "PETG, and screw into studs: the plastic is rarely what fails.")]),
    ],
}
# (owner, name, description, Thing names)
DEMO_COLLECTIONS = [
    ("demo", "Workshop favourites", "What hangs on my wall.", ["Wall Tool Holder", "Parametric Shelf Bracket",
                                                              "Articulated Robot Arm"]),
    ("alice", "Robotics", "Arms, grippers and the rest.", ["Articulated Robot Arm", "Robot Arm Gripper"]),
]


def demo_photo(title: str, *, background, colour, size=(1200, 900)) -> bytes:
    """A PNG made here (Pillow), no download: a soft gradient, the object as a lit isometric block with
    its shadow, and the title; enough to show the gallery, the thumbnails and the make cards."""
    import io

    from PIL import Image as PILImage
    from PIL import ImageDraw, ImageFilter, ImageFont

    width, height = size
    image = PILImage.new("RGB", size, background)
    draw = ImageDraw.Draw(image)
    for y in range(height):  # light from above
        shade = 1.08 - 0.22 * y / height
        draw.line([(0, y), (width, y)], fill=tuple(min(255, int(c * shade)) for c in background))
    shadow = PILImage.new("L", size, 0)
    ImageDraw.Draw(shadow).ellipse([width * 0.25, height * 0.68, width * 0.8, height * 0.8], fill=110)
    image.paste((40, 40, 40), mask=shadow.filter(ImageFilter.GaussianBlur(28)))
    cx, cy, s = width * 0.5, height * 0.5, min(width, height) * 0.22
    top = [(cx, cy - s), (cx + s * 1.2, cy - s * 0.4), (cx, cy + s * 0.2), (cx - s * 1.2, cy - s * 0.4)]
    left = [(cx - s * 1.2, cy - s * 0.4), (cx, cy + s * 0.2), (cx, cy + s * 1.2), (cx - s * 1.2, cy + s * 0.6)]
    right = [(cx, cy + s * 0.2), (cx + s * 1.2, cy - s * 0.4), (cx + s * 1.2, cy + s * 0.6), (cx, cy + s * 1.2)]
    for face, light in ((top, 1.35), (left, 0.95), (right, 0.7)):
        draw.polygon(face, fill=tuple(min(255, int(c * light)) for c in colour))
    font = ImageFont.load_default(size=48)
    draw.text((60, height - 110), title, fill=(40, 44, 52), font=font)
    out = io.BytesIO()
    image.save(out, format="PNG", optimize=True)
    return out.getvalue()


def _demo_image(*, key: str, name: str, data: bytes, thing=None, make=None) -> None:
    """Put the photo in the store and process it, as an uploaded image is (its sizes rendered)."""
    from apps.uploads import store
    from apps.uploads.models import Image
    from apps.uploads.processing import services as processing

    store.put(key, data, content_type="image/png")
    image = Image.objects.create(thing=thing, copy=make, name=name, key=key, size=len(data))
    processing.image_process(image_id=image.pk)


def demo_seed_photos() -> int:
    """Idempotent: a photo for some demo Things and for every demo make. Needs the object store."""
    from apps.uploads.models import Image

    User = get_user_model()
    added = 0
    for name, filename, background, colour in DEMO_THING_PHOTOS:
        thing = Thing.objects.filter(name=name).first()
        if thing is None or _demo_row_kept(Image.objects.filter(thing=thing, name=filename).first()):
            continue
        _demo_image(key=f"demo/{thing.pk}/{filename}", name=filename, thing=thing,
                    data=demo_photo(name, background=background, colour=colour))
        added += 1
    for username, name, filename, background, colour in DEMO_MAKE_PHOTOS:
        make = Make.objects.filter(creator=User.objects.filter(username=username).first(), thing__name=name).first()
        if make is None or _demo_row_kept(Image.objects.filter(copy=make, name=filename).first()):
            continue
        _demo_image(key=f"demo/makes/{make.pk}/{filename}", name=filename, make=make,
                    data=demo_photo(f"{name}, made by {username}", background=background, colour=colour))
        added += 1
    return added


@transaction.atomic
def demo_seed_community() -> None:
    """Idempotent: a group with members, Things and topics (with replies), and two collections, all
    written through their services (counters, events and search as any user's would be)."""
    from apps.comments.services import comment_create
    from apps.groups.models import Group, GroupTopic
    from apps.groups.services import (
        group_create,
        group_join,
        group_thing_add,
        group_topic_create,
        group_topic_pin_set,
    )
    from apps.thingcollections.models import Collection
    from apps.thingcollections.services import collection_add_thing, collection_create

    users = {user.username: user for user in get_user_model().objects.filter(username__in=[u[0] for u in DEMO_USERS])}
    things = {thing.name: thing for thing in Thing.objects.filter(name__in=[t[1] for t in DEMO_THINGS])}
    spec = DEMO_GROUP
    group = Group.objects.filter(slug=spec["slug"]).first()
    if group is None:
        group = group_create(creator=users[spec["creator"]], name=spec["name"], slug=spec["slug"],
                             description=spec["description"])
        for member in spec["members"]:
            group_join(group=group, user=users[member])
        for name in spec["things"]:
            group_thing_add(group=group, thing=things[name], user=users[spec["creator"]])
    for author, name, body, pinned, replies in spec["topics"]:
        if GroupTopic.objects.filter(group=group, name=name).exists():
            continue
        topic = group_topic_create(group=group, user=users[author], name=name, body=body)
        if pinned:
            group_topic_pin_set(topic=topic, user=users[spec["creator"]], action="pin")
        for reply_author, reply_body in replies:
            comment_create(user=users[reply_author], target=topic, body=reply_body)
    for owner, name, description, thing_names in DEMO_COLLECTIONS:
        collection = Collection.objects.filter(creator=users[owner], name=name).first()
        if collection is None:
            collection = collection_create(creator=users[owner], name=name, description=description)
            for thing_name in thing_names:
                collection_add_thing(collection=collection, thing=things[thing_name], user=users[owner])
