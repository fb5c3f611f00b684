// Command testsum reads the output of `go test -json` on standard input and prints a terse
// log and one summary line, for scripts/test.sh:
//
//	go test -json ./... | testsum -label "pure Go" -record FILE
//	testsum -total FILE
//
// The log has one line per package (as go test without -v prints it) and the whole output of
// every test that failed, of every package that failed outside its tests (a build error, a
// panic in TestMain, a timeout), and of every build error. The summary line is
// "LABEL: N passed, N failed, N skipped", counting tests and subtests, followed by how many
// sbibm data tests ran and how many were skipped (tests whose output, or whose parent's, holds
// the marker of package internal/sbibmtest). A package that failed outside its tests counts as
// one failed test. -record appends the counts to FILE; -total prints every recorded line and
// the overall line "N passed, N failed, N skipped" alone, and exits 1 if anything failed. The
// exit status of a label's run is 1 if anything failed, else 0. -check pass|fail records a
// check that is not a go test run (gofmt, a generated file) as one passed or failed test.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/gosbi/gosbi/internal/sbibmtest"
)

// event is a line of `go test -json` (cmd/test2json), build events included.
type event struct {
	Action      string
	Package     string
	Test        string
	Output      string
	ImportPath  string
	FailedBuild string
}

// counts are the results of one run.
type counts struct {
	Passed, Failed, Skipped int
	DataRan, DataSkipped    int
}

func (c counts) String() string {
	return fmt.Sprintf("%d passed, %d failed, %d skipped", c.Passed, c.Failed, c.Skipped)
}

type testKey struct{ pkg, test string }

// summarize reads events from r, writes the log to w and returns the counts.
func summarize(r io.Reader, w io.Writer) (counts, error) {
	var c counts
	output := map[testKey]*strings.Builder{} // test output; test "" is the package's own
	data := map[testKey]bool{}               // tests marked as data tests
	failedTests := map[string]int{}          // failed tests per package
	buildOut := map[string]*strings.Builder{}
	out := func(k testKey) *strings.Builder {
		if output[k] == nil {
			output[k] = &strings.Builder{}
		}
		return output[k]
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<16), 1<<26)
	for sc.Scan() {
		line := sc.Bytes()
		var e event
		if err := json.Unmarshal(line, &e); err != nil || e.Action == "" {
			// not an event: go test prints some errors (a package that does not exist) as text
			fmt.Fprintf(w, "%s\n", line)
			continue
		}
		k := testKey{e.Package, e.Test}
		switch e.Action {
		case "build-output":
			if buildOut[e.ImportPath] == nil {
				buildOut[e.ImportPath] = &strings.Builder{}
			}
			buildOut[e.ImportPath].WriteString(e.Output)
		case "build-fail":
			if b := buildOut[e.ImportPath]; b != nil {
				io.WriteString(w, b.String())
			}
		case "output":
			out(k).WriteString(e.Output)
			if e.Test != "" && strings.Contains(e.Output, sbibmtest.Marker) {
				data[k] = true
			}
		case "pass", "fail", "skip":
			if e.Test == "" {
				c.packageDone(w, e, out(k).String(), failedTests[e.Package])
				continue
			}
			isData := data[k] || parentIsData(data, k)
			if isData {
				data[k] = true
			}
			switch e.Action {
			case "pass":
				c.Passed++
				if isData {
					c.DataRan++
				}
			case "skip":
				c.Skipped++
				if isData {
					c.DataSkipped++
				}
			case "fail":
				c.Failed++
				failedTests[e.Package]++
				if isData {
					c.DataRan++
				}
				io.WriteString(w, out(k).String())
			}
			delete(output, k)
		}
	}
	return c, sc.Err()
}

// parentIsData reports whether a test above k is a data test.
func parentIsData(data map[testKey]bool, k testKey) bool {
	for t := k.test; strings.Contains(t, "/"); {
		t = t[:strings.LastIndex(t, "/")]
		if data[testKey{k.pkg, t}] {
			return true
		}
	}
	return false
}

