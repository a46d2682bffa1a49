"""Screening with the filtering model: the prompts, one run over a project, batches, the child
process and the request cache.
"""
