#!/usr/bin/env python3
"""Launches a distributed mxc job: MXNet's tools/launch.py interface over Open MPI.

    python tools/launch.py -n 4 python examples/train_dist.py
    python tools/launch.py -n 3 -s 1 python train.py --kv-store dist_async
    python tools/launch.py -n 4 -H hosts --launcher ssh python train.py

-n workers and -s servers make n + s MPI ranks; the last s are the
dist_async servers (MXC_KV_NUM_SERVERS). The flags mpirun needs here are
added for you: --allow-run-as-root when run as root, --oversubscribe (and
yielding when idle) when there are more ranks than cores on a local run,
the network to use (--interface: a name such as eth0 or a CIDR such as
10.200.0.0/24), and the environment (PYTHONPATH, MXC_*, MXNET_*, OMP_*,
OPENBLAS_* and each --env NAME=VALUE are exported to every rank).

When a rank fails (a Python exception aborts the job through MPI_Abort, a
signal or kill -9 ends the process), mpirun stops the others; this script
then names the rank that failed and exits non-zero.
"""
import argparse
import os
import re
import shutil
import signal
import subprocess
import sys


def build_command(args, env):
    mpirun = shutil.which("mpirun")
    if mpirun is None:
        sys.exit("launch.py: mpirun not found (apt-get install openmpi-bin libopenmpi-dev)")
    total = args.num_workers + args.num_servers
    cmd = [mpirun, "-np", str(total)]
    if os.geteuid() == 0:
        cmd.append("--allow-run-as-root")
    if args.launcher == "local":
        if args.hostfile:
            sys.exit("launch.py: --launcher local runs on this host; -H needs ssh or mpi")
        if total > (os.cpu_count() or 1):
            cmd += ["--oversubscribe", "--mca", "mpi_yield_when_idle", "1"]
    else:
        if args.hostfile:
            cmd += ["--hostfile", args.hostfile]
        if args.launcher == "ssh":
            cmd += ["--mca", "plm_rsh_agent", args.ssh or "ssh"]
        elif args.ssh:
            cmd += ["--mca", "plm_rsh_agent", args.ssh]
        if args.oversubscribe:
            cmd += ["--oversubscribe", "--mca", "mpi_yield_when_idle", "1"]
    if args.btl:
        cmd += ["--mca", "btl", args.btl]
    if args.interface:
        cmd += ["--mca", "btl_tcp_if_include", args.interface,
                "--mca", "oob_tcp_if_include", args.interface]
    exported = []
    if args.num_servers > 0:
        env["MXC_KV_NUM_SERVERS"] = str(args.num_servers)
        exported.append("MXC_KV_NUM_SERVERS")
    for item in args.env:
        if "=" not in item:
            sys.exit("launch.py: --env wants NAME=VALUE, got %r" % item)
        name, value = item.split("=", 1)
        env[name] = value
        exported.append(name)
    for name in sorted(env):
        if name == "PYTHONPATH" or re.match(r"(MXC_|MXNET_|OMP_|OPENBLAS_|DMLC_)", name):
            if name not in exported:
                exported.append(name)
    for name in exported:
        cmd += ["-x", name]
    return cmd + args.command


def main(argv=None):
    ap = argparse.ArgumentParser(
        description="Launch a distributed job (MXNet's tools/launch.py over Open MPI)")
    ap.add_argument("-n", "--num-workers", required=True, type=int, help="number of workers")
    ap.add_argument("-s", "--num-servers", type=int, default=0,
                    help="number of dist_async servers, the last ranks (default 0: "
                         "no server ranks; dist_async then makes the last worker rank a "
                         "server)")
    ap.add_argument("-H", "--hostfile", help="the hosts (Open MPI hostfile: 'host slots=N')")
    ap.add_argument("--launcher", choices=("local", "ssh", "mpi"), default="local")
    ap.add_argument("--interface", help="network for MPI's TCP traffic (eth0 or 10.0.0.0/24)")
    ap.add_argument("--ssh", help="the remote shell mpirun starts its daemons with")
    ap.add_argument("--btl", help="Open MPI's transports, e.g. self,tcp (default: its choice)")
    ap.add_argument("--oversubscribe", action="store_true",
                    help="allow more ranks than slots on the hosts (ssh/mpi launchers)")
    ap.add_argument("--env", action="append", default=[], metavar="NAME=VALUE",
                    help="set in every rank's environment (repeatable)")
    ap.add_argument("--dry-run", action="store_true", help="print the mpirun command only")
    ap.add_argument("command", nargs=argparse.REMAINDER, help="the command every rank runs")
    args = ap.parse_args(argv)
    if not args.command:
        ap.error("no command given")
    if args.num_workers < 1 or args.num_servers < 0:
        ap.error("-n must be >= 1 and -s >= 0")
    env = dict(os.environ)
    if os.geteuid() == 0:
        env.setdefault("OMPI_ALLOW_RUN_AS_ROOT", "1")
        env.setdefault("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
    cmd = build_command(args, env)
    if args.dry_run:
        print(" ".join(cmd))
        return 0
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True, bufsize=1)
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda s, _f: proc.send_signal(s))
    lost = []
    for line in proc.stdout:
        sys.stdout.write(line)
        m = re.search(r"process rank (\d+) .*exited on signal (\d+)", line)
        if m:
            lost.append("rank %s died (signal %s)" % m.groups())
        m = re.search(r"MPI_ABORT was invoked on rank (\d+)", line) or \
            re.search(r"^mxc: rank (\d+): uncaught \w+, aborting", line)
        if m:
            lost.append("rank %s aborted the job" % m.group(1))
        m = re.search(r"Process name: \[\[\d+,\d+\],(\d+)\]", line)
        if m:
            lost.append("rank %s exited non-zero" % m.group(1))
        m = re.search(r"process rank (\d+) .*exited with a non-zero", line)
        if m:
            lost.append("rank %s exited non-zero" % m.group(1))
    rc = proc.wait()
    if rc != 0:
        why = "; ".join(dict.fromkeys(lost)) or "mpirun exited with status %d" % rc
        print("launch.py: the job failed: %s" % why, file=sys.stderr, flush=True)
        return rc if rc > 0 else 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
