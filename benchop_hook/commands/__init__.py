"""One module per command; each exposes `main(args) -> int`."""
