"""Notifications: which routes an alert goes to (``FI_NOTIFY_CHANNELS``), the message, and the senders."""
