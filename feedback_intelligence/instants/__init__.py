"""Time as the product handles it: the clock that decides behaviour (``clock``), the one written form of an
instant and its lenient parsing (``timestamps``), and integer ticks for the report's window arithmetic
(``ticks``). It imports nothing of ours outside this package."""
