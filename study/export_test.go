package study

// Exported for the external tests: what the local executor gives each script job.
var (
	MemoryShare    = memoryShare
	PhysicalMemory = physicalMemory
)

// TaskLogDelay is how long a worker writing a task's log waits for a process left behind to
// close the output it shares (the test binary's worker lowers it).
var TaskLogDelay = &taskLogDelay

// RequireStudyRuns skips a test that runs a study where study runs are refused (see
// requireStudyRuns).
var RequireStudyRuns = requireStudyRuns
