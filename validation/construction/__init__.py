"""The construction report of a benchmark built with experts: ``compute`` (pure),
``gather`` (its inputs, through the other apps' selectors), ``render`` (JSON and HTML)."""
