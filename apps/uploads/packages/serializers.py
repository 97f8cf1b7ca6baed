"""Shapes of package-url (spec §4.2)."""
from rest_framework import serializers


class PackageUrlSerializer(serializers.Serializer):
    url = serializers.URLField()


class PackageBuildingSerializer(serializers.Serializer):
    """202 from package-url while the ZIP is being built: poll again after `Retry-After` seconds."""

    status = serializers.CharField(default="building")
    url = serializers.URLField(allow_null=True)
