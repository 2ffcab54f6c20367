"""People and permissions (issue 28, ADR 0030): who is signed in, with which roles, and how."""
