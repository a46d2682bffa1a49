"""Bringing a project an earlier sabre-desk wrote up to date: the plan, then the atomic,
backed-up upgrade.
"""
