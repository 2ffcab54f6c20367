"""The sentences the product writes itself, in the domain's language: the report's and the notifications'
(``sentences``), and the one cut of a customer's text to an excerpt (``excerpt``).

One job: words. It imports nothing of ours, so the report, the outputs and the notifications share one
wording without depending on each other.
"""
