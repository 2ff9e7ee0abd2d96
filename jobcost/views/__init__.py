"""/v1 viewsets: validate → one service or selector → serialize."""
