"""The site walked as a person would, in headless Chromium (issue 15):

1. a new user arrives from an app's authorize link, signs up, and comes back to the consent page;
2. a designer creates a Thing, drops an STL and a photo (each with its own progress bar, straight to the
   object store), sees the file go live and the 3D preview draw, is told why it cannot be published yet,
   fixes it and publishes;
3. another user finds it by search and by category, likes it, collects it into a new collection, comments
   and replies, posts a make with a photo, and downloads all its files.

`make screenshots` runs these with THINGYARD_SCREENSHOTS=1 and refreshes docs/img/site-*.png.
"""

import base64
import io
import math
import re
import struct
import zipfile

import pytest
from PIL import Image as PILImage

from apps.accounts.models import User
from apps.accounts.tests.factories import UserFactory
from apps.comments.models import Comment
from apps.comments.tests.factories import CommentFactory
from apps.makes.models import Make
from apps.oauth.models import AppAuthorization
from apps.oauth.tests.factories import ApplicationFactory
from apps.search.services import thing_index_search
from apps.things.models import Thing
from apps.things.tests.factories import ThingFactory, category
from apps.thingcollections.models import Collection
from apps.uploads.models import Image, ProcessingStatus, ThingFile
from apps.uploads.processing import services as processing
from apps.uploads.tests.file_factories import put

pytestmark = [pytest.mark.browser, pytest.mark.webgl, pytest.mark.django_db(transaction=True)]

DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}
# Slow enough that each file's progress bar is seen moving, fast enough to keep the test short.
UPLOAD_BYTES_PER_SECOND = 160_000


def ring_stl(segments: int = 64, sides: int = 32) -> bytes:
    """A binary STL of a torus lying on the bed (about 200 KB): a cable ring."""

    def point(i, j):
        u, v = 2 * math.pi * i / segments, 2 * math.pi * j / sides
        return (
            (20 + 6 * math.cos(v)) * math.cos(u),
            (20 + 6 * math.cos(v)) * math.sin(u),
            6 + 6 * math.sin(v),
        )

    triangles = []
    for i in range(segments):
        for j in range(sides):
            a, b, c, d = point(i, j), point(i + 1, j), point(i + 1, j + 1), point(i, j + 1)
            triangles += [(a, b, c), (a, c, d)]
    out = io.BytesIO()
    out.write(b"cable ring".ljust(80, b" ") + struct.pack("<I", len(triangles)))
    for triangle in triangles:
        out.write(struct.pack("<3f", 0, 0, 0))
        for vertex in triangle:
            out.write(struct.pack("<3f", *vertex))
        out.write(b"\0\0")
    return out.getvalue()


def photo_jpeg(color=(42, 127, 214)) -> bytes:
    image = PILImage.new("RGB", (1200, 900), (223, 231, 240))
    from PIL import ImageDraw

    draw = ImageDraw.Draw(image)
    draw.ellipse([330, 180, 870, 720], fill=color)
    draw.ellipse([500, 350, 700, 550], fill=(223, 231, 240))
    out = io.BytesIO()
    image.save(out, format="JPEG", quality=92)
    return out.getvalue()


def drop_files(page, selector: str, files) -> None:
    """Drop files on an element as a person dragging them from their desktop does (a real drop event
    with a DataTransfer holding File objects)."""
    payload = [{"name": n, "type": t, "data": base64.b64encode(b).decode()} for n, t, b in files]
    transfer = page.evaluate_handle(
        """(files) => {
            const transfer = new DataTransfer();
            for (const f of files) {
                const bytes = Uint8Array.from(atob(f.data), (c) => c.charCodeAt(0));
                transfer.items.add(new File([bytes], f.name, { type: f.type }));
            }
            return transfer;
        }""",
        payload,
    )
    page.dispatch_event(selector, "dragenter", {"dataTransfer": transfer})
    page.dispatch_event(selector, "drop", {"dataTransfer": transfer})


