package extend

import "testing"

// SimWorker builds (once, in the tests' shared cache) the worker that links example.com/sim
// of testdata/nb, and returns the cache directory.
func SimWorker(t *testing.T) (cache string, w *Worker) {
	return shared.cache, simWorker(t)
}
