"""Curating as a team: the team dialog, the others' reviews and boxes on the case, and the
live watch of a shared project folder."""
