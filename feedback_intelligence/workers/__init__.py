"""The background workers every replica runs: structure-later (``structuring_worker``), notification delivery
(``notify_worker``) and the day's digest of alerts that page nobody (``alert_digest``), the rules'
re-derivation pass (``rederive``), the model's warm-up (``warmup``), and the one poll loop they share
(``poll_loop``).

One job: run the services' work off the request path, on a loop that pauses when the store is full or gone.
The services do not import the workers; the runtime builder starts them.
"""
