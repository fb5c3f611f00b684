package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// stream is `go test -json` output shaped like a real run: package a has a passing test, a
// data test with one subtest run and one skipped, a failing test and a plain skipped test;
// package b failed to build; package c timed out outside its tests' results.
const stream = `{"Action":"start","Package":"ex/a"}
{"Action":"run","Package":"ex/a","Test":"TestOK"}
{"Action":"output","Package":"ex/a","Test":"TestOK","Output":"=== RUN   TestOK\n"}
{"Action":"pass","Package":"ex/a","Test":"TestOK"}
{"Action":"run","Package":"ex/a","Test":"TestData"}
{"Action":"output","Package":"ex/a","Test":"TestData","Output":"    x_test.go:9: sbibm data test: files from /d\n"}
{"Action":"run","Package":"ex/a","Test":"TestData/obs1"}
{"Action":"pass","Package":"ex/a","Test":"TestData/obs1"}
{"Action":"run","Package":"ex/a","Test":"TestData/obs4"}
{"Action":"output","Package":"ex/a","Test":"TestData/obs4","Output":"    x_test.go:12: sbibm data test skipped: no file: run gosbi data fetch\n"}
{"Action":"skip","Package":"ex/a","Test":"TestData/obs4"}
{"Action":"pass","Package":"ex/a","Test":"TestData"}
{"Action":"run","Package":"ex/a","Test":"TestBad"}
{"Action":"output","Package":"ex/a","Test":"TestBad","Output":"    x_test.go:20: got 2, want 3\n"}
{"Action":"fail","Package":"ex/a","Test":"TestBad"}
{"Action":"run","Package":"ex/a","Test":"TestSkip"}
{"Action":"output","Package":"ex/a","Test":"TestSkip","Output":"    x_test.go:30: needs a GPU\n"}
{"Action":"skip","Package":"ex/a","Test":"TestSkip"}
{"Action":"output","Package":"ex/a","Output":"FAIL\n"}
{"Action":"output","Package":"ex/a","Output":"FAIL\tex/a\t0.010s\n"}
{"Action":"fail","Package":"ex/a"}
{"ImportPath":"ex/b","Action":"build-output","Output":"b.go:3:1: syntax error\n"}
{"ImportPath":"ex/b","Action":"build-fail"}
{"Action":"start","Package":"ex/b"}
{"Action":"output","Package":"ex/b","Output":"FAIL\tex/b [build failed]\n"}
{"Action":"fail","Package":"ex/b","FailedBuild":"ex/b"}
{"Action":"start","Package":"ex/c"}
{"Action":"output","Package":"ex/c","Output":"panic: test timed out after 1s\n"}
{"Action":"fail","Package":"ex/c"}
{"Action":"start","Package":"ex/d"}
{"Action":"output","Package":"ex/d","Output":"ok  \tex/d\t0.001s\n"}
{"Action":"pass","Package":"ex/d"}
`

func TestSummarize(t *testing.T) {
	var log strings.Builder
	c, err := summarize(strings.NewReader(stream), &log)
	if err != nil {
		t.Fatal(err)
	}
	want := counts{Passed: 3, Failed: 3, Skipped: 2, DataRan: 2, DataSkipped: 1}
	if c != want {
		t.Errorf("counts %+v, want %+v", c, want)
	}
	for _, s := range []string{"got 2, want 3", "FAIL\tex/a", "b.go:3:1: syntax error", "build failed", "test timed out", "ok  \tex/d"} {
		if !strings.Contains(log.String(), s) {
			t.Errorf("log lacks %q:\n%s", s, log.String())
		}
	}
	for _, s := range []string{"needs a GPU", "=== RUN   TestOK"} {
		if strings.Contains(log.String(), s) {
			t.Errorf("log shows the output of a test that did not fail, %q", s)
		}
	}
}

func TestTotal(t *testing.T) {
	path := filepath.Join(t.TempDir(), "runs")
	if err := appendRecord(path, "pure Go", counts{Passed: 10, Skipped: 2, DataRan: 3, DataSkipped: 1}); err != nil {
		t.Fatal(err)
	}
	if err := appendRecord(path, "noasm", counts{Passed: 5, Failed: 1}); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	failed, err := printTotal(&out, path)
	if err != nil || !failed {
		t.Fatalf("printTotal: failed %v, %v", failed, err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if last := lines[len(lines)-1]; last != "15 passed, 1 failed, 2 skipped" {
		t.Errorf("last line %q", last)
	}
	for _, s := range []string{"pure Go:", "10 passed, 0 failed, 2 skipped", "noasm:", "5 passed, 1 failed, 0 skipped",
		"sbibm data tests: 3 ran, 1 skipped", "failed: noasm"} {
		if !strings.Contains(out.String(), s) {
			t.Errorf("total lacks %q:\n%s", s, out.String())
		}
	}
	os.Remove(path)
	if _, err := printTotal(&out, path); err == nil {
		t.Error("missing record file: no error")
	}
}

// TestCheckRecord runs the command: -check records a step that is not a go test run as one
// test, and -total exits 1 when one failed.
func TestCheckRecord(t *testing.T) {
	if os.Getenv("TESTSUM_MAIN") == "1" {
		os.Args = append([]string{"testsum"}, strings.Fields(os.Getenv("TESTSUM_ARGS"))...)
		main()
		os.Exit(0)
	}
	runs := filepath.Join(t.TempDir(), "runs")
	run := func(args string) (string, error) {
		cmd := exec.Command(os.Args[0], "-test.run=^TestCheckRecord$")
		cmd.Env = append(os.Environ(), "TESTSUM_MAIN=1", "TESTSUM_ARGS="+args)
		out, err := cmd.Output()
		return string(out), err
	}
	if out, err := run("-label gofmt -record " + runs + " -check pass"); err != nil || !strings.Contains(out, "gofmt: 1 passed, 0 failed, 0 skipped") {
		t.Errorf("-check pass: %q, %v", out, err)
	}
	if out, err := run("-label stdlib -record " + runs + " -check fail"); err != nil || !strings.Contains(out, "stdlib: 0 passed, 1 failed, 0 skipped") {
		t.Errorf("-check fail: %q, %v", out, err)
	}
	out, err := run("-total " + runs)
	if err == nil || !strings.HasSuffix(out, "\n1 passed, 1 failed, 0 skipped\n") {
		t.Errorf("-total: %q, %v (want exit status 1)", out, err)
	}
}
