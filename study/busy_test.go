package study

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// deadPID returns the id of a process of this host that has ended: the test binary, run for
// no test, as every system has it.
func deadPID(t *testing.T) int {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^$")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.ProcessState.Pid()
}

// TestJobOfLiveWorkerNotStarted: a job whose running marker names a live process of this host
// other than this one (another worker runs it) is not started: RunJob says who runs it, and
// leaves the marker, the failure notes and the records as they are; the local executor does
// not retry it. A marker of an ended process, of this process, or of another host (whether
// its worker lives cannot be told there) does not stop the job.
func TestJobOfLiveWorkerNotStarted(t *testing.T) {
	requireStudyRuns(t)
	host, _ := os.Hostname()
	cases := []struct {
		name    string
		host    string
		pid     int
		started time.Time
		refused bool
	}{
		{"live process of this host", host, os.Getppid(), time.Now().UTC(), true},
		{"ended process of this host", host, deadPID(t), time.Now().UTC(), false},
		{"this process", host, os.Getpid(), time.Now().UTC(), false},
		{"another host", "elsewhere.invalid", os.Getppid(), time.Now().UTC(), false},
	}
	if start, ok := processStart(os.Getppid()); ok {
		// a marker written an hour before its process started: the id is reused (Linux)
		cases = append(cases, struct {
			name    string
			host    string
			pid     int
			started time.Time
			refused bool
		}{"a reused process id", host, os.Getppid(), start.Add(-time.Hour), false})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := damagedStudy(t)
			marker, _ := json.Marshal(map[string]any{"host": c.host, "pid": c.pid, "started": c.started})
			if err := os.WriteFile(s.runningPath(1), marker, 0o644); err != nil {
				t.Fatal(err)
			}
			err := s.RunJob(context.Background(), 1)
			if !c.refused {
				if err != nil || !s.Done(1) || runsOf(1) != 1 {
					t.Fatalf("RunJob: %v, done %v, %d runs; want it run once and done", err, s.Done(1), runsOf(1))
				}
				return
			}
			who := fmt.Sprintf("process %d on this host", c.pid)
			if err == nil || !strings.Contains(err.Error(), "another worker runs it") || !strings.Contains(err.Error(), who) || !strings.Contains(err.Error(), s.runningPath(1)) {
				t.Errorf("RunJob: %v, want an error saying %s runs it, naming its marker", err, who)
			}
			err = s.run(context.Background(), &Local{Workers: 1, Retries: 2}, false, nil)
			if err == nil || !strings.Contains(err.Error(), "another worker runs it") {
				t.Errorf("run: %v, want the stage failed: another worker runs job 1", err)
			}
			if runsOf(1) != 0 || s.Done(1) || s.Failure(1) != nil {
				t.Errorf("job 1 ran %d times, done %v, failure note %+v; want not run, no record, no note", runsOf(1), s.Done(1), s.Failure(1))
			}
			if data, _ := os.ReadFile(s.runningPath(1)); string(data) != string(marker) {
				t.Errorf("the marker of the live worker became %q", data)
			}
		})
	}
}

// TestSlurmLostKeepsLiveMarker: noting a lost Slurm task keeps a running marker of a live
// process of this host (a worker of that job other than the task), and removes a stale one.
func TestSlurmLostKeepsLiveMarker(t *testing.T) {
	fakeSlurm(t, map[string]string{"scontrol": "exit 1"})
	host, _ := os.Hostname()
	for _, c := range []struct {
		name string
		pid  int
		kept bool
	}{
		{"live", os.Getppid(), true},
		{"ended", deadPID(t), false},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := damagedStudy(t)
			marker, _ := json.Marshal(map[string]any{"host": host, "pid": c.pid, "started": time.Now().UTC()})
			os.WriteFile(s.runningPath(1), marker, 0o644)
			sub := Submission{Stage: "work", JobID: "7", Indices: []int{0, 1, 2}, Submitted: time.Now().Add(-time.Minute)}
			(&Slurm{}).noteLost(context.Background(), s, []Submission{sub}, nil)
			if _, err := os.Stat(s.runningPath(1)); (err == nil) != c.kept {
				t.Errorf("the marker of the %s process kept: %v, want %v", c.name, err == nil, c.kept)
			}
		})
	}
}
