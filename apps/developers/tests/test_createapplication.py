import pytest
from django.core.management import call_command
from oauth2_provider.models import get_application_model

Application = get_application_model()
pytestmark = pytest.mark.django_db


def test_dots_createapplication_command_works_with_the_swapped_model(capsys):
    call_command(
        "createapplication",
        "confidential",
        "authorization-code",
        "--name",
        "X",
        "--redirect-uris",
        "https://x.example/cb",
        "--client-id",
        "cli-made-app",
        "--client-secret",
        "cli-secret-0123456789",
    )

    application = Application.objects.get(client_id="cli-made-app")
    assert application.name == "X"
    assert application.redirect_uris == "https://x.example/cb"
    assert application.approval_state == "pending"
    assert application.webhook_secret.startswith("whsec_")
    assert application.client_secret != "cli-secret-0123456789"
    assert "created successfully" in capsys.readouterr().out


def test_createapplication_prints_a_generated_secret_once(capsys):
    call_command(
        "createapplication", "public", "authorization-code", "--redirect-uris", "https://y.example/cb"
    )

    out = capsys.readouterr().out
    assert "client_secret:" in out
    assert Application.objects.count() == 1
