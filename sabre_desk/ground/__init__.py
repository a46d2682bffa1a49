"""The ground floor: what every other layer may use and which uses none of them.

Typed errors, safe ids, bounded reading, atomic writing, where packaged data lives.
"""
