#!/usr/bin/env bash
# Installs what the test suite needs beyond Go, from Debian's packages, with
# --no-install-recommends (apt adds the packages these depend on, nothing it merely recommends):
#   python3-jupyter-kernel-test python3-nbclient python3-nbformat jupyter-nbconvert jupyter-client
#       the conformance, nbconvert and Python-client tests (run with /usr/bin/python3)
#   python3-numpy          the .npy/.npz round trip with NumPy
#   libopenblas-dev        the `openblas` build
#   tmux                   the REPL test (a real terminal)
#   chromium               the HTML export checked in a headless browser
#   jupyter-notebook       a notebook run live in Jupyter Notebook 6 from that browser
#   slurmctld slurmd slurm-client slurmdbd munge mariadb-server-core mariadb-client-core
#       the single-node Slurm with job accounting of the study tests (scripts/slurm.sh runs
#       these daemons itself, with a private MariaDB, and stops them again)
# It names the packages apt adds before installing them. Installing a package that has a
# service lets Debian start it (and, under systemd, enable it at boot): the services of the
# packages installed here (munge, slurmctld, slurmd, slurmdbd) are stopped again at once, and
# under systemd disabled, so that the machine runs nothing new. Idempotent: it installs only
# what is missing and touches no service of a package that was already there. Needs root or
# sudo for apt-get. `setup.sh slurm` installs the Slurm packages only.
set -euo pipefail
slurm=(slurmctld slurmd slurm-client munge slurmdbd mariadb-server-core mariadb-client-core)
pkgs=(python3-jupyter-kernel-test python3-numpy python3-nbclient python3-nbformat jupyter-nbconvert jupyter-client
      libopenblas-dev tmux chromium jupyter-notebook "${slurm[@]}")
case ${1:-} in
  "") ;;
  slurm) pkgs=("${slurm[@]}") ;; # scripts/slurm.sh run on its own
  *) echo "usage: scripts/setup.sh [slurm]" >&2; exit 2 ;;
esac
# services of the packages above that their installation may start
declare -A service=([munge]=munge [slurmctld]=slurmctld [slurmd]=slurmd [slurmdbd]=slurmdbd)
missing=()
for p in "${pkgs[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
[ ${#missing[@]} -gt 0 ] || exit 0
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
echo "setup: installing ${missing[*]}"
$sudo apt-get update -qq
# what apt adds (the packages these depend on), named before it installs them
deps=$($sudo apt-get install -s --no-install-recommends "${missing[@]}" 2>/dev/null | awk '/^Inst /{print $2}' | tr '\n' ' ')
echo "setup: apt-get installs $(wc -w <<<"$deps") packages: $deps"
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
for p in "${missing[@]}"; do
  s=${service[$p]:-}
  [ -n "$s" ] || continue
  if [ -d /run/systemd/system ]; then
    $sudo systemctl disable --now "$s" >/dev/null 2>&1 || true
    echo "setup: the $s service of $p is stopped and not started at boot"
  else
    $sudo service "$s" stop >/dev/null 2>&1 || true
    echo "setup: the $s service of $p is stopped"
  fi
done
