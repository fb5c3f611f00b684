package kernel

import "testing"

// SetWorkerMessageMax lowers the largest request written on the pipes of the workers started
// until the test ends.
func SetWorkerMessageMax(t testing.TB, n int) {
	old := workerMessageMax
	workerMessageMax = n
	t.Cleanup(func() { workerMessageMax = old })
}
