package kernel

import "testing"

// SetWorkerMessageMax lowers the largest request written on the pipes of the workers started
// until the test ends.
func SetWorkerMessageMax(t testing.TB, n int) {
	old := workerMessageMax
	workerMessageMax = n
	t.Cleanup(func() { workerMessageMax = old })
}

// InstallOn is Install as it would run on the system goos (a runtime.GOOS value).
func InstallOn(goos string, cfg InstallConfig) (string, error) { return installOn(goos, cfg) }
