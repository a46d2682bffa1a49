"""Reviewing a case: the case list, the case panel with its probe table, the boxes, the change
map and the image at full resolution."""
