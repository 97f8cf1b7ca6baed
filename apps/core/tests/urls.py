"""A tiny URLconf of test-only API views that exercise the shared conventions (@pytest.mark.urls)."""
from django.contrib.auth import get_user_model
from django.db import InterfaceError, OperationalError
from django.urls import path
from kombu.exceptions import OperationalError as BrokerOperationalError
from rest_framework import serializers
from rest_framework.response import Response
from apps.core.pipeline.views import ApiView

from apps.core.pipeline.api import paginated_response
from apps.core.domain.exceptions import PermissionDenied
from apps.core.pipeline.permissions import IsAppToken


class EchoView(ApiView):
    def get(self, request):
        return Response({"user": request.user.username})

    def post(self, request):
        return Response({"data": request.data})


class UserRowSerializer(serializers.ModelSerializer):
    class Meta:
        model = get_user_model()
        fields = ["id", "username"]


class UserListView(ApiView):
    def get(self, request):
        users = get_user_model().objects.filter(username__startswith=request.query_params.get("prefix", ""))
        return paginated_response(request, users.order_by("id"), UserRowSerializer)


class ForbiddenView(ApiView):
    def get(self, request):
        raise PermissionDenied()


class CrashView(ApiView):
    def get(self, request):
        raise RuntimeError("boom")


class DatabaseDownView(ApiView):
    def get(self, request):
        raise OperationalError("connection to server at 127.0.0.1 failed: Connection refused")


class BrokerDownView(ApiView):
    def get(self, request):
        raise BrokerOperationalError("Error 111 connecting to 127.0.0.1:6379. Connection refused.")


def plain_crash(request):
    # A site page with a bug: the error reaches Django's handler500.
    raise RuntimeError("a bug in a page")


def plain_database_down(request):
    # A Django view (site page, OAuth endpoint): the error reaches Django's handler500.
    raise InterfaceError("connection already closed")


class AppTokenView(ApiView):
    permission_classes = [IsAppToken]

    def get(self, request):
        return Response({"application": request.auth.application_id})


urlpatterns = [
    path("echo", EchoView.as_view()),
    path("things/", EchoView.as_view()),
    path("users/", UserListView.as_view()),
    path("forbidden", ForbiddenView.as_view()),
    path("crash", CrashView.as_view()),
    path("app-only", AppTokenView.as_view()),
    path("database-down", DatabaseDownView.as_view()),
    path("broker-down", BrokerDownView.as_view()),
    path("plain-database-down", plain_database_down),
    path("plain-crash", plain_crash),
    path("login/oauth/tokeninfo", EchoView.as_view()),
]

handler500 = "apps.core.pipeline.views.server_error"
