"""pytest over test/ (or this folder) must not collect MXNet's fetched files:
they run only through run.py, in a scratch copy with the shim's conftest."""
collect_ignore = ["upstream", "shim", "recorded", "results", "fetch.py", "run.py", "summarize.py"]
