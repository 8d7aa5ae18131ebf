"""What the tests share: real git repositories of the fixture kernel library and of small libraries written
for a test, bench-op run in this process or as a program, the environment of the processes the tests start,
and the Op changes and benchmark sources several test files use."""
