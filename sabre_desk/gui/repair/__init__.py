"""Repairing a local defect: the repair dock, its jobs in worker processes and the preview
comparison. Which result the comparison shows is decided in core/desk, without Qt."""
