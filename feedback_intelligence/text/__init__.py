"""Text as the product reads it: one normalisation step for client and model text, the confusable-folded
form that injection matching and prompt fencing compare on, the one matching primitive every lexicon uses
(``matching``, ``needles``), the language a text is written in (``language``), and English and Finnish
word forms (``english``, ``morphology``).

One job: read text. It imports nothing of ours outside this package; the rules in ``deterministic`` build
on it."""
