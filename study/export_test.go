package study

// Exported for the external tests: what the local executor gives each script job.
var (
	MemoryShare    = memoryShare
	PhysicalMemory = physicalMemory
)
