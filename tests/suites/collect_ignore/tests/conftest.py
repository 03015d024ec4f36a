"""collect_ignore and collect_ignore_glob, read statically."""

import sys

collect_ignore = ["test_gone.py"]
collect_ignore += ["skipdir"]
if sys.version_info >= (3, 8):
    collect_ignore.append("sub/test_old.py")
else:
    collect_ignore.append("test_kept.py")
collect_ignore_glob = ["globbed/*_x.py"]
