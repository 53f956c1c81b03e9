"""Every list the API answers comes in pages: ``?page=N`` (from 1) and ``?page_size=K``."""

from django.utils.translation import gettext
from rest_framework.exceptions import ValidationError
from rest_framework.pagination import PageNumberPagination


class Pages(PageNumberPagination):
    page_size = 100
    page_size_query_param = "page_size"
    max_page_size = 500

    def get_page_size(self, request) -> int:
        # DRF falls back to the default size for a page_size it cannot read; say so instead,
        # as the schema promises (a larger size than the most is the most, as documented).
        sizes = request.query_params.getlist(self.page_size_query_param)
        if not sizes:
            return self.page_size
        if len(sizes) > 1 or not sizes[0].isdecimal() or int(sizes[0]) < 1:
            raise ValidationError(
                {self.page_size_query_param: [gettext("give one whole number from 1")]}
            )
        return min(int(sizes[0]), self.max_page_size)

    def get_schema_operation_parameters(self, view) -> list[dict]:
        page, size = super().get_schema_operation_parameters(view)
        page["schema"]["minimum"] = 1
        page["description"] = "a page number from 1; past the last page is 404"
        size["schema"]["minimum"] = 1
        size["description"] = (
            f"results per page: {self.page_size} unless given, at most {self.max_page_size} "
            "(a larger number gives that many)"
        )
        return [page, size]
