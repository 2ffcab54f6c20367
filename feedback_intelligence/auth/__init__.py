"""People and permissions (ADR 0030): who is signed in, with which roles, and how."""
