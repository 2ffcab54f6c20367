"""The report's outputs for people outside the service: the CSV of a window's items (``csv_writer``) and the
saved snapshot, its JSON and its HTML page (``snapshot``, ``snapshot_html``, ``templates/``).

One job: write a finished report or item list down. Nothing here computes a report; the report package does
not import this one.
"""
