"""`python manage.py app_wire_version <client_id> <spec|thingiverse>`: pin an app's wire version
(docs/decisions.md: Wire versions), as its page in the developer portal does."""
from django.core.management.base import BaseCommand, CommandError
from oauth2_provider.models import get_application_model

from apps.core.pipeline import versions
from apps.developers import services


class Command(BaseCommand):
    help = "Set the wire version (spec or thingiverse) an application's requests get by default."

    def add_arguments(self, parser):
        parser.add_argument("client_id")
        parser.add_argument("version", choices=versions.VERSIONS)

    def handle(self, *args, client_id, version, **options):
        application = get_application_model().objects.filter(client_id=client_id).first()
        if application is None:
            raise CommandError(f"No application with client_id {client_id!r}.")
        previous = application.wire_version
        services.application_wire_version_set(application=application, version=version)
        self.stdout.write(f"{application.name} ({client_id}): wire version {previous} → {version}")
