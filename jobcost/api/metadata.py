"""What OPTIONS answers: the route's methods in the `Allow` header and an empty body.

DRF's default metadata describes the view's renderers, parsers and serializer fields in a JSON
body; our routes are described by `/v1/openapi.json` instead, so OPTIONS says only which
methods the route takes (docs/decisions.md, "Errors and methods").
"""

from rest_framework.metadata import BaseMetadata


class AllowOnlyMetadata(BaseMetadata):
    """No body: DRF's `options` handler renders `None` as an empty 200 and every response of an
    APIView carries `Allow`."""

    def determine_metadata(self, request, view) -> None:
        return None
