"""A procedurally drawn demo project: real edits, real defects, no downloaded images."""