// packageDone logs the end of a package: its last line, or its whole output when it failed
// outside its tests.
func (c *counts) packageDone(w io.Writer, e event, output string, failedTests int) {
	lines := strings.Split(strings.TrimRight(output, "\n"), "\n")
	last := lines[len(lines)-1]
	if e.Action == "fail" && failedTests == 0 {
		c.Failed++
		if output != "" {
			fmt.Fprintf(w, "%s\n", strings.TrimRight(output, "\n"))
		}
		if !strings.Contains(output, "FAIL\t"+e.Package) {
			fmt.Fprintf(w, "FAIL\t%s (outside any test)\n", e.Package)
		}
		return
	}
	if last == "" {
		last = fmt.Sprintf("%s\t%s", map[string]string{"pass": "ok", "fail": "FAIL", "skip": "?"}[e.Action], e.Package)
	}
	fmt.Fprintln(w, last)
}

func main() {
	label := flag.String("label", "go test", "name of the run in the summary line")
	record := flag.String("record", "", "append the counts of this run to `FILE`")
	total := flag.String("total", "", "print the runs recorded in `FILE` and their sum, and exit")
	check := flag.String("check", "", "record a check that is not a go test run, with result `pass|fail`, instead of reading events")
	flag.Parse()
	if *check != "" {
		c := counts{Passed: 1}
		if *check != "pass" {
			c = counts{Failed: 1}
		}
		fmt.Printf("%s: %v\n", *label, c)
		if *record != "" {
			if err := appendRecord(*record, *label, c); err != nil {
				fmt.Fprintln(os.Stderr, "testsum:", err)
				os.Exit(2)
			}
		}
		return
	}
	if *total != "" {
		failed, err := printTotal(os.Stdout, *total)
		if err != nil {
			fmt.Fprintln(os.Stderr, "testsum:", err)
			os.Exit(2)
		}
		if failed {
			os.Exit(1)
		}
		return
	}
	c, err := summarize(os.Stdin, os.Stdout)
	if err != nil {
		fmt.Fprintln(os.Stderr, "testsum:", err)
		c.Failed++
	}
	fmt.Printf("%s: %v (sbibm data tests: %d ran, %d skipped)\n", *label, c, c.DataRan, c.DataSkipped)
	if *record != "" {
		if err := appendRecord(*record, *label, c); err != nil {
			fmt.Fprintln(os.Stderr, "testsum:", err)
			os.Exit(2)
		}
	}
	if c.Failed > 0 {
		os.Exit(1)
	}
}

// appendRecord appends one JSON line {label, counts} to path.
func appendRecord(path, label string, c counts) error {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	b, _ := json.Marshal(struct {
		Label string
		counts
	}{label, c})
	if _, err := f.Write(append(b, '\n')); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// printTotal prints each recorded run and the overall line; it reports whether any failed.
func printTotal(w io.Writer, path string) (bool, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return false, err
	}
	var sum counts
	var names []string
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if line == "" {
			continue
		}
		var r struct {
			Label string
			counts
		}
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			return false, fmt.Errorf("%s: %w", path, err)
		}
		fmt.Fprintf(w, "  %-50s %v\n", r.Label+":", r.counts)
		sum.Passed += r.Passed
		sum.Failed += r.Failed
		sum.Skipped += r.Skipped
		sum.DataRan += r.DataRan
		sum.DataSkipped += r.DataSkipped
		if r.Failed > 0 {
			names = append(names, r.Label)
		}
	}
	fmt.Fprintf(w, "sbibm data tests: %d ran, %d skipped\n", sum.DataRan, sum.DataSkipped)
	if len(names) > 0 {
		sort.Strings(names)
		fmt.Fprintf(w, "failed: %s\n", strings.Join(names, "; "))
	}
	fmt.Fprintln(w, sum)
	return sum.Failed > 0, nil
}
