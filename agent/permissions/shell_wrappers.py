"""The programs that run another command (`sudo rm x`), and how their own words are skipped."""

from __future__ import annotations

# Programs that run the rest of their line as a command after their own options, and those of
# their options that take a value as the next word (`sudo -u root rm`, `nice -n 5 make`,
# `timeout -s KILL 10 pytest`, `xargs -I {} rm {}`, `time -o log rm`). Their options are skipped
# up to the first word that is neither an option nor an option's value. The harmless ones
# (SAFE_WRAPPERS) list every option that takes a value, long forms included, as allow rules trust
# this reading; for the others the list is a best effort and deny rules do not rely on it (see
# LOOSE_WRAPPER_WORDS).
WRAPPER_OPTIONS: dict[str, frozenset[str]] = {
    # Timing, pacing, bounding: looked through for allow rules too.
    "time": frozenset({"-o", "-f", "--output", "--format"}),
    "nice": frozenset({"-n", "--adjustment"}),
    "nohup": frozenset(),
    "timeout": frozenset({"-k", "-s", "--kill-after", "--signal"}),
    "stdbuf": frozenset({"-i", "-o", "-e", "--input", "--output", "--error"}),
    "ionice": frozenset({"-c", "-n", "-p", "-P", "-u", "--class", "--classdata", "--pid",
                         "--pgid", "--uid"}),
    # Another user, group, root or privilege set.
    "sudo": frozenset({"-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-U", "-T", "--user",
                       "--group", "--close-from", "--chdir", "--host", "--prompt", "--role",
                       "--type", "--other-user", "--command-timeout"}),
    "doas": frozenset({"-u", "-C"}),
    "pkexec": frozenset({"--user"}),
    "runuser": frozenset({"-u", "-g", "-G", "-s", "--user", "--group", "--supp-group",
                          "--shell", "-w", "--whitelist-environment"}),
    "su": frozenset({"-g", "-G", "-s", "--group", "--supp-group", "--shell", "-w",
                     "--whitelist-environment"}),
    "sg": frozenset(),
    "setpriv": frozenset({"--reuid", "--regid", "--groups", "--inh-caps", "--ambient-caps",
                          "--bounding-set", "--securebits", "--pdeathsig", "--selinux-label",
                          "--apparmor-profile"}),
    "chroot": frozenset({"--userspec", "--groups"}),
    "unshare": frozenset({"-S", "-G", "-R", "-w", "--setuid", "--setgid", "--root", "--wd",
                          "--propagation", "--map-user", "--map-group", "--map-users",
                          "--map-groups"}),
    "nsenter": frozenset({"-t", "-S", "-G", "-r", "-w", "--target", "--setuid", "--setgid",
                          "--root", "--wd"}),
    "firejail": frozenset(),
    "fakeroot": frozenset({"-l", "-s", "-i", "--lib", "--faked"}),
    "fakechroot": frozenset(),
    "proot": frozenset({"-r", "-b", "-w", "--rootfs", "--bind", "--cwd"}),
    # Scheduling, CPUs, limits, locks, sessions.
    "chrt": frozenset({"-T", "-P", "-D", "--sched-runtime", "--sched-period",
                       "--sched-deadline"}),
    "taskset": frozenset(),
    "numactl": frozenset({"-C", "-N", "-m", "-p", "-i", "--physcpubind", "--cpunodebind",
                          "--membind", "--preferred", "--interleave"}),
    "prlimit": frozenset({"-p", "--pid"}),
    "cgexec": frozenset({"-g"}),
    "flock": frozenset({"-w", "-E", "--timeout", "--wait", "--conflict-exit-code"}),
    "setsid": frozenset(),
    "setarch": frozenset(),
    "linux32": frozenset(),
    "linux64": frozenset(),
    "systemd-run": frozenset({"-p", "-u", "-E", "--unit", "--property", "--setenv",
                              "--description", "--slice", "--uid", "--gid"}),
    "systemd-inhibit": frozenset({"--what", "--who", "--why", "--mode"}),
    # The environment, the process image, buffering, the network path.
    "env": frozenset({"-u", "-C", "-S", "--unset", "--chdir"}),
    "command": frozenset(),
    "builtin": frozenset(),
    "exec": frozenset({"-a"}),
    "unbuffer": frozenset(),
    "eatmydata": frozenset(),
    "nocache": frozenset(),
    "torsocks": frozenset(),
    "proxychains": frozenset({"-f"}),
    "proxychains4": frozenset({"-f"}),
    "trickle": frozenset({"-u", "-d", "-w", "-t", "-l", "-n"}),
    "chpst": frozenset({"-u", "-U", "-e", "-n", "-l", "-L", "-m", "-d", "-o", "-p", "-f", "-c"}),
    "dbus-launch": frozenset(),
    "xvfb-run": frozenset({"-n", "-s", "-f", "-e", "-p", "--server-num", "--server-args",
                           "--auth-file", "--error-file"}),
    "busybox": frozenset(),
    "toybox": frozenset(),
    # Commands from their arguments or input, repeated, traced, recorded or remote.
    "xargs": frozenset({"-I", "-L", "-P", "-d", "-E", "-a", "-n", "-s", "--max-args",
                        "--max-procs", "--delimiter", "--arg-file", "--max-lines", "--max-chars",
                        "--eof", "--process-slot-var"}),
    "parallel": frozenset({"-j", "-S", "-a", "--jobs", "--sshlogin", "--arg-file"}),
    "sem": frozenset({"-j", "--jobs", "--id"}),
    "watch": frozenset({"-n", "-d", "--interval", "--differences"}),
    "strace": frozenset({"-e", "-o", "-p", "-s", "-u", "-a", "-b", "-E", "-I", "-O", "-P", "-S",
                         "-X"}),
    "ltrace": frozenset({"-e", "-o", "-p", "-s", "-u", "-a", "-l", "-n", "-x", "-A", "-D", "-F"}),
    "valgrind": frozenset(),
    "catchsegv": frozenset(),
    "script": frozenset({"-c", "-E", "-I", "-O", "-B", "-T", "-m", "--command", "--log-in",
                         "--log-out", "--log-io", "--log-timing"}),
    "ssh": frozenset({"-b", "-c", "-D", "-E", "-e", "-F", "-I", "-i", "-J", "-L", "-l", "-m",
                      "-O", "-o", "-p", "-Q", "-R", "-S", "-W", "-w", "-B"}),
}  # fmt: skip
WRAPPERS = frozenset(WRAPPER_OPTIONS)
# The wrappers harmless enough to look through for allow rules too (they only time, pace or
# bound the command), as Claude Code does for timeout, nice and nohup. `time -o FILE` writes a
# file (GNU time): such a line is not plain (OUTPUT_OPTION), so no allow rule covers it.
SAFE_WRAPPERS = frozenset({"time", "nice", "nohup", "timeout", "stdbuf", "ionice"})
# Wrappers whose own words before the command are a fixed count of positional arguments after
# the options: a lock file (`flock LOCK rm`), a CPU mask (`taskset 0x1 rm`), a new root
# (`chroot / rm`), a group (`sg wheel rm`), an architecture (`setarch x86_64 rm`), a host.
WRAPPER_POSITIONALS = {
    "flock": 1, "taskset": 1, "chroot": 1, "sg": 1, "setarch": 1, "chrt": 1, "ssh": 1,
}  # fmt: skip
# How many words after a wrapper other than the SAFE_WRAPPERS deny rules try as the start of the
# command it runs: their options and arguments are too many and too irregular (`sudo --user
# root`, `unshare --mount=/x`, `firejail --net=none`) to be sure where the command starts, so
# every word there is tried (`flock -w 5 lk rm x` is denied by `rm *`, as is `flock -w 5 rm
# x`). Real wrappers end their own words far sooner; a part with more words after such a
# wrapper than this is judged TOO_DEEP (refused by any deny rule with a pattern), so padding
# cannot push a command out of sight.
LOOSE_WRAPPER_WORDS = 32
# Shells whose `-c` argument is itself a command line (deny rules look inside it).
SHELLS = frozenset({"sh", "bash", "zsh", "dash", "ksh", "fish"})
