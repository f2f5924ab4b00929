"""Tests of the explorables as Panel components."""


def page_heading(page) -> str:
    """The text of the heading of an explorable's page (its model of class ``ae-page-heading``)."""
    import html
    import re

    for obj in page.objects:
        model = getattr(obj, "object", None)
        if "ae-page-heading" in (getattr(model, "css_classes", None) or []):
            return re.sub("<[^>]+>", "", html.unescape(model.text))
    raise AssertionError("the page has no heading")
