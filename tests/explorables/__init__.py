"""Tests of the explorables as Panel components."""


def the_module_callback(explorer, state_names, twin: str, others: dict | None = None):
    """The one CustomJS that runs the explorable's bundle, after checking how it is attached.

    Every state property of ``explorer`` has exactly that callback (plus, for
    a property named in ``others``, the CustomJS given there, e.g. the steps
    explorable's class panel on ``step``); it is an ES module whose default
    export is the controller and which holds the view ``twin`` (e.g. ``"stepsView"``).
    """
    callbacks = {
        name: [
            cb
            for cb in explorer._state.js_property_callbacks.get(f"change:{name}", [])
            if cb is not (others or {}).get(name)
        ]
        for name in state_names
    }
    for name, other in (others or {}).items():
        assert other in explorer._state.js_property_callbacks[f"change:{name}"], name
    assert all(len(cbs) == 1 for cbs in callbacks.values()), callbacks
    callback = callbacks[state_names[0]][0]
    assert all(cbs[0] is callback for cbs in callbacks.values())
    assert callback.module is True and "as default" in callback.code and twin in callback.code
    return callback


def page_heading(page) -> str:
    """The text of the heading of an explorable's page (its model of class ``ae-page-heading``)."""
    import html
    import re

    for obj in page.objects:
        model = getattr(obj, "object", None)
        if "ae-page-heading" in (getattr(model, "css_classes", None) or []):
            return re.sub("<[^>]+>", "", html.unescape(model.text))
    raise AssertionError("the page has no heading")