def drawn_pixels(png: bytes) -> float:
    """The share of pixels of a canvas screenshot that are not the viewer's background: the model drawn."""
    image = PILImage.open(io.BytesIO(png)).convert("RGB")
    background = (241, 244, 248)
    pixels = list(image.getdata())
    drawn = sum(1 for p in pixels if sum(abs(a - b) for a, b in zip(p, background)) > 40)
    return drawn / len(pixels)


# --- 1. sign up from an app's authorize link ------------------------------------------------------------


def test_a_new_user_from_an_apps_authorize_link_signs_up_and_comes_back_to_consent(
    visitor, live_server, screenshot
):
    app = ApplicationFactory(
        name="Print Farm",
        description="Queues your prints.",
        redirect_uris="https://printfarm.example/callback",
    )
    page = visitor(viewport=DESKTOP)
    page.route("https://printfarm.example/**", lambda route: route.fulfill(status=200, body="the app"))
    authorize = (
        f"{live_server.url}/login/oauth/authorize?client_id={app.client_id}&response_type=code"
        "&redirect_uri=https://printfarm.example/callback&state=xyz"
    )
    page.goto(authorize)
    page.wait_for_url(re.compile(r"/login/\?next="))
    assert "Log in to continue to the application" in page.content()
    page.locator("#main").get_by_role("link", name="Sign up").click()
    page.wait_for_url(re.compile(r"/signup/\?next="))
    page.fill("#id_username", "newcomer")
    page.fill("#id_email", "newcomer@example.com")
    page.fill("#id_password1", "a long new password 42")
    page.fill("#id_password2", "a long new password 42")
    screenshot(page, "site-signup")
    page.get_by_role("button", name="Sign up").click()

    page.wait_for_url(re.compile(r"/login/oauth/authorize\?"))
    assert page.get_by_role("heading", name="Authorize Print Farm").is_visible()
    screenshot(page, "site-consent")
    page.get_by_role("button", name="Allow").click()
    page.wait_for_url(re.compile(r"^https://printfarm\.example/callback\?code=.+&state=xyz(&iss=[^&]+)?$"))
    user = User.objects.get(username="newcomer")
    assert AppAuthorization.objects.filter(user=user, application=app).exists()


# --- 2. create, upload, preview, publish -----------------------------------------------------------------


