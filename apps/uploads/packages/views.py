"""GET /things/{id}/package-url (spec §4.2): parse → the Thing's matrix → one service → answer."""
from drf_spectacular.utils import extend_schema
from rest_framework.response import Response

from apps.core.pipeline.schema import THING_PARAM
from apps.core.pipeline.views import ApiView
from apps.things.selectors import thing_get_for_viewer
from apps.uploads.packages import services
from apps.uploads.packages.serializers import PackageBuildingSerializer, PackageUrlSerializer

PACKAGE_RETRY_AFTER_SECONDS = 5


class ThingPackageUrlView(ApiView):
    @extend_schema(
        parameters=[THING_PARAM],
        responses={200: PackageUrlSerializer, 202: PackageBuildingSerializer},
        summary="Get the ZIP package URL of a Thing",
        description="404 NO_FILES while the Thing has no live files. The ZIP (files, README.txt, "
        "LICENSE.txt) is built in the background: until it is ready, 202 `{\"status\": \"building\", "
        "\"url\": null}` with `Retry-After`; then 200 `{\"url\": …}`, a signed URL valid for an hour.",
    )
    def get(self, request, thing_id):
        thing = thing_get_for_viewer(thing_id, viewer=request.user, detail=False)
        url = services.thing_package_url(thing=thing)
        if url is None:
            return Response({"status": "building", "url": None}, status=202,
                            headers={"Retry-After": str(PACKAGE_RETRY_AFTER_SECONDS)})
        return Response({"url": url})
