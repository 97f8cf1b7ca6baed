"""The `make fuzz` harness itself: its seed gives each stateful operation an object it can succeed on,
its schemathesis.toml is one Schemathesis loads, and its per-operation report counts the right routes."""
import pytest
from drf_spectacular.generators import SchemaGenerator
from rest_framework.test import APIClient
from schemathesis.config import SchemathesisConfig

from apps.things.rules import thing_publish_blockers
from apps.uploads import store
from apps.uploads.models import Upload
from tests.contract import fuzz, fuzz_coverage
from tests.contract.seed import FUZZ_USER, fuzz_seed


@pytest.fixture(scope="module")
def document():
    return SchemaGenerator().get_schema(request=None, public=True)


@pytest.fixture
def seeded(db, s3):
    return fuzz_seed()


def _route(document, operation_id):
    for path, item in document["paths"].items():
        for method, operation in item.items():
            if isinstance(operation, dict) and operation.get("operationId") == operation_id:
                return method, path
    raise AssertionError(operation_id)


def _call(document, seeded, operation_id, body=None):
    method, path = _route(document, operation_id)
    for key, value in seeded["operations"][operation_id].items():
        if key.startswith("path."):
            path = path.replace("{" + key[len("path."):] + "}", str(value))
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {seeded['token']}")
    return getattr(client, method)(path, body, format="json")


def test_the_seed_names_real_operations_and_their_parameters(seeded, document):
    fuzz._check_operations(seeded["operations"], document)  # SystemExit otherwise
    with pytest.raises(SystemExit):
        fuzz._check_operations({"things_frobnicate": {}}, document)
    with pytest.raises(SystemExit):
        fuzz._check_operations({"things_likes_create": {"path.nope": 1}}, document)


@pytest.mark.parametrize(
    "operation_id, body, expected",
    [
        ("things_likes_create", None, 200),  # someone else's Thing: one's own is a 400
        ("copies_likes_create", None, 200),
        ("things_publish_create", None, 200),
        ("files_finalize_create", None, 200),  # the bytes are in the store
        ("groups_members_destroy_2", None, 200),  # a member the owner removes
        ("groups_things_partial_update", {"rank": 1}, 200),  # the Thing is in my group
        ("copies_images_retrieve", None, 200),  # an image of that very copy
        ("things_images_destroy", None, 200),
        ("things_files_destroy", None, 200),
        ("copies_images_destroy", None, 200),
        ("copies_destroy", None, 200),
        ("things_destroy", None, 200),
        ("comments_destroy", None, 200),
        ("collections_destroy", None, 200),
        ("copies_images_create", {"filename": "again.png"}, 200),
        ("users_cover_image_create", {"filename": "cover.jpg"}, 200),
        ("copies_comments_create", {"body": "Nice"}, 200),
    ],
)
def test_each_fixed_object_lets_its_operation_succeed(seeded, document, operation_id, body, expected):
    response = _call(document, seeded, operation_id, body)
    assert response.status_code == expected, response.content


def test_the_package_has_a_file_to_pack(seeded, document):
    assert _call(document, seeded, "things_package_url_retrieve").status_code in (200, 202)


# Each DELETE that destroys an object, and the path parameter naming it.
DESTROYS = {
    "things_destroy": "path.thing_id",
    "things_files_destroy": "path.file_id",
    "things_images_destroy": "path.image_id",
    "copies_destroy": "path.copy_id",
    "copies_images_destroy": "path.image_id",
    "comments_destroy": "path.comment_id",
    "collections_destroy": "path.collection_id",
}


@pytest.mark.parametrize("operation_id, key", DESTROYS.items())
def test_what_a_delete_destroys_no_other_operation_uses(seeded, operation_id, key):
    value = seeded["operations"][operation_id][key]
    others = [
        other for other, parameters in seeded["operations"].items()
        if other != operation_id and parameters.get(key) == value
    ]
    assert others == []
    assert value not in seeded["path_values"][key[len("path."):]]


def test_the_upload_to_finalize_is_pending_with_its_bytes_in_the_store(seeded):
    upload = Upload.objects.get(pk=seeded["operations"]["files_finalize_create"]["path.upload_id"])
    assert upload.status == Upload.Status.PENDING and upload.owner.username == FUZZ_USER
    assert store.head(upload.key) is not None


def test_the_draft_to_publish_is_publishable(seeded):
    from apps.things.models import Thing

    thing = Thing.objects.get(pk=seeded["operations"]["things_publish_create"]["path.thing_id"])
    assert not thing.is_published and thing_publish_blockers(thing) == []


def test_the_run_configuration_is_one_schemathesis_loads(seeded, document, tmp_path, monkeypatch):
    monkeypatch.setattr(fuzz, "OUT", tmp_path)
    config = SchemathesisConfig.from_path(fuzz._write_config(seeded, document))
    assert not config.cache.enabled
    text = (tmp_path / "schemathesis.toml").read_text()
    assert 'include-operation-id = "files_finalize_create"' in text
    assert '"body.parent_id" = { dictionary = "copy_comment_id"' in text


