"""Token estimates, prices and the per-run tally (pure).

Prices are USD per million tokens. The table holds a few well-known models as a convenience;
prices change, so ``--price-in/--price-out`` (or a judge's ``parameters["price"]``) override it,
and an unknown model costs 0 and is flagged as unpriced.
"""

import math
import re
from dataclasses import asdict, dataclass, fields

PRICES_PER_MILLION: dict[str, tuple[float, float]] = {
    "claude-sonnet-4-5": (3.0, 15.0),
    "claude-opus-4-1": (15.0, 75.0),
    "claude-haiku-4-5": (1.0, 5.0),
    "gpt-4o-mini": (0.15, 0.60),
    "gpt-4o": (2.5, 10.0),
    "gpt-4.1": (2.0, 8.0),
}


@dataclass(frozen=True)
class Price:
    per_million_in: float
    per_million_out: float
    known: bool = True

    def cost(self, *, tokens_in: int, tokens_out: int) -> float:
        return (tokens_in * self.per_million_in + tokens_out * self.per_million_out) / 1e6


def price_for(
    model: str, *, price_in: float | None = None, price_out: float | None = None
) -> Price:
    """Explicit prices win; otherwise the longest table entry that prefixes the model id."""
    if price_in is not None or price_out is not None:
        return Price(price_in or 0.0, price_out or 0.0)
    name = model.rsplit("/", 1)[-1]  # gateway ids such as "anthropic/claude-sonnet-4-5"
    matches = [key for key in PRICES_PER_MILLION if name.startswith(key)]
    if not matches:
        return Price(0.0, 0.0, known=False)
    return Price(*PRICES_PER_MILLION[max(matches, key=len)])


_NARROW = re.compile("[\x00-\u2e7f]+")  # what is not CJK: four to a token


def tokens_estimate(text: str) -> int:
    """A tokenizer-free upper-side estimate: one token per CJK character, four ASCII per token."""
    wide = 0 if text.isascii() else len(_NARROW.sub("", text))
    return wide + math.ceil((len(text) - wide) / 4)


def messages_tokens(messages: list[dict]) -> int:
    """The estimate for a conversation's input: every message's content."""
    return sum(tokens_estimate(str(m.get("content", ""))) for m in messages)


@dataclass
class Tally:
    """What a run has spent; added up across resumptions, stored in the run's fields."""

    calls: int = 0
    retries: int = 0
    reasks: int = 0
    cached: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    cost: float = 0.0
    wall_seconds: float = 0.0
    parse_failures: int = 0
    request_failures: int = 0

    def as_dict(self) -> dict:
        tally = asdict(self)
        tally["cost"] = round(self.cost, 6)
        tally["wall_seconds"] = round(self.wall_seconds, 3)
        return tally


# The names of a run's accounting fields (``benchmark.models.LLMRun``), as the tally has them.
TALLY_FIELDS = tuple(f.name for f in fields(Tally))
