"""Time as the product handles it: the clock that decides behaviour and the written forms of instants."""
