package study_test

import (
	"context"
	"runtime"
	"testing"

	"github.com/gosbi/gosbi/study"
)

// probeScript records the GOMAXPROCS and the memory limit its own process runs with.
const probeScript = `j, err := study.Current()
if err != nil {
	panic(err)
}
j.Set("procs", float64(runtime.GOMAXPROCS(0)))
j.Set("memlimit", float64(debug.SetMemoryLimit(-1)))
`

// TestScriptJobShares checks that the local executor's script jobs run with their share of
// the machine: GOMAXPROCS the cores over the workers, GOMEMLIMIT 80% of the memory over the
// workers, as the processes themselves see them (not as the executor meant to set them).
func TestScriptJobShares(t *testing.T) {
	study.RequireStudyRuns(t)
	t.Setenv("GOSBI_STUDY_GOSBI", gosbi(t))
	if runtime.GOOS != "linux" {
		t.Skip("the machine's memory is read from /proc/meminfo, on Linux only; elsewhere jobs get no memory limit")
	}
	t.Setenv("GOMAXPROCS", "") // empty, as if unset (a value the user sets is passed on unchanged)
	t.Setenv("GOMEMLIMIT", "")
	total := study.PhysicalMemory()
	if total == 0 {
		t.Fatal("/proc/meminfo unreadable: the test needs the machine's memory to know each job's share")
	}
	const workers = 2
	spec := &study.Spec{Name: "shares", Axes: []study.Axis{{Name: "seed", Values: study.Ints(1, 2)}},
		Stages: []study.Stage{{Name: "probe", Source: probeScript}}}
	s, err := study.Create(t.TempDir(), spec, "")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Run(context.Background(), &study.Local{Workers: workers}); err != nil {
		t.Fatal(err)
	}
	tab, err := s.Results("probe")
	if err != nil || tab.Len() != 2 {
		t.Fatalf("results %+v, %v", tab, err)
	}
	wantProcs := float64(max(1, runtime.NumCPU()/workers))
	wantMem := float64(study.MemoryShare(total, workers))
	for _, r := range tab.Records {
		if r.Metrics["procs"] != wantProcs || r.Metrics["memlimit"] != wantMem {
			t.Errorf("job %s ran with GOMAXPROCS %g and memory limit %g B, want %g and %g B",
				r.Key, r.Metrics["procs"], r.Metrics["memlimit"], wantProcs, wantMem)
		}
	}
}
