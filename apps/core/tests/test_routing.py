import pytest
from rest_framework.response import Response
from rest_framework.views import APIView

from apps.core.routing import combine


class ListView(APIView):
    def get(self, request):
        return Response(["listed"])


class StartView(APIView):
    def post(self, request):
        return Response({"started": True})


def test_the_combined_view_answers_each_views_method(rf):
    from rest_framework.test import force_authenticate  # noqa: F401 (views below need no auth)

    view = combine(ListView, StartView)
    view.permission_classes = []
    view.authentication_classes = []
    view.throttle_classes = []
    assert view.as_view()(rf.get("/x")).data == ["listed"]
    assert view.as_view()(rf.post("/x")).data == {"started": True}
    assert view.as_view()(rf.delete("/x")).status_code == 405


def test_two_views_answering_one_method_is_refused():
    with pytest.raises(ValueError):
        combine(ListView, ListView)
