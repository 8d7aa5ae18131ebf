"""Scripted coding agents: small executables that play a person's agent for the agent step's tests. Each
reads its task on stdin, works on the benchmark file bench-op names ($BENCH_OP_FILE) in the sandbox it is
started in, and answers as an agent would. With $AGENT_MARK set, each appends "<its folder> <its pid>" to
that file first: whether, and where, it ran."""

from __future__ import annotations

import sys
from pathlib import Path

_PRELUDE = """import os, re, subprocess, sys, time
task = sys.stdin.read()
path = os.environ["BENCH_OP_FILE"]
if os.environ.get("AGENT_MARK"):
    with open(os.environ["AGENT_MARK"], "a") as f:
        f.write(f"{os.getcwd()} {os.getpid()}\\n")
source = open(path).read()


def write(text):
    with open(path, "w") as f:
        f.write(text)


"""

# What a person would write for the GemmOp shapes change: the shapes of the inputs the benchmark makes.
FIXED_NN = "ops.GemmOp((M, K), (K, N), DTYPE)"
FIXED_NT = "ops.GemmOp((M, K), (N, K), DTYPE, trans_b=True)"

FIXES = f"""write(source.replace("ops.GemmOp(M, N, K, DTYPE, trans_b=True)", "{FIXED_NT}")
      .replace("ops.GemmOp(M, N, K, DTYPE)", "{FIXED_NN}"))
print("built GemmOp from the shapes of the benchmark's inputs")
print("SUCCESS")
"""

# Fixes the call, and "fixes" the Op too: refused whole, whatever else it did.
EDITS_THE_OP = FIXES.replace(
    'print("SUCCESS")', 'open("src/minitile/ops/gemm.py", "a").write("# tweaked\\n")\nprint("SUCCESS")'
)

# Starts a child that outlives nothing: its pid in $HANG_PIDFILE, then both wait far past any timeout.
HANGS = """child = subprocess.Popen(["sleep", "300"])
open(os.environ["HANG_PIDFILE"], "w").write(f"{os.getpid()} {child.pid}")
time.sleep(300)
"""

# Binds the new signature, but drops trans_b=True: the transposed case would measure the plain one.
DROPS_THE_CHOICE = f"""write(source.replace("ops.GemmOp(M, N, K, DTYPE, trans_b=True)", "{FIXED_NN}")
      .replace("ops.GemmOp(M, N, K, DTYPE)", "{FIXED_NN}"))
print("SUCCESS")
"""

ANSWERS_BLOCKED = """print("looked at it: the kernel itself is wrong here")
print("BLOCKED: the shapes depend on a kernel limit only its author knows")
"""

# Binds, but builds the Op for another dtype: its forward refuses the benchmark's input (no interface error).
BINDS_BUT_FAILS = """wrong = "ops.GemmOp((M, K), (K, N), torch.float16)"
write(source.replace("ops.GemmOp(M, N, K, DTYPE)", wrong))
print("SUCCESS")
"""

EXITS_NON_ZERO = """print("no credentials for the model", file=sys.stderr)
print("giving up")
sys.exit(3)
"""

# Fixes the call, then does what agents do in a repository: commits, branches and stashes there.
FIXES_AND_PLAYS_WITH_GIT = (
    FIXES.replace('print("SUCCESS")', "")
    + """subprocess.run(["git", "stash"], check=True, capture_output=True)
subprocess.run(["git", "stash", "pop"], check=True, capture_output=True)
subprocess.run(["git", "checkout", "-q", "-b", "agent-work"], check=True)
subprocess.run(["git", "commit", "-qam", "agent: fix the benchmark"], check=True)
print("SUCCESS")
"""
)


def agent(folder: Path, name: str, body: str) -> str:
    """An executable called `name` in `folder` that runs `body` after the prelude; its path."""
    folder.mkdir(parents=True, exist_ok=True)
    exe = folder / name
    exe.write_text(f"#!{sys.executable}\n{_PRELUDE}{body}")
    exe.chmod(0o755)
    return str(exe)
