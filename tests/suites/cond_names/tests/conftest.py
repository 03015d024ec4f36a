from compat_pkg.compat import OLD_PYTHON, PY3

collect_ignore = []
if PY3:
    collect_ignore.append("old/test_py2_only.py")
if OLD_PYTHON:
    collect_ignore.append("test_names.py")
