"""CSV cells that a spreadsheet will not execute."""

FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(value: object) -> object:
    """Prefix text a spreadsheet would read as a formula with an apostrophe; numbers pass."""
    if isinstance(value, str) and value.startswith(FORMULA_PREFIXES):
        return "'" + value
    return value
