"""Every list the API answers comes in pages: ``?page=N`` (from 1) and ``?page_size=K``."""

from rest_framework.pagination import PageNumberPagination


class Pages(PageNumberPagination):
    page_size = 100
    page_size_query_param = "page_size"
    max_page_size = 500
