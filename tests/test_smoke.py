def test_unknown_path_answers_json_404(anon_client, db):
    response = anon_client.get("/no-such-path/at-all")
    assert response.status_code == 404
    assert response.json() == {"error": "Not Found", "code": 404, "type": "NOT_FOUND"}
    assert response["X-Error"] == "Not Found"


def test_object_store_bucket_exists(s3):
    from django.conf import settings

    assert s3.head_bucket(Bucket=settings.S3_BUCKET)["ResponseMetadata"]["HTTPStatusCode"] == 200
