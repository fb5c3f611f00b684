#!/usr/bin/env bash
# The whole test suite: the command README.md gives a new user, and what CI runs (.ci/run).
# It installs the system packages the tests need (scripts/setup.sh), then runs every Go test in
# the pure-Go build and in the `openblas` build, the protocol fuzzer briefly, and the
# conformance and end-to-end tests against Debian's Jupyter clients (those are Go tests too).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh

# Benchmark data: CI and developers have ../shared/sbibm; a new user fetches it once.
if [ -z "${GOSBI_DATA:-}" ]; then
  if [ -d ../shared/sbibm ]; then
    export GOSBI_DATA=$(cd ../shared/sbibm && pwd)
  else
    go run . data fetch
  fi
fi

echo "== gofmt and go vet"
unformatted=$(gofmt -l $(git ls-files '*.go'))
if [ -n "$unformatted" ]; then echo "not gofmt-formatted:"; echo "$unformatted"; exit 1; fi
go vet ./...

echo "== symbol tables are up to date"
if [ -d stdlib ] && grep -q go:generate stdlib/*.go 2>/dev/null; then
  go generate ./stdlib
  if ! git diff --quiet -- stdlib; then
    echo "stdlib/ is stale: run 'go generate ./stdlib' and commit the result"; git diff --stat -- stdlib; exit 1
  fi
fi

echo "== go test (pure Go)"
go test -count=1 -timeout 60m ./...

echo "== go test (openblas build: cgo + libopenblas)"
go test -count=1 -tags openblas -timeout 30m ./sbi/...

echo "== go test (noasm build: the engine on gonum's portable BLAS, no assembly kernels)"
go test -count=1 -tags noasm -timeout 10m ./sbi/nn/... ./sbi/flow/...

echo "== fuzz the wire-message decoder briefly"
if grep -q 'func Fuzz' kernel/*_test.go 2>/dev/null; then
  for f in $(grep -ho 'func Fuzz[A-Za-z0-9_]*' kernel/*_test.go | cut -c6-); do
    go test -run '^$' -fuzz "^$f\$" -fuzztime 15s ./kernel
  done
fi
echo "== all tests passed"