def test_the_coverage_report_tells_an_empty_segment_from_a_parameter(document):
    lines = [
        "GET /search//library?type=things HTTP/1.1 200\n",
        "GET /search/robot/library HTTP/1.1 404\n",
        "GET /search/library HTTP/1.1 404\n",  # a search for the word "library"
        "GET /things/7/likes HTTP/1.1 200\n",
        "GET /files/3/download HTTP/1.1 302\n",
        "not a request line\n",
    ]
    statuses, unmatched = fuzz_coverage.operation_statuses(document, lines)
    assert statuses["GET /search//library"] == {200: 1}
    assert statuses["GET /search/{term}/library"] == {404: 1}
    assert statuses["GET /search/{term}/"] == {404: 1}
    assert statuses["GET /things/{thing_id}/likes"] == {200: 1}
    assert not unmatched
    table, reached, total = fuzz_coverage.report(document, lines, excluded={"users_destroy"})
    assert reached == 3  # the download's 302 is its success
    assert total == len(statuses) - 1
    assert "ok   GET /files/{file_id}/download" in table


def test_the_negative_run_has_its_own_configuration_seed_and_report(seeded, document, tmp_path, monkeypatch):
    monkeypatch.setattr(fuzz, "OUT", tmp_path)
    args = fuzz._parse_args([])
    assert [run.name for run in fuzz._runs(args)] == ["default", "negative", "thingiverse"]
    assert [run.name for run in fuzz._runs(fuzz._parse_args(["--no-negative", "--no-other-versions"]))] == ["default"]
    config = fuzz._write_config(seeded, document, negative=True, suffix="-negative")
    assert config.name == "schemathesis-negative.toml"
    assert "[[operations]]" not in config.read_text()  # nothing fixed: every parameter can be broken
    assert not SchemathesisConfig.from_path(config).projects.default.generation.allow_extra_parameters
    assert SchemathesisConfig.from_path(fuzz._write_config(seeded, document)).projects.default.generation \
        .allow_extra_parameters
    command = fuzz._schemathesis_command(args, "http://x", "t", config, mode="negative",
                                         seed=args.negative_seed, suffix="-negative")
    assert command[command.index("--mode") + 1] == "negative"
    assert command[command.index("--suppress-health-check") + 1] == "filter_too_much"
    assert "--suppress-health-check" not in fuzz._schemathesis_command(args, "http://x", "t", config)
    # The negative run fuzzes only; the default run keeps every phase (its coverage phase sends the
    # deterministic invalid cases).
    assert command[command.index("--phases") + 1] == "fuzzing"
    assert "--phases" not in fuzz._schemathesis_command(args, "http://x", "t", config)
    assert command[command.index("--seed") + 1] == str(fuzz.NEGATIVE_SEED) != str(fuzz.SEED)
    assert command[command.index("--report-junit-path") + 1] == str(tmp_path / "junit-negative.xml")
    # The default run tests four operations at once; the negative run one (with four, Schemathesis drew
    # fewer cases from the same seed: docs/decisions.md, "CI under 7 minutes").
    default = fuzz._schemathesis_command(args, "http://x", "t", config)
    assert default[default.index("--workers") + 1] == "4"
    # Both load the document the harness saved, not the live URL (whose first answer may be slow).
    for run in (default, command):
        assert run[run.index("run") + 1] == str(fuzz.OUT / "openapi.json")
        assert run[run.index("--url") + 1] == "http://x"
    assert command[command.index("--workers") + 1] == "1"


def test_every_other_wire_version_s_document_is_checked_on_every_run(tmp_path, monkeypatch):
    from apps.core.pipeline import versions

    monkeypatch.setattr(fuzz, "OUT", tmp_path)
    assert set(fuzz.OTHER_VERSIONS) == set(versions.VERSIONS) - {versions.DEFAULT}
    args = fuzz._parse_args([])
    (other,) = [run for run in fuzz._runs(args) if run.version is not None]
    command = fuzz._schemathesis_command(args, "http://x", "t", tmp_path / "c.toml", mode=other.mode,
                                         suffix=other.suffix, version=other.version, phases=other.phases)
    assert command[command.index("run") + 1] == str(tmp_path / "openapi-thingiverse.json")
    assert "Thingyard-Version: thingiverse" in command and command[command.index("--mode") + 1] == "all"
    assert command[command.index("--phases") + 1] == "examples,fuzzing"  # not the coverage phase's 6,000 cases
    assert command[command.index("--seed") + 1] == str(fuzz.SEED)  # the same cases every run
    assert command[command.index("--report-junit-path") + 1] == str(tmp_path / "junit-thingiverse.xml")
    # A deep run of one version by hand runs the default and negative runs in it, and nothing else.
    deep = fuzz._runs(fuzz._parse_args(["--wire-version", "thingiverse"]))
    assert [(run.name, run.version) for run in deep] == [("default", "thingiverse"), ("negative", "thingiverse")]


