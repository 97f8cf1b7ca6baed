"""Demo data for the quick start (`make run`) and for trying the API by hand."""
from dataclasses import dataclass
from datetime import timedelta

import boto3
from botocore.exceptions import BotoCoreError, ClientError
from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone
from oauth2_provider.models import get_access_token_model, get_application_model

from apps.oauth.tokens import generate_token

DEMO_PASSWORD = "thingyard-demo"
DEMO_USERS = [
    ("demo", "Dana", "Maker", "Designs parametric brackets and tool holders."),
    ("alice", "Alice", "Printer", "Prints everything in PETG."),
    ("bob", "Bob", "Builder", "Remixes other people's designs."),
]
DEMO_APP_CLIENT_ID = "thingyard-demo-app"
DEMO_APP_SECRET = "thingyard-demo-secret"


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
    """Idempotent: users, a moderator, an approved demo app and a ready token for `demo`."""
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
    if app is None:
        app = Application.objects.create(
            client_id=DEMO_APP_CLIENT_ID,
            client_secret=DEMO_APP_SECRET,  # DOT hashes it on save
            name="Thingyard Demo App",
            description="The demo application created by `seed_demo`.",
            app_type=Application.AppType.WEB,
            info_url="http://127.0.0.1:8000/docs/",
            application_url="http://127.0.0.1:8000",
            redirect_uris="http://127.0.0.1:8000/docs/oauth2-redirect.html",
            client_type=Application.CLIENT_CONFIDENTIAL,
            authorization_grant_type=Application.GRANT_AUTHORIZATION_CODE,
            user=users["demo"],
            approval_state=Application.Approval.APPROVED,
            approval_reason="Demo application",
            reviewed_at=timezone.now(),
        )

    AccessToken = get_access_token_model()
    demo = users["demo"]
    token = (
        AccessToken.objects.filter(user=demo, application=app, expires__gt=timezone.now() + timedelta(days=1))
        .order_by("-expires")
        .first()
    )
    if token is None:
        token = AccessToken.objects.create(
            user=demo,
            application=app,
            token=generate_token(),
            expires=timezone.now() + timedelta(days=365),
            scope="read write",
        )
    return DemoSummary(
        username=demo.username,
        password=DEMO_PASSWORD,
        token=token.token,
        client_id=DEMO_APP_CLIENT_ID,
        client_secret=DEMO_APP_SECRET,
        admin_username=admin.username,
    )
