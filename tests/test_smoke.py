def test_unknown_path_answers_json_404(anon_client, db):
    response = anon_client.get("/no-such-path/at-all")
    assert response.status_code == 404
    assert response.json() == {"error": "Not Found", "code": 404, "type": "NOT_FOUND"}
    assert response["X-Error"] == "Not Found"


def test_object_store_bucket_exists(s3):
    from django.conf import settings

    assert s3.head_bucket(Bucket=settings.S3_BUCKET)["ResponseMetadata"]["HTTPStatusCode"] == 200


def test_a_404_without_a_route_is_the_same_bytes_as_a_views_404(api):
    """One renderer for every body: Django's own 404 (no route matches `abc`) and DRF's (no Thing has
    the id) answer the same compact body, whichever layer answers."""
    no_route = api.get("/things/abc/")
    no_thing = api.get("/things/999999999/")
    assert no_route.status_code == no_thing.status_code == 404
    assert no_route.content == no_thing.content == b'{"error":"Not Found","code":404,"type":"NOT_FOUND"}'


def test_gunicorns_own_errors_are_compact_json(monkeypatch):
    from apps.core.pipeline import server_errors

    written = []
    monkeypatch.setattr(server_errors.util, "write_nonblock", lambda sock, data: written.append(data))
    server_errors.write_json_error(None, 400, "Bad Request", "Invalid request line")
    head, body = written[0].split(b"\r\n\r\n", 1)
    assert body == b'{"error":"Bad Request","code":400,"type":"BAD_REQUEST"}'
    assert f"Content-Length: {len(body)}".encode() in head
