"""Running the benchmarks in the project's interpreter, repairing what the tracebacks point at, and the tree
guard that puts files back."""
