"""The per-domain memory of the last texts read (deterministic/per_object.RecentTexts)."""

from __future__ import annotations

from feedback_intelligence.deterministic.per_object import RecentTexts


class Owner:
    pass


def test_the_least_recently_used_text_goes_first_and_each_owner_keeps_its_own() -> None:
    recent: RecentTexts[int] = RecentTexts(2)
    one, other = Owner(), Owner()
    recent.put("a", one, 1)
    recent.put("b", one, 2)
    assert recent.get("a", one) == 1  # now the most recent
    recent.put("c", one, 3)
    assert (recent.get("a", one), recent.get("b", one), recent.get("c", one)) == (1, None, 3)
    assert recent.get("a", other) is None  # another domain object never sees one's reading
    recent.put("a", other, 9)
    assert recent.get("a", other) == 9 and recent.get("a", one) is None  # size 2 over both owners
