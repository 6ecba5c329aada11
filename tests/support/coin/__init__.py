"""``coin``: the tests' one toy ruleset (see :mod:`.ruleset`)."""

from tests.support.coin.ruleset import ENDLESS, RULESET, Coin, CoinCharacter, CoinConfig, CoinOrder

__all__ = ["ENDLESS", "RULESET", "Coin", "CoinCharacter", "CoinConfig", "CoinOrder"]
