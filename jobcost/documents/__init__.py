"""Printed documents rendered from the stored figures (the pay app's G702/G703 PDF)."""
