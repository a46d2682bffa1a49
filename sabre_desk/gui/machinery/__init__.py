"""The window's machinery: worker threads and child processes, the image loader, the index
reader, polling and the idle sweeps. It knows no room and no case on screen; the rooms and the
desk hand it work and take back what lands."""
