"""store.presigned_get_url: the same SigV4 signature boto3 makes, valid against the store, stable in a window."""
import urllib.request
from datetime import datetime
from urllib.parse import parse_qs, urlsplit

import pytest
from django.conf import settings

from apps.uploads import store


def _boto3_url(key, filename=None, expires=3600):
    params = {"Bucket": settings.S3_BUCKET, "Key": key}
    if filename:
        params["ResponseContentDisposition"] = store.content_disposition(filename)
    return store.client(public=True).generate_presigned_url("get_object", Params=params, ExpiresIn=expires)


@pytest.mark.parametrize(
    ("key", "filename"),
    [("uploads/1/abc/part.stl", None), ("uploads/2/x y/Gëar (2).stl", "Gëar (2).stl"), ("a/b~c+d.png", "a;b.png")],
)
def test_it_signs_exactly_as_boto3_does(key, filename):
    reference = _boto3_url(key, filename)
    query = parse_qs(urlsplit(reference).query)
    signed_at = datetime.strptime(query["X-Amz-Date"][0] + "+0000", "%Y%m%dT%H%M%SZ%z")
    ours = store.presigned_get_url(key, filename=filename, expires=3600, signed_at=signed_at)
    assert parse_qs(urlsplit(ours).query) == query
    assert urlsplit(ours)[:3] == urlsplit(reference)[:3]


def test_the_url_opens_the_object_and_is_stable_within_the_window(s3):
    s3.put_object(Bucket=settings.S3_BUCKET, Key="uploads/t/ok.txt", Body=b"hello")
    url = store.presigned_get_url("uploads/t/ok.txt", filename="ok.txt")
    assert url == store.presigned_get_url("uploads/t/ok.txt", filename="ok.txt")
    expires = int(parse_qs(urlsplit(url).query)["X-Amz-Expires"][0])
    assert expires == 3600 + store.PRESIGN_WINDOW_SECONDS
    with urllib.request.urlopen(url) as response:
        assert response.read() == b"hello"
        assert response.headers["Content-Disposition"].startswith('attachment; filename="ok.txt"')
