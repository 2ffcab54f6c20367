"""Checks on model output before a person sees it or it is stored."""
