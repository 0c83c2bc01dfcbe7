#!/bin/sh
# Profile one node of ours (embedded Redis) and Scrapy's in-memory scheduler with py-spy,
# on the nginx site: collapsed stacks in bench/work/profile/ (read with bench/profile_top.py).
set -e
cd "$(dirname "$0")"
. ../.venv/bin/activate
HOSTS=${1:-40}
python - "$HOSTS" <<'PY'
import subprocess, sys
from common import Crawl, Nginx, ensure_site, WORK, COMMON
from throughput import CONFIGS
hosts = int(sys.argv[1])
with Nginx(ensure_site()) as nginx:
    for name, tag in (("ours (embedded Redis)", "ours"), ("scrapy (memory)", "memory")):
        spider, flags, _ = CONFIGS[name]
        crawl = Crawl(spider, nginx.base_urls(hosts), flags, name)
        out = WORK / "profile" / f"{tag}.txt"
        out.parent.mkdir(parents=True, exist_ok=True)
        proc = crawl.start(f"profile-{tag}")
        subprocess.run(["py-spy", "record", "--format", "raw", "--rate", "200", "--subprocesses",
                        "-o", str(out), "--pid", str(proc.pid)], check=False,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        proc.wait()
        print(name, "profiled:", out)
PY
