#!/usr/bin/env bash
# The whole test suite: the command README.md gives a new user, and what CI runs (.ci/run).
# It installs the system packages the tests need (scripts/setup.sh), checks gofmt and go vet,
# checks that the interpreter's symbol tables are current (stdlib), starts a single-node Slurm
# (scripts/slurm.sh), then runs:
#   - every Go test (./...) in the default build, which includes the conformance and
#     end-to-end tests against Debian's Jupyter clients (those are Go tests too);
#   - the conformance suite under the race detector (./sbi/sbitest/, and TestConformance* in
#     ./sbi/);
#   - the library's tests again in the `openblas` build (./sbi/... only);
#   - the engine's tests in the `noasm` build (./sbi/nn/..., ./sbi/flow/...,
#     ./sbi/internal/kernels only);
#   - the tests of the file formats and size limits again as 32-bit x86 (GOARCH=386, which an
#     amd64 Linux host runs; the step is left out on other hosts): ./sbi/nn, ./sbi/npy,
#     ./sbi/simstore, ./sbi/dist, ./internal/readlimit, ./internal/atomicfile,
#     ./sbi/internal/zipmember, where a length read from a file or a limit that fits an int of
#     64 bits can wrap in one of 32;
#   - each protocol fuzz target of internal/kernel briefly (300,000 inputs).
# Every step runs even when an earlier one failed; the run ends with one line per step, "N
# passed, N failed, N skipped", then the same line for all of them together, and exits 1 if
# anything failed.
#
# It needs no network beyond Debian's packages and the Go module proxy. Benchmark data: CI and
# developers have ../shared/sbibm beside the repository; otherwise the tests read the files
# that `gosbi data fetch` downloaded, else the subset shipped in testdata/sbibm, and a test
# that needs a file missing there is skipped (the summary counts them).
set -uo pipefail
cd "$(dirname "$0")/.."

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
runs=$work/runs
go build -o "$work/testsum" ./scripts/testsum || { echo "cannot build scripts/testsum"; exit 1; }

# check LABEL COMMAND...: a step that is not a go test run, recorded as one test.
check() {
  local label=$1; shift
  echo "== $label"
  if "$@"; then "$work/testsum" -label "$label" -record "$runs" -check pass
  else "$work/testsum" -label "$label" -record "$runs" -check fail; fi
}

# gotest LABEL ARGS...: go test -json ARGS, summarized.
gotest() {
  local label=$1; shift
  echo "== $label"
  go test -json "$@" 2>&1 | "$work/testsum" -label "$label" -record "$runs"
}

check "system packages (scripts/setup.sh)" bash scripts/setup.sh

if [ -z "${GOSBI_DATA:-}" ] && [ -d ../shared/sbibm ]; then
  export GOSBI_DATA=$(cd ../shared/sbibm && pwd)
fi
echo "== benchmark data: ${GOSBI_DATA:-GOSBI_DATA unset: the files of \`gosbi data fetch\` if present, else the subset in testdata/sbibm}"

gofmt_vet() {
  local unformatted
  unformatted=$(gofmt -l $(git ls-files '*.go'))
  if [ -n "$unformatted" ]; then echo "not gofmt-formatted:"; echo "$unformatted"; return 1; fi
  go vet ./...
}
check "gofmt and go vet" gofmt_vet

stdlib_fresh() {
  (cd stdlib && go run ./internal/gen -check)
}
check "symbol tables are up to date (stdlib)" stdlib_fresh

# The study tests submit to a real single-node Slurm with job accounting (package study); with
# CI=true a missing Slurm or sacct fails them, elsewhere they skip. It is stopped again when the
# run ends.
slurm() {
  local sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo bash scripts/slurm.sh "$@"
}
check "single-node Slurm for the study tests (scripts/slurm.sh)" slurm
trap 'slurm stop >/dev/null 2>&1; rm -rf "$work"' EXIT

gotest "go test (pure Go)" -count=1 -timeout 60m ./...
# The race detector on the conformance suite: concurrent posteriors of every estimator (the
# suite trains briefly under -race and checks the posterior's moments in the run above).
gotest "go test -race (conformance suite sbi/sbitest and the estimators that call it)" -count=1 -race -timeout 10m ./sbi/sbitest/
gotest "go test -race (conformance of every estimator and embedding)" -count=1 -race -timeout 30m -run '^TestConformance' ./sbi/
gotest "go test (openblas build: cgo + libopenblas)" -count=1 -tags openblas -timeout 30m ./sbi/...
gotest "go test (noasm build: gonum's portable BLAS, no assembly kernels)" -count=1 -tags noasm -timeout 10m ./sbi/nn/... ./sbi/flow/... ./sbi/internal/kernels
# 32-bit: an int of 32 bits, where a length field above MaxInt32 is negative once converted and a
# limit such as 2 GiB does not fit. Only the packages whose tests are short there and cover file
# formats and limits: on 386 the engine runs Go loops instead of its assembly kernels, and the
# tests that train (./sbi, ./sbi/flow, the notebooks) take many minutes.
if [ "$(go env GOHOSTOS)/$(go env GOHOSTARCH)" = linux/amd64 ]; then
  CGO_ENABLED=0 GOARCH=386 gotest "go test GOARCH=386 (file formats and size limits with a 32-bit int)" -count=1 -timeout 10m \
    ./sbi/nn ./sbi/npy ./sbi/simstore ./sbi/dist ./internal/readlimit ./internal/atomicfile ./sbi/internal/zipmember
fi

# A count of executions, not a duration: with -fuzztime 15s, Go 1.26's fuzz coordinator can
# report "context deadline exceeded" as a failure when the deadline races a busy worker's
# shutdown (golang/go#75804, fixed in Go 1.27), with no failing input; a count has no deadline.
# 300,000 executions take about 10 s on a loaded 2-core machine.
for f in $(grep -ho 'func Fuzz[A-Za-z0-9_]*' internal/kernel/*_test.go 2>/dev/null | cut -c6-); do
  gotest "fuzz $f (300,000 inputs)" -run '^$' -fuzz "^$f\$" -fuzztime 300000x ./internal/kernel
done

echo "== summary"
"$work/testsum" -total "$runs"
