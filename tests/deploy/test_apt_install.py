"""scripts/apt-install.sh waits for another apt's locks (a bounded wait) instead of failing the setup.

The locks are held the way apt holds them (fcntl write locks on /var/lib/apt/lists/lock and
/var/lib/dpkg/lock-frontend) by a process of ours, which lets go when the test tells it to; the script
must still be waiting then, and must succeed after. The package asked for is one bootstrap already
installed, so the install itself changes nothing on the machine.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "apt-install.sh"
LOCKS = {
    "lists": Path("/var/lib/apt/lists/lock"),
    "dpkg": Path("/var/lib/dpkg/lock-frontend"),
}
# Holds one lock until a line arrives on stdin; prints "held" once it has it.
HOLDER = """
import fcntl, sys
with open(sys.argv[1], "w") as lock:
    fcntl.lockf(lock, fcntl.LOCK_EX)
    print("held", flush=True)
    sys.stdin.readline()
"""

pytestmark = [
    pytest.mark.process,
    pytest.mark.skipif(os.geteuid() != 0 or shutil.which("apt-get") is None, reason="needs root and apt-get"),
]


@pytest.mark.parametrize("lock", sorted(LOCKS))
def test_the_install_waits_for_a_held_package_lock_and_then_succeeds(lock: str) -> None:
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(LOCKS[lock])], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    assert holder.stdout is not None and holder.stdin is not None
    try:
        assert holder.stdout.readline().strip() == "held"
        install = subprocess.Popen(
            [str(SCRIPT), "voikko-fi"],
            env={**os.environ, "APT_LOCK_WAIT_S": "120"},
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        # While the lock is held the script waits: it has not finished after a while that apt, unhindered,
        # needs for this no-op; then the lock goes and it succeeds.
        with pytest.raises(subprocess.TimeoutExpired):
            install.wait(timeout=4)
        holder.stdin.write("go\n")
        holder.stdin.flush()
        output, _ = install.communicate(timeout=300)
        assert install.returncode == 0, output
    finally:
        holder.kill()
        holder.wait()


def test_a_lock_held_past_the_wait_fails_with_a_line_naming_the_setting() -> None:
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(LOCKS["lists"])], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    assert holder.stdout is not None
    try:
        assert holder.stdout.readline().strip() == "held"
        done = subprocess.run(
            [str(SCRIPT), "voikko-fi"],
            env={**os.environ, "APT_LOCK_WAIT_S": "3"},
            capture_output=True,
            text=True,
            timeout=120,
        )
    finally:
        holder.kill()
        holder.wait()
    assert done.returncode == 1
    assert "APT_LOCK_WAIT_S" in done.stderr.splitlines()[-1]