def test_a_designer_creates_a_thing_uploads_an_stl_and_a_photo_sees_it_in_3d_and_publishes(
    signed_in, live_server, categories, screenshot
):
    ada = UserFactory(username="ada")
    page = signed_in(ada, viewport=DESKTOP)
    page.goto(f"{live_server.url}/")
    page.get_by_role("link", name="New Thing").click()
    page.wait_for_url(re.compile(r"/new$"))
    page.fill("#id_name", "Desk cable ring")
    page.select_option("#id_category", "Office Organization")
    page.fill("#id_tags", "cable, desk")
    page.check("#id_is_wip")
    page.get_by_role("button", name="Save draft and add files").click()
    page.wait_for_url(re.compile(r"/thing:\d+/edit$"))
    thing = Thing.objects.get(creator=ada)
    assert not thing.is_published and thing.is_wip

    # Both files at once, each straight to the store with its own progress bar (uploads throttled).
    cdp = page.context.new_cdp_session(page)
    cdp.send("Network.enable")
    cdp.send(
        "Network.emulateNetworkConditions",
        {
            "offline": False,
            "latency": 0,
            "downloadThroughput": -1,
            "uploadThroughput": UPLOAD_BYTES_PER_SECOND,
        },
    )
    page.evaluate("() => { window.seen = new Set(); }")
    drop_files(
        page,
        "[data-dropzone]",
        [
            ("ring.stl", "model/stl", ring_stl()),
            ("ring-photo.jpg", "image/jpeg", photo_jpeg()),
        ],
    )
    page.wait_for_function(
        """() => {
            const bars = [...document.querySelectorAll('.upload-item progress')];
            bars.forEach((bar, i) => window.seen.add(i + ':' + bar.value));
            return bars.length === 2 && bars.every((bar) => bar.value > 15);
        }""",
        polling=30,
    )
    screenshot(page, "site-upload-progress")
    page.wait_for_function(
        """() => {
            const bars = [...document.querySelectorAll('.upload-item progress')];
            bars.forEach((bar, i) => window.seen.add(i + ':' + bar.value));
            return document.querySelectorAll('.upload-item[data-state=live]').length === 2;
        }""",
        polling=30,
        timeout=60_000,
    )
    cdp.send(
        "Network.emulateNetworkConditions",
        {
            "offline": False,
            "latency": 0,
            "downloadThroughput": -1,
            "uploadThroughput": -1,
        },
    )
    seen = page.evaluate("() => [...window.seen]")
    for bar in ("0", "1"):
        values = {float(v.split(":")[1]) for v in seen if v.startswith(bar + ":")}
        assert any(0 < v < 100 for v in values), f"progress bar {bar} never moved: {sorted(values)}"
    assert page.eval_on_selector_all(".upload-item progress", "bars => bars.map(b => b.value)") == [100, 100]
    file = ThingFile.objects.get(thing=thing)
    assert file.status == ProcessingStatus.LIVE and file.geometry and file.geometry["triangles"] == 64 * 32 * 2
    assert Image.objects.get(thing=thing, source_file=None).status == ProcessingStatus.LIVE
    # The file list followed without a reload: live, with its size, triangles and bounding box.
    row = page.locator(f"#file-{file.pk}")
    row.wait_for()
    assert "4,096 triangles" in row.text_content() and "52.0 × 52.0 × 12.0 mm" in row.text_content()
    # A second photo, then dragged before the first: the images' order is saved at once.
    drop_files(page, "[data-dropzone]", [("ring-top.jpg", "image/jpeg", photo_jpeg((90, 160, 60)))])
    page.wait_for_function("() => document.querySelectorAll('.image-manager li[data-image-id]').length === 2")
    images = page.locator(".image-manager li[data-image-id]")
    images.nth(1).drag_to(images.nth(0), target_position={"x": 5, "y": 20})
    for _ in range(50):  # the order is posted when the drag ends
        order = list(
            Image.objects.filter(thing=thing, source_file=None)
            .order_by("rank", "id")
            .values_list("name", flat=True)
        )
        if order == ["ring-top.jpg", "ring-photo.jpg"]:
            break
        page.wait_for_timeout(100)
    assert order == ["ring-top.jpg", "ring-photo.jpg"]
    page.wait_for_function(
        "() => document.querySelector('.image-manager li[data-image-id] .file-name').textContent === 'ring-top.jpg'"
    )
    screenshot(page, "site-edit-uploaded", full_page=True)

    # Not publishable yet: the reason in words.
    assert "Description cannot be blank." in page.locator("[data-blockers]").text_content()
    page.get_by_role("button", name="Publish").click()
    page.wait_for_load_state()
    assert "This Thing cannot be published yet: Description cannot be blank." in page.content()
    page.fill("#id_description", "Keeps the cables on your desk **tidy**. Print it in PETG.")
    page.get_by_role("button", name="Save changes").click()
    page.wait_for_load_state()
    page.get_by_role("button", name="Publish").click()
    page.wait_for_url(re.compile(rf"/thing:{thing.pk}$"))
    assert "Published: everyone can see it now." in page.content()
    assert Thing.objects.get(pk=thing.pk).is_published

    # The 3D preview draws the geometry the processing wrote (WebGL through SwiftShader).
    page.locator("[data-gallery-item][data-kind=model]").click()
    page.wait_for_selector("[data-stage][data-state=ready] canvas", timeout=20_000)
    page.wait_for_timeout(300)
    canvas = page.locator("[data-stage] canvas")
    share = drawn_pixels(canvas.screenshot())
    assert share > 0.05, f"the 3D preview is blank ({share:.1%} drawn)"
    # Orbit: a drag turns the model, and the picture changes.
    before = canvas.screenshot()
    box = canvas.bounding_box()
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.down()
    page.mouse.move(box["x"] + box["width"] / 2 + 120, box["y"] + box["height"] / 2 + 40, steps=8)
    page.mouse.up()
    page.wait_for_timeout(400)
    assert canvas.screenshot() != before
    page.evaluate("() => window.scrollTo(0, 0)")
    screenshot(page, "site-thing-3d")


