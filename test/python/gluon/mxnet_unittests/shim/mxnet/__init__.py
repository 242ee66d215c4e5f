"""`import mxnet` outside pytest (DataLoader worker processes, spawned with
this directory on sys.path): installs the shim, then is mxc."""
import sys

import _mxc_shim  # noqa: F401
import mxc

sys.modules["mxnet"] = mxc
