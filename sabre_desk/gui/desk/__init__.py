"""What every room of the window works on: the session and its controller over the Qt-free
case editor, the undo commands, the two canvases and the small widgets the rooms share. A room
may use the desk and the machinery, never another room."""