# --- 3. find, like, collect, comment, make, download all --------------------------------------------------


@pytest.fixture
def published(s3, categories):
    """Ada's published cable ring: an STL and a photo, processed; a comment of hers."""
    ada = UserFactory(username="ada", first_name="Ada")
    thing = ThingFactory(
        creator=ada,
        name="Desk cable ring",
        description="Keeps the cables on your desk **tidy**.",
        instructions="PETG, 0.2 mm layers, no supports.",
        category=category("office-organization"),
        tags=["cable", "desk"],
        license="cc-sa",
    )
    file = ThingFile.objects.create(
        thing=thing,
        name="ring.stl",
        key=put(s3, "uploads/ada/ring.stl", ring_stl()),
        size=len(ring_stl()),
        content_type="model/stl",
    )
    image = Image.objects.create(
        thing=thing,
        name="ring-photo.jpg",
        size=1,
        key=put(s3, "uploads/ada/ring-photo.jpg", photo_jpeg(), "image/jpeg"),
    )
    Thing.objects.filter(pk=thing.pk).update(file_count=1)
    processing.file_process(file_id=file.pk)
    processing.image_process(image_id=image.pk)
    thing_index_search(thing_ids=[thing.pk])
    comment = CommentFactory(thing=thing, user=ada, body="Print it flat, the ring closes nicely.")
    Thing.objects.filter(pk=thing.pk).update(comment_count=1)
    return {"thing": thing, "ada": ada, "comment": comment}


