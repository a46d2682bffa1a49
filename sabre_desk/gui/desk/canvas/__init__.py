"""The side-by-side image canvases with their box tool."""
