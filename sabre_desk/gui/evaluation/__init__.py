"""Release and evaluation: exporting a release and asking models every question of it."""
