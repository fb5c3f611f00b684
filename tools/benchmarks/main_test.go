package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
)

// Every row of the table names the CPU its peer's time was measured on, each section names
// the CPU of gosbi's measurements, and the header says which product each build ran.
func TestReportNamesCPUs(t *testing.T) {
	peers, err := readPeers(filepath.Join(".", "peers.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	peers["nre-step-3x64"] = peerTime{ms: 0.8, source: "PyTorch 1.13, this run", cpu: "Test CPU 9000", side: true}
	times := map[string]map[string]float64{"": {}, "openblas": {}}
	for _, r := range rows {
		times[""][r.pkg+"/"+r.bench] = 1
		times["openblas"][r.pkg+"/"+r.bench] = 2
	}
	var buf bytes.Buffer
	writeReport(&buf, report{cpu: "Test CPU 9000", builds: []string{"", "openblas"},
		backends: map[string]string{"": "own kernels for every product", "openblas": "OpenBLAS for some"},
		times:    times, peers: peers, benchtime: "1s", count: 3, loadStart: "0", loadEnd: "0"})
	writeStore(&buf, []storeResult{{N: 1000, Dim: 100}}, "Test CPU 9000")
	out := buf.String()
	for _, want := range []string{"## gosbi on Test CPU 9000", "## Training from a simulation store, on Test CPU 9000", "| matrix products, default build | own kernels for every product |",
		"| matrix products, `openblas` build | OpenBLAS for some |"} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	n := 0
	for _, line := range strings.Split(out, "\n") {
		label := ""
		for _, r := range rows {
			if strings.HasPrefix(line, "| "+r.label+" |") {
				label = r.label
				break
			}
		}
		if label == "" {
			continue
		}
		n++
		cells := strings.Split(line, "|")
		peer, cpu := strings.TrimSpace(cells[2]), strings.TrimSpace(cells[3])
		if peer == "—" { // no peer for this row
			if cpu != "—" {
				t.Errorf("row %q has no peer but names a CPU for it: %s", label, line)
			}
			continue
		}
		if cpu == "" || cpu == "—" {
			t.Errorf("row %q names no CPU for its peer: %s", label, line)
		}
		if strings.Contains(line, "†") == strings.Contains(line, "this run's") {
			t.Errorf("row %q: a recorded time (†) must name its recorded CPU, a twin of this run this run's: %s", label, line)
		}
	}
	if n != len(rows) {
		t.Errorf("%d rows written, want %d", n, len(rows))
	}
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "- ") && !strings.Contains(line, "(CPU: ") {
			t.Errorf("peer without its CPU: %s", line)
		}
	}
}

// TestCheckArgs: the file of -out, -count and the arguments are checked before anything is
// measured (a run takes many minutes, and its table went to -out only at the end).
func TestCheckArgs(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		out     string
		count   int
		args    []string
		wantErr string
	}{
		{filepath.Join(dir, "BENCHMARKS.md"), 3, nil, ""},
		{dir, 3, nil, "-out " + dir},
		{filepath.Join(dir, "no", "such", "BENCHMARKS.md"), 3, nil, "-out " + filepath.Join(dir, "no")},
		{filepath.Join(dir, "BENCHMARKS.md"), 0, nil, "-count 0"},
		{filepath.Join(dir, "BENCHMARKS.md"), 3, []string{"NRE"}, `unexpected arguments ["NRE"]`},
	}
	for _, tc := range tests {
		err := checkArgs(tc.out, tc.count, tc.args)
		switch {
		case tc.wantErr == "" && err != nil:
			t.Errorf("checkArgs(%q, %d, %q) = %v, want nil", tc.out, tc.count, tc.args, err)
		case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
			t.Errorf("checkArgs(%q, %d, %q) = %v, want an error naming %q", tc.out, tc.count, tc.args, err, tc.wantErr)
		}
	}
}

// TestOutPath: a partial run (-rows) without -out writes its table on standard output, so that
// it never replaces the full table of BENCHMARKS.md; a full run writes BENCHMARKS.md, and an
// -out given is where the table goes ("-" for standard output).
func TestOutPath(t *testing.T) {
	tests := []struct {
		out, only, want string
	}{
		{"", "", "BENCHMARKS.md"},
		{"", "NRE", "-"},
		{"part.md", "NRE", "part.md"},
		{"BENCHMARKS.md", "NRE", "BENCHMARKS.md"},
		{"-", "", "-"},
		{"other.md", "", "other.md"},
	}
	for _, tc := range tests {
		if got := outPath(tc.out, tc.only); got != tc.want {
			t.Errorf("outPath(%q, %q) = %q, want %q", tc.out, tc.only, got, tc.want)
		}
	}
	if err := checkArgs("-", 3, nil); err != nil {
		t.Errorf("checkArgs(%q, 3, nil) = %v, want nil: - is standard output", "-", err)
	}
}