def test_another_user_finds_likes_collects_comments_makes_and_downloads_all(
    signed_in, live_server, published, screenshot
):
    thing, comment = published["thing"], published["comment"]
    bob = UserFactory(username="bob")
    page = signed_in(bob, viewport=DESKTOP)

    # Found by search, from the header's search box.
    page.goto(f"{live_server.url}/")
    page.fill("#site-search-q", "cable ring")
    page.press("#site-search-q", "Enter")
    page.wait_for_url(re.compile(r"/find\?q=cable\+ring"))
    assert page.get_by_role("link", name="Desk cable ring").is_visible()
    screenshot(page, "site-search")

    # Found by category, from the browse menu.
    page.get_by_text("Browse", exact=True).click()
    page.get_by_role("link", name="Categories", exact=True).first.click()
    page.wait_for_url(re.compile(r"/browse/categories$"))
    page.get_by_role("link", name="Office Organization").click()
    page.wait_for_url(re.compile(r"/browse/categories/office-organization$"))
    screenshot(page, "site-category")
    page.get_by_role("link", name="Desk cable ring").click()
    page.wait_for_url(re.compile(rf"/thing:{thing.pk}$"))
    screenshot(page, "site-thing-desktop", full_page=True)

    # Like: no reload, the count follows.
    like = page.locator("button.like-button")
    like.click()
    page.wait_for_selector("button.like-button[aria-pressed=true]")
    assert like.locator(".count").text_content() == "1" and Thing.objects.get(pk=thing.pk).like_count == 1

    # Collect into a new collection, from the dialog.
    page.get_by_role("button", name="Collect").click()
    page.fill("#new-collection-name", "Desk gadgets")
    page.get_by_role("button", name="Create and add").click()
    page.wait_for_load_state()
    assert "Added to “Desk gadgets”." in page.content()
    collection = Collection.objects.get(creator=bob)
    page.goto(f"{live_server.url}/@bob/collections")
    page.get_by_role("link", name="Desk gadgets").click()
    page.wait_for_url(re.compile(rf"/collection:{collection.pk}$"))
    assert page.get_by_role("link", name="Desk cable ring").is_visible()
    screenshot(page, "site-collection")

    # Comment, and reply to Ada's comment.
    page.goto(f"{live_server.url}/thing:{thing.pk}")
    page.fill("#comment-body", "Printed it in PETG, works **great**.")
    page.get_by_role("button", name="Post comment").click()
    page.wait_for_load_state()
    mine = Comment.objects.get(user=bob)
    assert page.locator(f"#comment-{mine.pk}").text_content().count("Printed it in PETG, works great.") == 1
    page.locator(f"#comment-{comment.pk} > .comment-box summary").click()
    page.fill(f"#reply-{comment.pk}", "Flat it is, thanks!")
    page.locator(f"#comment-{comment.pk} > .comment-box").get_by_role("button", name="Post reply").click()
    page.wait_for_load_state()
    assert "Flat it is, thanks!" in page.locator(f"#comment-{comment.pk} .replies").text_content()
    assert Comment.objects.get(user=bob, parent=comment).body == "Flat it is, thanks!"

    # "I made one": a photo straight to the store, and the make's page opens.
    page.get_by_role("button", name="I made one").click()
    page.set_input_files(
        "#make-photo",
        files=[{"name": "my-ring.jpg", "mimeType": "image/jpeg", "buffer": photo_jpeg((214, 90, 42))}],
    )
    page.wait_for_url(re.compile(r"/make:\d+$"), timeout=20_000)
    make = Make.objects.get(creator=bob)
    page.fill("#id_description", "Orange PETG, printed flat.")
    page.get_by_role("button", name="Save description").click()
    page.wait_for_load_state()
    assert (
        "Orange PETG, printed flat." in page.content() and make.images.get().status == ProcessingStatus.LIVE
    )
    screenshot(page, "site-make")

    # Download all: "Preparing…" while the ZIP is built, then the download.
    page.goto(f"{live_server.url}/thing:{thing.pk}")
    with page.expect_download(timeout=30_000) as download_info:
        page.locator("a[data-package]").click()
        page.wait_for_selector("a[data-package][aria-busy=true] >> text=Preparing…")
    archive = zipfile.ZipFile(download_info.value.path())
    assert sorted(archive.namelist()) == ["LICENSE.txt", "README.txt", "ring.stl"]
    assert download_info.value.suggested_filename.endswith(".zip")

    # The same page on a phone.
    phone = signed_in(bob, viewport=PHONE)
    phone.goto(f"{live_server.url}/thing:{thing.pk}")
    assert phone.evaluate("() => document.documentElement.scrollWidth") <= PHONE["width"]
    screenshot(phone, "site-thing-390", full_page=True)


def test_without_webgl_the_preview_falls_back_to_the_render(visitor, live_server, published, screenshot):
    page = visitor(viewport=DESKTOP)
    # A browser without WebGL: every WebGL context request fails.
    page.add_init_script("""
        const original = HTMLCanvasElement.prototype.getContext;
        HTMLCanvasElement.prototype.getContext = function (kind, ...rest) {
            return /webgl/i.test(kind) ? null : original.call(this, kind, ...rest);
        };
    """)
    page.goto(f"{live_server.url}/thing:{published['thing'].pk}")
    page.locator("[data-gallery-item][data-kind=model]").click()
    page.wait_for_selector("[data-stage][data-state=fallback]")
    stage = page.locator("[data-stage]")
    assert stage.locator("img").get_attribute("alt") == "Render of ring.stl"
    assert "needs WebGL: showing the render instead" in stage.text_content()
    assert stage.locator("canvas").count() == 0