def test_only_bodies_of_jsons_own_whitespace_are_left_out_of_generation():
    from tests.contract import fuzz_hooks

    for body in ("\n", b" \t\r\n", "  "):
        assert fuzz_hooks.json_whitespace_only(body)
    for other in ("", b"", "\f", "\x0b\n", " {} ", {"note": " "}, None, b"\n\x00"):
        assert not fuzz_hooks.json_whitespace_only(other)


def test_a_wire_version_run_asks_for_that_version_in_every_request():
    headers = lambda command: [command[i + 1] for i, part in enumerate(command) if part == "--header"]  # noqa: E731
    plain = fuzz._schemathesis_command(fuzz._parse_args([]), "http://x", "t", fuzz.OUT / "c.toml")
    assert headers(plain) == ["Authorization: Bearer t"]
    versioned = fuzz._schemathesis_command(
        fuzz._parse_args(["--wire-version", "thingiverse"]), "http://x", "t", fuzz.OUT / "c.toml"
    )
    assert headers(versioned) == ["Authorization: Bearer t", "Thingyard-Version: thingiverse"]


def test_the_negative_run_leaves_out_only_operations_without_invalid_input(document):
    assert fuzz.nothing_to_break(document) == {
        "categories_retrieve", "tags_retrieve", "users_retrieve", "users_destroy",
        "users_all_collected_things_retrieve", "users_followers_create", "users_followers_destroy",
        "users_unread_message_count_for_user", "users_verify_account_create",
        "users_unread_message_count_retrieve",
    }
    command = fuzz._schemathesis_command(fuzz._parse_args([]), "http://x", "t", fuzz.OUT / "c.toml",
                                         mode="negative", exclude={"tags_retrieve"})
    excluded = {command[i + 1] for i, part in enumerate(command) if part == "--exclude-operation-id"}
    assert excluded == {"tags_retrieve", *fuzz.EXCLUDED_OPERATIONS}



@pytest.mark.parametrize(
    "run_id, test_url, expected",
    [
        ("", "postgres://postgres@127.0.0.1:5432/thingyard", None),  # run alone: migrated from nothing
        ("ci-1", "postgres://postgres@127.0.0.1:5432/thingyard", ("thingyard", "postgres", "")),
        ("ci-1", "postgres://ci:s%40cret@127.0.0.1/suite", ("suite", "ci", "s@cret")),  # the default port
        ("ci-1", "postgres://postgres@10.0.0.9:5432/thingyard", None),  # another server: nothing to copy
        ("ci-1", "", ("thingyard", "postgres", "")),  # the test settings' default
    ],
)
def test_the_fuzz_copies_the_test_runs_template_only_on_the_same_server(monkeypatch, run_id, test_url, expected):
    from urllib.parse import urlsplit

    monkeypatch.setenv("THINGYARD_TEST_RUN_ID", run_id)
    monkeypatch.setenv("DATABASE_URL", test_url)
    found = fuzz._test_run_template(urlsplit("postgres://postgres@127.0.0.1:5432/thingyard_fuzz"))
    if expected is None:
        assert found is None
        return
    assert found is not None
    settings_dict, found_run = found
    assert found_run == run_id
    assert (settings_dict["NAME"], settings_dict["USER"], settings_dict["PASSWORD"]) == expected
    assert settings_dict["HOST"] == "127.0.0.1" and int(settings_dict["PORT"] or 5432) == 5432


@pytest.mark.parametrize("body_cache", [True, False])
def test_every_paged_list_answers_a_page_number_beyond_any_database_integer(seeded, document, settings, body_cache):
    # A Schemathesis finding (/popular/?page=5259336424288063324160 was a 500), swept over every GET of
    # the document that takes `page`, each with the seed's first value for its path parameters: a page
    # that far is past the end of any list, so it is that list's last page (or its 404), never a 500.
    from urllib.parse import quote

    if not body_cache:
        settings.THING_BODY_CACHE_SECONDS = 0
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {seeded['token']}")
    swept = []
    for path, item in document["paths"].items():
        operation = item.get("get")
        if not operation or not any(p.get("name") == "page" for p in operation.get("parameters", [])):
            continue
        for name, values in seeded["path_values"].items():
            path = path.replace("{" + name + "}", quote(str(values[0]), safe=""))
        assert "{" not in path, path
        for page in ("9" * 40, str(2**63)):
            response = client.get(path, {"page": page, "per_page": "100"})
            assert response.status_code in (200, 404), (path, page, response.content[:300])
        swept.append(path)
    assert len(swept) >= 30 and "/popular/" in swept
