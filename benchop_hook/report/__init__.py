"""One result, several renderings: terminal text, JSON, the commit message."""
