# Sourced by the demos: set up "$here/.venv" (torch CPU build, bench-op) unless it is there already.
# torch comes from PyTorch's CPU index, as its install page shows: PyPI's Linux torch is the multi-GB CUDA build.
# A machine that can't reach that index (offline, with local wheels in pip.conf) takes the plain pin from pip's
# own sources; the probe gives up after 5 s at most.
py="$here/.venv/bin/python"
if ! "$py" -c "import benchop_hook, torch, pytest" 2>/dev/null; then
    echo "== setting up $here/.venv (torch CPU build, bench-op): about a minute"
    python3 -m venv "$here/.venv"
    "$py" -m pip install -q --upgrade pip
    cpu_index=https://download.pytorch.org/whl/cpu
    if "$py" -c "import urllib.request as u; u.urlopen('$cpu_index/torch/', timeout=5).close()" 2>/dev/null; then
        "$py" -m pip install -q torch==2.13.0 --index-url "$cpu_index"
    else
        echo "== $cpu_index unreachable: torch==2.13.0 from pip's configured sources"
        "$py" -m pip install -q torch==2.13.0
    fi
    "$py" -m pip install -q numpy -e "$here[test]"
fi
