#!/usr/bin/env bash
# Installs what the test suite needs beyond Go: Debian's Jupyter clients and NumPy (conformance,
# .npy round-trip and
# end-to-end tests run with /usr/bin/python3), OpenBLAS (the `openblas` build), tmux (the
# REPL test), Chromium (the HTML export is checked in a headless browser) and Jupyter Notebook 6
# (a notebook is run live in it from that browser; the test installs its puppeteer-core from npm
# itself) and a single-node Slurm with job accounting, slurmdbd on MariaDB (scripts/slurm.sh
# starts it). Idempotent: it installs only what is missing. Needs root or sudo for apt-get.
set -euo pipefail
pkgs=(python3-jupyter-kernel-test python3-numpy python3-nbclient python3-nbformat jupyter-nbconvert jupyter-client
      libopenblas-dev tmux chromium jupyter-notebook
      slurmctld slurmd slurm-client munge slurmdbd mariadb-server)
missing=()
for p in "${pkgs[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  echo "setup: installing ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
