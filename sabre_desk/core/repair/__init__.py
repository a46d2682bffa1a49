"""Localized repair of a case's images: repair jobs on disk, instructions, what changed between
images, and the blind study of repair methods.
"""
