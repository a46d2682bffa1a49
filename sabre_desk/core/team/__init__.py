"""A team curating one project: final decisions from several reviews, counts, ratings,
agreement, assignments' views, activity and live updates.
"""
