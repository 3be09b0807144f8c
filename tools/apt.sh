# SPDX-License-Identifier: BSD-3-Clause
# Sourced by tools/deps.sh and tools/slurm_single_node.sh: how both find what Debian lacks and
# install it, as root or with passwordless sudo. Each script decides what a failure means for it.

# Sets ROOT to the prefix that runs a command as root: () for root itself, (sudo -n) where sudo
# asks no password; returns 1 where neither holds.
root_runner() {
    if [[ $(id -u) -eq 0 ]]; then
        ROOT=()
    elif command -v sudo >/dev/null 2>&1 && sudo -n true >/dev/null 2>&1; then
        ROOT=(sudo -n)
    else
        return 1
    fi
}

# The packages named that dpkg does not have installed, one per line.
missing_packages() {
    local pkg
    for pkg in "$@"; do
        dpkg -s "$pkg" >/dev/null 2>&1 || printf '%s\n' "$pkg"
    done
}

# apt_install LOG PACKAGE...: apt-get update, then install the packages with ROOT, both quiet and
# without recommends, all their output into LOG; returns apt-get's status.
apt_install() {
    local log=$1
    shift
    DEBIAN_FRONTEND=noninteractive "${ROOT[@]}" apt-get update -qq >"$log" 2>&1 &&
        DEBIAN_FRONTEND=noninteractive "${ROOT[@]}" apt-get install -y -qq --no-install-recommends "$@" >>"$log" 2>&1
}
