"""Releasing and scoring: the export, its formats and staging, the release manifest and card,
provenance, the lmms-eval task, predictions and score tables.
"""
