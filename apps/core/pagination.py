from rest_framework.pagination import PageNumberPagination


class LinkHeaderPagination(PageNumberPagination):
    """Placeholder: completed by the API-conventions work (Link header, clamping)."""

    page_size_query_param = "per_page"
    max_page_size = 100
