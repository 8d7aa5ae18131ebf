"""bench-op: keep a kernel library's benchmarks building its Ops after their constructors change."""

__version__ = "0.1.0"
