"""Reading an import: a spreadsheet's CSV (or JSONL) rows, their columns and values mapped to the
service's terms, each line checked by the service's own rules, and a preview of what would be stored.

One place for every rule of an import, shared by ``feedctl load`` (which reads a file and posts batches)
and the management page's upload (``api/routes/imports.py``, which reads the uploaded body and stores
batches in the process). Nothing here does I/O beyond reading what it is handed.
"""
