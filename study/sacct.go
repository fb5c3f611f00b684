package study

import (
	"context"
	"fmt"
	"strconv"
	"strings"
)

// An account is what Slurm's job accounting (sacct) has recorded of one array task.
type account struct {
	State  string // the first word of sacct's State: "CANCELLED" for "CANCELLED by 0"
	Exit   string // ExitCode, "code:signal"
	Reason string // the last reason the task waited for; "None" for none
}

// final reports whether the task has ended for good. States it does not know count as not
// final: the executor waits for them to change (bounded by sacctSettle).
func (a account) final() bool {
	switch a.State {
	case "BOOT_FAIL", "CANCELLED", "COMPLETED", "DEADLINE", "FAILED", "NODE_FAIL", "OUT_OF_MEMORY",
		"PREEMPTED", "REVOKED", "TIMEOUT":
		return true
	}
	return false
}

// sched is the study state (Queued or Running) of a task sacct reports as not ended.
func (a account) sched() State {
	switch a.State {
	case "PENDING", "REQUEUED", "REQUEUE_FED", "REQUEUE_HOLD", "SUSPENDED":
		return Queued
	}
	return Running
}

// String writes the account the way scontrol names the fields.
func (a account) String() string {
	s := "JobState=" + a.State + " ExitCode=" + a.Exit
	if a.Reason != "" && a.Reason != "None" {
		s += " Reason=" + a.Reason
	}
	return s
}

// accounts asks sacct how the tasks of the arrays ids stand, by study job index. It fails
// where sacct is missing or accounting is off.
func accounts(ctx context.Context, ids []string, byID map[string]Submission) (map[int]account, error) {
	out, err := slurmCmd(ctx, "sacct", "-n", "-X", "-P", "-j", strings.Join(ids, ","), "-o", "JobID,State,ExitCode,Reason")
	if err != nil {
		return nil, err
	}
	return parseSacct(out, byID)
}

// parseSacct reads the lines of `sacct -n -X -P -o JobID,State,ExitCode,Reason`, keeping those
// of the submitted arrays. A JobID is ARRAY_TASK ("123_4") for a task that has started and
// ARRAY_[LIST] ("123_[5-9%2]", "123_[1,3-5]") for the tasks still pending as one record; the
// study job of task t is the submission's Offset + t. Where a task has several lines the last
// one counts.
func parseSacct(out string, byID map[string]Submission) (map[int]account, error) {
	acct := map[int]account{}
	for _, line := range strings.Split(out, "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		f := strings.Split(line, "|")
		if len(f) != 4 {
			return nil, fmt.Errorf("study: sacct line %q: want 4 fields JobID|State|ExitCode|Reason", line)
		}
		job, tasks, ok := strings.Cut(f[0], "_")
		sub, ours := byID[job]
		if !ok || !ours {
			continue // another job, or a job that is not an array
		}
		list, err := arrayTasks(tasks)
		if err != nil {
			return nil, fmt.Errorf("study: sacct line %q: %w", line, err)
		}
		state, _, _ := strings.Cut(strings.TrimSpace(f[1]), " ")
		for _, t := range list {
			acct[sub.Offset+t] = account{State: state, Exit: f[2], Reason: f[3]}
		}
	}
	return acct, nil
}

// arrayTasks reads the task part of an array JobID: "4", or "[LIST]" with LIST as in
// sbatch --array ("5-9", "1,3-5", each optionally followed by "%N", the throttle).
func arrayTasks(s string) ([]int, error) {
	if !strings.HasPrefix(s, "[") {
		t, err := strconv.Atoi(s)
		if err != nil || t < 0 {
			return nil, fmt.Errorf("array task %q is not a task number", s)
		}
		return []int{t}, nil
	}
	list, ok := strings.CutSuffix(s[1:], "]")
	if !ok {
		return nil, fmt.Errorf("array tasks %q lack the closing ]", s)
	}
	list, _, _ = strings.Cut(list, "%")
	var out []int
	for _, part := range strings.Split(list, ",") {
		lo, hi, isRange := strings.Cut(part, "-")
		if !isRange {
			hi = lo
		}
		a, err1 := strconv.Atoi(lo)
		b, err2 := strconv.Atoi(hi)
		if err1 != nil || err2 != nil || a < 0 || b < a || b-a >= maxTasks {
			return nil, fmt.Errorf("array tasks %q: bad range %q", s, part)
		}
		for t := a; t <= b; t++ {
			out = append(out, t)
		}
	}
	return out, nil
}

// maxTasks bounds the tasks of one range: Slurm's MaxArraySize cannot exceed 4,000,001.
const maxTasks = 4000001
