"""One case and the project that holds it: its specification, reviews, validity, images'
identity and the project's index. The lowest room: every other room may use it, it uses none
of them.
"""
