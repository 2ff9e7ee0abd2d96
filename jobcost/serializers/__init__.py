"""API shapes (output) and request bodies (input), per resource."""
