"""Print deploy/Containerfile's RUN commands as a shell script that runs them on this machine
(there is no container engine in CI): the build stage in the checkout, the run stage with its
paths moved under ROOT (``/opt/judge`` -> ``ROOT/opt/judge``, ``/tmp/dist`` -> ``ROOT/dist``).

Usage: python3 .ci/container_steps.py ROOT > steps.sh && bash -eux steps.sh

Two commands are left to the machine, since they change the machine itself: ``apt-get`` (run
only when Cairo or the font is missing, as the image's list of packages says) and ``useradd``
(CI runs the judge as the user it is)."""

from __future__ import annotations

import re
import shlex
import sys
from pathlib import Path

root = Path(sys.argv[1]).resolve()
text = Path(__file__).resolve().parents[1].joinpath("deploy", "Containerfile").read_text()
text = re.sub(r"\\\n\s*", " ", text)
moves = {"/opt/judge": f"{root}/opt/judge", "/tmp/dist": f"{root}/dist"}
print("set -eux")
for line in text.splitlines():
    if not line.startswith("RUN "):
        continue
    cmd = line[4:].strip()
    for old, new in moves.items():
        cmd = cmd.replace(old, shlex.quote(new))
    if "apt-get" in cmd:
        packages = re.findall(r"(?<=\s)(lib[\w.+-]+|fonts-[\w.+-]+|fontconfig)(?=\s|$)", cmd)
        print(f"if ! dpkg -s {' '.join(packages)} >/dev/null 2>&1; then {cmd}; fi")
    elif "useradd" in cmd:
        print(f"# not run in CI (it adds a system user): {cmd}")
    else:
        print(cmd)
